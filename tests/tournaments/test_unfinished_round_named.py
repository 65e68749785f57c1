"""Pairing the next round while one is unfinished is refused. An organizer who ended a
game (a forfeit) and forgot its result was told only "Round 1 is not finished yet.",
with nothing to say what it waits for: the refusal names the tables, the ones whose
game ended early waiting for the organizer's result and the ones still being played."""

from __future__ import annotations

import pytest

from games.services.organizer import game_end
from tests.tournaments.test_tournament_services import _open_cup
from tournaments.models import Round
from tournaments.services import rounds
from tournaments.services.common import TournamentError

pytestmark = pytest.mark.django_db


def test_the_refusal_names_what_the_round_waits_for():
    organizer, _users, t, _regs = _open_cup("uf", 6)  # duels: three tables
    first = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=first, by=organizer)
    game_end(game=first.tables.get(number=2).game, by=organizer, reason="nobody came")
    with pytest.raises(TournamentError) as caught:
        rounds.round_pair(tournament=t, by=organizer)
    assert str(caught.value) == (
        "Round 1 is not finished yet: table 2's game ended early, enter its result; "
        "tables 1 and 3 are still being played."
    )
    assert list(t.rounds.values_list("number", flat=True)) == [1]
    assert Round.objects.get(pk=first.pk).status == Round.Status.STARTED


def test_games_ended_early_alone_are_named_so():
    organizer, _users, t, _regs = _open_cup("ug", 4)
    first = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=first, by=organizer)
    for number in (1, 2):
        game_end(game=first.tables.get(number=number).game, by=organizer, reason="offline")
    with pytest.raises(TournamentError) as caught:
        rounds.round_pair(tournament=t, by=organizer)
    assert str(caught.value) == (
        "Round 1 is not finished yet: tables 1 and 2's games ended early, enter their results."
    )


def test_the_panel_says_what_the_round_being_played_waits_for(client):
    organizer, _users, t, _regs = _open_cup("uh", 4)
    first = rounds.round_start(rnd=rounds.round_pair(tournament=t, by=organizer), by=organizer)
    client.force_login(organizer)
    said = 'id="round-waits">Round 1 is not finished yet: tables 1 and 2 are still being played.</p>'
    assert said in client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    game_end(game=first.tables.get(number=1).game, by=organizer, reason="forfeit")
    page = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    assert ('id="round-waits">Round 1 is not finished yet: table 1&#x27;s game ended early, enter '
            "its result; table 2 is still being played.</p>") in page
