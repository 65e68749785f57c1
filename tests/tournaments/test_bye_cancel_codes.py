"""Taking back a bye over the API (``DELETE /api/tournaments/{slug}/byes/{n}/``) when the
request is well formed but the data refuses it: no bye asked for that round is a 404 (no
such bye), the round paired already a 409 conflict (its bye stands). Both were 400
``invalid`` with no ``fields``: schemathesis's positive-data check (ST202: a schema-valid
request refused as malformed)."""

from __future__ import annotations

import pytest

from tests.games.web_support import make_user, token_client
from tournaments.models import Registration
from tournaments.services import rounds
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db


def open_cup(name: str, players: tuple[str, ...], rounds_count: int):
    """An open 4X Dice tournament of tables of two, ``players`` registered over the API;
    its organizer, the tournament, its API base and ann's client."""
    organizer = make_user("olga")
    tournament = tsvc.tournament_create(
        organizer=organizer, name=name, ruleset="4x-dice", table_sizes=[2], rounds_count=rounds_count
    )
    tsvc.tournament_open(tournament=tournament, by=organizer)
    base = f"/api/tournaments/{tournament.slug}"
    api = token_client(make_user("ann"))
    for player in players:
        client = api if player == "ann" else token_client(make_user(player))
        assert client.post(f"{base}/register/", {}, format="json").status_code == 201
    return organizer, tournament, base, api


def test_a_bye_not_asked_is_a_404_and_one_of_a_paired_round_a_409():
    organizer, tournament, base, api = open_cup("Winter Cup", ("ann", "bob", "cat"), 3)
    assert api.post(f"{base}/byes/", {"round": 1}, format="json").status_code == 200

    missing = api.delete(f"{base}/byes/3/")
    assert (missing.status_code, missing.json()["error"]) == (404, "not_found")
    assert missing.json()["message"] == "No bye was requested for round 3."

    rounds.round_pair(tournament=tournament, by=organizer)
    paired = api.delete(f"{base}/byes/1/")
    assert (paired.status_code, paired.json()["error"]) == (409, "conflict")
    assert "paired already" in paired.json()["message"]
    assert Registration.objects.get(user__username="ann").requested_byes == [1]  # it stands


def test_the_schema_says_a_bye_not_asked_is_a_404(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    responses = schema["paths"]["/api/tournaments/{slug}/byes/{number}/"]["delete"]["responses"]
    assert "no bye was asked" in responses["404"]["description"]
    assert "409" in responses


def test_asking_a_bye_for_a_round_paired_already_is_a_409_and_a_round_past_the_last_a_400():
    """A round paired already (or every round paired) is the tournament's state refusing a
    well-formed request: 409 conflict, as taking such a bye back is; a round the tournament
    does not have (0, past the last) stays a 400."""
    organizer, tournament, base, api = open_cup("Spring Cup", ("ann", "bob"), 2)
    rounds.round_pair(tournament=tournament, by=organizer)

    paired = api.post(f"{base}/byes/", {"round": 1}, format="json")
    assert (paired.status_code, paired.json()["error"]) == (409, "conflict"), paired.content
    assert "round 1 is paired already" in paired.json()["message"]
    for number in (0, 3):
        beyond = api.post(f"{base}/byes/", {"round": number}, format="json")
        assert (beyond.status_code, beyond.json()["error"]) == (400, "invalid"), number
    assert Registration.objects.get(user__username="ann").requested_byes == []
