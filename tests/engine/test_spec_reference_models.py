"""Independent reference models of the three rulesets, written from the specs alone
(``shared/spec/5x.md``, ``4x-dice.md``, ``6x5.md``; no engine code read or imported
beyond the public ``Ruleset`` calls), played against the engine in random games.

At every prompt the model predicts the phase and the pending seats; after every step it
predicts what the runner prints (resources, hands in their printed order, discard piles,
Wonders, VP; counters, dice and scores; board, reserve, pawns, points, turn), and at the
end the ranking. For 6x5 the model also predicts whether each random order (legal or
not) is accepted. A divergence names the first field that differs.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from engine.base import StepRejected

# --- 5X ------------------------------------------------------------------------------

ACTIONS = ["EXPLOIT", "EXTERMINATE", "EXPAND", "EXPLORE", "EXCAVATE"]
KIND = {
    **{card: k + 1 for k, card in enumerate(ACTIONS)},
    **dict.fromkeys(["ELIZABETH", "GANDHI", "QIN"], 1),
    **dict.fromkeys(["BOUDICCA", "GENGHIS", "MONTEZUMA"], 2),
    **dict.fromkeys(["CLEOPATRA", "NAPOLEON", "TOKUGAWA"], 3),
    **dict.fromkeys(["DIDO", "ERIK", "ISABELLA"], 4),
    **dict.fromkeys(["CAESAR", "CATHARINE", "SULEIMAN"], 5),
}
LEADERS = {card for card in KIND if card not in ACTIONS}
WONDER_VP = {"A": 1.5, "B": 2, "C": 2.5, "D": 3, "E": 3.5, "F": 4, "G": 4.5}
IMMUNE = {"ELIZABETH", "CLEOPATRA", "CATHARINE"}
MIN_BID_3 = {"CLEOPATRA", "NAPOLEON", "TOKUGAWA"}
LOSER_PAYS = {"CLEOPATRA": 3, "NAPOLEON": 3, "TOKUGAWA": 0}


def _printed_hand(hand: set[str]) -> list[str]:
    return sorted((c for c in hand if c in ACTIONS), key=ACTIONS.index) + sorted(
        c for c in hand if c in LEADERS
    )


class FiveX:
    """The 5X table as the spec describes it, driven with random choices."""

    def __init__(self, seed: int, n: int, leaders: bool, all_leaders: bool) -> None:
        self.rnd = random.Random(seed)
        self.rules = engine.get("5x")
        self.seats = [f"s{i}" for i in range(n)]
        options = {"leaders": leaders, "all_leaders": all_leaders}
        self.state = self.rules.new_game(players=self.seats, options=options, seed=seed)
        self.last = 7 if leaders else 6
        self.letters = "ABCDEFG" if leaders else "ABCDEF"
        self.res = dict.fromkeys(self.seats, 3)
        self.hand = {s: set(ACTIONS) for s in self.seats}
        self.discard: dict[str, list[str]] = {s: [] for s in self.seats}
        self.wonders: dict[str, list[str]] = {s: [] for s in self.seats}
        self.built: dict[str, str] = {}
        self.removed: list[str] = []
        self.current: str | None = "A"

    def step(self, orders: dict[str, str], phase: str, pending: list[str]) -> None:
        printed = self.rules.report(self.state)
        assert (printed["phase"], printed["pending"]) == (phase, pending)
        self.state, _ = self.rules.submit_step(self.state, orders)

    def vp(self, seat: str) -> float:
        return self.res[seat] // 3 + sum(WONDER_VP[w] for w in self.wonders[seat])

    def compare(self, where: str) -> None:
        printed = self.rules.report(self.state)
        for s in self.seats:
            seat = printed["players"][s]
            mine = {
                "resources": self.res[s],
                "hand": _printed_hand(self.hand[s]),
                "discard": self.discard[s],
                "wonders": sorted(self.wonders[s]),
                "vp": self.vp(s),
            }
            assert {k: seat[k] for k in mine} == mine, f"{where}, {s}"
        wonders = {"current": self.current, "built": self.built, "removed": sorted(self.removed)}
        assert printed["wonders"] == wonders, where

    def play(self) -> None:
        rnd, seats = self.rnd, self.seats
        if self.last == 7:
            dealt = {s: self.rules.report(self.state)["players"][s]["dealt"] for s in seats}
            passed = {s: rnd.choice(dealt[s]) for s in seats}
            self.step({s: f"PASS {passed[s]}" for s in seats}, "draft", seats)
            for i, s in enumerate(seats):
                kept = next(c for c in dealt[s] if c != passed[s])
                self.hand[s] |= {kept, passed[seats[i - 1]]}  # from the seat on its right
        explored: dict[str, str] = {}
        for round_no in range(1, self.last + 1):
            self.compare(f"round {round_no}")
            assert self.rules.report(self.state)["round"] == round_no
            played = self.play_cards(explored)
            self.resolve(round_no, played)
            explored = {s: c for s, c in played.items() if KIND[c] == 4}
        self.compare("end")
        assert self.rules.is_over(self.state)

        def key(s: str) -> tuple[float, str]:
            return (-self.vp(s), min(self.wonders[s], default="Z"))

        groups: list[list[str]] = []
        for s in sorted(seats, key=key):
            if groups and key(groups[-1][0]) == key(s):
                groups[-1].append(s)
            else:
                groups.append([s])
        printed = self.rules.report(self.state)["ranking"]
        assert [sorted(g) for g in printed] == groups

    def play_cards(self, explored: dict[str, str]) -> dict[str, str]:
        played: dict[str, str] = {}
        groups = [
            ("play", [s for s in self.seats if s not in explored]),
            ("explore-play", [s for s in self.seats if explored.get(s, "ERIK") != "ERIK"]),
            ("erik-play", [s for s in self.seats if explored.get(s) == "ERIK"]),
        ]
        for phase, group in groups:
            if group:
                for s in group:
                    played[s] = self.rnd.choice(sorted(self.hand[s]))
                self.step({s: f"PLAY {played[s].lower()}" for s in group}, phase, group)
        return played

    def resolve(self, round_no: int, played: dict[str, str]) -> None:
        rnd, seats, res = self.rnd, self.seats, self.res
        kind = {s: KIND[c] for s, c in played.items()}
        last_round = round_no == self.last
        built_now: list[tuple[str, str]] = []
        back: set[str] = set()
        for s in seats:  # Exploit-type
            if kind[s] == 1:
                others = sum(
                    2 if played[o] == "GANDHI" else 1 for o in seats if o != s and kind[o] == 1
                )
                res[s] += 3 if played[s] == "QIN" else max(0, 3 - others)
        taken, gained = dict.fromkeys(seats, 0), dict.fromkeys(seats, 0)
        for t in seats:  # Exterminate-type, all at once
            if kind[t] != 2:
                continue
            victims = {
                v
                for v in seats
                if v != t
                and played[v] not in IMMUNE
                and (
                    kind[v] in (1, 3)
                    or (played[t] == "BOUDICCA" and played[v] in LEADERS)
                    or (played[t] in ("GENGHIS", "MONTEZUMA") and kind[v] == 5)
                )
            }
            gained[t] += len(victims)
            for v in victims:
                taken[v] += 1
        for s in seats:
            res[s] = max(0, res[s] - taken[s]) + gained[s]
        expanders = [s for s in seats if kind[s] == 3]
        minimum = {s: 3 if played[s] in MIN_BID_3 else 1 for s in expanders}
        eligible = [s for s in expanders if res[s] >= minimum[s]]
        bids: dict[str, int] = {}
        if len(eligible) == 1:
            bids = {eligible[0]: minimum[eligible[0]]}
        elif eligible:
            bids = {s: rnd.randint(minimum[s], min(res[s], minimum[s] + 3)) for s in eligible}
            self.step({s: f"BID {b}" for s, b in bids.items()}, "bid", eligible)
        values = {s: b + (0.5 if played[s] == "NAPOLEON" else 0) for s, b in bids.items()}
        unique = [v for v in values.values() if list(values.values()).count(v) == 1]
        winner = next((s for s in bids if values[s] == max(unique)), None) if unique else None
        for s, b in bids.items():
            if s == winner:
                res[s] -= b
                built_now.append((s, self.current))
            else:
                res[s] -= LOSER_PAYS.get(played[s], 1)
        back |= {s for s in expanders if s != winner and played[s] == "EXPAND"}
        for s in seats:  # Explore-type
            if kind[s] == 4:
                res[s] += (5 if last_round else 2) if played[s] == "ISABELLA" else (
                    3 if last_round else 1)
        for s in seats:
            if played[s] == "DIDO" and not expanders and res[s] >= 3:
                choice = rnd.choice(["BUILD", "DECLINE"])
                self.step({s: choice}, "dido", [s])
                if choice == "BUILD":
                    res[s] -= 3
                    built_now.append((s, self.current))
        for s, letter in built_now:
            self.built[letter] = s
            self.wonders[s].append(letter)
        self.excavate(played, built_now)
        back |= {s for s in seats if played[s] == "EXCAVATE"}
        for s in seats:  # end of round
            self.hand[s].discard(played[s])
            if s in back:
                self.hand[s].add(played[s])
            else:
                self.discard[s].append(played[s])
        for s, letter in built_now:
            res[s] += {"A": 2, "B": 1}.get(letter, 0)
        if self.current not in self.built:
            self.removed.append(self.current)
        left = [w for w in self.letters if w not in self.built and w not in self.removed]
        self.current = left[0] if left and not last_round else None

    def excavate(self, played: dict[str, str], built_now: list[tuple[str, str]]) -> None:
        seats = self.seats
        options: dict[str, list[tuple[str, ...]]] = {}
        for s in seats:
            if played[s] == "CATHARINE":
                self.res[s] += 1
        for s in seats:
            if KIND[played[s]] != 5:
                continue
            mine = [("card", c) for c in dict.fromkeys(self.discard[s]) if c in ACTIONS]
            if played[s] == "CAESAR":
                mine += [("leader", c, o) for o in seats for c in self.discard[o] if c in LEADERS]
            if played[s] == "SULEIMAN" and self.res[s] >= 3:
                mine += [("build", w) for w in sorted(self.removed)]
            if mine:
                options[s] = mine
        choice = {s: self.rnd.choice(opts) for s, opts in options.items()}
        asked = [s for s in seats if len(options.get(s, ())) > 1]
        if asked:
            text = {"card": "TAKE {1}", "leader": "TAKE {1} FROM {2}", "build": "BUILD {1}"}
            orders = {s: text[choice[s][0]].format(*choice[s]) for s in asked}
            self.step(orders, "excavate", asked)
        for s, picked in choice.items():
            if picked[0] == "card":
                self.discard[s].remove(picked[1])
                self.hand[s].add(picked[1])
            elif picked[0] == "leader":
                self.discard[picked[2]].remove(picked[1])
                self.hand[s].add(picked[1])
            else:
                self.res[s] -= 3
                self.removed.remove(picked[1])
                self.built[picked[1]] = s
                self.wonders[s].append(picked[1])
                built_now.append((s, picked[1]))


@pytest.mark.parametrize("n", [3, 4, 5, 6])
@pytest.mark.parametrize(("leaders", "all_leaders"), [(True, False), (False, False), (True, True)])
def test_fivex_matches_the_spec_model(n: int, leaders: bool, all_leaders: bool) -> None:
    for seed in range(6):
        FiveX(seed, n, leaders, all_leaders).play()


# --- 4X Dice -------------------------------------------------------------------------

FACES = [[1, 0], [2, 0], [0, 1], [0, 2], [1, 1], [2, 2]]
AREAS = ["EXPLORE", "EXPAND", "EXTRACT", "EXTERMINATE"]
COUNTERS = ["explore", "expand", "extract", "exterminate"]


def _fourx_game(seed: int, n: int, dice: int) -> None:
    rnd = random.Random(seed)
    rules = engine.get("4x-dice")
    seats = [f"s{i}" for i in range(n)]
    rolls = [rnd.choice(FACES) for _ in range(500)]
    first = rnd.randrange(n)
    setup = {"first": seats[first], "rolls": rolls}
    state = rules.new_game(players=seats, options={"dice": dice}, seed=seed, setup=setup)
    counters = {s: dict.fromkeys([*COUNTERS, "vp"], 0) for s in seats}
    faces: dict[str, list[list[Any]]] = {}
    used = 0
    for s in seats:  # set-up rolls in seating order
        faces[s] = [[list(f), None] for f in rolls[used : used + dice]]
        used += dice

    def compare(where: str, phase: str, pending: list[str]) -> None:
        printed = rules.report(state)
        assert (printed["phase"], printed["pending"]) == (phase, pending), where
        for s in seats:
            c = counters[s]
            score = c["vp"] + c["explore"] + 3 * c["expand"] + 2 * c["extract"] + c["exterminate"]
            mine = {**c, "score": score, "dice": [{"face": f, "area": a} for f, a in faces[s]]}
            assert {k: printed["players"][s][k] for k in mine} == mine, f"{where}, {s}"

    def allocate(seat: str) -> str:
        areas = rnd.choices(AREAS, weights=[3, 2, 2, 2], k=dice)  # eXplore: shorter games
        for die, area in zip(faces[seat], areas, strict=True):
            die[1] = area
        return "ALLOCATE " + " ".join(areas)

    compare("set-up", "allocate", seats)
    state, _ = rules.submit_step(state, {s: allocate(s) for s in seats})
    order = seats[first:] + seats[:first]
    round_no = 0
    while True:
        round_no += 1
        for s in order:
            c = counters[s]

            def on(area: str, i: int, s: str = s) -> int:
                return sum(f[i] for f, a in faces[s] if a == area)

            c["explore"] = min(19, c["explore"] + on("EXPLORE", 0))
            c["expand"] = min(19, c["explore"], c["expand"] + on("EXPAND", 1))
            if any(a == "EXTRACT" for _, a in faces[s]):
                pairs = min(on("EXTRACT", 0), on("EXTRACT", 1))
                c["vp"] += 2 * min(pairs, c["expand"])
                c["extract"] = min(19, c["extract"] + 1)
            ships = on("EXTERMINATE", 0)
            others = [o for o in seats if o != s]
            if ships and any(sum(f) for o in others for f, _ in faces[o]):
                compare(f"round {round_no}, {s} exterminates", "exterminate", [s])
                assert rules.report(state)["round"] == round_no
                hits = []
                for _ in range(rnd.randint(0, ships)):
                    targets = [
                        (o, k, j)
                        for o in others
                        for k, (f, _) in enumerate(faces[o])
                        for j in (0, 1)
                        if f[j]
                    ]
                    if not targets:
                        break
                    o, k, j = rnd.choice(targets)
                    faces[o][k][0][j] -= 1
                    c["exterminate"] = min(19, c["exterminate"] + 1)
                    hits.append(f"HIT {o} {k + 1} {'ASTEROID' if j else 'SHIP'}")
                state, _ = rules.submit_step(state, {s: "; ".join(hits) or "PASS"})
            faces[s] = [[list(f), None] for f in rolls[used : used + dice]]
            used += dice
            compare(f"round {round_no}, {s} rolled", "allocate", [s])
            state, _ = rules.submit_step(state, {s: allocate(s)})
        if any(counters[s][k] == 19 for s in seats for k in COUNTERS):
            break
    assert rules.is_over(state)
    scores = {s: rules.report(state)["players"][s]["score"] for s in seats}
    groups = [[s for s in seats if scores[s] == v] for v in sorted(set(scores.values()))[::-1]]
    assert [sorted(g) for g in rules.report(state)["ranking"]] == groups


@pytest.mark.parametrize(("n", "dice"), [(2, 2), (2, 4), (3, 3), (4, 2), (5, 4), (6, 3)])
def test_fourxdice_matches_the_spec_model(n: int, dice: int) -> None:
    for seed in range(3):
        _fourx_game(seed, n, dice)


# --- 6x5 -----------------------------------------------------------------------------

NEIGHBOURS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)]
LETTER = {"BLUE": "B", "RED": "R", "YELLOW": "Y"}
Cell = tuple[int, int]


def _canonical(cells: list[Cell]) -> list[Cell]:
    best, turned = None, list(cells)
    for _ in range(6):
        q0, r0 = min(turned)
        shape = sorted((q - q0, r - r0) for q, r in turned)
        best = shape if best is None or shape < best else best
        turned = [(-r, q + r) for q, r in turned]
    assert best is not None
    return best


def _key(cell: Cell) -> str:
    return f"{cell[0]},{cell[1]}"


def _sixbyfive_game(seed: int, n: int, options: dict[str, Any]) -> None:
    rnd = random.Random(seed)
    rules = engine.get("6x5")
    seats = [f"s{i}" for i in range(n)]
    current = rnd.randrange(n)
    state = rules.new_game(players=seats, options=options, seed=seed,
                           setup={"first": seats[current]})
    target, open_game = options.get("target", 0), options.get("open_game", False)
    max_turns = options.get("max_turns", 200)

    def goals() -> dict[str, list[list[Cell]]]:
        printed = rules.report(state)["players"]
        return {s: [_canonical([tuple(c) for c in g]) for g in printed[s]["goals"]]
                for s in seats}

    held = goals()
    deck = 33 - sum(len(g) for g in held.values())
    board: dict[Cell, str] = {(0, 0): "K"}
    reserve = dict.fromkeys(LETTER, 8)
    pawns: dict[str, Cell | None] = dict.fromkeys(seats)
    points = dict.fromkeys(seats, 0)
    turn, ranking = 1, None

    def by_points() -> list[list[str]]:
        top = [s for s in seats if points[s] >= target]
        rest = sorted({points[s] for s in seats if s not in top}, reverse=True)
        return ([top] if top else []) + [
            [s for s in seats if s not in top and points[s] == v] for v in rest]

    while True:
        printed = rules.report(state)
        assert printed["board"] == {_key(c): t for c, t in board.items()}
        assert printed["reserve"] == reserve
        assert printed["pawns"] == {s: p and _key(p) for s, p in pawns.items()}
        assert printed["turn"] == turn
        assert {s: printed["players"][s]["points"] for s in seats} == points
        assert rules.is_over(state) == (ranking is not None)
        if ranking is not None:
            assert printed["ranking"] == ranking
            assert not printed.get("pending")
            return
        seat = seats[current]
        assert printed["pending"] == [seat]
        black = next(c for c, t in board.items() if t == "K")
        blocked = {p for p in pawns.values() if p}
        empty = sorted({(q + a, r + b) for q, r in board for a, b in NEIGHBOURS} - set(board))
        empty.append((rnd.randint(-6, 6), rnd.randint(-6, 6)))
        tiles = sorted(board)
        action = rnd.choice(["place"] * 6 + ["switch", "move", "swap"])
        if action == "place":
            colour, hex1 = rnd.choice(sorted(LETTER)), rnd.choice(empty)
            text = f"PLACE {rnd.choice([colour, LETTER[colour]])} {_key(hex1)}"
            legal = reserve[colour] > 0 and hex1 not in board and any(
                (hex1[0] + a, hex1[1] + b) in board for a, b in NEIGHBOURS)
        elif action == "switch":
            hex1, colour = rnd.choice(tiles), rnd.choice(sorted(LETTER))
            text = f"SWITCH {_key(hex1)} TO {colour}"
            legal = (board[hex1] != "K" and hex1 not in blocked
                     and LETTER[colour] != board[hex1] and reserve[colour] > 0)
        elif action == "move":
            hex1 = rnd.choice(empty)
            text = f"MOVE BLACK TO {_key(hex1)}"
            legal = black not in blocked and hex1 not in board and any(
                (hex1[0] + a, hex1[1] + b) in board and (hex1[0] + a, hex1[1] + b) != black
                for a, b in NEIGHBOURS)
        else:
            hex1, hex2 = rnd.choice(tiles), rnd.choice(tiles)
            text = f"SWAP {_key(hex1)} {_key(hex2)}"
            legal = (open_game and not any(reserve.values()) and hex1 != hex2
                     and not {hex1, hex2} & blocked)
        try:
            state, _ = rules.submit_step(state, {seat: text})
        except StepRejected as exc:
            assert not legal, f"{text} refused: {exc.reason}"
            continue
        assert legal, f"{text} accepted (board {board}, pawns {pawns}, reserve {reserve})"
        if action == "place":
            reserve[colour] -= 1
            board[hex1] = LETTER[colour]
        elif action == "switch":
            reserve[next(c for c, t in LETTER.items() if t == board[hex1])] += 1
            reserve[colour] -= 1
            board[hex1] = LETTER[colour]
        elif action == "move":
            del board[black]
            board[hex1] = "K"
        else:
            board[hex1], board[hex2] = board[hex2], board[hex1]
        pawns[seat] = hex1
        black = next(c for c, t in board.items() if t == "K")
        realized = []
        for letter in "BRY":
            group, todo = {black}, [black]
            while todo:
                q, r = todo.pop()
                for a, b in NEIGHBOURS:
                    if (q + a, r + b) not in group and board.get((q + a, r + b)) == letter:
                        group.add((q + a, r + b))
                        todo.append((q + a, r + b))
            if len(group) == 5:
                realized.append(_canonical(list(group)))
        if target:
            deck_out = False
            for s in seats:
                done = [g for g in held[s] if g in realized]
                points[s] += len(done)
                for _ in done:
                    deck_out = deck_out or deck == 0
                    deck = max(0, deck - 1)
            held = goals()  # the replacements drawn (which ones is not the model's concern)
            if deck_out or max(points.values()) >= target or (
                    not any(reserve.values()) and not open_game) or turn >= max_turns:
                ranking = by_points()
        else:
            winners = [s for s in seats if any(g in realized for g in held[s])]
            if len(winners) == 1:
                ranking = [winners, [s for s in seats if s != winners[0]]]
            elif winners or (not any(reserve.values()) and not open_game) or turn >= max_turns:
                ranking = [seats]
        if ranking is None:
            turn += 1
            current = (current + 1) % n


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"goals": 5, "open_game": True, "max_turns": 90},
        {"goals": 3, "max_turns": 30},
        {"goals": 4, "target": 2, "max_turns": 90},
        {"goals": 5, "target": 1, "open_game": True, "max_turns": 60},
    ],
)
def test_sixbyfive_matches_the_spec_model(n: int, options: dict[str, Any]) -> None:
    for seed in range(4):
        _sixbyfive_game(seed, n, options)
