"""Pairing (tournaments.pairing): worked examples of each rule of the contract."""

from __future__ import annotations

import itertools
import random

import pytest

from tournaments.pairing import PairingError, pair, pair_json, parse_request
from tournaments.pairing.sizes import plan, split


def _req(sizes: list[int], players: list[dict], forbidden: list | None = None) -> dict:
    return {"table_sizes": sizes, "seed": 1, "players": players, "forbidden": forbidden or []}


def _p(pid: str, points: float = 0.0, rating: float = 1500, **kw: object) -> dict:
    return {"id": pid, "points": points, "rating": rating, **kw}


def _run(data: dict) -> dict:
    return pair_json(data)


SPEC_EXAMPLE = {
    "table_sizes": [4, 3],
    "seed": 7,
    "players": [
        {
            "id": "p1",
            "points": 3.0,
            "rating": 1612,
            "opponents": ["p2", "p7"],
            "byes": 0,
            "seats": [1, 0, 0, 0],
        },
        {"id": "p2", "points": 2.0, "rating": 1580, "opponents": ["p1"]},
        {"id": "p3", "points": 2.0, "rating": 1550},
        {"id": "p4", "points": 1.0, "rating": 1500},
        {"id": "p5", "points": 1.0, "rating": 1490},
        {"id": "p6", "points": 1.0, "rating": 1480},
        {"id": "p7", "points": 0.0, "rating": 1470, "opponents": ["p1"]},
        {"id": "p8", "points": 0.0, "rating": 1460},
        {
            "id": "p9",
            "points": 0.0,
            "rating": 1500,
            "opponents": [],
            "byes": 1,
            "seats": [0, 0, 0, 0],
            "withdrawn": True,
        },
    ],
    "forbidden": [["p1", "p5"]],
}


def test_spec_example_obeys_every_hard_rule() -> None:
    out = _run(SPEC_EXAMPLE)
    seated = [p for t in out["tables"] for p in t]
    assert sorted(seated + out["byes"]) == [f"p{i}" for i in range(1, 9)]
    assert out["byes"] == []  # 8 = 4 + 4
    assert [len(t) for t in out["tables"]] == [4, 4]
    for t in out["tables"]:
        assert not {"p1", "p5"} <= set(t)
        assert not {"p1", "p2"} <= set(t)  # met before; a repeat-free layout exists
        assert not {"p1", "p7"} <= set(t)
    assert "p1" in out["tables"][0]  # the leader is on the top table
    assert out["tables"][0][0] != "p1"  # p1 has had seat 1 once, the others never


@pytest.mark.parametrize(
    ("n", "sizes", "expected"),
    [
        (10, (4, 3), [4, 3, 3]),
        (12, (4, 3), [4, 4, 4]),
        (13, (4, 3), [4, 3, 3, 3]),
        (12, (3, 4), [3, 3, 3, 3]),
        (7, (2,), None),
        (8, (2,), [2, 2, 2, 2]),
        (13, (5, 4, 3), [5, 5, 3]),
        (11, (4, 5), None),
    ],
)
def test_split_prefers_the_first_listed_size(n: int, sizes: tuple, expected: list | None) -> None:
    assert split(n, sizes) == expected


@pytest.mark.parametrize(
    ("n", "sizes", "byes"),
    [(7, (2,), 1), (10, (4,), 2), (11, (4, 5), 1), (5, (3,), 2), (10, (4, 3), 0)],
)
def test_fewest_byes(n: int, sizes: tuple, byes: int) -> None:
    layout = plan(n, sizes)
    assert layout is not None and layout[0] == byes


def test_bye_goes_to_fewest_byes_then_lowest_in_standings() -> None:
    players = [
        _p("a", 3),
        _p("b", 2),
        _p("c", 1, byes=1),  # lowest, but already had a bye
        _p("d", 1, rating=1600),
        _p("e", 1, rating=1400),  # same points as d, lower rating: the bye
    ]
    assert _run(_req([2], players))["byes"] == ["e"]
    # Equal points and rating: the id that sorts last in the standings gets it.
    same = [_p("x"), _p("y"), _p("z")]
    assert _run(_req([2], same))["byes"] == ["z"]


