"""4X Dice (Martin Grider, 2013): the ruleset ``4x-dice`` (``shared/spec/4x-dice.md``).

Each player has dice lying in four action areas. On its turn a seat carries out
eXplore, eXpand, eXtract and eXterminate with the dice in those areas, then its dice are
rolled and it allocates them again for its next turn.

Readings this module fixes (the spec leaves them open):

* **RNG use.** The game's RNG (``engine.rng``, state kept in ``state["rng"]``) is used
  in this order: first, when ``setup.first`` is absent, one ``randbelow(n)`` draws the
  first seat (``players[k]``); then every die roll, one ``randbelow(6)`` per die indexing
  ``fourxdice_data.FACES``. Set-up rolls go seat by seat in seating order (``players``
  order, not turn order), each seat's dice in order; then each turn's roll.
* **setup.rolls** replaces rolls in that same order, one face ``[ships, asteroids]`` per
  die (any pair of non-negative integers, e.g. ``[0, 0]``). When the list runs out,
  later rolls come from the RNG again; rolls taken from the list do not touch the RNG.
* **End of the game.** A seat's turn is its four actions, then the roll and its
  allocation (spec, "Set-up and phases" step 2). The game ends after the turn of the
  last seat (the seat before the first seat) of a round at whose end any counter of
  any player stands at 19, i.e. once that seat has allocated. ``ROLL_AFTER_LAST_TURN``
  switches to the other reading (the game ends right after the last seat's actions and
  eXterminate hits, without rolling).
* **eXterminate past 19.** A hit may still be made when the eXterminate counter is at
  19; it still lowers the die but the counter stays at 19.
* **Order language.** Full area names only (no prefixes), any case. In a ``HIT`` list the
  word ``HIT`` may be left out after ``;`` (``HIT bob 1 SHIP; bob 3 ASTEROID``); hits may
  also be given one per line. Seat names match exactly, else ignoring case.
* **legal_orders** in the ``exterminate`` phase lists ``PASS``, then every hit list by
  size (1, 2, ... up to the ship count) in a stable order, cut at
  ``LEGAL_ORDERS_CAP`` orders.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

from engine import rng
from engine.base import Event, IllegalOrder, Option, Ruleset, ScriptError, State, order_lines
from engine.fourxdice_data import (
    AREAS,
    COUNTER_MAX,
    COUNTERS,
    DICE_CHOICES,
    DICE_DEFAULT,
    FACES,
    SCORE_WEIGHTS,
    VP_PER_PAIR,
)
from engine.words import counted

# Our reading of "the game ends after the last seat's turn": the turn includes the roll
# and the allocation, so the last seat allocates before the game ends. False: the game
# ends once the last seat's actions are carried out, without rolling.
ROLL_AFTER_LAST_TURN = True

# At most this many orders are listed by legal_orders in the eXterminate phase.
LEGAL_ORDERS_CAP = 1000

KINDS = ("SHIP", "ASTEROID")  # what a hit lowers: index 0 or 1 of a face


def _event(kind: str, text: str, **data: Any) -> Event:
    return {"kind": kind, "text": text, "to": None, "data": data}


def _face_text(face: list[int]) -> str:
    return f"[{face[0]}, {face[1]}]"


class FourXDice(Ruleset):
    """The 4X Dice ruleset: 2-6 players, 2-4 dice each, turns in seating order."""

    id: ClassVar[str] = "4x-dice"
    name: ClassVar[str] = "4X Dice"
    version: ClassVar[str] = "1"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6
    options: ClassVar[tuple[Option, ...]] = (
        Option("dice", DICE_DEFAULT, "dice per player: 2, 3 or 4", choices=DICE_CHOICES),
    )
    setup_keys: ClassVar[tuple[str, ...]] = ("first", "rolls")
    legal_orders_cap: ClassVar[int | None] = LEGAL_ORDERS_CAP

    # --- set-up -----------------------------------------------------------------

    def check_players(self, players: list[str]) -> None:
        """As every ruleset's, and no ``;`` in a name: it separates the hits of one
        ``HIT <seat> ...; HIT ...`` order, so a seat named with it could not be hit."""
        super().check_players(players)
        for p in players:
            if ";" in p:
                raise ScriptError(
                    f"player name {p!r} cannot be written in an order: ';' separates hits"
                )

    def new_game(
        self,
        *,
        players: list[str],
        options: Mapping[str, Any] | None = None,
        seed: int = 0,
        setup: Mapping[str, Any] | None = None,
    ) -> State:
        """Roll every seat's dice (or take ``setup.rolls``) and open the set-up
        ``allocate`` prompt for all seats. Raises ScriptError on bad input."""
        self.check_players(players)
        opts = self.normalize_options(options)
        setup = dict(setup or {})
        for key in setup:
            if key not in self.setup_keys:
                raise ScriptError(f"unknown setup key {key!r} for {self.id} (setup: first, rolls)")
        rolls = _check_rolls(setup.get("rolls", []))
        state: State = {
            "game": self.id,
            "players": list(players),
            "options": opts,
            "first": None,
            "rng": rng.seed_state(seed),
            "rolls": rolls,
            "rolls_used": 0,
            "round": 0,
            "phase": "allocate",
            "turn": None,
            "seats": {},
        }
        if setup.get("first") is not None:
            first = setup["first"]
            if not isinstance(first, str) or first not in players:
                raise ScriptError(
                    f"setup.first must name a player ({', '.join(players)}), not {first!r}"
                )
            state["first"] = first
        else:
            k, state["rng"] = rng.randbelow(state["rng"], len(players))
            state["first"] = players[k]
        for seat in players:
            record: dict[str, Any] = {c: 0 for c in COUNTERS}
            record["vp"] = 0
            record["dice"] = []
            state["seats"][seat] = record
        for seat in players:
            state["seats"][seat]["dice"] = [
                {"face": _next_face(state), "area": None} for _ in range(opts["dice"])
            ]
        return state

    # --- who must act -----------------------------------------------------------

    def pending(self, state: State) -> list[str]:
        """All seats during set-up; the seat whose turn it is afterwards; nobody once over."""
        if state["phase"] == "over":
            return []
        if state["round"] == 0:
            return list(state["players"])
        return [state["turn"]]

    def phase(self, state: State) -> str:
        """``allocate``, ``exterminate`` or ``over``."""
        return state["phase"]

    def progress(self, state: State) -> int:
        """The round being played: 0 during set-up, 1 for the first round of turns."""
        return state["round"]

    def is_over(self, state: State) -> bool:
        """Whether the game has ended."""
        return state["phase"] == "over"

    def ranking(self, state: State) -> list[list[str]] | None:
        """Seats grouped by final score, best first (seating order inside a group)."""
        if not self.is_over(state):
            return None
        scores = {seat: _score(state["seats"][seat]) for seat in state["players"]}
        groups: list[list[str]] = []
        for value in sorted(set(scores.values()), reverse=True):
            groups.append([s for s in state["players"] if scores[s] == value])
        return groups

    # --- orders -------------------------------------------------------------------

    def parse_order(self, state: State, seat: str, text: str) -> dict[str, Any]:
        """Parse ``ALLOCATE <area> ...`` (allocate) or ``HIT ...; ...`` / ``PASS``
        (exterminate). Raises IllegalOrder with what is wrong and what is allowed."""
        if seat not in state["seats"]:
            raise IllegalOrder(f"{seat!r} is not a seat in this game")
        if state["phase"] == "over":
            raise IllegalOrder("the game is over: no more orders")
        if seat not in self.pending(state):
            raise IllegalOrder(
                f"it is not your turn to order (pending now: {', '.join(self.pending(state))})"
            )
        if not isinstance(text, str):
            raise IllegalOrder("an order must be text")
        lines = order_lines(text)
        if state["phase"] == "allocate":
            return _parse_allocate(state, seat, lines)
        return _parse_exterminate(state, seat, lines)

    def in_order_language(self, text: str) -> bool:
        """Whether ``text`` is one 4X Dice order, legal now or not (``in_language``)."""
        return in_language(text)

    def resolve(
        self, state: State, orders: Mapping[str, dict[str, Any]]
    ) -> tuple[State, list[Event]]:
        """Apply the orders of every pending seat and play on until the next prompt."""
        pending = self.pending(state)
        if sorted(orders) != sorted(pending):
            raise IllegalOrder(f"resolve needs one order from each of: {', '.join(pending)}")
        new = copy.deepcopy(state)
        events: list[Event] = []
        if new["phase"] == "allocate":
            for seat in pending:
                _allocate(new, seat, orders[seat]["areas"], events)
            if new["round"] == 0:
                new["round"] = 1
                events.append(_event("round", "Round 1 begins.", round=1))
                _start_turn(new, new["first"], events)
            else:
                _after_allocation(new, pending[0], events)
        else:
            seat = pending[0]
            _exterminate(new, seat, orders[seat]["hits"], events)
            _finish_actions(new, seat, events)
        return new, events

    def default_order(self, state: State, seat: str) -> str:
        """Allocate to EXPLORE, EXPAND, EXTRACT, EXTERMINATE in turn; PASS on eXterminate."""
        if seat not in self.pending(state):
            raise IllegalOrder(f"{seat} is not pending")
        if state["phase"] == "exterminate":
            return "PASS"
        count = len(state["seats"][seat]["dice"])
        return "ALLOCATE " + " ".join(AREAS[i % len(AREAS)] for i in range(count))

    def forced_order(self, state: State, seat: str) -> str | None:
        """Never one legal order (an allocation has four areas for each die, and a seat
        is asked to eXterminate only when a hit is possible, PASS being the other
        choice), but an allocation in the last round is for a turn that never comes: the
        game ends after this round (a counter stands at 19), and dice score nothing. The
        spec still asks for it (the runner waits for it); the site enters the default
        allocation rather than hold the game up to a deadline for it."""
        if (state["phase"] == "allocate" and state["round"] > 0 and seat in self.pending(state)
                and _end_reached(state)):  # fmt: skip
            return self.default_order(state, seat)
        return None

    def legal_orders(self, state: State, seat: str) -> list[str]:
        """Every allocation (4^dice of them), or PASS and the hit lists (capped at
        ``LEGAL_ORDERS_CAP``); empty for a seat that is not pending."""
        if seat not in self.pending(state):
            return []
        if state["phase"] == "allocate":
            count = len(state["seats"][seat]["dice"])
            return ["ALLOCATE " + " ".join(combo) for combo in itertools.product(AREAS, repeat=count)]
        out = ["PASS"]
        targets = _targets(state, seat)
        units = sum(c for _, c in targets)
        for size in range(1, min(_ships_in(state, seat, "EXTERMINATE"), units) + 1):
            for combo in _multisets(targets, size):
                if len(out) >= LEGAL_ORDERS_CAP:
                    return out
                out.append("; ".join(f"HIT {t[0]} {t[1]} {t[2]}" for t in combo))
        return out

    # --- what people see ----------------------------------------------------------

    def view(self, state: State, seat: str | None) -> dict[str, Any]:
        """The public table: 4X Dice has no secrets, so every seat sees everything."""
        out = {"game": self.id, "seat": seat}
        out.update(self.report(state))
        return out

    def report(self, state: State) -> dict[str, Any]:
        """round, phase, pending, first, turn, players (counters, vp, score, dice), ranking."""
        players: dict[str, Any] = {}
        for seat in state["players"]:
            rec = state["seats"][seat]
            entry: dict[str, Any] = {c: rec[c] for c in COUNTERS}
            entry["vp"] = rec["vp"]
            entry["score"] = _score(rec)
            entry["dice"] = [{"face": list(d["face"]), "area": d["area"]} for d in rec["dice"]]
            players[seat] = entry
        out: dict[str, Any] = {
            "round": state["round"],
            "phase": state["phase"],
            "pending": self.pending(state),
            "first": state["first"],
            "turn": state["turn"],
            "players": players,
        }
        if self.is_over(state):
            out["ranking"] = self.ranking(state)
        return out


# --- set-up helpers -----------------------------------------------------------------


def _check_rolls(rolls: Any) -> list[list[int]]:
    """Check ``setup.rolls``: a list of ``[ships, asteroids]`` non-negative integers."""
    if not isinstance(rolls, list):
        raise ScriptError("setup.rolls must be a list of faces [ships, asteroids]")
    out = []
    for i, face in enumerate(rolls):
        ok = (
            isinstance(face, list)
            and len(face) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in face)
        )
        if not ok:
            raise ScriptError(
                f"setup.rolls[{i}] must be a face [ships, asteroids] of two whole numbers "
                f"from 0 up, not {face!r}"
            )
        out.append([face[0], face[1]])
    return out


def _next_face(state: State) -> list[int]:
    """The next roll of one die: from ``setup.rolls`` while it lasts, then the RNG."""
    if state["rolls_used"] < len(state["rolls"]):
        face = list(state["rolls"][state["rolls_used"]])
        state["rolls_used"] += 1
        return face
    k, state["rng"] = rng.randbelow(state["rng"], len(FACES))
    return list(FACES[k])


def _score(rec: Mapping[str, Any]) -> int:
    return rec["vp"] + sum(rec[c] * w for c, w in SCORE_WEIGHTS.items())


def _ships_in(state: State, seat: str, area: str) -> int:
    return sum(d["face"][0] for d in state["seats"][seat]["dice"] if d["area"] == area)


def _asteroids_in(state: State, seat: str, area: str) -> int:
    return sum(d["face"][1] for d in state["seats"][seat]["dice"] if d["area"] == area)


def _others(state: State, seat: str) -> list[str]:
    return [s for s in state["players"] if s != seat]


def _targets(state: State, seat: str) -> list[tuple[tuple[str, int, str], int]]:
    """Every (seat, die number, SHIP|ASTEROID) another seat's dice show, with its count."""
    out = []
    for other in _others(state, seat):
        for n, die in enumerate(state["seats"][other]["dice"], start=1):
            for index, kind in enumerate(KINDS):
                if die["face"][index] > 0:
                    out.append(((other, n, kind), die["face"][index]))
    return out


