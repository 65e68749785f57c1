"""Two players who met only through a forfeit entered by hand have not played each other
(FIDE C.04.1 b: two players shall not *play* each other more than once; an unplayed game
has no colour either, C.04.1 f-h): the pairing's input, its repeat warnings and the
pairing itself treat that table as never played."""

from __future__ import annotations

import pytest

from games.services.organizer import game_end
from tests.games.web_support import make_user
from tournaments import selectors
from tournaments.services import results, rounds
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db


def _by_hand(t, organizer, tables):
    rnd, warnings = rounds.round_pair_by_hand(tournament=t, tables=tables, by=organizer)
    assert rnd is not None, warnings
    return rounds.round_start(rnd=rnd, by=organizer)


def _decide(rnd, organizer, number, ranking, *, forfeit=False):
    table = rnd.tables.select_related("game").get(number=number)
    game_end(game=table.game, by=organizer, reason="decided by hand")
    results.result_enter(table=table, ranking=ranking, by=organizer, reason="by hand", rated=not forfeit)


def _cup():
    """Duels of four: round 1 fa beats fb by forfeit (fb never showed), fc beats fd over
    the board; round 2 fa draws fc, fb draws fd. fa and fd must never meet."""
    organizer = make_user("fboss")
    users = {n: make_user(n) for n in ("fa", "fb", "fc", "fd")}
    t = tsvc.tournament_create(organizer=organizer, name="Forfeit pairing cup", ruleset="6x5",
                               table_sizes=[2], rounds_count=3,
                               forbidden_pairs=[[users["fa"].pk, users["fd"].pk]])  # fmt: skip
    tsvc.tournament_open(tournament=t, by=organizer)
    reg = {n: tsvc.registration_add(tournament=t, user=u).pk for n, u in users.items()}
    r1 = _by_hand(t, organizer, [[reg["fa"], reg["fb"]], [reg["fc"], reg["fd"]]])
    _decide(r1, organizer, 1, [[reg["fa"]], [reg["fb"]]], forfeit=True)
    _decide(r1, organizer, 2, [[reg["fc"]], [reg["fd"]]])
    r2 = _by_hand(t, organizer, [[reg["fa"], reg["fc"]], [reg["fb"], reg["fd"]]])
    _decide(r2, organizer, 1, [[reg["fa"], reg["fc"]]])
    _decide(r2, organizer, 2, [[reg["fb"], reg["fd"]]])
    return t, organizer, reg


def test_a_forfeit_is_no_meeting_nor_seat_in_the_pairings_input():
    # Regression: a forfeit entered by hand counted as a meeting (so its two players were
    # never paired again) and as a seat taken.
    t, _organizer, reg = _cup()
    request = selectors.pairing_input(tournament=t, round_number=3, seed=1)
    got = {int(p["id"]): (sorted(p["opponents"]), p["seats"], p["byes"]) for p in request["players"]}
    assert got == {
        # Only round 2's games were played: fa and fc moved first there. fa's forfeit
        # win is as good as a bye for the pairing (FIDE C.04.1 d): no pairing bye for fa.
        reg["fa"]: ([str(reg["fc"])], [1, 0], 1),
        reg["fb"]: ([str(reg["fd"])], [1, 0], 0),
        reg["fc"]: (sorted([str(reg["fd"]), str(reg["fa"])]), [1, 1], 0),
        reg["fd"]: (sorted([str(reg["fc"]), str(reg["fb"])]), [0, 2], 0),
    }


def test_players_who_met_only_by_forfeit_are_paired_again():
    # Regression: with fa-fd forbidden, round 3 is fa-fb & fc-fd or fa-fc & fb-fd. Only
    # fc-fd is a repeat in the first (fa-fb never played); the second repeats both of
    # round 2's games. The forfeit counted as played made them equal, and the points
    # (fa = fc = 1.5, fb = fd = 0.5) chose the two repeats.
    t, organizer, reg = _cup()
    rnd = rounds.round_pair(tournament=t, by=organizer)
    tables = sorted(sorted(t.players) for t in rnd.tables.all())
    assert tables == sorted([sorted([reg["fa"], reg["fb"]]), sorted([reg["fc"], reg["fd"]])])
    # The organizer is warned of the one real repeat, not of fa and fb.
    assert len(rnd.warnings) == 1 and "have met once before." in rnd.warnings[0]
    assert "fc and fd" in rnd.warnings[0] or "fd and fc" in rnd.warnings[0]


