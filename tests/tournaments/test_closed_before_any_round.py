"""A tournament closed before any round was played (called off: too few players, or
round 1 paired and dropped) (h3's organizer walk): every registered player was emailed
"Cup is over — you finished tied 1st of 3 ... You share first place with ...", and its
page showed "Final standings" with everyone 1st on 0 points."""

from __future__ import annotations

import pytest
from django.test import Client

from games.models import OutboxMessage
from tests.tournaments.test_tournament_services import _open_cup
from tournaments.services import rounds
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("paired", [False, True])
def test_closing_before_any_round_calls_it_off_without_a_ranking(paired):
    organizer, users, t, _regs = _open_cup("co", 3, rounds_count=3)
    if paired:
        rounds.round_pair(tournament=t, by=organizer)  # dropped by the close
    OutboxMessage.objects.all().delete()
    tsvc.tournament_close(tournament=t, by=organizer)
    sent = {m.to: m for m in OutboxMessage.objects.all()}
    assert sorted(sent) == sorted(u.email for u in users)
    for mail in sent.values():
        assert mail.subject == "Cup co is closed: no round was played"
        assert "Cup co was closed before any round was played: no game, no standings." in mail.body
        assert "1st" not in mail.body and "first place" not in mail.body
    client = Client()
    page = client.get(f"/tournaments/{t.slug}/").content.decode()
    assert "Final standings" not in page
    assert "Closed before any round was played: no standings." in page


def test_the_api_gives_no_standings_for_it_either():
    # Guards against everyone ranked 1st on 0 points in the API (the page said "no standings").
    from rest_framework.test import APIClient

    organizer, users, t, _regs = _open_cup("api", 3, rounds_count=3)
    before = APIClient().get(f"/api/tournaments/{t.slug}/").json()
    assert len(before["standings"]) == 3  # open: everyone listed, level
    tsvc.tournament_close(tournament=t, by=organizer)
    after = APIClient().get(f"/api/tournaments/{t.slug}/").json()
    assert after["status"] == "closed" and after["standings"] == []


def test_a_tables_game_ended_early_tells_its_players_the_result_comes_from_the_organizer():
    # Guards against the players of a tournament's table left guessing what happens to
    # the result when its organizer ends the game early (h3's walk).
    from games.services.organizer import game_end

    organizer, users, t, _regs = _open_cup("end", 2, rounds_count=1)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    game = rnd.tables.get().game
    OutboxMessage.objects.all().delete()
    game_end(game=game, by=organizer, reason="played offline")
    ended = OutboxMessage.objects.filter(subject__contains="Game ended")
    assert ended.count() == 2
    for mail in ended:
        assert "ended the game early: played offline" in mail.body
        assert "its organizer enters the table's result" in " ".join(mail.body.split())
