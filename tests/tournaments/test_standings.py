"""Standings and tie-breaks, worked by hand (tournaments.standings is pure Python)."""

import pytest

from tournaments.standings import Game, Round, compute, default_points_per_place, place_points


def g(*groups):
    return Game(ranking=tuple(tuple(x) for x in groups))


def test_place_points_share_tied_places():
    # 4 players, default 1, 2/3, 1/3, 0: b and c share places 2 and 3 -> 1/2 each.
    pts = place_points([["a"], ["b", "c"], ["d"]], default_points_per_place(4))
    assert pts == pytest.approx({"a": 1.0, "b": 0.5, "c": 0.5, "d": 0.0})
    # Two-player draw with [1, 0] is half a point each.
    assert place_points([["a", "b"]], [1, 0]) == {"a": 0.5, "b": 0.5}


def test_two_player_buchholz_and_sonneborn_berger():
    # R1: a beats b, c draws d.  R2: a beats c, b beats d.
    rounds = [
        Round(games=(g(["a"], ["b"]), g(["c", "d"]))),
        Round(games=(g(["a"], ["c"]), g(["b"], ["d"]))),
    ]
    rows = compute(["a", "b", "c", "d"], rounds, tiebreaks=["buchholz", "sonneborn_berger"])
    by = {r.player: r for r in rows}
    assert [r.player for r in rows] == ["a", "b", "c", "d"]
    assert by["a"].points == 2 and by["b"].points == 1 and by["c"].points == 0.5
    # Buchholz: a 1 + .5; b 2 + .5; c .5 + 2; d .5 + 1
    assert by["a"].tiebreaks["buchholz"] == 1.5
    assert by["b"].tiebreaks["buchholz"] == 2.5
    assert by["c"].tiebreaks["buchholz"] == 2.5
    assert by["d"].tiebreaks["buchholz"] == 1.5
    # SB: a beat b (1) and c (.5) = 1.5; b beat d (.5) = .5; c, d drew each other: .25
    assert by["a"].tiebreaks["sonneborn_berger"] == 1.5
    assert by["b"].tiebreaks["sonneborn_berger"] == 0.5
    assert by["c"].tiebreaks["sonneborn_berger"] == 0.25
    assert by["d"].tiebreaks["sonneborn_berger"] == 0.25
    # c and d are level on points; c's Buchholz breaks the tie.
    assert by["c"].rank == 3 and by["d"].rank == 4


def test_unplayed_rounds_the_fide_way():
    # R1: a beats b, c has a bye (1 point).  R2: c beats a, b has a bye (1 point).
    rounds = [
        Round(games=(g(["a"], ["b"]),), unplayed={"c": 1.0}),
        Round(games=(g(["c"], ["a"]),), unplayed={"b": 1.0}),
    ]
    rows = compute(["a", "b", "c"], rounds, tiebreaks=["buchholz", "buchholz_cut1", "wins"])
    by = {r.player: r for r in rows}
    assert (by["a"].points, by["b"].points, by["c"].points) == (1, 1, 2)
    # Opponents' unplayed rounds count as draws: b counts 0 + .5 = .5, c counts .5 + 1 = 1.5.
    assert by["a"].tiebreaks["buchholz"] == 2.0
    # b's bye in R2: a virtual opponent starting with b's 0 points who loses R2 -> 0.
    assert by["b"].tiebreaks["buchholz"] == 1.0
    # c's bye in R1: virtual opponent starts at 0, loses R1, draws R2 -> .5; plus a (1).
    assert by["c"].tiebreaks["buchholz"] == 1.5
    assert by["c"].tiebreaks["buchholz_cut1"] == 1.0
    assert by["c"].tiebreaks["wins"] == 1 and by["b"].tiebreaks["wins"] == 0
    # a and b both have 1 point; a's Buchholz 2 beats b's 1.
    assert by["a"].rank == 2 and by["b"].rank == 3


def test_direct_encounter_and_shared_rank():
    # a beats b; c and d never play each other and draw with others identically.
    rounds = [Round(games=(g(["a"], ["b"]), g(["c", "d"])))]
    rows = compute(["a", "b", "c", "d"], rounds, tiebreaks=["direct_encounter"])
    by = {r.player: r for r in rows}
    assert by["c"].tiebreaks["direct_encounter"] == 0.5 and by["d"].tiebreaks["direct_encounter"] == 0.5
    assert by["c"].rank == by["d"].rank == 2
    assert by["b"].rank == 4


