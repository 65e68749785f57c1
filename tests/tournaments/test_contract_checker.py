"""An independent checker of the pairing and rating contracts (tournaments.md), run
against the real command lines on generated inputs.

The checker imports nothing of the implementation: it enumerates every seating of small
fields by brute force and reads the rules from the spec, and the Elo reference is
written from the spec's formulas. (Most generated fields run the command line's main()
in this process rather than in a process of its own: the same code, read the same way.)
"""

from __future__ import annotations

import contextlib
import importlib
import io
import itertools
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _cli(module: str, payload: object | None = None, raw: str | None = None):
    text = raw if raw is not None else json.dumps(payload)
    return subprocess.run(
        [sys.executable, "-m", module, "-"], input=text, capture_output=True, text=True,
        cwd=ROOT, timeout=120, check=False,
    )


def _main(module: str, payload: object) -> subprocess.CompletedProcess:
    """``python -m module -`` run as ``module.__main__.main(["-"])`` in this process, its
    standard streams captured: what ``_cli`` answers, without a process start (the
    command lines import no Django)."""
    main = importlib.import_module(f"{module}.__main__").main
    out, err = io.StringIO(), io.StringIO()
    stdin = sys.stdin
    sys.stdin = io.StringIO(json.dumps(payload))
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["-"])
    finally:
        sys.stdin = stdin
    return subprocess.CompletedProcess([module], code, out.getvalue(), err.getvalue())


# --- the pairing checker -------------------------------------------------------------


def _active(inp: dict) -> list[str]:
    return [p["id"] for p in inp["players"] if not p.get("withdrawn", False)]


def _meetings(inp: dict) -> dict[frozenset, int]:
    """Earlier meetings of each pair: each side lists the other once per meeting."""
    m: dict[frozenset, int] = {}
    for p in inp["players"]:
        for o in set(p.get("opponents", [])):
            key = frozenset((p["id"], o))
            m[key] = max(m.get(key, 0), p["opponents"].count(o))
    return m


def _partitions(ids: list[str], sizes: list[int], ok):
    if not ids:
        yield []
        return
    first, rest = ids[0], ids[1:]
    for s in sorted(set(sizes)):
        for others in itertools.combinations(rest, s - 1):
            group = (first, *others)
            if all(ok(a, b) for a, b in itertools.combinations(group, 2)):
                left = [x for x in rest if x not in others]
                for tail in _partitions(left, sizes, ok):
                    yield [group, *tail]


def _fewest_bye_layouts(inp: dict) -> list[tuple[tuple[str, ...], list[tuple[str, ...]]]]:
    """Every seating that keeps the forbidden pairs apart with the fewest byes."""
    act = _active(inp)
    forbidden = {frozenset(f) for f in inp.get("forbidden", [])}

    def ok(a: str, b: str) -> bool:
        return frozenset((a, b)) not in forbidden

    for b in range(len(act)):
        found = [
            (byes, tables)
            for byes in itertools.combinations(act, b)
            for tables in _partitions([x for x in act if x not in byes], inp["table_sizes"], ok)
        ]
        if found:
            return found
    return []


def _bye_key(inp: dict, byes) -> tuple:
    """Who deserves a bye most: fewest earlier byes, then lowest points, then rating."""
    by = {p["id"]: p for p in inp["players"]}
    return tuple(sorted((by[b].get("byes", 0), by[b].get("points", 0), by[b].get("rating", 0))
                        for b in byes))  # fmt: skip


def _repeats(inp: dict, tables) -> int:
    m = _meetings(inp)
    return sum(m.get(frozenset(pr), 0) for t in tables for pr in itertools.combinations(t, 2))


def _point_gaps(inp: dict, tables) -> float:
    pts = {p["id"]: p.get("points", 0) for p in inp["players"]}
    return sum((pts[a] - pts[b]) ** 2 for t in tables for a, b in itertools.combinations(t, 2))


def _seat_cost(inp: dict, table) -> int:
    """Earlier sittings of each player in the seat it gets now."""
    seats = {p["id"]: p.get("seats", []) for p in inp["players"]}
    return sum(seats[x][k] if k < len(seats[x]) else 0 for k, x in enumerate(table))


