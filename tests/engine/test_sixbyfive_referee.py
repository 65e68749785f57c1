"""6x5 against an independent referee: random games played move by move.

The referee below is written from ``shared/spec/6x5.md`` alone and shares no code with
``engine.sixbyfive*``: its own hex neighbours, rotations, canonical form and pentahex
enumeration, its own legal-order list and end-of-game rules. After every step the
engine's printed table (board, reserve, pawns, turn, pending, status, ranking, points)
and its list of legal orders must equal the referee's. Goals are fixed by
``setup.goals``; with ``target`` the replacement goals come from the engine's shuffled
deck, so the referee reads each seat's current goals and the deck size before a step and
decides scoring and the end of the game itself.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.runner import printed, start, status_of

Hex = tuple[int, int]
Shape = tuple[Hex, ...]
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))
NAME = {"B": "BLUE", "R": "RED", "Y": "YELLOW"}
SEATS = ["ann", "bob", "cat", "dan", "eve"]


def _around(h: Hex) -> list[Hex]:
    return [(h[0] + a, h[1] + b) for a, b in STEPS]


def _canon(cells: Any) -> Shape:
    """Smallest of the six rotations ((q, r) -> (-r, q + r)), each translated so its
    smallest cell is 0,0 and sorted."""
    cur, best = list(cells), None
    for _ in range(6):
        srt = sorted(cur)
        cand = [(q - srt[0][0], r - srt[0][1]) for q, r in srt]
        best = cand if best is None or cand < best else best
        cur = [(-r, q + r) for q, r in cur]
    return tuple(best or ())


def _pentahexes() -> list[Shape]:
    shapes: set[Shape] = {((0, 0),)}
    for _ in range(4):
        shapes = {_canon([*s, n]) for s in shapes for c in s for n in _around(c) if n not in s}
    return sorted(shapes)


ALL = _pentahexes()


def _key(h: Hex) -> str:
    return f"{h[0]},{h[1]}"


def _cell(text: str) -> Hex:
    q, r = text.split(",")
    return int(q), int(r)


class Referee:
    """The spec's rules, kept as small and literal as possible."""

    def __init__(self, players: list[str], goals: dict[str, list[Shape]], first: str,
                 opts: dict[str, Any]) -> None:
        self.players, self.goals, self.opts = players, goals, opts
        self.cur = players.index(first)
        self.board: dict[Hex, str] = {(0, 0): "K"}
        self.reserve = {"B": 8, "R": 8, "Y": 8}
        self.pawns: dict[str, Hex | None] = {p: None for p in players}
        self.points = {p: 0 for p in players}
        self.turn, self.deck = 1, 0
        self.ranking: list[list[str]] | None = None

    def black(self) -> Hex:
        return next(h for h, v in self.board.items() if v == "K")

    def legal(self) -> set[str]:
        """Every legal order text (colours written out in full)."""
        board, out = self.board, set()
        blocked = {h for h in self.pawns.values() if h is not None}
        free = {n for h in board for n in _around(h) if n not in board}
        for c in "BRY":
            if self.reserve[c]:
                out |= {f"PLACE {NAME[c]} {_key(h)}" for h in free}
        for h, v in board.items():
            if v != "K" and h not in blocked:
                out |= {f"SWITCH {_key(h)} TO {NAME[c]}" for c in "BRY"
                        if c != v and self.reserve[c]}
        black = self.black()
        if black not in blocked:
            out |= {f"MOVE BLACK TO {_key(h)}" for h in free
                    if any(n in board and n != black for n in _around(h))}
        if self.opts.get("open_game") and not sum(self.reserve.values()):
            tiles = [h for h in board if h not in blocked]
            out |= {f"SWAP {_key(a)} {_key(b)}" for a in tiles for b in tiles if a != b}
        return out

    def realized(self) -> set[Shape]:
        black, out = self.black(), set()
        for c in "BRY":
            group, todo = {black}, [black]
            while todo:
                for n in _around(todo.pop()):
                    if n not in group and self.board.get(n) == c:
                        group.add(n)
                        todo.append(n)
            if len(group) == 5:
                out.add(_canon(group))
        return out

    def by_points(self) -> list[list[str]]:
        target, pts = self.opts["target"], self.points
        groups = [[p for p in self.players if pts[p] >= target]]
        for v in sorted({pts[p] for p in self.players if pts[p] < target}, reverse=True):
            groups.append([p for p in self.players if pts[p] == v])
        return [g for g in groups if g]

    def play(self, seat: str, text: str) -> None:
        words, board = text.split(), self.board
        if words[0] == "PLACE":
            at = _cell(words[2])
            self.reserve[words[1][0]] -= 1
            board[at] = words[1][0]
        elif words[0] == "SWITCH":
            at = _cell(words[1])
            self.reserve[board[at]] += 1
            self.reserve[words[3][0]] -= 1
            board[at] = words[3][0]
        elif words[0] == "MOVE":
            at = _cell(words[3])
            del board[self.black()]
            board[at] = "K"
        else:
            at, other = _cell(words[1]), _cell(words[2])
            board[at], board[other] = board[other], board[at]
        self.pawns[seat] = at
        done = self.realized()
        if self.opts.get("target"):
            deck_out = False
            for p in self.players:
                scored = sum(1 for g in self.goals[p] if g in done)
                self.points[p] += scored
                deck_out = deck_out or scored > self.deck
                self.deck = max(0, self.deck - scored)
            if deck_out or any(v >= self.opts["target"] for v in self.points.values()):
                self.ranking = self.by_points()
                return
        else:
            winners = [p for p in self.players if any(g in done for g in self.goals[p])]
            if winners:
                others = [p for p in self.players if p not in winners]
                self.ranking = [winners, others] if len(winners) == 1 else [list(self.players)]
                return
        out = not sum(self.reserve.values()) and not self.opts.get("open_game")
        if out or self.turn >= self.opts.get("max_turns", 200):
            self.ranking = self.by_points() if self.opts.get("target") else [list(self.players)]
            return
        self.turn += 1
        self.cur = (self.cur + 1) % len(self.players)

    def table(self) -> dict[str, Any]:
        over = self.ranking is not None
        out: dict[str, Any] = {
            "status": "over" if over else "waiting",
            "turn": self.turn,
            "pending": [] if over else [self.players[self.cur]],
            "board": {_key(h): v for h, v in self.board.items()},
            "reserve": {NAME[c]: n for c, n in self.reserve.items()},
            "pawns": {p: _key(h) if h else None for p, h in self.pawns.items()},
        }
        if over:
            out["ranking"] = self.ranking
        return out