def _multisets(
    targets: list[tuple[tuple[str, int, str], int]], size: int, start: int = 0
) -> Iterator[list[tuple[str, int, str]]]:
    """Every multiset of ``size`` hits from ``targets`` (each at most its count), in a
    stable lexicographic order."""
    if size == 0:
        yield []
        return
    for i in range(start, len(targets)):
        key, count = targets[i]
        for take in range(min(count, size), 0, -1):
            for rest in _multisets(targets, size - take, i + 1):
                yield [key] * take + rest


def _end_reached(state: State) -> bool:
    return any(state["seats"][s][c] >= COUNTER_MAX for s in state["players"] for c in COUNTERS)


def _last_seat(state: State) -> str:
    players = state["players"]
    return players[(players.index(state["first"]) - 1) % len(players)]


# --- parsing ------------------------------------------------------------------------


def _allocate_hint(count: int) -> str:
    example = " ".join(AREAS[i % len(AREAS)] for i in range(count))
    return (
        f"send ALLOCATE and {count} areas, one per die in order "
        f"(EXPLORE, EXPAND, EXTRACT or EXTERMINATE), e.g. ALLOCATE {example}"
    )


def _hit_hint(state: State, seat: str, ships: int) -> str:
    """How to write hits, with an example the seat may send as it stands: hits from
    ``_targets`` (what ``legal_orders`` lists), the next seat clockwise first, one hit
    with one ship. A fixed "HIT bob 1 SHIP; HIT bob 2 ASTEROID" was refused with one ship
    ("at most 1 hit") or when bob's dice showed no such ship or asteroid (an audit)."""
    targets = _targets(state, seat)
    most = min(ships, sum(count for _, count in targets))
    count = f"up to {counted(most, 'hit')}" + (", separated by ';'" if most > 1 else "")
    example = _hit_example(state, seat, targets, most)
    shown = f" (e.g. {example})" if example else ""
    return f"send HIT <seat> <die> SHIP|ASTEROID, {count}{shown}, or PASS"


