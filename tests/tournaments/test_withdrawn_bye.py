"""A withdrawn player is paired in no round: asking for a bye (the web form forged past
the page that hides it, or the API) is refused with the reason, and nothing changes."""

from __future__ import annotations

import pytest

from tests.games.web_support import make_user, token_client
from tournaments.models import Registration
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db

REFUSAL = "You have withdrawn from this tournament: a bye is for a player still in it."


@pytest.fixture
def withdrawn():
    organizer = make_user("olga")
    tournament = tsvc.tournament_create(
        organizer=organizer, name="Winter Cup", ruleset="4x-dice", table_sizes=[2], rounds_count=3
    )
    tsvc.tournament_open(tournament=tournament, by=organizer)
    ann = make_user("ann")
    reg = tsvc.registration_add(tournament=tournament, user=ann)
    tsvc.registration_withdraw(registration=reg, by=ann)
    return tournament, ann


def test_a_withdrawn_player_asking_a_bye_over_the_api_is_refused(withdrawn):
    # Regression: the withdrawn player's bye request was granted (and logged).
    tournament, ann = withdrawn
    before = tournament.log.count()
    answer = token_client(ann).post(
        f"/api/tournaments/{tournament.slug}/byes/", {"round": 2}, format="json"
    )
    assert answer.status_code == 409
    assert answer.json()["error"] == "conflict" and answer.json()["message"] == REFUSAL
    assert Registration.objects.get(user=ann).requested_byes == []
    assert tournament.log.count() == before


def test_a_withdrawn_player_asking_a_bye_from_the_web_is_refused(client, withdrawn):
    tournament, ann = withdrawn
    client.force_login(ann)
    page = client.post(f"/tournaments/{tournament.slug}/bye/", {"round": "2"}, follow=True)
    assert REFUSAL in page.content.decode()
    assert "Bye requested" not in page.content.decode()
    assert Registration.objects.get(user=ann).requested_byes == []
    assert not tournament.log.filter(kind="bye_requested").exists()
