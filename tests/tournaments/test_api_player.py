"""A player's own entry over the API: register, withdraw, ask for a bye and take it back,
as the tournament page's buttons do; a draft is nobody's but its organizer's."""

from __future__ import annotations

import pytest

from tests.games.web_support import make_user, token_client
from tournaments.models import Registration
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db


@pytest.fixture
def cup():
    organizer = make_user("olga")
    tournament = tsvc.tournament_create(
        organizer=organizer, name="Winter Cup", ruleset="4x-dice", table_sizes=[2], rounds_count=3
    )
    return tournament, organizer


def test_register_withdraw_and_the_second_times(cup):
    tournament, organizer = cup
    ann = make_user("ann")
    api = token_client(ann)
    base = f"/api/tournaments/{tournament.slug}"
    assert api.post(f"{base}/register/", {}, format="json").status_code == 404  # a draft
    tsvc.tournament_open(tournament=tournament, by=organizer)

    first = api.post(f"{base}/register/", {}, format="json")
    assert first.status_code == 201
    assert first.json() == {
        "tournament": tournament.slug, "player": "ann", "status": "active", "first_round": 1,
        "requested_byes": [],
    }  # fmt: skip
    again = api.post(f"{base}/register/", {}, format="json")
    assert (
        again.status_code == 200 and Registration.objects.filter(tournament=tournament).count() == 1
    )

    gone = api.post(f"{base}/withdraw/", {}, format="json")
    assert gone.status_code == 200 and gone.json()["status"] == "withdrawn"
    twice = api.post(f"{base}/withdraw/", {}, format="json")
    assert twice.status_code == 409 and twice.json()["error"] == "already_done"
    # Withdrawn before the start, registering again puts the player back.
    assert api.post(f"{base}/register/", {}, format="json").status_code == 201
    assert Registration.objects.get(tournament=tournament, user=ann).status == "active"

    bob = token_client(make_user("bob"))
    assert bob.post(f"{base}/withdraw/", {}, format="json").status_code == 404  # not registered
    assert bob.post(f"{base}/register/", {"extra": 1}, format="json").status_code == 400
    assert (
        token_client(make_user("cat"))
        .post("/api/tournaments/nope/register/", {}, format="json")
        .status_code
        == 404
    )


def test_a_bye_asked_and_taken_back(cup):
    tournament, organizer = cup
    tsvc.tournament_open(tournament=tournament, by=organizer)
    api = token_client(make_user("ann"))
    base = f"/api/tournaments/{tournament.slug}"
    assert api.post(f"{base}/register/", {}, format="json").status_code == 201
    registration = Registration.objects.get(tournament=tournament, user__username="ann")
    asked = api.post(f"{base}/byes/", {"round": 2}, format="json")
    assert asked.status_code == 200 and asked.json()["requested_byes"] == [2]
    for bad in ({"round": 9}, {"round": "2"}, {}, {"round": 2, "x": 1}):
        refused = api.post(f"{base}/byes/", bad, format="json")
        assert (refused.status_code, refused.json()["error"]) == (400, "invalid"), bad
    registration.refresh_from_db()
    assert registration.requested_byes == [2]  # the refusals changed nothing
    missing = api.delete(f"{base}/byes/3/")  # none asked for round 3
    assert (missing.status_code, missing.json()["error"]) == (404, "not_found")
    taken = api.delete(f"{base}/byes/2/")
    assert taken.status_code == 200 and taken.json()["requested_byes"] == []
    registration.refresh_from_db()
    assert registration.requested_byes == []


def test_the_tournaments_api_says_its_table_rules(cup):
    tournament, organizer = cup
    tsvc.tournament_open(tournament=tournament, by=organizer)
    body = token_client(make_user("ann")).get(f"/api/tournaments/{tournament.slug}/").json()
    assert (body["allow_late_entry"], body["table_talk"], body["away_days"]) == (True, True, 0)


def test_a_closed_tournaments_byes_are_a_conflict_as_its_other_refusals(cup):
    # The byes answered a tournament's state refusal 400 "conflict" (the withdrawal 409).
    from tournaments.models import Tournament

    tournament, organizer = cup
    tsvc.tournament_open(tournament=tournament, by=organizer)
    api = token_client(make_user("ann"))
    base = f"/api/tournaments/{tournament.slug}"
    api.post(f"{base}/register/", {}, format="json")
    api.post(f"{base}/byes/", {"round": 2}, format="json")
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.CLOSED)
    for answer in (
        api.post(f"{base}/byes/", {"round": 3}, format="json"),
        api.delete(f"{base}/byes/2/"),
    ):
        assert answer.status_code == 409 and answer.json()["error"] == "conflict", answer.content
    assert Registration.objects.get(user__username="ann").requested_byes == [2]