def _near(text: str, black: Hex) -> bool:
    words = text.split()
    h = _cell(words[1] if words[0] in ("SWITCH", "SWAP") else words[-1])
    dq, dr = h[0] - black[0], h[1] - black[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2 <= 2


def _play_one(seed: int, target: bool) -> str:
    """Play one random game; return how it ended. Asserts agreement at every step."""
    rnd = random.Random(seed)
    players = SEATS[: rnd.randint(2, 5)]
    per_seat = rnd.randint(1, 3)
    picks = rnd.sample(ALL, per_seat * len(players))
    goals: dict[str, list[list[list[int]]]] = {}
    for i, p in enumerate(players):
        goals[p] = []
        for shape in picks[i * per_seat : (i + 1) * per_seat]:
            cells = list(shape)
            for _ in range(rnd.randrange(6)):
                cells = [(-r, q + r) for q, r in cells]
            dq, dr = rnd.randint(-3, 3), rnd.randint(-3, 3)
            goals[p].append([[q + dq, r + dr] for q, r in cells])
    opts: dict[str, Any] = {"goals": per_seat}
    if rnd.random() < 0.4:
        opts["open_game"] = True
    if rnd.random() < 0.3:
        opts["max_turns"] = rnd.randint(5, 60)
    if target:
        opts["target"] = rnd.randint(1, 3)
    first = rnd.choice(players)
    script = {"game": "6x5", "players": players, "options": opts, "seed": seed,
              "setup": {"goals": goals, "first": first}}
    ruleset, state = start(script)
    ref = Referee(players, {p: [_canon(map(tuple, g)) for g in gs] for p, gs in goals.items()},
                  first, opts)
    for step in range(300):
        if ref.ranking is not None:
            break
        seat = players[ref.cur]
        legal = ref.legal()
        assert set(ruleset.legal_orders(state, seat)) == legal, f"seed {seed} step {step}"
        near = sorted(t for t in legal if _near(t, ref.black()))
        order = rnd.choice(near if near and rnd.random() < 0.8 else sorted(legal))
        ref.goals = {p: [tuple(map(tuple, g)) for g in state["goals"][p]] for p in players}
        ref.deck = len(state["deck"])
        state, _ = ruleset.submit_step(state, {seat: order})
        ref.play(seat, order)
        shown = printed(ruleset, state, status_of(ruleset, state))
        for key, value in ref.table().items():
            assert shown[key] == value, f"seed {seed} step {step} {order}: {key}"
        assert {p: v["points"] for p, v in shown["players"].items()} == ref.points
    return "draw" if ref.ranking and len(ref.ranking) == 1 else "decided"


def test_referee_knows_the_33_pentahexes() -> None:
    """The referee's own enumeration: 33 one-sided pentahexes, and a shape differs from
    its mirror image (q, r) -> (q + r, -r) for exactly 33 - 22 = 11 of them."""
    assert len(ALL) == 33
    chiral = [s for s in ALL if _canon([(q + r, -r) for q, r in s]) != s]
    assert len(chiral) == 22  # 11 mirror pairs


@pytest.mark.parametrize("target", [False, True])
def test_random_games_agree_with_the_referee(target: bool) -> None:
    """Twenty random games (2-5 seats, 1-3 goals, open game, turn limits, targets) agree
    with the referee at every step, and both wins and draws occur."""
    ends = {_play_one(seed, target) for seed in range(20)}
    assert ends == {"draw", "decided"}