def test_bye_moves_on_when_forbidden_pairs_block_the_rest() -> None:
    # c deserves the bye, but then a and b (forbidden) would have to play: b gets it.
    players = [_p("a", 2), _p("b", 1), _p("c", 0)]
    out = _run(_req([2], players, [["a", "b"]]))
    assert out["byes"] == ["b"]
    assert sorted(out["tables"][0]) == ["a", "c"]


def test_forbidden_pairs_that_cannot_be_kept_apart_are_refused() -> None:
    with pytest.raises(PairingError, match="no way to seat"):
        _run(_req([2], [_p("a"), _p("b")], [["a", "b"]]))
    with pytest.raises(PairingError, match="no way to seat"):
        _run(_req([4], [_p("a"), _p("b")]))
    with pytest.raises(PairingError, match="no active players"):
        _run(_req([2], [_p("a", withdrawn=True)]))


def test_too_few_players_for_a_table_are_counted_in_english() -> None:
    """It read "1 active player(s) cannot fill a table of 4"."""
    with pytest.raises(PairingError) as one:
        _run(_req([4], [_p("a"), _p("b", withdrawn=True)]))
    assert str(one.value) == "no way to seat anyone: 1 active player cannot fill a table of 4"
    with pytest.raises(PairingError) as two:
        _run(_req([4], [_p("a"), _p("b")]))
    assert str(two.value) == "no way to seat anyone: 2 active players cannot fill a table of 4"


def test_withdrawn_players_are_not_paired() -> None:
    players = [_p("a", 1), _p("b", 1, withdrawn=True), _p("c"), _p("d")]
    out = _run(_req([2], players))
    seated = {p for t in out["tables"] for p in t} | set(out["byes"])
    assert seated == {"a", "c", "d"}
    assert len(out["byes"]) == 1


def test_leaders_play_each_other() -> None:
    players = [_p(f"p{i}", points=8 - i) for i in range(8)]
    out = _run(_req([2], players))
    assert [sorted(t) for t in out["tables"]] == [
        ["p0", "p1"],
        ["p2", "p3"],
        ["p4", "p5"],
        ["p6", "p7"],
    ]
    out4 = _run(_req([4], players))
    assert [sorted(t) for t in out4["tables"]] == [
        ["p0", "p1", "p2", "p3"],
        ["p4", "p5", "p6", "p7"],
    ]


def test_within_a_score_group_the_leaders_play_each_other() -> None:
    # Rule 4, "the leaders play each other": the standings go by points, then rating, so
    # with equal points the two highest-rated meet (not the Swiss fold 1st v 3rd).
    players = [_p(f"r{r}", 1, rating=r) for r in (1900, 1800, 1700, 1600)]
    out = _run(_req([2], players))
    assert [sorted(t) for t in out["tables"]] == [["r1800", "r1900"], ["r1600", "r1700"]]
    # Round one of a league, everybody on 0 points: the same.
    first = [_p(x, 0, rating=r) for x, r in (("d", 1300), ("b", 1500), ("a", 1600), ("c", 1400))]
    out = _run(_req([2], first))
    assert [sorted(t) for t in out["tables"]] == [["a", "b"], ["c", "d"]]


