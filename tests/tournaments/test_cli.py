"""The two command lines, run as real subprocesses: output, exit codes, error messages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _cli(
    module: str, payload: object | None = None, raw: str | None = None, path: str | None = None
) -> subprocess.CompletedProcess[str]:
    text = raw if raw is not None else json.dumps(payload)
    args = [sys.executable, "-m", module, path or "-"]
    return subprocess.run(
        args, input=text, capture_output=True, text=True, cwd=ROOT, timeout=60, check=False
    )


def _players(*ids: str) -> list[dict]:
    return [{"id": p, "points": 0, "rating": 1500} for p in ids]


def test_pairing_cli_prints_tables_and_byes(tmp_path: Path) -> None:
    data = {
        "table_sizes": [2],
        "seed": 3,
        "players": [
            {"id": "a", "points": 2, "rating": 1500, "opponents": ["b"], "seats": [1, 0]},
            {"id": "b", "points": 2, "rating": 1500, "opponents": ["a"], "seats": [0, 1]},
            {"id": "c", "points": 1, "rating": 1500},
            {"id": "d", "points": 1, "rating": 1500},
            {"id": "e", "points": 0, "rating": 1500, "withdrawn": True},
            {"id": "f", "points": 0, "rating": 1400},
        ],
    }
    file = tmp_path / "round.json"
    file.write_text(json.dumps(data))
    proc = _cli("tournaments.pairing", path=str(file))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["byes"] == ["f"]
    assert sorted(map(sorted, out["tables"])) == [["a", "c"], ["b", "d"]]
    # a had seat 1, c never played: c moves first; b had seat 2: b moves first.
    assert ["c", "a"] in out["tables"] and ["b", "d"] in out["tables"]


@pytest.mark.parametrize(
    ("payload", "raw", "message"),
    [
        (None, "{not json", "malformed JSON"),
        (
            {"table_sizes": [2], "players": [{"id": "a", "opponents": ["zz"]}, {"id": "b"}]},
            None,
            "unknown opponent 'zz'",
        ),
        (
            {"table_sizes": [2], "players": _players("a", "b"), "forbidden": [["a", "nobody"]]},
            None,
            "forbidden[0] names unknown player 'nobody'",
        ),
        ({"table_sizes": [2], "players": _players("a", "a")}, None, "'a' appears twice"),
        ({"table_sizes": [], "players": _players("a", "b")}, None, "table_sizes"),
        ({"table_sizes": [13], "players": _players("a", "b")}, None, "between 2 and 12"),
        ({"table_sizes": [1], "players": _players("a", "b")}, None, "between 2 and 12"),
        ({"table_sizes": [4], "players": _players("a", "b", "c")}, None, "no way to seat"),
        (
            {"table_sizes": [2], "players": _players("a", "b"), "forbidden": [["a", "b"]]},
            None,
            "no way to seat",
        ),
        ({"table_sizes": [2], "players": [{"id": "a", "points": "x"}]}, None, "points"),
        ({"players": _players("a", "b")}, None, "table_sizes"),
        ([], None, "JSON object"),
    ],
)
def test_pairing_cli_bad_input_exits_2(payload: object, raw: str | None, message: str) -> None:
    proc = _cli("tournaments.pairing", payload, raw)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert json.loads(proc.stdout) == {"error": proc.stderr.removeprefix("error: ").strip()}


def test_pairing_cli_missing_file_exits_2() -> None:
    proc = _cli("tournaments.pairing", path="/nonexistent/round.json")
    assert proc.returncode == 2
    assert "cannot read" in proc.stderr


@pytest.mark.parametrize("module", ["tournaments.pairing", "tournaments.ratings"])
def test_the_clis_say_their_usage_on_help(module: str) -> None:
    """A README audit: "--help" was read as a file name ("cannot read --help")."""
    proc = _cli(module, path="--help")
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.startswith(f"usage: python -m {module} FILE.json")


def test_ratings_cli_prints_ratings_games_and_ledger() -> None:
    data = {"initial": 1500, "games": [{"id": "g1", "ranking": [["a"], ["b", "c"], ["d"]]}]}
    proc = _cli("tournaments.ratings", data)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    # Equal ratings, K 40, n - 1 = 3: a scores 3 against 1.5 expected: +20; d -20.
    assert out["ratings"] == {"a": 1520.0, "b": 1500.0, "c": 1500.0, "d": 1480.0}
    assert out["games"] == {"a": 1, "b": 1, "c": 1, "d": 1}
    assert len(out["ledger"]) == 4
    assert out["ledger"][0]["game"] == "g1" and out["ledger"][0]["k"] == 40
    again = _cli("tournaments.ratings", data)
    assert again.stdout == proc.stdout


@pytest.mark.parametrize(
    ("payload", "raw", "message"),
    [
        (None, "[1,", "malformed JSON"),
        (
            {"games": [{"id": "g1", "ranking": [["a"], ["b", "a"]]}]},
            None,
            "player 'a' appears twice",
        ),
        ({"games": [{"id": "g1", "ranking": []}]}, None, "ranking must be a non-empty list"),
        ({"games": [{"id": "g1", "ranking": [["a"]]}]}, None, "at least two players"),
    ],
)
def test_ratings_cli_bad_input_exits_2(payload: object, raw: str | None, message: str) -> None:
    proc = _cli("tournaments.ratings", payload, raw)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_pairing_cli_avoids_a_repeat_with_a_split_far_down_the_preference() -> None:
    """Rule 3, "When no repeat is needed, none happens": twelve players at [4, 3, 2], each
    having met everyone but a partner (p01-p02, p03-p04, ...). Only six tables of two,
    each pair of partners, have no repeat; that split comes 7th in preference."""
    ids = [f"p{i:02d}" for i in range(1, 13)]
    partner = {ids[i]: ids[i ^ 1] for i in range(12)}
    players = [
        {"id": p, "points": 0, "rating": 1500, "opponents": [q for q in ids if q not in (p, partner[p])]}
        for p in ids
    ]
    run = _cli("tournaments.pairing", {"table_sizes": [4, 3, 2], "players": players})
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert sorted(sorted(t) for t in out["tables"]) == [[ids[i], ids[i + 1]] for i in range(0, 12, 2)]
    assert out["byes"] == []


def test_pairing_cli_counts_a_meeting_listed_on_one_side_only() -> None:
    """b lists a; a does not list b. a, b and c are tied, so rule 2 leaves the bye to
    rule 3: b sits out, a meets c (not a repeat)."""
    for a_lists, b_lists in ((["b"], []), ([], ["a"]), (["b"], ["a"])):
        data = {"table_sizes": [2], "players": [
            {"id": "a", "opponents": a_lists}, {"id": "b", "opponents": b_lists}, {"id": "c"}]}  # fmt: skip
        run = _cli("tournaments.pairing", data)
        assert run.returncode == 0, run.stderr
        out = json.loads(run.stdout)
        assert [sorted(t) for t in out["tables"]] == [["a", "c"]] and out["byes"] == ["b"], (a_lists, b_lists)


def test_pairing_cli_says_at_once_when_forbidden_pairs_leave_no_table() -> None:
    """Two clubs whose members may not meet, at tables of 3, leave no table at all: said
    at once (the full search took minutes to fail on 16 to 24 players). Forbidden pairs
    that leave tables, but no way to seat everyone with the byes the sizes need, give the
    fewest more byes that keep them apart."""
    import time

    ids = [f"p{i:02d}" for i in range(24)]
    clubs = {"table_sizes": [4, 3], "players": _players(*ids),
             "forbidden": [[a, b] for i, a in enumerate(ids) for b in ids[i + 1:] if i % 2 == ids.index(b) % 2]}  # fmt: skip
    started = time.monotonic()
    run = _cli("tournaments.pairing", clubs)
    assert time.monotonic() - started < 20
    assert run.returncode == 2
    assert json.loads(run.stdout)["error"] == (
        "no way to seat anyone: the forbidden pairs leave no 3 players who may all share a table"
    )
    star = {"table_sizes": [2], "players": _players("a", "b", "c", "d"),
            "forbidden": [["a", "b"], ["a", "c"], ["a", "d"]]}  # fmt: skip
    run = _cli("tournaments.pairing", star)
    assert run.returncode == 0, run.stderr
    # a may meet nobody: a sits out, and so does one more (three cannot sit at tables of 2).
    out = json.loads(run.stdout)
    assert "a" in out["byes"] and len(out["byes"]) == 2
    assert len(out["tables"]) == 1 and "a" not in out["tables"][0]
    # A bye the sizes need anyway goes where it lets the pairs be kept apart.
    five = {"table_sizes": [2], "players": _players("a", "b", "c", "d", "e"),
            "forbidden": [["a", "b"], ["a", "c"], ["a", "d"], ["a", "e"]]}  # fmt: skip
    out = json.loads(_cli("tournaments.pairing", five).stdout)
    assert out["byes"] == ["a"]


@pytest.mark.parametrize("module", ["tournaments.pairing", "tournaments.ratings"])
def test_the_clis_call_json_nested_thousands_deep_malformed(module: str) -> None:
    """tournaments.md: exit 2 with a clear message on bad input. Arrays nested 100,000
    deep raised a RecursionError out of ``json.load``: exit 1 and a traceback (a spec
    audit)."""
    proc = _cli(module, raw="[" * 100_000 + "]" * 100_000)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert json.loads(proc.stdout) == {"error": "malformed JSON: nested too deeply"}


def test_ratings_cli_rounds_halves_up_as_by_hand() -> None:
    """tournaments.md: "ratings rounded to one decimal". Five players rated 2400 (K 10
    from the start, the FIDE rule), ranking a, then b and c tied, then d, then e:
    K / (n - 1) = 10 / 4 = 2.5 and every E is 0.5 (ΣE = 2).
    a: ΣS 4, +5 -> 2405.0; b and c: ΣS 0 + 0.5 + 1 + 1 = 2.5, +1.25 -> 2401.25, which
    rounds to 2401.3; d: ΣS 1, -2.5 -> 2397.5; e: ΣS 0, -5 -> 2395.0.
    Python's round() gave 2401.2 (half to even on the binary value)."""
    data = {"initial": 2400, "games": [{"id": "g1", "ranking": [["a"], ["b", "c"], ["d"], ["e"]]}]}
    proc = _cli("tournaments.ratings", data)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["ratings"] == {"a": 2405.0, "b": 2401.3, "c": 2401.3, "d": 2397.5, "e": 2395.0}
    row_b = next(r for r in out["ledger"] if r["player"] == "b")
    assert (row_b["k"], row_b["actual"], row_b["rating_before"], row_b["rating_after"]) == (
        10, 2.5, 2400.0, 2401.3,
    )  # fmt: skip


@pytest.mark.parametrize(("initial", "printed"), [(1500.25, 1500.3), (1500.35, 1500.4), (1500.45, 1500.5)])
def test_ratings_cli_rounds_the_written_decimal_not_its_binary_neighbour(
    initial: float, printed: float
) -> None:
    """tournaments.md: "ratings rounded to one decimal". Two players drawing at equal
    ratings keep them (S = E = 0.5); an initial rating of 1500.25, 1500.35 or 1500.45
    prints as 1500.3, 1500.4, 1500.5 (round() gave 1500.2, 1500.3, 1500.5: 1500.35 is
    stored just below, 1500.25 exactly and rounded to even)."""
    data = {"initial": initial, "games": [{"id": "g1", "ranking": [["a", "b"]]}]}
    proc = _cli("tournaments.ratings", data)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["ratings"] == {"a": printed, "b": printed}
    assert [(r["rating_before"], r["rating_after"]) for r in out["ledger"]] == [(printed, printed)] * 2
