"""Two players whose game nobody played (a no-show: every order of every seat a default
at its deadline, as ``selectors.silent_seats`` defines it) have not played each other
(FIDE C.04.1 b: players shall not *play* each other more than once): for the pairing of
later rounds that table is no meeting and no seat taken, as a forfeit entered by hand.
A game in which one seat played and the other did not stays a meeting."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games.models import Prompt
from games.services.deadlines import overdue_prompt_resolve
from games.services.orders import order_submit
from games.services.resolution import prompt_resolve
from tests.games.web_support import make_user
from tournaments import selectors
from tournaments.services import results, rounds
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db


def _defaulted(game, number: int) -> None:
    """Prompt ``number`` of ``game`` closed at its deadline: its missing orders defaults."""
    prompt = Prompt.objects.get(game=game, number=number)
    assert overdue_prompt_resolve(game_id=game.pk, prompt_number=number,
                                  now=prompt.deadline + timedelta(days=1))  # fmt: skip


def _cup():
    """6x5 duels of two turns. Round 1: nobody plays at table 1 (na, nb); at table 2 the
    first mover sends an order and the other none (nc, nd)."""
    organizer = make_user("nboss")
    users = {n: make_user(n) for n in ("na", "nb", "nc", "nd")}
    t = tsvc.tournament_create(organizer=organizer, name="No-show pairing cup", ruleset="6x5",
                               table_sizes=[2], rounds_count=3, options={"max_turns": 2})  # fmt: skip
    tsvc.tournament_open(tournament=t, by=organizer)
    reg = {n: tsvc.registration_add(tournament=t, user=u).pk for n, u in users.items()}
    r1, warnings = rounds.round_pair_by_hand(
        tournament=t, tables=[[reg["na"], reg["nb"]], [reg["nc"], reg["nd"]]], by=organizer
    )
    assert r1 is not None, warnings
    r1 = rounds.round_start(rnd=r1, by=organizer)
    nobody = r1.tables.select_related("game").get(number=1).game
    _defaulted(nobody, 1)
    _defaulted(nobody, 2)
    some = r1.tables.select_related("game").get(number=2).game
    [mover] = Prompt.objects.get(game=some, number=1).pending
    order_submit(seat=some.seats.get(name=mover), text="PLACE BLUE 1,0", source="web")
    assert prompt_resolve(game_id=some.pk, prompt_number=1)
    _defaulted(some, 2)
    assert results.results_collect() == 2
    tables = {t.number: t for t in r1.tables.all()}
    assert not tables[1].rated and not tables[2].rated  # both no-shows: neither is rated
    assert len(selectors.silent_seats(game=nobody)) == 2
    assert len(selectors.silent_seats(game=some)) == 1
    return t, organizer, reg


def test_a_game_nobody_played_is_no_meeting_nor_seat_in_the_pairings_input():
    # Regression: a game nobody played counted as a meeting (its players were never paired
    # again) and as a seat taken; a forfeit entered by hand did not.
    t, _organizer, reg = _cup()
    request = selectors.pairing_input(tournament=t, round_number=2, seed=1)
    got = {int(p["id"]): (p["opponents"], p["seats"]) for p in request["players"]}
    assert got == {
        reg["na"]: ([], [0, 0]),
        reg["nb"]: ([], [0, 0]),
        # One of them played: a game played, whoever's orders were defaults.
        reg["nc"]: ([str(reg["nd"])], [1, 0]),
        reg["nd"]: ([str(reg["nc"])], [0, 1]),
    }


def test_a_hand_pairing_of_players_whose_game_nobody_played_has_no_repeat_warning():
    t, _organizer, reg = _cup()
    warnings = rounds.hand_pairing_warnings(
        tournament=t, number=2, tables=[[reg["na"], reg["nb"]], [reg["nc"], reg["nd"]]]
    )
    assert warnings == ["Table 2: nc and nd have met once before."]


def test_a_game_nobody_played_is_an_unplayed_round_for_the_tie_breaks_too():
    # Regression: the standings' tie-breaks counted the game nobody played as played
    # (each player an opponent of the other) while the pairing leaves it out: now both
    # read it as not played, as a forfeit entered by hand.
    t, _organizer, reg = _cup()
    [round_one] = selectors.history(tournament=t)
    unplayed = {
        frozenset(p for group in game.ranking for p in group): game.forfeit or game.scoreless
        for game in round_one.games
    }
    assert unplayed == {
        frozenset({str(reg["na"]), str(reg["nb"])}): True,
        frozenset({str(reg["nc"]), str(reg["nd"])}): False,
    }


def test_a_repeat_meeting_says_once_twice_then_a_number_of_times():
    """The panel's warning read "have met 1 time(s) before"; in words now."""
    organizer = make_user("mboss")
    users = {n: make_user(n) for n in ("ma", "mb")}
    t = tsvc.tournament_create(organizer=organizer, name="Rematch cup", ruleset="6x5",
                               table_sizes=[2], rounds_count=4, options={"max_turns": 2})  # fmt: skip
    tsvc.tournament_open(tournament=t, by=organizer)
    reg = {n: tsvc.registration_add(tournament=t, user=u).pk for n, u in users.items()}
    said = []
    for number in (1, 2, 3, 4):
        said += rounds.hand_pairing_warnings(tournament=t, number=number, tables=[[reg["ma"], reg["mb"]]])
        if number == 4:
            break
        rnd, _warnings = rounds.round_pair_by_hand(
            tournament=t, tables=[[reg["ma"], reg["mb"]]], by=organizer, force=True
        )
        rnd = rounds.round_start(rnd=rnd, by=organizer)
        game = rnd.tables.select_related("game").get().game
        [mover] = Prompt.objects.get(game=game, number=1).pending
        order_submit(seat=game.seats.get(name=mover), text="PLACE BLUE 1,0", source="web")
        assert prompt_resolve(game_id=game.pk, prompt_number=1)
        _defaulted(game, 2)
        assert results.results_collect() == 1
    assert said == [
        "Table 1: ma and mb have met once before.",
        "Table 1: ma and mb have met twice before.",
        "Table 1: ma and mb have met 3 times before.",
    ]