def test_among_equal_points_a_complementary_seat_is_preferred() -> None:
    # a and b both had seat 1 more often (both want seat 2), c and d seat 2 (both want
    # seat 1); all on 1 point, so every pairing is as close in points (rule 4) and rule
    # 5 decides: a-c and b-d let everyone have the seat they had less.
    players = [
        _p("a", 1, rating=1900, seats=[1, 0]),
        _p("b", 1, rating=1800, seats=[1, 0]),
        _p("c", 1, rating=1700, seats=[0, 1]),
        _p("d", 1, rating=1600, seats=[0, 1]),
    ]
    out = _run(_req([2], players))
    assert out["tables"] == [["c", "a"], ["d", "b"]]
    # A seat preference never pairs across points: with b on 2 points, a and b (the
    # leaders) meet although both want seat 2.
    players[1] = _p("b", 2, rating=1800, seats=[1, 0])
    players[0] = _p("a", 2, rating=1900, seats=[1, 0])
    out = _run(_req([2], players))
    assert [sorted(t) for t in out["tables"]] == [["a", "b"], ["c", "d"]]


def test_repeat_avoided_by_floating_when_possible() -> None:
    players = [
        _p("a", 2, opponents=["b"]),
        _p("b", 2, opponents=["a"]),
        _p("c", 1),
        _p("d", 1),
    ]
    out = _run(_req([2], players))
    for t in out["tables"]:
        assert set(t) != {"a", "b"}


def test_repeat_happens_only_when_unavoidable_and_then_the_fewest() -> None:
    # Three players have all met; with 4 a table they must share a table with 3 repeats
    # counted once per meeting: a-b twice, a-c and b-c once -> 4.
    players = [
        _p("a", opponents=["b", "b", "c"]),
        _p("b", opponents=["a", "a", "c"]),
        _p("c", opponents=["a", "b"]),
        _p("d"),
    ]
    out = _run(_req([4], players))
    assert sorted(out["tables"][0]) == ["a", "b", "c", "d"]
    # With two a table, one repeat is needed; the cheapest keeps a-b (met twice) apart.
    out2 = _run(_req([2], players))
    assert {frozenset(t) for t in out2["tables"]} in (
        {frozenset("ac"), frozenset("bd")},
        {frozenset("bc"), frozenset("ad")},
    )


def test_two_player_seat_1_to_the_one_who_had_it_less() -> None:
    players = [_p("a", 1, seats=[2, 1]), _p("b", 1, seats=[1, 2])]
    assert _run(_req([2], players))["tables"] == [["b", "a"]]
    players = [_p("a", 1, seats=[1, 2]), _p("b", 1, seats=[2, 1])]
    assert _run(_req([2], players))["tables"] == [["a", "b"]]


def test_two_player_equal_histories_alternate_from_board_to_board() -> None:
    players = [_p(f"p{i}", points=4 - i) for i in range(4)]
    out = _run(_req([2], players))
    # Board 1: the higher-placed moves first; board 2: the lower-placed does.
    assert out["tables"] == [["p0", "p1"], ["p3", "p2"]]


def test_seats_alternate_over_a_whole_two_player_event() -> None:
    rng = random.Random(5)
    ids = [f"p{i}" for i in range(12)]
    points = dict.fromkeys(ids, 0.0)
    seats = {p: [0, 0] for p in ids}
    opp: dict[str, list[str]] = {p: [] for p in ids}
    for _ in range(6):
        players = [_p(p, points[p], opponents=opp[p], seats=seats[p]) for p in ids]
        for a, b in _run(_req([2], players))["tables"]:
            seats[a][0] += 1
            seats[b][1] += 1
            opp[a].append(b)
            opp[b].append(a)
            points[rng.choice([a, b])] += 1
    # 6 rounds: nobody is more than 2 games off balance, most are exactly even.
    assert all(abs(s[0] - s[1]) <= 2 for s in seats.values())
    assert sum(s[0] == s[1] for s in seats.values()) >= 8


def test_four_seats_go_to_whoever_sat_there_least() -> None:
    players = [
        _p("a", seats=[0, 1, 1, 1]),  # never had seat 1
        _p("b", seats=[1, 0, 1, 1]),
        _p("c", seats=[1, 1, 0, 1]),
        _p("d", seats=[1, 1, 1, 0]),
    ]
    assert _run(_req([4], players))["tables"] == [["a", "b", "c", "d"]]
    players = [
        _p("a", seats=[1, 1, 1, 0]),
        _p("b", seats=[1, 1, 0, 1]),
        _p("c", seats=[1, 0, 1, 1]),
        _p("d", seats=[0, 1, 1, 1]),
    ]
    assert _run(_req([4], players))["tables"] == [["d", "c", "b", "a"]]