def _hit_example(
    state: State, seat: str, targets: list[tuple[tuple[str, int, str], int]], most: int
) -> str:
    """A legal hit list of ``min(most, 2)`` hits (``most`` at most the targets' count):
    different targets if there are two, the seats after ``seat`` clockwise first."""
    players = list(state["players"])
    start = players.index(seat) + 1 if seat in players else 0
    order = {name: (i - start) % len(players) for i, name in enumerate(players)}
    ranked = sorted(targets, key=lambda item: order.get(item[0][0], 0))  # stable
    size = min(most, 2)
    picked = [key for key, _ in ranked[:size]]
    if len(picked) < size:  # one target only, showing two or more: hit it twice
        picked.append(picked[0])
    return "; ".join(f"HIT {t} {d} {k}" for t, d, k in picked)


def _parse_allocate(state: State, seat: str, lines: list[str]) -> dict[str, Any]:
    count = len(state["seats"][seat]["dice"])
    if not lines:
        raise IllegalOrder(f"empty order: {_allocate_hint(count)}")
    if len(lines) > 1:
        raise IllegalOrder(f"send one order on one line, not {len(lines)} lines: {_allocate_hint(count)}")
    tokens = lines[0].replace(",", " ").split()
    if not tokens:  # a line of commas only
        raise IllegalOrder(f"empty order: {_allocate_hint(count)}")
    if tokens[0].upper() != "ALLOCATE":
        first = tokens[0].upper()
        if first in AREAS:  # "explore expand extract": the areas without the word
            raise IllegalOrder(f"start the order with ALLOCATE: {_allocate_hint(count)}")
        if first.rstrip(":;.") == "ALLOCATE":  # "ALLOCATE: explore expand"
            raise IllegalOrder(f"write ALLOCATE without {first[-1]!r}: {_allocate_hint(count)}")
        if first not in ("PASS", "HIT"):  # "alocate ...": say which word was not read
            raise IllegalOrder(f"{tokens[0]!r} is not ALLOCATE: {_allocate_hint(count)}")
        raise IllegalOrder(f"you are allocating your dice now, so {_allocate_hint(count)}")
    areas = []
    for word in tokens[1:]:
        if word.upper() not in AREAS:
            raise IllegalOrder(
                f"{word!r} is not an area: the areas are EXPLORE, EXPAND, EXTRACT and EXTERMINATE"
            )
        areas.append(word.upper())
    if len(areas) != count:
        raise IllegalOrder(f"you have {count} dice: name {count} areas")
    return {"kind": "allocate", "areas": areas}


