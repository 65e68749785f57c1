"""The contract every ruleset implements (see ``shared/spec/engine.md``).

A game is a sequence of sealed prompts. A ruleset is a stateless object whose methods
are pure functions of a *state*: a plain JSON-compatible ``dict`` that the ruleset alone
understands (configuration lives in it too, under keys the ruleset chooses). Because a
state is plain JSON, it round-trips through ``json`` without loss and the server can
store it as a snapshot; because every method is pure and all randomness comes from the
RNG state kept inside the state (``engine.rng``), the same setup and orders give the
same game byte for byte.

Orders are text in the game's order language. ``parse_order`` turns one seat's text
into a parsed order (a JSON-compatible dict) or raises :class:`IllegalOrder` with a
human reason; ``resolve`` applies a whole batch of parsed orders, one per pending seat.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

State = dict[str, Any]
Event = dict[str, Any]
"""An event: ``{"kind": str, "text": str, "to": None | [seat, ...], "data": {...}}``.

``to`` is ``None`` for a public event; otherwise only the listed seats (and the umpire)
may see it. ``text`` is a complete human sentence; ``data`` holds machine-readable
details with the same visibility as the text.
"""


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""


class ScriptError(EngineError):
    """A game cannot be set up as asked: unknown option, bad value, wrong player count,
    bad setup override. The runner exits 2 on it."""


class IllegalOrder(EngineError):
    """An order that cannot be accepted now. ``reason`` says what was wrong and what is
    allowed; it never reveals anything the ordering seat may not know."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class StepRejected(EngineError):
    """A batch of orders was refused as a whole; nothing changed."""

    def __init__(self, seat: str, order: str | None, reason: str) -> None:
        super().__init__(f"{seat}: {reason}")
        self.seat = seat
        self.order = order
        self.reason = reason


@dataclass(frozen=True)
class Option:
    """One ruleset option: its name, default, type and allowed values."""

    name: str
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None

    def check(self, value: Any) -> Any:
        """Return ``value`` if it is allowed for this option, else raise ScriptError."""
        kind = type(self.default)
        if kind is bool:
            ok = isinstance(value, bool)
        elif kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        else:
            ok = isinstance(value, kind)
        if not ok:
            what = {bool: "true or false", int: "a whole number", str: "a string"}.get(
                kind, f"a {kind.__name__}"
            )
            raise ScriptError(f"option {self.name!r} must be {what}, not {json.dumps(value)}")
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(json.dumps(c) for c in self.choices)
            raise ScriptError(f"option {self.name!r} must be one of {allowed}")
        if self.minimum is not None and value < self.minimum:
            raise ScriptError(f"option {self.name!r} must be at least {self.minimum}")
        if self.maximum is not None and value > self.maximum:
            raise ScriptError(f"option {self.name!r} must be at most {self.maximum}")
        return value

    def describe(self) -> dict[str, Any]:
        """A JSON description, for ``python -m engine games`` and game-creation forms."""
        out: dict[str, Any] = {"name": self.name, "default": self.default, "help": self.help}
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out