def check_pairing(inp: dict, out: dict) -> None:
    """Rules 1-5 of the contract; small fields only (brute force)."""
    tables = [tuple(t) for t in out["tables"]]
    byes = tuple(out["byes"])
    assert set(out) == {"tables", "byes"}
    everyone = [x for t in tables for x in t] + list(byes)
    assert sorted(everyone) == sorted(_active(inp)), "every active player exactly once"
    assert all(len(t) in inp["table_sizes"] for t in tables), "allowed sizes"
    forbidden = {frozenset(f) for f in inp.get("forbidden", [])}
    assert not any(frozenset(pr) in forbidden for t in tables for pr in itertools.combinations(t, 2))
    layouts = _fewest_bye_layouts(inp)
    assert len(byes) == len(layouts[0][0]), "as few byes as possible"
    best_byes = min(_bye_key(inp, b) for b, _t in layouts)
    assert _bye_key(inp, byes) == best_byes, "the byes go to the most deserving"
    same = [t for b, t in layouts if _bye_key(inp, b) == best_byes]
    fewest = min(_repeats(inp, t) for t in same)
    assert _repeats(inp, tables) == fewest, "as few repeat meetings as possible"
    # Rule 4 among the seatings as good on rules 1-3 at the same table sizes.
    split = sorted(map(len, tables))
    closest = min(_point_gaps(inp, t) for t in same
                  if _repeats(inp, t) == fewest and sorted(map(len, t)) == split)  # fmt: skip
    assert _point_gaps(inp, tables) <= closest + 1e-9, "points as close as possible"
    for t in tables:
        assert _seat_cost(inp, t) == min(_seat_cost(inp, p) for p in itertools.permutations(t))


SIZES = [[2], [4, 3], [5, 4, 3], [3], [3, 2], [2, 3], [4], [3, 4]]


def generate(rng: random.Random, nmax: int) -> dict:
    n = rng.randint(1, nmax) if rng.random() < 0.2 else rng.randint(max(1, nmax - 4), nmax)
    ids = [f"p{i}" for i in rng.sample(range(1, 100), n)]
    opponents: dict[str, list[str]] = {p: [] for p in ids}
    for _ in range(rng.randint(0, 3 * n) if n > 1 else 0):
        a, b = rng.sample(ids, 2)
        opponents[a].append(b)
        opponents[b].append(a)
    points = rng.choice([[0, 1], [0, 0.5, 1, 1.5, 2], [0, 1, 2, 3, 4, 5]])
    ratings = rng.choice([[1500], [1450, 1500, 1550], list(range(1200, 1800))])
    players = []
    for p in ids:
        player = {"id": p, "points": rng.choice(points), "rating": rng.choice(ratings),
                  "opponents": opponents[p], "byes": rng.choice([0, 0, 0, 1, 2]),
                  "seats": [rng.randint(0, 3) for _ in range(rng.choice([0, 2, 3, 4, 5]))]}  # fmt: skip
        if rng.random() < 0.12:
            player["withdrawn"] = True
        players.append(player)
    forbidden = [rng.sample(ids, 2) for _ in range(rng.choice([0, 0, 1, 2, 4, 8]))] if n > 1 else []
    return {"table_sizes": rng.choice(SIZES), "seed": rng.randint(0, 99),
            "players": players, "forbidden": forbidden}


@pytest.mark.parametrize("seed", range(4))
def test_the_pairing_cli_follows_rules_1_to_6_on_generated_fields(seed: int) -> None:
    rng = random.Random(seed)
    seen_ok = seen_impossible = 0
    for _ in range(25):
        inp = generate(rng, 9)
        # The first fields of each seed go through a process of their own (twice: the
        # same pairing, whatever the process's hash seed); the rest through the same
        # main() in this process (a process start is most of a field's time).
        in_a_process = seen_ok < 2
        r = _cli("tournaments.pairing", inp) if in_a_process else _main("tournaments.pairing", inp)
        assert "Traceback" not in r.stderr
        if not _fewest_bye_layouts(inp):
            assert r.returncode == 2 and "no way to seat" in r.stderr, r.stderr
            seen_impossible += 1
            continue
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout)
        check_pairing(inp, out)
        if in_a_process:
            assert json.loads(_cli("tournaments.pairing", inp).stdout) == out, "deterministic"
        seen_ok += 1
    assert seen_ok >= 15