def in_language(text: str) -> bool:
    """Whether ``text`` is one 4X Dice order, legal now or not, whatever the table (the
    spec's forms, read as ``parse_order`` reads them): ``ALLOCATE`` and an area for each
    die of a game (2 to 4, ``DICE_CHOICES``) on one line; ``PASS``; or a ``HIT`` list,
    ``HIT <seat> <die> SHIP|ASTEROID``, hits separated by ``;`` or put one per line, the
    word ``HIT`` optional after the first. Any seat name is one here (no table to look
    it up in); hits run together without ``;`` ("HIT bob 1 SHIP HIT cat 2 SHIP") or
    with commas are not a hit list."""
    if not isinstance(text, str):
        return False
    lines = order_lines(text)
    if not lines:
        return False
    first = lines[0].replace(",", " ").split()
    if first and first[0].upper() == "ALLOCATE":
        areas = first[1:]
        return (
            len(lines) == 1
            and min(DICE_CHOICES) <= len(areas) <= max(DICE_CHOICES)
            and all(area.upper() in AREAS for area in areas)
        )
    segments = [s.strip() for line in lines for s in line.split(";") if s.strip()]
    if [s.upper() for s in segments] == ["PASS"]:
        return True
    if not segments or segments[0].split()[0].upper() != "HIT":
        return False
    for n, segment in enumerate(segments):
        tokens = segment.split()
        if tokens[0].upper() == "HIT" and (n == 0 or len(tokens) > 3):
            tokens = tokens[1:]
        if len(tokens) < 3 or "," in segment:
            return False
        seat, die, kind = tokens[:-2], tokens[-2], tokens[-1]
        if not (die.isascii() and die.isdigit()) or kind.upper() not in KINDS:
            return False
        for word, after in itertools.pairwise(seat):
            if word.isdigit() and after.upper() in KINDS:
                return False  # "bob 1 SHIP HIT cat": two hits without ';'
    return True