def test_multiplayer_table_tiebreaks():
    # One 4-player game: a first, b and c tied, d last (points 1, .5, .5, 0).
    rows = compute(["a", "b", "c", "d"], [Round(games=(g(["a"], ["b", "c"], ["d"]),))],
                   tiebreaks=["buchholz", "sonneborn_berger", "wins"])
    by = {r.player: r for r in rows}
    # a's opponents total .5 + .5 + 0 = 1, averaged over 3 opponents.
    assert by["a"].tiebreaks["buchholz"] == pytest.approx(1 / 3, abs=1e-6)
    # b beat d (0 points), drew c (.5 × .5), lost to a: (0 + .25 + 0) / 3
    assert by["b"].tiebreaks["sonneborn_berger"] == pytest.approx(0.25 / 3, abs=1e-6)
    assert by["a"].tiebreaks["wins"] == 1 and by["b"].tiebreaks["wins"] == 0


def test_unknown_tiebreak_is_refused():
    with pytest.raises(ValueError, match="unknown tie-break"):
        compute(["a"], [], tiebreaks=["coin_flip"])


def test_a_forfeit_is_an_unplayed_round_for_both_players_tiebreaks():
    # Regression: a forfeit (a result the organizer entered, "not played") counted as a
    # played game in Buchholz, Sonneborn-Berger and "played". FIDE C.02 13.15: both of
    # its players get a virtual opponent for that round, and for everyone else's
    # tie-breaks their forfeit round counts as a draw. Duels, [1, 0]: win 1, draw 1/2.
    # R1: a beats b by forfeit, c beats d.  R2: c beats a, b beats d.
    forfeit = Game(ranking=(("a",), ("b",)), forfeit=True)
    rounds = [
        Round(games=(forfeit, g(["c"], ["d"]))),
        Round(games=(g(["c"], ["a"]), g(["b"], ["d"]))),
    ]
    rows = compute(["a", "b", "c", "d"], rounds,
                   tiebreaks=["buchholz", "sonneborn_berger", "wins", "direct_encounter"])
    by = {r.player: r for r in rows}
    # The forfeit's points count as a normal result: a 1 + 0, b 0 + 1, c 2, d 0.
    assert (by["a"].points, by["b"].points, by["c"].points, by["d"].points) == (1, 1, 2, 0)
    # Played: the forfeit is no game for either of its players.
    assert (by["a"].played, by["b"].played, by["c"].played, by["d"].played) == (1, 1, 2, 2)
    # Totals as they enter others' tie-breaks, the forfeit round a draw (1/2):
    #   a: 1/2 + 0 = 1/2;  b: 1/2 + 1 = 3/2;  c: 1 + 1 = 2;  d: 0 + 0 = 0.
    # Virtual opponents (Svon = SPR + (1 - SfPR) + 1/2 (n - R), n = 2, R = 1):
    #   a's: 0 + (1 - 1) + 1/2 x 1 = 1/2;  b's: 0 + (1 - 0) + 1/2 x 1 = 3/2.
    # Buchholz: a 1/2 (virtual) + 2 (c) = 5/2;  b 3/2 (virtual) + 0 (d) = 3/2;
    #           c 0 (d) + 1/2 (a) = 1/2;       d 2 (c) + 3/2 (b) = 7/2.
    assert by["a"].tiebreaks["buchholz"] == 0.5 + 2
    assert by["b"].tiebreaks["buchholz"] == 1.5 + 0
    assert by["c"].tiebreaks["buchholz"] == 0 + 0.5
    assert by["d"].tiebreaks["buchholz"] == 2 + 1.5
    # SB (result x the opponent's total): a 1 x 1/2 (virtual) + 0 x 2 = 1/2;
    #   b 0 x 3/2 + 1 x 0 = 0;  c 1 x 0 + 1 x 1/2 = 1/2;  d 0.
    assert by["a"].tiebreaks["sonneborn_berger"] == 1 * 0.5 + 0 * 2
    assert by["b"].tiebreaks["sonneborn_berger"] == 0 * 1.5 + 1 * 0
    assert by["c"].tiebreaks["sonneborn_berger"] == 1 * 0 + 1 * 0.5
    assert by["d"].tiebreaks["sonneborn_berger"] == 0
    # "For the round itself the result by forfeit is considered a normal result":
    # a's forfeit win is a win, and counts against b, level with a on points.
    assert by["a"].tiebreaks["wins"] == 1 and by["b"].tiebreaks["wins"] == 1
    assert by["a"].tiebreaks["direct_encounter"] == 1 and by["b"].tiebreaks["direct_encounter"] == 0