def test_same_input_same_output_and_input_order_does_not_matter() -> None:
    rng = random.Random(3)
    ids = [f"q{i}" for i in range(30)]
    players = []
    for p in ids:
        opp = rng.sample([x for x in ids if x != p], 3)
        players.append(_p(p, rng.choice([0, 1, 2]), rng.randint(1400, 1700), opponents=opp))
    data = _req([4, 3], players, [["q1", "q2"]])
    first = _run(data)
    assert _run(data) == first
    shuffled = dict(data, players=list(reversed(players)))
    assert _run(shuffled) == first


def test_typed_api_matches_json_api() -> None:
    request = parse_request(SPEC_EXAMPLE)
    assert pair(request).to_json() == _run(SPEC_EXAMPLE)


@pytest.mark.parametrize("size", [2, 3, 4, 5, 6])
def test_planted_repeat_free_round_is_found(size: int) -> None:
    # Guards against the local search stopping at repeats: a repeat-free partition exists
    # by construction (players met everybody except their planted table-mates, at random).
    rng = random.Random(size)
    n = size * 8
    ids = [f"x{i:02}" for i in range(n)]
    perm = rng.sample(ids, n)
    planted = {
        frozenset(pr)
        for k in range(0, n, size)
        for pr in itertools.combinations(perm[k : k + size], 2)
    }
    opp: dict[str, list[str]] = {p: [] for p in ids}
    for a, b in itertools.combinations(ids, 2):
        if frozenset((a, b)) not in planted and rng.random() < 0.6:
            opp[a].append(b)
            opp[b].append(a)
    players = [_p(p, rng.randint(0, 4), opponents=opp[p]) for p in ids]
    out = _run(_req([size], players))
    repeats = sum(opp[a].count(b) for t in out["tables"] for a, b in itertools.combinations(t, 2))
    assert repeats == 0


def test_bracket_repaired_when_greedy_would_float_two() -> None:
    # In standings order a-b, then c (met d) finds nobody, so c and d would float down to
    # e and f. Re-pairing the score group keeps every score together; of a-c, b-d and
    # a-d, b-c the first has partners closer in the standings (squared distances 4 + 4
    # against 9 + 1).
    players = [
        _p("a", 2, rating=1900),
        _p("b", 2, rating=1800),
        _p("c", 2, rating=1700, opponents=["d"]),
        _p("d", 2, rating=1600, opponents=["c"]),
        _p("e", 0),
        _p("f", 0),
    ]
    out = _run(_req([2], players))
    assert {frozenset(t) for t in out["tables"]} == {
        frozenset("ac"),
        frozenset("bd"),
        frozenset("ef"),
    }


def test_a_tie_for_the_bye_goes_by_rule_4() -> None:
    # x and y tie for the bye (no byes, 0 points, same rating). Bye to y: c (forbidden
    # with x) must play a or b, so the gaps are 1 and 2. Bye to x: a-b and c-y, gaps 0
    # and 1. Rule 4 decides what rule 2 leaves open.
    players = [_p("a", 2), _p("b", 2), _p("c", 1), _p("x", 0), _p("y", 0)]
    out = _run(_req([2], players, [["c", "x"]]))
    assert out["byes"] == ["x"]
    assert {frozenset(t) for t in out["tables"]} == {frozenset("ab"), frozenset("cy")}
    # Without the forbidden pair both byes give the same gaps: the id that sorts last.
    assert _run(_req([2], players))["byes"] == ["y"]