def _find_seat(state: State, text: str) -> str | None:
    if text in state["seats"]:
        return text
    matches = [s for s in state["players"] if s.lower() == text.lower()]
    return matches[0] if len(matches) == 1 else None


def _words_after_hit(state: State, tokens: list[str]) -> tuple[str | None, list[str]]:
    """``(seat, words)``: the seat a complete hit ("<seat> <die> SHIP|ASTEROID") at the
    start of ``tokens`` names and the words after it; ``(None, [])`` when they do not
    start with one or nothing follows it."""
    for end in range(1, len(tokens) - 2):
        named = _find_seat(state, " ".join(tokens[:end]))
        if (
            named is not None
            and tokens[end].isascii() and tokens[end].isdigit()
            and tokens[end + 1].upper() in KINDS
        ):
            return named, tokens[end + 2:]
    return None, []


def _parse_hit(state: State, seat: str, segment: str, ships: int) -> tuple[str, int, str]:
    tokens = segment.split()
    # The word HIT is optional (after ';'), unless a seat is really called "hit".
    if tokens[0].upper() == "HIT" and (len(tokens) != 3 or _find_seat(state, tokens[0]) is None):
        tokens = tokens[1:]
    if len(tokens) == 2 and tokens[1].isdigit():
        raise IllegalOrder(
            f"say what the hit lowers: HIT {tokens[0]} {tokens[1]} SHIP "
            f"or HIT {tokens[0]} {tokens[1]} ASTEROID"
        )
    if len(tokens) < 3:
        raise IllegalOrder(f"cannot read {segment!r}: {_hit_hint(state, seat, ships)}")
    target_text, die_text, kind_text = " ".join(tokens[:-2]), tokens[-2], tokens[-1]
    target = _find_seat(state, target_text)
    if target is None:
        words = target_text.replace(",", " ").split()
        if "," in segment or any(w.upper() == "HIT" for w in words):
            # "HIT cat 3 SHIP, HIT dan 1 ASTEROID": several hits read as one seat's name.
            raise IllegalOrder(f"cannot read {segment!r}: {_hit_hint(state, seat, ships)}")
        named, extra = _words_after_hit(state, tokens)
        if named == seat:  # "HIT ann 1 SHIP pls" from ann: the first thing wrong
            raise IllegalOrder("you cannot hit your own dice")
        if extra:
            # "HIT alice 1 SHIP pls": a hit, then words that are not part of it.
            raise IllegalOrder(
                f"{' '.join(extra)!r} after HIT {' '.join(tokens[: len(tokens) - len(extra)])} "
                f"is not part of a hit: {_hit_hint(state, seat, ships)}"
            )
        if len(words) > 1 and _find_seat(state, words[0]) is not None:
            # "HIT dan die 1 SHIP": a word between the seat and the die's number.
            raise IllegalOrder(
                f"there is no seat {target_text!r}: write the seat, then the die's number "
                f"(HIT {_find_seat(state, words[0])} 1 SHIP)"
            )
        raise IllegalOrder(
            f"there is no seat {target_text!r} (seats: {', '.join(state['players'])})"
        )
    if target == seat:
        raise IllegalOrder("you cannot hit your own dice")
    count = len(state["seats"][target]["dice"])
    if (
        not (die_text.isascii() and die_text.isdigit())
        # A number of more digits than any die's (Python refuses to read one of over
        # 4,300 digits: the runner crashed on such a hit).
        or len(die_text.lstrip("0")) > 9
        or not 1 <= int(die_text) <= count
    ):
        raise IllegalOrder(
            f"{target} has {count} dice, numbered 1 to {count}: {die_text!r} is not one of them"
        )
    kind = kind_text.upper()
    if kind not in KINDS:
        raise IllegalOrder(f"a hit lowers a SHIP or an ASTEROID, not {kind_text!r}")
    return target, int(die_text), kind


