"""Multiplayer Elo (tournaments.ratings): expected values worked by hand from the spec."""

from __future__ import annotations

import pytest

from tournaments.ratings import RatingError, RatingResult, k_factor, parse_games, rate
from tournaments.ratings import expected as elo_expected


def _start(**ratings: float) -> RatingResult:
    return RatingResult(ratings=dict(ratings), games=dict.fromkeys(ratings, 0))


def test_equal_ratings_win_with_k40_gives_plus_20() -> None:
    # E = 1/(1+10^0) = 0.5; Δ = 40/1 × (1 - 0.5) = +20 for the winner, -20 for the loser.
    out = rate([("g1", [["a"], ["b"]])]).to_json()
    assert out["ratings"] == {"a": 1520.0, "b": 1480.0}
    assert out["games"] == {"a": 1, "b": 1}
    row_a, row_b = out["ledger"]
    assert row_a == {
        "game": "g1",
        "player": "a",
        "rating_before": 1500.0,
        "expected": 0.5,
        "actual": 1.0,
        "k": 40,
        "rating_after": 1520.0,
    }
    assert row_b["actual"] == 0.0 and row_b["rating_after"] == 1480.0


def test_equal_ratings_draw_changes_nothing() -> None:
    out = rate([("g1", [["a", "b"]])]).to_json()
    assert out["ratings"] == {"a": 1500.0, "b": 1500.0}


def test_difference_beyond_400_counts_as_400() -> None:
    # E(higher) = 1/(1+10^(-400/400)) = 1/1.1 = 0.909090...
    assert elo_expected(2000, 1500) == pytest.approx(1 / 1.1)
    assert elo_expected(2300, 1500) == elo_expected(1900, 1500)
    assert elo_expected(1500, 2300) == pytest.approx(1 - 1 / 1.1)
    # The favourite wins: Δ = 40 × (1 - 0.909090) = +3.636; the underdog -3.636.
    out = rate([("g", [["hi"], ["lo"]])], start=_start(hi=2000.0, lo=1500.0))
    assert out.ratings["hi"] == pytest.approx(2000 + 40 / 11)
    assert out.ratings["lo"] == pytest.approx(1500 - 40 / 11)


def test_draw_between_unequal_players() -> None:
    # E(a) = 1/(1+10^(-100/400)) = 1/(1+0.5623413) = 0.6400650; Δa = 40 × (0.5 - 0.6400650)
    out = rate([("g", [["a", "b"]])], start=_start(a=1600.0, b=1500.0)).to_json()
    assert out["ratings"] == {"a": 1594.4, "b": 1505.6}


def test_four_player_table_worked_by_hand() -> None:
    # a 1600, b 1500, c 1500, d 1400; ranking a, then b and c tied, then d; K = 40, n - 1 = 3.
    # E(100 up) = 1/(1+10^-0.25) = 0.6400650, E(200 up) = 1/(1+10^-0.5) = 0.7597469.
    # a: ΣE = 0.6400650 + 0.6400650 + 0.7597469 = 2.0398769, ΣS = 3
    #    Δ = 40/3 × 0.9601231 = +12.8016 -> 1612.8
    # b: ΣE = 0.3599350 (v a) + 0.5 (v c) + 0.6400650 (v d) = 1.5, ΣS = 0 + 0.5 + 1 = 1.5 -> Δ 0
    # c: same as b -> 1500.0
    # d: ΣE = 0.2402531 + 0.3599350 + 0.3599350 = 0.9601231, ΣS = 0 -> Δ = -12.8016 -> 1387.2
    start = _start(a=1600.0, b=1500.0, c=1500.0, d=1400.0)
    result = rate([("t1", [["a"], ["b", "c"], ["d"]])], start=start)
    out = result.to_json()
    assert out["ratings"] == {"a": 1612.8, "b": 1500.0, "c": 1500.0, "d": 1387.2}
    rows = {r["player"]: r for r in out["ledger"]}
    assert rows["a"]["expected"] == pytest.approx(2.0399, abs=1e-4)
    assert rows["a"]["actual"] == 3.0
    assert rows["b"]["expected"] == pytest.approx(1.5, abs=1e-4)
    assert rows["b"]["actual"] == 1.5
    assert rows["d"]["expected"] == pytest.approx(0.9601, abs=1e-4)
    assert all(r["k"] == 40 for r in rows.values())
    assert result.ratings["a"] == pytest.approx(1600 + 40 / 3 * 0.9601231, abs=1e-5)