def test_tables_bigger_than_six() -> None:
    # 17 players at tables of 8: two tables and one bye. Each player sat once before, in
    # seat (i % 8) + 1; with one used seat each, every table can give everyone a seat
    # they never had (each player rules out one seat of eight), so the seat order does.
    history = {f"p{i}": [1 if k == i % 8 else 0 for k in range(8)] for i in range(17)}
    players = [_p(p, points=i % 3, seats=history[p]) for i, p in enumerate(history)]
    out = _run(_req([8], players))
    assert [len(t) for t in out["tables"]] == [8, 8] and len(out["byes"]) == 1
    for table in out["tables"]:
        assert [history[p][seat] for seat, p in enumerate(table)] == [0] * 8
    with pytest.raises(PairingError, match="between 2 and 12"):
        _run(_req([13], players))



def test_forbidden_pair_does_not_push_floaters_far_from_their_score() -> None:
    # Regression: the greedy paired a-b, then c (forbidden with d) and d floated down to e
    # and f: gaps 1.5, 1.5 and 1. By hand, a-c, b-d, e-f keeps every gap smaller
    # (1.5, 0.5, 0); every other repeat-free pairing has a bigger squared-gap sum.
    players = [
        _p("a", 3),
        _p("b", 1.5, rating=1600),
        _p("c", 1.5, rating=1500),
        _p("d", 1),
        _p("e", 0, rating=1600),
        _p("f", 0, rating=1500),
    ]
    out = _run(_req([2], players, [["c", "d"]]))
    assert {frozenset(t) for t in out["tables"]} == {
        frozenset("ac"),
        frozenset("bd"),
        frozenset("ef"),
    }


def test_smaller_table_goes_on_top_when_that_keeps_points_closer() -> None:
    # Regression: 7 players at [4, 3] were always seated 4 on top: {4, 4, 2, 1} {1, 0, 0},
    # squared gaps 27 + 2 = 29. By hand {4, 4, 2} {1, 1, 0, 0} costs 8 + 4 = 12 and every
    # player's table-mates are closer in points.
    players = [
        _p("a", 4, rating=1600),
        _p("b", 4),
        _p("c", 2),
        _p("d", 1, rating=1600),
        _p("e", 1),
        _p("f", 0, rating=1600),
        _p("g", 0),
    ]
    out = _run(_req([4, 3], players))
    assert [sorted(t) for t in out["tables"]] == [["a", "b", "c"], ["d", "e", "f", "g"]]


def test_table_sizes_ordered_to_keep_score_groups_together_in_big_fields() -> None:
    # Regression (14 players, found before the exact search reached them): score groups of 3, 4, 4
    # and 3 at [4, 3] sit exactly at 3 + 4 + 4 + 3 tables, every table one score.
    players = (
        [_p(f"n{i}", 9) for i in range(3)]
        + [_p(f"s{i}", 6) for i in range(4)]
        + [_p(f"t{i}", 3) for i in range(4)]
        + [_p(f"z{i}", 0) for i in range(3)]
    )
    out = _run(_req([4, 3], players))
    assert [{p[0] for p in t} for t in out["tables"]] == [{"n"}, {"s"}, {"t"}, {"z"}]
    assert [len(t) for t in out["tables"]] == [3, 4, 4, 3]


def test_closest_points_beyond_twelve_players_at_bigger_tables() -> None:
    # Regression (13 players, [4, 3]): p8 has met p9 and p13 has met p10 and p11, so the
    # plain standings order will not do. Worked by hand: p13 (0 points) joins p7 and p8
    # (1 point each) and p9-p12 (0 points) share the four-table: 3, 3, 3 | 2, 2, 2 |
    # 1, 1, 0 | 0, 0, 0, 0, no repeat, two pairs one point apart. The local search alone
    # stopped at 1, 1, 0, 0 | 0, 0, 0 (four pairs one point apart).
    players = (
        [_p(f"p{i}", 3) for i in (1, 2, 3)]
        + [_p(f"p{i}", 2) for i in (4, 5, 6)]
        + [_p("p7", 1), _p("p8", 1, opponents=["p9"]), _p("p9", 0, opponents=["p8"])]
        + [_p("p10", 0, opponents=["p13"]), _p("p11", 0, opponents=["p13"]), _p("p12", 0)]
        + [_p("p13", 0, opponents=["p10", "p11"])]
    )
    out = _run(_req([4, 3], players))
    assert [sorted(t) for t in out["tables"]] == [
        ["p1", "p2", "p3"],
        ["p4", "p5", "p6"],
        ["p13", "p7", "p8"],
        ["p10", "p11", "p12", "p9"],
    ]