def test_a_hand_pairing_of_players_who_met_only_by_forfeit_has_no_repeat_warning():
    t, organizer, reg = _cup()
    warnings = rounds.hand_pairing_warnings(
        tournament=t, number=3, tables=[[reg["fa"], reg["fb"]], [reg["fc"], reg["fd"]]]
    )
    assert warnings == ["Table 2: fc and fd have met once before."]


def test_a_forfeit_winner_is_not_given_the_pairing_bye():
    """FIDE C.04.1 d: a player who has already scored a forfeit win shall not receive the
    pairing-allocated bye. Three duellists: fa beats fb by forfeit (fc has the bye), then
    fa beats fc over the board (fb has the bye). Round 3: fb and fc have had a bye each,
    fa only its forfeit win: the bye goes to fb or fc (1 point each), not to fa (2)."""
    organizer = make_user("gboss")
    users = {n: make_user(n) for n in ("ga", "gb", "gc")}
    t = tsvc.tournament_create(organizer=organizer, name="Forfeit bye cup", ruleset="6x5",
                               table_sizes=[2], rounds_count=3)  # fmt: skip
    tsvc.tournament_open(tournament=t, by=organizer)
    reg = {n: tsvc.registration_add(tournament=t, user=u).pk for n, u in users.items()}
    r1, warnings = rounds.round_pair_by_hand(tournament=t, tables=[[reg["ga"], reg["gb"]]],
                                             byes=[reg["gc"]], by=organizer)  # fmt: skip
    assert r1 is not None, warnings
    _decide(rounds.round_start(rnd=r1, by=organizer), organizer, 1, [[reg["ga"]], [reg["gb"]]], forfeit=True)
    r2, warnings = rounds.round_pair_by_hand(tournament=t, tables=[[reg["ga"], reg["gc"]]],
                                             byes=[reg["gb"]], by=organizer)  # fmt: skip
    assert r2 is not None, warnings
    _decide(rounds.round_start(rnd=r2, by=organizer), organizer, 1, [[reg["ga"]], [reg["gc"]]])
    r3 = rounds.round_pair(tournament=t, by=organizer)
    (table,) = r3.tables.all()
    assert reg["ga"] in table.players
    assert [b.registration_id for b in r3.byes.all()] != [reg["ga"]]


def test_every_player_placed_above_the_last_of_a_forfeit_table_scored_as_by_a_bye():
    """A review: at a table of three entered "not played", only a player alone in first
    place counted; the second, and two tied first, had scored without playing too."""
    organizer = make_user("hboss")
    users = {n: make_user(n) for n in ("ha", "hb", "hc", "hd", "he", "hf")}
    t = tsvc.tournament_create(organizer=organizer, name="Forfeit threes", ruleset="4x-dice",
                               table_sizes=[3], rounds_count=3)  # fmt: skip
    tsvc.tournament_open(tournament=t, by=organizer)
    reg = {n: tsvc.registration_add(tournament=t, user=u).pk for n, u in users.items()}
    r1 = _by_hand(t, organizer, [[reg["ha"], reg["hb"], reg["hc"]], [reg["hd"], reg["he"], reg["hf"]]])
    _decide(r1, organizer, 1, [[reg["ha"], reg["hb"]], [reg["hc"]]], forfeit=True)
    _decide(r1, organizer, 2, [[reg["hd"]], [reg["he"]], [reg["hf"]]], forfeit=True)
    request = selectors.pairing_input(tournament=t, round_number=2, seed=1)
    byes = {int(p["id"]): p["byes"] for p in request["players"]}
    assert byes == {reg["ha"]: 1, reg["hb"]: 1, reg["hc"]: 0, reg["hd"]: 1, reg["he"]: 1, reg["hf"]: 0}
