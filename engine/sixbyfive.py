"""6x5, ruleset ``6x5``: tiles around a black tile, each seat aiming for a secret
pentahex (``shared/spec/6x5.md``; rulebook ``shared/seeds/6x5-rules.md``).

Rulings this module makes where the spec leaves a choice (all deterministic):

- Set-up RNG use: first the goal deck is shuffled (the 33 canonical one-sided pentahexes
  in sorted order, always all 33, so ``setup.goals`` never changes the RNG stream), then
  the shapes fixed by ``setup.goals`` are taken out of it (order kept), then, unless
  ``setup.first`` fixes it, the first seat is drawn with ``randbelow(n)``.
- Dealing: seats draw in seating order (``players[0]`` first), each seat taking all of
  its ``goals`` cards from the top of the deck (the front of the list) before the next.
  Every later draw also takes the top card. A drawn goal is appended to the seat's list.
- ``setup.goals`` may fix any seats (1 to 5 shapes each, any placement, printed
  canonical); the other seats draw from the deck.
- The reserve can only run out through a PLACE; the "reserve is empty" end is checked
  after every action that leaves the reserve empty, after the goal check.
- End checks after each action, in order: goals (win / draw, or scoring with
  ``target``), then the empty reserve (without ``open_game``), then ``max_turns``.
- With ``target``, each realized goal scores 1 and is replaced (a seat realizing two
  goals at once scores 2); replacement draws go in seating order; a goal drawn as a
  replacement is only checked after the next action. Any end with ``target`` ranks by
  points (seats that reached the target share the first group).
- In the open game MOVE BLACK stays allowed next to SWAP; a SWAP of two tiles of the
  same colour is allowed.
- Goals are secret (unless ``visible_goals``) until shown by CHANGE, scored, or the end
  of the game, when every goal is revealed.
- CHANGE ``k`` removes the k-th goal (shown publicly, kept in ``discarded``) and appends
  the newly drawn one; it is refused when the deck is empty.
- Ranking groups list seats in seating order; a win ranks ``[[winner], [the rest]]``.
- Default order: PLACE a tile of the colour with the most tiles left (ties: BLUE, RED,
  YELLOW) on the legal hex nearest to 0,0 (hex distance, then q, then r); with an empty
  reserve (open game) the first of ``legal_orders``.
- Printed board keys are sorted by ``q`` then ``r`` numerically.

The order language and the legality checks live in ``engine.sixbyfive_orders``; the hex
geometry and the pentahex deck in ``engine.sixbyfive_shapes``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from engine.base import Event, IllegalOrder, Option, Ruleset, ScriptError, State, dumps
from engine.rng import randbelow, seed_state, shuffled
from engine.sixbyfive_orders import (
    BLACK,
    COLOUR_OF,
    COLOURS,
    LETTER,
    black_hex,
    check_order,
    default_text,
    in_language,
    legal_texts,
    order_text,
    parse_text,
    reserve_empty,
    verbs_now,
)
from engine.sixbyfive_shapes import (
    Cell,
    Shape,
    canonical,
    from_json,
    is_connected,
    key_cell,
    pentahex_deck,
    realized_shapes,
    to_json,
)

TILES_PER_COLOUR = 8


def _canon(shape: Shape) -> tuple[Cell, ...]:
    return canonical(from_json(shape))


def _as_tuple(goal: Shape) -> tuple[Cell, ...]:
    """A stored goal (already canonical) as a tuple, to compare with realized shapes."""
    return tuple((c[0], c[1]) for c in goal)


def _copy(state: State) -> State:
    """A deep copy of a JSON state (much faster than ``copy.deepcopy``)."""
    return json.loads(json.dumps(state))


def _fmt(shape: Shape) -> str:
    return " ".join(f"{q},{r}" for q, r in shape)


class SixByFive(Ruleset):
    """The 6x5 ruleset: one pending seat per turn, phase ``turn``."""

    id = "6x5"
    name = "6x5"
    version = "1"
    min_players = 2
    max_players = 5
    options = (
        Option("goals", 1, "goals per seat (Multiple Goals)", minimum=1, maximum=5),
        Option("visible_goals", False, "everyone sees everyone's goals (Visible Goal)"),
        Option("change_goal", False, "once per turn, show, discard and redraw a goal"),
        Option("open_game", False, "when the reserve runs out, play on by swapping tiles"),
        Option("target", 0, "0, or N >= 1: Scoring Points, first to N points wins", minimum=0),
        Option("max_turns", 200, "an undecided game is a draw after this many turns", minimum=1),
    )
    setup_keys = ("goals", "first")

    # --- set-up -----------------------------------------------------------------

    def new_game(
        self,
        *,
        players: list[str],
        options: Mapping[str, Any] | None = None,
        seed: int = 0,
        setup: Mapping[str, Any] | None = None,
    ) -> State:
        """Initial state: black tile at 0,0, full reserve, goals dealt, first seat
        drawn (see the module docstring for the order of RNG use)."""
        self.check_players(players)
        opts = self.normalize_options(options)
        setup = dict(setup or {})
        for key in setup:
            if key not in self.setup_keys:
                raise ScriptError(f"unknown setup key {key!r} for 6x5 (setup: goals, first)")
        fixed = self._fixed_goals(players, setup.get("goals"))
        first = setup.get("first")
        if first is not None and first not in players:
            raise ScriptError(f"setup.first must be one of the players, not {first!r}")
        rng = seed_state(seed)
        deck, rng = shuffled(rng, pentahex_deck())
        taken = {_canon(g) for goals in fixed.values() for g in goals}
        deck = [s for s in deck if _canon(s) not in taken]
        goals: dict[str, list[Shape]] = {}
        for seat in players:
            if seat in fixed:
                goals[seat] = fixed[seat]
            else:
                goals[seat], deck = deck[: opts["goals"]], deck[opts["goals"] :]
        if first is None:
            index, rng = randbelow(rng, len(players))
        else:
            index = players.index(first)
        return {
            "players": list(players),
            "options": opts,
            "rng": rng,
            "deck": deck,
            "goals": goals,
            "points": {seat: 0 for seat in players},
            "discarded": {seat: [] for seat in players},
            "board": {"0,0": BLACK},
            "reserve": {c: TILES_PER_COLOUR for c in COLOURS},
            "pawns": {seat: None for seat in players},
            "turn": 1,
            "current": index,
            "over": False,
            "result": None,
            "ranking": None,
        }

    @staticmethod
    def _fixed_goals(players: list[str], given: Any) -> dict[str, list[Shape]]:
        if given is None:
            return {}
        if not isinstance(given, dict):
            raise ScriptError("setup.goals must be an object: seat -> list of shapes")
        out: dict[str, list[Shape]] = {}
        for seat, shapes in given.items():
            if seat not in players:
                raise ScriptError(f"setup.goals names {seat!r}, who is not a player")
            if not isinstance(shapes, list) or not 1 <= len(shapes) <= 5:
                raise ScriptError(f"setup.goals for {seat} must be a list of 1 to 5 shapes")
            out[seat] = []
            for i, shape in enumerate(shapes, 1):
                where = f"setup.goals for {seat}, goal {i}"
                if not isinstance(shape, list) or not all(
                    isinstance(c, list)
                    and len(c) == 2
                    and all(isinstance(x, int) and not isinstance(x, bool) for x in c)
                    for c in shape
                ):
                    raise ScriptError(f"{where}: a shape is a list of [q, r] integer pairs")
                cells = from_json(shape)
                if len(cells) != 5 or len(set(cells)) != 5:
                    raise ScriptError(f"{where}: a goal is five different hexes")
                if not is_connected(cells):
                    raise ScriptError(f"{where}: the five hexes must be connected")
                out[seat].append(to_json(canonical(cells)))
        return out

    # --- who must act -----------------------------------------------------------

    def pending(self, state: State) -> list[str]:
        """The seat whose turn it is (nobody once the game is over)."""
        if state["over"]:
            return []
        return [state["players"][state["current"]]]

    def phase(self, state: State) -> str:
        """``"turn"``, or ``"over"`` once the game has ended."""
        return "over" if state["over"] else "turn"

    def progress(self, state: State) -> int:
        """The turn being played (the last one played once over)."""
        return state["turn"]

    def is_over(self, state: State) -> bool:
        """Whether the game has ended."""
        return bool(state["over"])

    def ranking(self, state: State) -> list[list[str]] | None:
        """Groups best first, or ``None`` while the game runs."""
        if not state["over"]:
            return None
        return [list(group) for group in state["ranking"]]

    # --- orders -------------------------------------------------------------------

    def parse_order(self, state: State, seat: str, text: str) -> dict[str, Any]:
        """Parse one order (optionally ``CHANGE <k>`` then the action) and check it
        against the table; raise IllegalOrder naming what is wrong and what is
        allowed."""
        if state["over"]:
            raise IllegalOrder("the game is over; no more orders are taken")
        if seat not in state["players"]:
            raise IllegalOrder(f"{seat} is not a player in this game")
        current = state["players"][state["current"]]
        if seat != current:
            raise IllegalOrder(f"it is {current}'s turn, not {seat}'s")
        order = parse_text(text, verbs_now(state))
        check_order(state, seat, order)
        return order

    def in_order_language(self, text: str) -> bool:
        """Whether ``text`` is one 6x5 order (optionally ``CHANGE <k>`` then an action),
        legal now or not (``sixbyfive_orders.in_language``)."""
        return in_language(text)

    def resolve(
        self, state: State, orders: Mapping[str, dict[str, Any]]
    ) -> tuple[State, list[Event]]:
        """Apply the pending seat's order: the optional goal change, the action, then
        the end-of-action checks (goals, empty reserve, turn limit)."""
        pending = self.pending(state)
        if not pending:
            raise IllegalOrder("the game is over; no more orders are taken")
        seat = pending[0]
        if set(orders) != {seat}:
            raise IllegalOrder(f"exactly one order is expected, from {seat}")
        order = orders[seat]
        check_order(state, seat, order)
        state = _copy(state)
        events: list[Event] = []
        if order.get("change") is not None:
            self._change_goal(state, seat, order["change"], events)
        self._act(state, seat, order, events)
        self._after_action(state, events)
        return state, events

    def _change_goal(self, state: State, seat: str, k: int, events: list[Event]) -> None:
        old = state["goals"][seat].pop(k - 1)
        state["discarded"][seat].append(old)
        events.append(
            _event(
                "change",
                f"{seat} changed goal {k}, showing and discarding {_fmt(old)}",
                None,
                {"seat": seat, "index": k, "goal": old},
            )
        )
        new = state["deck"].pop(0)
        state["goals"][seat].append(new)
        events.append(
            _event(
                "draw", f"{seat} drew a new goal: {_fmt(new)}", [seat], {"seat": seat, "goal": new}
            )
        )

    def _act(self, state: State, seat: str, order: dict[str, Any], events: list[Event]) -> None:
        board = state["board"]
        reserve = state["reserve"]
        kind, key = order["kind"], order["hex"]
        if kind == "place":
            colour = order["colour"]
            reserve[colour] -= 1
            board[key] = LETTER[colour]
            text = f"{seat} placed a {colour} tile at {key}"
            data = {"seat": seat, "action": "place", "colour": colour, "hex": key}
        elif kind == "switch":
            colour, old = order["colour"], COLOUR_OF[board[key]]
            reserve[old] += 1
            reserve[colour] -= 1
            board[key] = LETTER[colour]
            text = f"{seat} switched the tile at {key} from {old} to {colour}"
            data = {"seat": seat, "action": "switch", "hex": key, "from": old, "to": colour}
        elif kind == "move":
            black = black_hex(state)
            del board[black]
            board[key] = BLACK
            text = f"{seat} moved the black tile from {black} to {key}"
            data = {"seat": seat, "action": "move", "from": black, "to": key}
        else:
            other = order["hex2"]
            board[key], board[other] = board[other], board[key]
            text = f"{seat} swapped the tiles at {key} and {other}"
            data = {"seat": seat, "action": "swap", "hexes": [key, other]}
        state["board"] = dict(sorted(board.items(), key=lambda kv: key_cell(kv[0])))
        state["pawns"][seat] = key
        events.append(_event("action", text, None, data))

    def _after_action(self, state: State, events: list[Event]) -> None:
        opts = state["options"]
        players = state["players"]
        realized = realized_shapes(state["board"], ("B", "R", "Y"))
        if opts["target"] == 0:
            winners = [
                s for s in players if any(_as_tuple(g) in realized for g in state["goals"][s])
            ]
            if len(winners) == 1:
                w = winners[0]
                goal = next(g for g in state["goals"][w] if _as_tuple(g) in realized)
                others = [s for s in players if s != w]
                text = f"{w} wins: {w}'s goal {_fmt(goal)} is complete"
                self._end(state, events, "win", [w], [[w], others], text)
                return
            if winners:
                names = ", ".join(winners)
                text = f"{names} complete goals at the same time: the game is a draw"
                self._end(state, events, "draw", [], [list(players)], text)
                return
        elif self._score(state, realized, events):
            return
        if reserve_empty(state) and not opts["open_game"]:
            self._end_undecided(state, events, "the reserve is empty and nobody has won")
            return
        if state["turn"] >= opts["max_turns"]:
            self._end_undecided(state, events, f"{opts['max_turns']} turns have been played")
            return
        state["turn"] += 1
        state["current"] = (state["current"] + 1) % len(players)

    def _score(self, state: State, realized: set[tuple[Cell, ...]], events: list[Event]) -> bool:
        """Scoring Points: score, discard and replace every realized goal. Returns
        whether the game ended."""
        target = state["options"]["target"]
        players = state["players"]
        deck_out = False
        for seat in players:
            done = [g for g in state["goals"][seat] if _as_tuple(g) in realized]
            for goal in done:
                state["goals"][seat].remove(goal)
                state["discarded"][seat].append(goal)
                state["points"][seat] += 1
                pts = state["points"][seat]
                events.append(
                    _event(
                        "score",
                        f"{seat} scores: goal {_fmt(goal)} is complete ({seat} has {pts} point"
                        f"{'s' if pts != 1 else ''})",
                        None,
                        {"seat": seat, "goal": goal, "points": pts},
                    )
                )
            for _ in done:
                if not state["deck"]:
                    deck_out = True
                    break
                new = state["deck"].pop(0)
                state["goals"][seat].append(new)
                events.append(
                    _event(
                        "draw",
                        f"{seat} drew a new goal: {_fmt(new)}",
                        [seat],
                        {"seat": seat, "goal": new},
                    )
                )
        reached = [s for s in players if state["points"][s] >= target]
        if reached:
            text = f"{', '.join(reached)} reached {target} point{'s' if target != 1 else ''}"
            verb = "wins" if len(reached) == 1 else "share the win"
            self._end(state, events, "win", reached, self._by_points(state), f"{text} and {verb}")
            return True
        if deck_out:
            self._end(
                state,
                events,
                "points",
                [],
                self._by_points(state),
                "the goal deck has run out: seats rank by points",
            )
            return True
        return False

    def _by_points(self, state: State) -> list[list[str]]:
        target = state["options"]["target"]
        players = state["players"]
        points = state["points"]
        groups = []
        reached = [s for s in players if points[s] >= target]
        if reached:
            groups.append(reached)
        rest = [s for s in players if points[s] < target]
        for value in sorted({points[s] for s in rest}, reverse=True):
            groups.append([s for s in rest if points[s] == value])
        return groups

    def _end_undecided(self, state: State, events: list[Event], why: str) -> None:
        if state["options"]["target"]:
            self._end(
                state, events, "points", [], self._by_points(state), f"{why}: seats rank by points"
            )
        else:
            self._end(
                state, events, "draw", [], [list(state["players"])], f"{why}: the game is a draw"
            )

    @staticmethod
    def _end(
        state: State,
        events: list[Event],
        kind: str,
        winners: list[str],
        ranking: list[list[str]],
        text: str,
    ) -> None:
        state["over"] = True
        state["result"] = {"kind": kind, "winners": winners, "text": text}
        state["ranking"] = ranking
        events.append(_event("end", text, None, {"result": kind, "ranking": ranking}))
        events.append(
            _event(
                "reveal",
                "every goal is revealed",
                None,
                {"goals": {s: state["goals"][s] for s in state["players"]}},
            )
        )

    # --- defaults and legal orders ------------------------------------------------

    def default_order(self, state: State, seat: str) -> str:
        """Place a tile of the colour with the most tiles left (ties: BLUE, RED,
        YELLOW) on the free hex nearest to 0,0 that touches a tile (ties: smaller q,
        then smaller r). With an empty reserve: the first legal order."""
        return default_text(state, seat)

    def legal_orders(self, state: State, seat: str) -> list[str]:
        """Every legal order text for the pending seat, in a stable order (see
        ``engine.sixbyfive_orders.legal_texts``); empty for any other seat."""
        if seat not in self.pending(state):
            return []
        return legal_texts(state, seat)

    # --- what people see ----------------------------------------------------------

    def _goals_visible(self, state: State, viewer: str | None, owner: str) -> bool:
        return viewer == owner or state["options"]["visible_goals"] or state["over"]

    def view(self, state: State, seat: str | None) -> dict[str, Any]:
        """The table as ``seat`` may see it: the board, reserve, pawns, points, every
        discarded (shown) goal, its own goals, and others' goals only with
        visible_goals or once the game is over. ``None``: a spectator."""
        out: dict[str, Any] = {"you": seat}
        out.update(self._table(state))
        out["deck"] = len(state["deck"])
        out["options"] = dict(state["options"])
        players = {}
        for s in state["players"]:
            entry: dict[str, Any] = {}
            if self._goals_visible(state, seat, s):
                entry["goals"] = copy.deepcopy(state["goals"][s])
            entry["goal_count"] = len(state["goals"][s])
            entry["points"] = state["points"][s]
            entry["discarded"] = copy.deepcopy(state["discarded"][s])
            players[s] = entry
        out["players"] = players
        if state["over"]:
            out["ranking"] = self.ranking(state)
            out["result"] = state["result"]["text"]
        return out

    def secrets(self, state: State, seat: str) -> list[str]:
        """JSON fragments of ``seat``'s hidden information: its goals, while they are
        secret (no visible_goals, game not over)."""
        if state["options"]["visible_goals"] or state["over"]:
            return []
        return [dumps(g) for g in state["goals"][seat]]

    def revealed(self, state: State, seat: str) -> dict[str, Any]:
        """``seat``'s goals (hidden while the game goes on, unless visible_goals)."""
        return {"goals": copy.deepcopy(state["goals"][seat])}

    def _table(self, state: State) -> dict[str, Any]:
        return {
            "turn": state["turn"],
            "phase": self.phase(state),
            "pending": self.pending(state),
            "board": dict(sorted(state["board"].items(), key=lambda kv: key_cell(kv[0]))),
            "reserve": {c: state["reserve"][c] for c in COLOURS},
            "pawns": {s: state["pawns"][s] for s in state["players"]},
        }

    def report(self, state: State) -> dict[str, Any]:
        """The umpire's table: turn, phase, pending, board, reserve, pawns, players
        (goals canonical in the order drawn, points), ranking once over."""
        out = self._table(state)
        out["players"] = {
            s: {"goals": copy.deepcopy(state["goals"][s]), "points": state["points"][s]}
            for s in state["players"]
        }
        if state["over"]:
            out["ranking"] = self.ranking(state)
        return out


def _event(kind: str, text: str, to: list[str] | None, data: dict[str, Any]) -> Event:
    return {"kind": kind, "text": text, "to": to, "data": data}


__all__ = ["SixByFive", "order_text"]