def _brute_best(data: dict) -> tuple[int, int]:
    """(repeats, sum over pairs at a table of the squared point gap in hundredths) of the
    best layout, by enumerating every partition (no byes, one table size)."""
    players = data["players"]
    size = data["table_sizes"][0]
    pts = {p["id"]: round(p["points"] * 100) for p in players}
    met: dict[frozenset, int] = {}
    for p in players:
        for o in p.get("opponents", []):
            key = frozenset((p["id"], o))
            met[key] = met.get(key, 0) + 1
    cost = {
        frozenset((a, b)): (met.get(frozenset((a, b)), 0) // 2, (pts[a] - pts[b]) ** 2)
        for a, b in itertools.combinations(pts, 2)
    }
    best = (10**9, 10**9)

    def rec(free: tuple[str, ...], acc: tuple[int, int]) -> None:
        nonlocal best
        if acc >= best:
            return
        if not free:
            best = acc
            return
        for combo in itertools.combinations(free[1:], size - 1):
            group = (free[0], *combo)
            r, d = acc
            for a, b in itertools.combinations(group, 2):
                r, d = r + cost[frozenset((a, b))][0], d + cost[frozenset((a, b))][1]
            rec(tuple(x for x in free[1:] if x not in combo), (r, d))

    rec(tuple(pts), (0, 0))
    return best


def _layout_cost(data: dict, tables: list) -> tuple[int, int]:
    pts = {p["id"]: round(p["points"] * 100) for p in data["players"]}
    opp = {p["id"]: p.get("opponents", []) for p in data["players"]}
    repeats = gaps = 0
    for t in tables:
        for a, b in itertools.combinations(t, 2):
            repeats += opp[a].count(b)
            gaps += (pts[a] - pts[b]) ** 2
    return repeats, gaps


@pytest.mark.parametrize("seed", range(6))
def test_fields_of_fifteen_at_threes_are_as_close_as_brute_force_finds(seed: int) -> None:
    rng = random.Random(seed)
    ids = [f"q{i:02d}" for i in range(15)]
    opponents: dict[str, list[str]] = {i: [] for i in ids}
    for _ in range(rng.randint(8, 30)):
        a, b = rng.sample(ids, 2)
        opponents[a].append(b)
        opponents[b].append(a)
    players = [
        _p(i, rng.choice([0, 0.5, 1, 1.5, 2, 2.5, 3]), opponents=opponents[i]) for i in ids
    ]
    data = _req([3], players)
    out = _run(data)
    assert out["byes"] == []
    assert _layout_cost(data, out["tables"]) == _brute_best(data)


def test_a_player_forbidden_with_everyone_gets_a_bye_however_far_down_the_order() -> None:
    # 20 players at tables of 6: two byes. p12 and p13 may sit with nobody, so they must
    # be the byes, though 20 other players come before them in the bye order.
    ids = [f"p{i:02d}" for i in range(1, 21)]
    players = [_p(pid, 0, rating=2000 - 10 * k) for k, pid in enumerate(ids)]
    forbidden = [[x, y] for x in ("p12", "p13") for y in ids if y != x]
    out = _run(_req([6], players, forbidden))
    assert sorted(out["byes"]) == ["p12", "p13"]
    assert sorted(len(t) for t in out["tables"]) == [6, 6, 6]


def test_between_players_tied_for_the_bye_the_one_that_avoids_a_repeat_gets_it() -> None:
    # a and b are tied on byes, points and rating; c has met a. Rule 2 does not choose
    # between a and b, rule 3 does: a's bye leaves b-c, a new meeting.
    players = [
        _p("a", 1, rating=1480, opponents=["c"]),
        _p("b", 1, rating=1480),
        _p("c", 1, rating=1520, opponents=["a"]),
    ]
    out = _run(_req([2], players))
    assert out["byes"] == ["a"]
    assert sorted(out["tables"][0]) == ["b", "c"]
    # Not tied (b rated lower): rule 2 decides, even with a repeat.
    players[1] = _p("b", 1, rating=1470)
    assert _run(_req([2], players))["byes"] == ["b"]


# --- the preferred split of sizes yields to rules 1-3 (from a conformance audit) -------


def _meetings(tables, players: list[dict]) -> int:
    met = {p["id"]: p.get("opponents", []) for p in players}
    return sum(met[a].count(b) for t in tables for a, b in itertools.combinations(t, 2))


def test_a_forbidden_pair_takes_another_split_rather_than_failing():
    # [4, 2] with 4 players prefers one table of 4, where c and d would meet: two tables
    # of 2 keep them apart (rule 1 is hard; the size preference is not a rule).
    out = pair_json(_req([4, 2], [{"id": i} for i in "abcd"], [["c", "d"]]))
    assert sorted(len(t) for t in out["tables"]) == [2, 2] and out["byes"] == []
    assert not any({"c", "d"} <= set(t) for t in out["tables"])


def test_the_bye_goes_to_the_lowest_player_whatever_the_split():
    # 5 players at [4, 2]: one bye, to e (no byes yet, 0 points, the lower rating: rule 2).
    # One table of 4 without e would seat a with b, forbidden; two tables of 2 do not.
    players = [{"id": "a", "points": 3}, {"id": "b", "points": 2}, {"id": "c", "points": 1},
               {"id": "d", "points": 0, "rating": 1500}, {"id": "e", "points": 0, "rating": 1400}]
    out = pair_json(_req([4, 2], players, [["a", "b"]]))
    assert out["byes"] == ["e"]
    assert not any({"a", "b"} <= set(t) for t in out["tables"])


def test_no_repeat_when_another_split_needs_none():
    # Round 2 of 6 players at [3, 2] after a,b,c and d,e,f met: any two tables of 3 repeat
    # a meeting; three tables of 2, each across the two groups, repeat none (rule 3).
    players = [{"id": i, "opponents": [o for o in grp if o != i]}
               for grp in ("abc", "def") for i in grp]  # fmt: skip
    out = pair_json(_req([3, 2], players))
    assert _meetings(out["tables"], players) == 0
    # Four players who have all met: one table of 4 repeats 6 meetings, two of 2 only 2.
    everyone = [{"id": i, "opponents": [o for o in "abcd" if o != i]} for i in "abcd"]
    out = pair_json(_req([4, 2], everyone))
    assert _meetings(out["tables"], everyone) == 2


def test_the_preferred_split_stays_when_nothing_is_at_stake():
    # 12 fresh players at [4, 3]: three tables of 4, not four of 3.
    out = pair_json(_req([4, 3], [{"id": f"p{i:02}"} for i in range(12)]))
    assert sorted(len(t) for t in out["tables"]) == [4, 4, 4]


def test_splits_past_the_first_few_are_tried_when_none_keeps_forbidden_pairs_apart(monkeypatch):
    import tournaments.pairing as pairing

    # Only two tables of 2 keep a from b and c from d; with one split tried at first, the
    # others are still tried while none is feasible.
    monkeypatch.setattr(pairing, "SPLITS_MAX", 1)
    out = pair_json(_req([4, 2], [{"id": i} for i in "abcd"], [["a", "b"], ["c", "d"]]))
    assert sorted(len(t) for t in out["tables"]) == [2, 2]