def _parse_exterminate(state: State, seat: str, lines: list[str]) -> dict[str, Any]:
    ships = _ships_in(state, seat, "EXTERMINATE")
    segments = [s.strip() for line in lines for s in line.split(";") if s.strip()]
    if not segments:
        raise IllegalOrder(f"empty order: {_hit_hint(state, seat, ships)}")
    if any(s.upper() == "PASS" for s in segments):
        if len(segments) > 1:
            raise IllegalOrder(f"PASS means no hits: send PASS alone, or only hits ({_hit_hint(state, seat, ships)})")
        return {"kind": "exterminate", "hits": []}
    if segments[0].split()[0].upper() == "ALLOCATE":
        raise IllegalOrder(
            f"you eXterminate before you roll and allocate: {_hit_hint(state, seat, ships)}"
        )
    hits = [_parse_hit(state, seat, s, ships) for s in segments]
    if len(hits) > ships:
        raise IllegalOrder(
            f"you have {counted(ships, 'ship')}, so at most {counted(ships, 'hit')}"
        )
    shown: dict[tuple[str, int, str], int] = {}
    for key in hits:
        target, die, kind = key
        earlier = key in shown
        if not earlier:
            shown[key] = state["seats"][target]["dice"][die - 1]["face"][KINDS.index(kind)]
        if shown[key] == 0:
            left = " left after your earlier hits on it" if earlier else ""
            raise IllegalOrder(f"{target}'s die {die} shows no {kind.lower()}{left}")
        shown[key] -= 1
    return {
        "kind": "exterminate",
        "hits": [{"seat": t, "die": d, "lower": k} for t, d, k in hits],
    }


