"""Closing a tournament early (h3's organizer walk): a round paired but never started
no longer makes "Close tournament" a dead end, and a round still being played is named
with what to do."""

from __future__ import annotations

import pytest
from django.test import Client

from games.models import Game
from tests.tournaments.test_tournament_services import _open_cup, _results_by_hand
from tournaments.models import Bye, Round, Table, Tournament
from tournaments.services import rounds

pytestmark = pytest.mark.django_db


def _messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_closing_drops_a_round_paired_but_never_started():
    # The walk: round 3 of 3 paired, then the organizer ends the tournament after round
    # 2; "Close" said "A round is still being played; finish or correct it first." and
    # no action could unpair the round (only Start).
    organizer, _users, t, _regs = _open_cup("cp", 5, rounds_count=3)  # duels: a bye a round
    first = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=first, by=organizer)
    _results_by_hand(first, organizer, "offline")
    rounds.round_pair(tournament=t, by=organizer)
    games_before = Game.objects.count()
    client = Client()
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    assert "Round 2 is paired, not started: closing drops its pairing." in page
    response = client.post(f"/tournaments/{t.slug}/manage/close/", {"confirm": "yes"}, follow=True)
    assert _messages(response) == [
        "The tournament is closed. Round 2, paired but never started, was dropped."
    ]
    t.refresh_from_db()
    assert t.status == Tournament.Status.CLOSED
    assert list(t.rounds.values_list("number", flat=True)) == [1]
    assert not Table.objects.filter(round__tournament=t, round__number=2).exists()
    assert not Bye.objects.filter(round__tournament=t, round__number=2).exists()
    assert Game.objects.count() == games_before  # no game was made for it
    kinds = list(t.log.order_by("seq").values_list("kind", "payload"))
    assert kinds[-2:] == [("round_dropped", {"round": 2}), ("tournament_closed", {})]
    # The public page's rounds list has round 1 only.
    public = client.get(f"/tournaments/{t.slug}/").content.decode()
    assert f"/tournaments/{t.slug}/rounds/2/" not in public
    assert f"/tournaments/{t.slug}/rounds/1/" in public


def test_closing_during_a_started_round_names_it_and_what_to_do():
    organizer, _users, t, _regs = _open_cup("cs", 4, rounds_count=2)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    client = Client()
    client.force_login(organizer)
    response = client.post(f"/tournaments/{t.slug}/manage/close/", {"confirm": "yes"}, follow=True)
    assert _messages(response) == [
        "Round 1 is still being played: every table needs its result before the tournament "
        "closes (end a game that will not finish from its page, then enter its result here)."
    ]
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING
    assert Round.objects.get(pk=rnd.pk).status == Round.Status.STARTED