# --- bad input -----------------------------------------------------------------------

TWO = [{"id": "a", "points": 1, "rating": 1500}, {"id": "b", "points": 0, "rating": 1500}]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (json.dumps({"table_sizes": [2], "players": [{"id": "a", "opponents": ["zz"]}, {"id": "b"}]}),
         "unknown opponent 'zz'"),
        (json.dumps({"table_sizes": [2], "players": TWO, "forbidden": [["a", "zz"]]}),
         "unknown player 'zz'"),
        (json.dumps({"table_sizes": [3], "players": TWO}), "no way to seat anyone"),
        (json.dumps({"table_sizes": [2], "players": TWO, "forbidden": [["a", "b"]]}),
         "no way to seat anyone"),
        (json.dumps({"table_sizes": [2], "players": [{**p, "withdrawn": True} for p in TWO]}),
         "no way to seat anyone"),
        ('{"table_sizes": [2], "players": [', "malformed JSON"),
        (json.dumps({"table_sizes": "2", "players": TWO}), "table_sizes"),
        (json.dumps({"table_sizes": [2], "players": [{"id": "a", "points": "3"}, {"id": "b"}]}),
         "points"),
        # Finite numbers too big to compute with (a traceback, exit 1, before)
        (json.dumps({"table_sizes": [2], "players": [{"id": "a", "points": 1e307}, {"id": "b"}]}),
         "points"),
        ('{"table_sizes": [2], "players": [{"id": "a", "points": 1' + "0" * 400 + '}, {"id": "b"}]}',
         "points"),
        ('{"table_sizes": [2], "players": [{"id": "a", "rating": 1' + "0" * 400 + '}, {"id": "b"}]}',
         "rating"),
        (json.dumps({"table_sizes": [2], "players": [
            {"id": "a", "points": 1e200}, {"id": "b", "points": -1e200}, {"id": "c"}]}), "points"),
    ],
)
def test_the_pairing_cli_exits_2_with_a_clear_message(raw: str, message: str) -> None:
    r = _cli("tournaments.pairing", raw=raw)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert message in r.stderr and message in json.loads(r.stdout)["error"]


# --- the ratings checker -------------------------------------------------------------


def elo(initial: float, games: list[dict]) -> tuple[dict, dict, list[dict]]:
    """The spec's Elo, written from its formulas."""
    rating: dict[str, float] = {}
    played: dict[str, int] = {}
    reached: set[str] = set()
    ledger = []
    for g in games:
        place = {p: i for i, group in enumerate(g["ranking"]) for p in group}
        before = {p: rating.get(p, initial) for p in place}
        n = len(place)
        rows = []
        for p in place:
            if before[p] >= 2400:
                reached.add(p)
            k = 10 if p in reached else 40 if played.get(p, 0) < 30 else 20
            e = sum(1 / (1 + 10 ** (max(-400, min(400, before[q] - before[p])) / 400))
                    for q in place if q != p)  # fmt: skip
            s = sum(1.0 if place[p] < place[q] else 0.5 if place[p] == place[q] else 0.0
                    for q in place if q != p)  # fmt: skip
            rows.append({"game": g["id"], "player": p, "rating_before": before[p],
                         "expected": e, "actual": s, "k": k,
                         "rating_after": before[p] + k / (n - 1) * (s - e)})  # fmt: skip
        for row in rows:
            rating[row["player"]] = row["rating_after"]
            played[row["player"]] = played.get(row["player"], 0) + 1
            if row["rating_after"] >= 2400:
                reached.add(row["player"])
        ledger += rows
    return rating, played, ledger