# --- resolution -----------------------------------------------------------------------


def _allocate(state: State, seat: str, areas: list[str], events: list[Event]) -> None:
    dice = state["seats"][seat]["dice"]
    for die, area in zip(dice, areas, strict=True):
        die["area"] = area
    listed = ", ".join(f"{_face_text(d['face'])} to {d['area']}" for d in dice)
    events.append(_event("allocate", f"{seat} allocated {listed}.", seat=seat, areas=areas))


def _start_turn(state: State, seat: str, events: list[Event]) -> None:
    """Carry out eXplore, eXpand and eXtract; open eXterminate if it has a choice."""
    state["turn"] = seat
    rec = state["seats"][seat]
    events.append(_event("turn", f"Round {state['round']}: {seat}'s turn.", seat=seat))
    has = {area: any(d["area"] == area for d in rec["dice"]) for area in AREAS}
    if has["EXPLORE"]:
        ships = _ships_in(state, seat, "EXPLORE")
        gain = min(ships, COUNTER_MAX - rec["explore"])
        rec["explore"] += gain
        capped = f" ({ships} ships, track capped at {COUNTER_MAX})" if gain < ships else ""
        events.append(_event(
            "explore", f"{seat} explored {gain}{capped} (now {rec['explore']}).",
            seat=seat, gain=gain, value=rec["explore"],
        ))
    if has["EXPAND"]:
        asteroids = _asteroids_in(state, seat, "EXPAND")
        gain = max(0, min(asteroids, rec["explore"] - rec["expand"], COUNTER_MAX - rec["expand"]))
        rec["expand"] += gain
        capped = (
            f" of {counted(asteroids, 'asteroid')}, no farther than eXplore {rec['explore']}"
            if gain < asteroids else ""
        )
        events.append(_event(
            "expand", f"{seat} expanded {gain}{capped} (now {rec['expand']}).",
            seat=seat, gain=gain, value=rec["expand"],
        ))
    if has["EXTRACT"]:
        pairs = min(_ships_in(state, seat, "EXTRACT"), _asteroids_in(state, seat, "EXTRACT"))
        used = min(pairs, rec["expand"])
        vp = VP_PER_PAIR * used
        rec["vp"] += vp
        rec["extract"] = min(COUNTER_MAX, rec["extract"] + 1)
        limit = f" (of {pairs}, limited by eXpand {rec['expand']})" if used < pairs else ""
        events.append(_event(
            "extract",
            f"{seat} extracted {counted(used, 'pair')}{limit}: {vp} VP (now {rec['vp']} VP); "
            f"eXtract now {rec['extract']}.",
            seat=seat, pairs=used, vp=vp, value=rec["extract"],
        ))
    ships = _ships_in(state, seat, "EXTERMINATE")
    if ships > 0 and _targets(state, seat):
        state["phase"] = "exterminate"
        events.append(_event(
            "exterminate-prompt",
            f"{seat} has {counted(ships, 'ship')} to eXterminate with.",
            seat=seat, ships=ships,
        ))
        return
    if ships > 0:
        events.append(_event(
            "exterminate",
            f"{seat} has {counted(ships, 'ship')} on eXterminate but no other die shows anything.",
            seat=seat, ships=ships, hits=0,
        ))
    _finish_actions(state, seat, events)


