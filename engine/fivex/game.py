"""The ``5x`` ruleset: David Brain's 5X, exactly as ``shared/spec/5x.md`` rules it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.base import Event, IllegalOrder, Option, Ruleset, ScriptError, State
from engine.fivex import data as D
from engine.fivex import orders as O
from engine.fivex import rules as R
from engine.fivex import view as V

_CODE = D.CARD_CODE
_PLAY_TEXTS = O.PLAY_TEXTS
_BID_TEXTS = O.BID_TEXTS
_PASS_TEXT = O.PASS_TEXT
_FAST = O.FAST
_KIND = O.PHASE_KIND
_K_PLAY, _K_BID, _K_PASS, _K_DIDO, _K_TAKE = O.K_PLAY, O.K_BID, O.K_PASS, O.K_DIDO, O.K_TAKE
_MIN_BID = R.MIN_BID
_IDS = D.CARD_IDS
_PLAY_PHASES = R.PLAY_PHASES
_BID = R.BID
_DRAFT = R.DRAFT
_EXCAVATE_PHASE = R.EXCAVATE_PHASE
_CAESAR = D.CAESAR
_SULEIMAN = D.SULEIMAN
_TAKE_TEXT = O.TAKE_TEXT
_play_fast = R.play_fast
_draft_fast = R.draft_fast
_FAST_BY_PHASE: dict[str, dict[str, tuple[int, Any, Any]]] = {}
"""Phase -> canonical text of that phase -> (kind, argument, the parsed order's value)."""
for _text, (_kind, _x) in _FAST.items():
    for _phase, _k in _KIND.items():
        if _k == _kind:
            _out = _IDS[_x] if _kind in (_K_PLAY, _K_TAKE, _K_PASS) else _x
            _FAST_BY_PHASE.setdefault(_phase, {})[_text] = (_kind, _x, _out)


_DEFAULTS = {"leaders": True, "all_leaders": False}


class FiveX(Ruleset):
    """5X: seven rounds of simultaneous action selection (see the package docstring)."""

    id = "5x"
    name = "5X"
    version = "1"
    min_players = 3
    max_players = 6
    options = (
        Option("leaders", True, "Great Leaders in play (false: the rulebook's variant, "
                                "6 rounds without the Rocket; not recommended for 5-6)"),
        Option("all_leaders", False, "keep all 15 Great Leaders whatever the player count"),
    )
    setup_keys = ("deal",)

    # --- set-up -------------------------------------------------------------------

    def new_game(
        self,
        *,
        players: list[str],
        options: Mapping[str, Any] | None = None,
        seed: int = 0,
        setup: Mapping[str, Any] | None = None,
    ) -> State:
        """The initial state. ``setup.deal`` (``{seat: [leader, leader]}``) fixes the
        deal: every seat two distinct leaders (ids or full names), none dealt twice;
        they may come from outside the pool. Raises ScriptError."""
        self.check_players(players)
        opts = self.normalize_options(options) if options else _DEFAULTS
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ScriptError("seed must be an integer")
        deal = None
        if not setup:
            return R.new_state(players, opts["leaders"], opts["all_leaders"], seed, deal)
        setup = dict(setup)
        for key in setup:
            if key not in self.setup_keys:
                raise ScriptError(f"unknown setup key {key!r} for 5x (setup: deal)")
        if "deal" in setup:
            if not opts["leaders"]:
                raise ScriptError("setup.deal needs Great Leaders (option leaders is false)")
            deal = _check_deal(players, setup["deal"])
        return R.new_state(players, opts["leaders"], opts["all_leaders"], seed, deal)

    # --- who must act -------------------------------------------------------------

    def pending(self, state: State) -> list[str]:
        """The pending seats, in seating order."""
        players = state["players"]
        return [players[i] for i in state["pending"]]

    def phase(self, state: State) -> str:
        """draft, play, explore-play, erik-play, bid, dido, excavate or over."""
        return state["phase"]

    def progress(self, state: State) -> int:
        """The round being played (0 during the draft)."""
        return state["round"]

    def is_over(self, state: State) -> bool:
        """Whether the last round has ended."""
        return state["phase"] == R.OVER

    def ranking(self, state: State) -> list[list[str]] | None:
        """Ranking groups, best first, once the game is over."""
        if state["phase"] != R.OVER:
            return None
        players = state["players"]
        return [[players[i] for i in g] for g in R.rank(state)]

    # --- orders -------------------------------------------------------------------

    def parse_order(self, state: State, seat: str, text: str) -> dict[str, Any]:
        """Parse one order (see ``engine.fivex.orders``); IllegalOrder with a reason."""
        # Fast path: a canonical text (as legal_orders writes it) of the current phase,
        # checked against the state; anything else goes through the full parser.
        try:
            kind, x, out = _FAST_BY_PHASE[state["phase"]][text]
            i = state["players"].index(seat)
        except (KeyError, TypeError, ValueError):
            return O.parse(state, seat, text)
        if i in state["pending"]:
            if kind == _K_PLAY:
                if state["hand"][i] >> x & 1:
                    return {"play": out}
            elif kind == _K_BID:
                if _MIN_BID[state["played"][i]] <= x <= state["res"][i]:
                    return {"bid": x}
            elif kind == _K_TAKE:
                if x in state["disc"][i]:
                    return {"take": out}
            elif kind == _K_PASS:
                if x in state["dealt"][i]:
                    return {"pass": out}
            else:
                return {"dido": x}
        return O.parse(state, seat, text)

    def in_order_language(self, text: str) -> bool:
        """Whether ``text`` is one 5X order, legal now or not (``orders.in_language``)."""
        return O.in_language(text)

    def resolve(
        self, state: State, orders: Mapping[str, dict[str, Any]]
    ) -> tuple[State, list[Event]]:
        """Apply one parsed order per pending seat and run the round on to the next
        prompt that needs a player (forced prompts are answered on the way). Raises
        IllegalOrder (and changes nothing) if the orders do not fit the prompt."""
        phase = state["phase"]
        if phase in _PLAY_PHASES:
            done = _play_fast(state, orders)
            if done is not None:
                return done
        elif phase == _DRAFT:
            done = _draft_fast(state, orders)
            if done is not None:
                return done
        pend = state["pending"]
        kind = _KIND.get(phase)
        values: dict[int, Any] = {}
        if len(orders) == len(pend):
            # Fast path: every pending seat (hence no other) with a well-formed order
            # of the usual shape; anything odd is decoded (and refused) one by one.
            players = state["players"]
            try:
                if kind == _K_BID:
                    res = state["res"]
                    played = state["played"]
                    for i in pend:
                        n = orders[players[i]]["bid"]
                        if type(n) is not int or not _MIN_BID[played[i]] <= n <= res[i]:
                            raise KeyError(n)
                        values[i] = n
                elif kind == _K_TAKE:
                    disc = state["disc"]
                    for i in pend:
                        order = orders[players[i]]
                        if "build" in order:
                            raise KeyError("build")
                        c = _CODE[order["take"]]
                        if c >= 5 or c not in disc[i]:
                            raise KeyError(c)
                        values[i] = (0, c)
                elif kind == _K_PASS:
                    dealt = state["dealt"]
                    for i in pend:
                        c = _CODE[orders[players[i]]["pass"]]
                        if c not in dealt[i]:
                            raise KeyError(c)
                        values[i] = c
                else:
                    raise KeyError(kind)
            except (KeyError, TypeError):
                values = self._decode_all(state, orders)
        else:
            values = self._decode_all(state, orders)
        s = state.copy()
        ev: list[Event] = []
        if kind == _K_PLAY:
            R.apply_play(s, values, ev)
        elif kind == _K_BID:
            R.apply_bids(s, values, ev)
        elif kind == _K_TAKE:
            R.apply_excavate(s, values, ev)
        elif kind == _K_DIDO:
            i = pend[0]
            R.apply_dido(s, i, values[i], ev)
        else:
            R.apply_draft(s, values, ev)
        return s, ev

    def _decode_all(self, state: State, orders: Mapping[str, dict[str, Any]]) -> dict[int, Any]:
        pend = state["pending"]
        if not pend:
            raise IllegalOrder("nobody is pending: the game is over")
        players = state["players"]
        for seat in orders:
            if seat not in players or players.index(seat) not in pend:
                raise IllegalOrder(f"{seat} is not pending")
        values = {}
        for i in pend:
            order = orders.get(players[i])
            if order is None:
                raise IllegalOrder(f"no order from {players[i]}, who is pending")
            values[i] = O.decode(state, i, order)
        return values

    def default_order(self, state: State, seat: str) -> str:
        """The no-show order (see ``engine.fivex.orders``)."""
        i = O.seat_index(state, seat)
        if i not in state["pending"]:
            raise IllegalOrder("you are not asked to order now")
        return O.default(state, i)

    def legal_orders(self, state: State, seat: str) -> list[str]:
        """Every legal order text for ``seat`` now, in a stable order (empty for a seat
        that is not pending, or not a seat of this game)."""
        try:
            i = state["players"].index(seat)
        except ValueError:
            return []
        if i not in state["pending"]:
            return []
        phase = state["phase"]
        if phase in _PLAY_PHASES:
            texts = _PLAY_TEXTS.get(state["hand"][i])
            if texts is not None:
                return texts.copy()
        elif phase == _BID:
            hi = state["res"][i]
            if hi < 200:
                return _BID_TEXTS[_MIN_BID[state["played"][i]] : hi + 1]
        elif phase == _DRAFT:
            return [_PASS_TEXT[c] for c in state["dealt"][i]]
        elif phase == _EXCAVATE_PHASE:
            c = state["played"][i]
            if c != _CAESAR and c != _SULEIMAN:  # only action cards of its own pile
                return [_TAKE_TEXT[x] for x in sorted(state["disc"][i]) if x < 5]
        return O.legal(state, i)

    # --- what people see ----------------------------------------------------------

    def view(self, state: State, seat: str | None) -> dict[str, Any]:
        """What ``seat`` (``None``: a spectator) may know now."""
        return V.view(state, seat)

    def report(self, state: State) -> dict[str, Any]:
        """The umpire's table: round, phase, pending, wonders, players, ranking."""
        return V.report(state)

    def secrets(self, state: State, seat: str) -> list[str]:
        """JSON fragments only ``seat`` may know: its hand and its dealt leaders."""
        return V.secrets(state, seat)

    def revealed(self, state: State, seat: str) -> dict[str, Any]:
        """The cards in ``seat``'s hand (at the end of a draft: its leaders dealt)."""
        return V.revealed(state, seat)


def _check_deal(players: list[str], deal: Any) -> list[list[int]]:
    if not isinstance(deal, dict):
        raise ScriptError("setup.deal must be an object of seat name to two leaders")
    for seat in deal:
        if seat not in players:
            raise ScriptError(f"setup.deal names {seat!r}, who is not a player")
    out = []
    seen: set[int] = set()
    for seat in players:
        pair = deal.get(seat)
        if not isinstance(pair, list) or len(pair) != 2:
            raise ScriptError(f"setup.deal must give {seat} a list of two leaders")
        codes = []
        for name in pair:
            code = O.CARD_LOOKUP.get(" ".join(name.upper().split())) if isinstance(
                name, str) else None
            if code is None or not D.IS_LEADER[code]:
                raise ScriptError(f"setup.deal: {name!r} is not a Great Leader")
            if code in seen:
                raise ScriptError(f"setup.deal: {D.CARD_IDS[code]} is dealt twice")
            seen.add(code)
            codes.append(code)
        out.append(codes)
    return out