class Ruleset:
    """Base class of a ruleset. Subclasses set the class attributes and implement the
    methods below; every method is a pure function of its arguments."""

    id: ClassVar[str]
    name: ClassVar[str]
    version: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    options: ClassVar[tuple[Option, ...]] = ()
    setup_keys: ClassVar[tuple[str, ...]] = ()
    # The most orders ``legal_orders`` lists (None: every one); past it the others are
    # legal too, and may be typed.
    legal_orders_cap: ClassVar[int | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A ruleset's own ``resolve`` takes parsed orders; wrapped, it takes order text
        too (engine.md: ``resolve(state, {seat: order})`` with orders in the order
        language), each parsed by ``parse_order`` first (IllegalOrder if it does not
        parse)."""
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("resolve")
        if own is None or getattr(own, "_takes_text", False):
            return

        @functools.wraps(own)
        def resolve(
            self: Ruleset, state: State, orders: Mapping[str, Any]
        ) -> tuple[State, list[Event]]:
            if any(isinstance(order, str) for order in orders.values()):
                orders = {
                    seat: self.parse_order(state, seat, order) if isinstance(order, str) else order
                    for seat, order in orders.items()
                }
            return own(self, state, orders)

        resolve._takes_text = True  # type: ignore[attr-defined]
        cls.resolve = resolve  # type: ignore[method-assign]

    # --- set-up -----------------------------------------------------------------

    def normalize_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Fill defaults and check every option; raise ScriptError on an unknown
        option or a bad value."""
        options = dict(options or {})
        known = {o.name: o for o in self.options}
        for name in options:
            if name not in known:
                allowed = ", ".join(sorted(known)) or "none"
                raise ScriptError(f"unknown option {name!r} for {self.id} (options: {allowed})")
        return {o.name: o.check(options.get(o.name, o.default)) for o in self.options}

    def check_players(self, players: list[str]) -> None:
        """Raise ScriptError unless ``players`` is a list of distinct, non-empty names
        of an allowed count."""
        ok = isinstance(players, list)
        if ok:
            for p in players:
                if not (isinstance(p, str) and p):
                    ok = False
                    break
        if not ok:
            raise ScriptError("players must be a list of non-empty names")
        for p in players:
            # Orders name seats (5X's TAKE ... FROM <seat>, 4X Dice's HIT <seat> ...) on one
            # line where runs of spaces do not count: a name must be written that way.
            if not p.isprintable() or p != " ".join(p.split()):
                raise ScriptError(
                    f"player name {p!r} cannot be written in an order: a name is one line "
                    "of visible characters, single spaces between words"
                )
        if len(set(players)) != len(players):
            raise ScriptError("player names must be distinct")
        if not self.min_players <= len(players) <= self.max_players:
            raise ScriptError(
                f"{self.name} is for {self.min_players} to {self.max_players} players, "
                f"not {len(players)}"
            )

    def new_game(
        self,
        *,
        players: list[str],
        options: Mapping[str, Any] | None = None,
        seed: int = 0,
        setup: Mapping[str, Any] | None = None,
    ) -> State:
        """Return the initial state: seats in clockwise order, options checked, random
        set-up drawn from ``seed`` unless ``setup`` fixes it. Forced prompts at the
        start are already answered. Raises ScriptError."""
        raise NotImplementedError

    # --- who must act -----------------------------------------------------------

    def players(self, state: State) -> list[str]:
        """The seats in clockwise order."""
        return list(state["players"])

    def pending(self, state: State) -> list[str]:
        """The seats that must send an order now, in seating order (empty when over)."""
        raise NotImplementedError

    def phase(self, state: State) -> str:
        """The name of the current prompt (``"over"`` once the game has ended)."""
        raise NotImplementedError

    def progress(self, state: State) -> int:
        """The round (or turn) number being played, for display and deadlines."""
        raise NotImplementedError

    def is_over(self, state: State) -> bool:
        """Whether the game has ended."""
        raise NotImplementedError

    def ranking(self, state: State) -> list[list[str]] | None:
        """The final ranking in groups, best first, or ``None`` while the game runs."""
        raise NotImplementedError

    # --- orders -------------------------------------------------------------------

    def parse_order(self, state: State, seat: str, text: str) -> dict[str, Any]:
        """Parse and validate one seat's order text for the current prompt.

        Returns the parsed order (JSON-compatible). Raises IllegalOrder with a precise
        reason naming what is allowed now. Never changes ``state``."""
        raise NotImplementedError

    def resolve(
        self, state: State, orders: Mapping[str, dict[str, Any]]
    ) -> tuple[State, list[Event]]:
        """Apply one order for every pending seat (parsed, or its text: see
        ``__init_subclass__``); return the new state and the events, in order. Forced
        prompts that follow are answered by the engine. Never changes ``state``."""
        raise NotImplementedError

    def default_order(self, state: State, seat: str) -> str:
        """The order text used for a pending seat that missed its deadline."""
        raise NotImplementedError

    def legal_orders(self, state: State, seat: str) -> list[str]:
        """Every legal order text for a pending seat now (for forms and HELP), in a
        stable order. Empty for a seat that is not pending."""
        raise NotImplementedError

    def forced_order(self, state: State, seat: str) -> str | None:
        """The order of a pending seat that has exactly one legal order (engine.md's
        forced prompt), or whose choice the rules make pointless (4X Dice: an allocation
        in the last round), or ``None`` when it has a choice. The rulesets' specs list
        such seats as pending (the runner waits for them, as the conformance cases
        expect); the site enters this order for the seat when the prompt opens, so that
        nobody is asked a question with one answer. Default: from ``legal_orders``."""
        legal = self.legal_orders(state, seat)
        return legal[0] if len(legal) == 1 else None

    def in_order_language(self, text: str) -> bool:
        """Whether ``text`` is written as one order of this game's order language, legal
        now or not, in any phase: its form, with words the game knows (a card, a colour,
        an area), whatever the table (5X's ``PLAY EXPAND`` during the leader draft is
        one; ``PLAY HELLO`` is not). Every order ``legal_orders`` lists is one. Optional,
        not part of ``python -m engine run``: the email gateway asks it to read an order
        written one word per line (a verb not legal now still earns the refusal of the
        line it makes) and to tell a signature from the order's words. Pure, stateless.
        Default: False (no order language known: nothing is read into such text)."""
        return False

    # --- what people see ----------------------------------------------------------

    def view(self, state: State, seat: str | None) -> dict[str, Any]:
        """What ``seat`` may know now (``None``: a spectator). Must never contain another
        seat's hidden information."""
        raise NotImplementedError

    def report(self, state: State) -> dict[str, Any]:
        """The umpire's complete table, as ``python -m engine run`` prints it (every
        field but ``game``, ``status`` and ``rejected``), keys in the spec's order."""
        raise NotImplementedError

    def secrets(self, state: State, seat: str) -> list[str]:
        """What only ``seat`` may know now, as fragments of canonical JSON (the way
        ``dumps`` writes them), e.g. ``'"hand":["EXPLOIT","GANDHI"]'``. The generic
        property tests check that no other seat's ``view`` and no event another seat
        may see contains one of them (unless that seat legitimately holds the same
        fragment). Default: no secrets."""
        return []

    def revealed(self, state: State, seat: str) -> dict[str, Any]:
        """``seat``'s hidden information as fields of its entry in ``view``'s
        ``players``, for everyone to see once the game is over: the site turns every
        hand face up in a game that ended, including one a walkover or its organizer
        ended before its rules did (its seed and set-up are public then). Not part of
        the runner's output. Default: nothing hidden."""
        return {}

    # --- helpers shared by every ruleset ------------------------------------------

    def describe(self) -> dict[str, Any]:
        """A JSON description of the ruleset for listings and forms."""
        return {
            "id": self.id,
            "name": self.name,
            "version": self.version,
            "players": [self.min_players, self.max_players],
            "options": [o.describe() for o in self.options],
            "setup": list(self.setup_keys),
        }

    def submit_step(
        self, state: State, step: Mapping[str, str]
    ) -> tuple[State, list[Event]]:
        """Validate a whole step of order texts (one per pending seat, no other seat)
        and resolve it. Raises StepRejected (nothing changes) when a seat in the step is
        not pending, a pending seat is missing, or an order is illegal."""
        pending = self.pending(state)
        pending_set = set(pending)
        for seat, text in step.items():
            if seat not in pending_set:
                if pending:
                    who = "pending now: " + ", ".join(pending)
                else:
                    who = "nobody is pending: the game is over"
                raise StepRejected(seat, text, f"{seat} is not pending ({who})")
        for seat in pending:
            if seat not in step:
                raise StepRejected(seat, None, f"no order from {seat}, who is pending")
        if not pending:
            # Nobody is pending (the game is over) and the step is empty: it holds an
            # order for every pending seat and no other, so it applies, changing nothing.
            return state, []
        parsed = {}
        for seat in pending:
            try:
                parsed[seat] = self.parse_order(state, seat, step[seat])
            except IllegalOrder as exc:
                raise StepRejected(seat, step[seat], exc.reason) from None
        return self.resolve(state, parsed)


def events_for(events: list[Event], seat: str | None) -> list[Event]:
    """The events ``seat`` may see (``None``: only public events)."""
    return [e for e in events if e.get("to") is None or (seat is not None and seat in e["to"])]


def dumps(state: Any) -> str:
    """Canonical JSON of a state (sorted keys, no spaces): equal states give equal
    bytes, which is what replays and audit hashes compare."""
    return json.dumps(state, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def order_lines(text: str) -> list[str]:
    """The meaningful lines of an order text: stripped, with blank lines and lines
    starting with ``#`` dropped, inner runs of spaces folded to one."""
    out = []
    for raw in text.splitlines():
        line = " ".join(raw.split())
        if line and not line.startswith("#"):
            out.append(line)
    return out