@pytest.mark.parametrize("seed", range(3))
def test_the_ratings_cli_matches_an_independent_elo(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(8):
        initial = rng.choice([1500, 2390, 2395.5, 1000, 2400])
        ids = [f"x{i}" for i in range(rng.randint(2, 6))]
        games = []
        for gi in range(rng.randint(20, 90)):  # past 30 games for some players
            groups: list[list[str]] = []
            for p in rng.sample(ids, rng.randint(2, min(5, len(ids)))):
                if groups and rng.random() < 0.3:
                    groups[-1].append(p)
                else:
                    groups.append([p])
            games.append({"id": f"g{gi}", "ranking": groups})
        r = _cli("tournaments.ratings", {"initial": initial, "games": games})
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout)
        rating, played, ledger = elo(initial, games)
        assert out["games"] == played
        assert out["ratings"] == {p: round(v, 1) for p, v in rating.items()}
        assert len(out["ledger"]) == len(ledger)
        for got, want in zip(out["ledger"], ledger, strict=True):
            assert (got["game"], got["player"], got["k"], got["actual"]) == (
                want["game"], want["player"], want["k"], want["actual"])
            assert got["expected"] == pytest.approx(want["expected"], abs=1e-9)
            assert got["rating_before"] == round(want["rating_before"], 1)
            assert got["rating_after"] == round(want["rating_after"], 1)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ('{"initial": 1' + "0" * 400 + ', "games": []}', "initial"),
        ('{"initial": 1500, "games": [{"id": "g", "ranking": [["a"]]}]}', "two players"),
        ('{"initial": 1500, "games": [{"id": "g", "ranking": "ab"}]}', "ranking"),
    ],
)
def test_the_ratings_cli_exits_2_with_a_clear_message(raw: str, message: str) -> None:
    r = _cli("tournaments.ratings", raw=raw)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert message in r.stderr


# --- bigger fields: a seating with no repeat meeting planted in a dense history ---------


def planted(rng: random.Random, size: int, tables: int, byes: int) -> tuple[dict, set[str]]:
    """Players ``r*`` who met everyone but their planted table-mates, and ``byes``
    players ``x*`` with no earlier bye (everyone else has one) who met everybody: only
    the planted seating, with the ``x*`` on a bye, has no repeat meeting."""
    ids = [f"r{i}" for i in range(size * tables)]
    xs = [f"x{i}" for i in range(byes)]
    order = ids[:]
    rng.shuffle(order)
    mates = {frozenset(pr) for k in range(0, len(order), size)
             for pr in itertools.combinations(order[k:k + size], 2)}  # fmt: skip
    opponents: dict[str, list[str]] = {p: [] for p in ids + xs}
    for a, b in itertools.combinations(ids + xs, 2):
        if frozenset((a, b)) not in mates and (a in xs or b in xs or rng.random() < 0.7):
            opponents[a].append(b)
            opponents[b].append(a)
    forbidden = [list(pr) for pr in map(frozenset, itertools.combinations(ids, 2))
                 if pr not in mates and rng.random() < 0.03]  # fmt: skip
    players = [{"id": p, "points": rng.choice([0, 1, 2]), "rating": rng.randint(1400, 1600),
                "opponents": opponents[p], "byes": 0 if p in xs else 1} for p in ids + xs]  # fmt: skip
    rng.shuffle(players)
    return {"table_sizes": [size], "seed": 1, "players": players, "forbidden": forbidden}, set(xs)


@pytest.mark.parametrize(("size", "tables", "byes"), [(2, 12, 1), (3, 8, 2), (4, 6, 3), (2, 20, 1),
                                                      (3, 11, 1), (4, 9, 2), (5, 5, 4)])  # fmt: skip
def test_no_repeat_happens_when_none_is_needed_in_bigger_fields(size: int, tables: int, byes: int) -> None:
    inp, bye_players = planted(random.Random(size * 100 + tables), size, tables, byes)
    r = _cli("tournaments.pairing", inp)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert set(out["byes"]) == bye_players
    assert _repeats(inp, out["tables"]) == 0
    forbidden = {frozenset(f) for f in inp["forbidden"]}
    assert not any(frozenset(pr) in forbidden for t in out["tables"] for pr in itertools.combinations(t, 2))