def test_all_changes_use_ratings_from_before_the_game() -> None:
    # Three equal players: were b's change computed after a's, b would look weaker to c.
    out = rate([("g", [["a"], ["b"], ["c"]])]).to_json()
    # a: ΣS = 2, ΣE = 1 -> +20; b: ΣS = 1, ΣE = 1 -> 0; c: -20.
    assert out["ratings"] == {"a": 1520.0, "b": 1500.0, "c": 1480.0}


def test_k_drops_to_20_after_30_games() -> None:
    # "a" beats a fresh player every game; fresh opponents always have K = 40.
    games = [(f"g{i}", [["a"], [f"x{i}"]]) for i in range(1, 33)]
    result = rate(games)
    ks = [row.k for row in result.ledger if row.player == "a"]
    assert ks[:30] == [40] * 30
    assert ks[30:] == [20, 20]
    assert result.games["a"] == 32


def test_k_factor_rule() -> None:
    assert k_factor(0, False) == 40
    assert k_factor(29, False) == 40
    assert k_factor(30, False) == 20
    assert k_factor(5, True) == 10
    assert k_factor(100, True) == 10


def test_k_is_10_from_the_game_after_reaching_2400_for_good() -> None:
    start = RatingResult(ratings={"a": 2390.0, "b": 2390.0}, games={"a": 40, "b": 40})
    # g1: equal, a wins with K 20: +10 -> 2400.0 exactly (reached).
    # g2: a (2400) loses to b (2380): E = 1/(1+10^(-20/400)) = 0.5287500; Δ = 10 × -0.52875
    # g3: a is below 2400 again but keeps K 10.
    games = [("g1", [["a"], ["b"]]), ("g2", [["b"], ["a"]]), ("g3", [["a"], ["b"]])]
    result = rate(games, start=start)
    rows = [r for r in result.ledger if r.player == "a"]
    assert [r.k for r in rows] == [20, 10, 10]
    assert rows[0].rating_after == pytest.approx(2400.0)
    assert rows[1].rating_after == pytest.approx(2400 - 5.2875, abs=1e-4)
    assert rows[2].rating_before < 2400
    assert [r.k for r in result.ledger if r.player == "b"] == [20, 20, 20]


def test_initial_rating_at_2400_starts_with_k10() -> None:
    out = rate([("g", [["a"], ["b"]])], initial=2400).to_json()
    assert out["ratings"] == {"a": 2405.0, "b": 2395.0}


def test_replay_gives_identical_ratings() -> None:
    games = [
        ("g1", [["a"], ["b", "c"], ["d"]]),
        ("g2", [["d"], ["a"]]),
        ("g3", [["c"], ["b"], ["a"], ["d"]]),
        ("g4", [["b", "d"], ["c"]]),
    ]
    first = rate(games).to_json()
    second = rate(list(games)).to_json()
    assert first == second
    # Continuing from a saved result gives what one long replay gives.
    head = rate(games[:2])
    tail = rate(games[2:], start=head)
    assert tail.ratings == rate(games).ratings


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"games": [{"id": "g", "ranking": [["a"], ["a"]]}]}, "appears twice"),
        ({"games": [{"id": "g", "ranking": []}]}, "non-empty list"),
        ({"games": [{"id": "g", "ranking": [["a"]]}]}, "at least two players"),
        ({"games": [{"id": "g", "ranking": [["a"], []]}]}, "non-empty list"),
        ({"games": [{"id": "g", "ranking": "ab"}]}, "ranking"),
        ({"games": [{"ranking": [["a"], ["b"]]}]}, "id"),
        ({"games": {}}, "games must be a list"),
        ({"initial": "x", "games": []}, "initial"),
        ([1, 2], "JSON object"),
        (
            {
                "games": [
                    {"id": "g", "ranking": [["a"], ["b"]]},
                    {"id": "g", "ranking": [["a"], ["b"]]},
                ]
            },
            "appears twice",
        ),
    ],
)
def test_bad_input_is_refused_with_a_reason(data: object, message: str) -> None:
    with pytest.raises(RatingError, match=message):
        parse_games(data)


def test_ledger_prints_the_expected_score_unrounded() -> None:
    # The contract rounds ratings only. Game 2: a (1520) v b (1480), a difference of 40:
    # E = 1/(1+10^(-40/400)) = 0.55731163..., computed here from the formula.
    out = rate([("g1", [["a"], ["b"]]), ("g2", [["a"], ["b"]])]).to_json()
    row = next(r for r in out["ledger"] if r["game"] == "g2" and r["player"] == "a")
    assert row["expected"] == pytest.approx(1 / (1 + 10 ** (-0.1)), rel=1e-12)
    assert row["expected"] != round(row["expected"], 4)
    assert row["rating_before"] == 1520.0