def _exterminate(state: State, seat: str, hits: list[dict[str, Any]], events: list[Event]) -> None:
    rec = state["seats"][seat]
    if not hits:
        events.append(_event("exterminate", f"{seat} passed on eXterminate.", seat=seat, hits=0))
        return
    for hit in hits:
        target, die, lower = hit["seat"], hit["die"], hit["lower"]
        face = state["seats"][target]["dice"][die - 1]["face"]
        index = KINDS.index(lower)
        if face[index] <= 0:  # parse_order refuses this; never let a count go negative
            raise IllegalOrder(f"{target}'s die {die} shows no {lower.lower()}")
        face[index] -= 1
        rec["exterminate"] = min(COUNTER_MAX, rec["exterminate"] + 1)
        events.append(_event(
            "hit",
            f"{seat} hit {target}'s die {die}: one {lower.lower()} fewer "
            f"(now {_face_text(face)}); eXterminate now {rec['exterminate']}.",
            seat=seat, target=target, die=die, lower=lower, face=list(face),
            value=rec["exterminate"],
        ))


def _finish_actions(state: State, seat: str, events: list[Event]) -> None:
    """After the actions: roll the seat's dice and ask it to allocate them (or end the
    game here under the other reading, see ROLL_AFTER_LAST_TURN)."""
    if not ROLL_AFTER_LAST_TURN and seat == _last_seat(state) and _end_reached(state):
        _end_game(state, events)
        return
    dice = state["seats"][seat]["dice"]
    for die in dice:
        die["face"] = _next_face(state)
        die["area"] = None
    rolled = ", ".join(_face_text(d["face"]) for d in dice)
    events.append(_event(
        "roll", f"{seat} rolled {rolled}.", seat=seat, faces=[list(d["face"]) for d in dice]
    ))
    state["phase"] = "allocate"


def _after_allocation(state: State, seat: str, events: list[Event]) -> None:
    """The seat's turn is over: pass to the seat on its left, or end the game."""
    players = state["players"]
    following = players[(players.index(seat) + 1) % len(players)]
    if following == state["first"]:
        if _end_reached(state):
            _end_game(state, events)
            return
        state["round"] += 1
        events.append(_event("round", f"Round {state['round']} begins.", round=state["round"]))
    _start_turn(state, following, events)


def _end_game(state: State, events: list[Event]) -> None:
    state["phase"] = "over"
    state["turn"] = None
    scores = {s: _score(state["seats"][s]) for s in state["players"]}
    listed = ", ".join(f"{s} {scores[s]}" for s in state["players"])
    events.append(_event(
        "over", f"The game is over after round {state['round']}. Final scores: {listed}.",
        scores=scores,
    ))
