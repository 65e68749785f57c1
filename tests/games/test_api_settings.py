"""The caller's settings over the API (GET/PATCH /api/settings/), as the settings page
sets them: time zone, what new seats email, who may invite them by name."""

from __future__ import annotations

import pytest

from games.models import PlayerSettings, Seat
from tests.games.core_support import make_game, make_users
from tests.games.web_support import token_client

pytestmark = pytest.mark.django_db


def test_reading_and_changing_the_settings():
    (ann,) = make_users(["ann"])
    api = token_client(ann)
    assert api.get("/api/settings/").json() == {
        "time_zone": None, "email_every_prompt": True, "invitations": "anyone",
        "turn_emails": "each", "summary_hour": 8, "summary_warning": None,
    }  # fmt: skip
    changed = api.patch(
        "/api/settings/",
        {"time_zone": "Europe/Madrid", "invitations": "played_with"},
        format="json",
    )
    assert changed.status_code == 200
    assert changed.json() == {
        "time_zone": "Europe/Madrid", "email_every_prompt": True, "invitations": "played_with",
        "turn_emails": "each", "summary_hour": 8, "summary_warning": None,
    }  # fmt: skip
    row = PlayerSettings.objects.get(user=ann)
    assert (row.time_zone, row.invitations) == ("Europe/Madrid", "played_with")
    assert api.get("/api/settings/").json()["time_zone"] == "Europe/Madrid"


def test_a_bad_value_changes_nothing():
    (ann,) = make_users(["ann"])
    api = token_client(ann)
    for body, field in (
        ({"time_zone": "Mars/Olympus", "invitations": "nobody"}, "time_zone"),
        ({"invitations": "friends", "time_zone": "Europe/Paris"}, "invitations"),
        ({"email_every_prompt": "no"}, "email_every_prompt"),
        ({"apply_now": True}, "apply_now"),
        ({"colour": "blue"}, "colour"),
    ):
        answer = api.patch("/api/settings/", body, format="json")
        assert answer.status_code == 400, body
        assert field in answer.json()["fields"], (body, answer.json())
    assert api.get("/api/settings/").json() == {
        "time_zone": None, "email_every_prompt": True, "invitations": "anyone",
        "turn_emails": "each", "summary_hour": 8, "summary_warning": None,
    }  # fmt: skip
    assert "Unknown time zone 'Mars/Olympus'" in str(
        api.patch("/api/settings/", {"time_zone": "Mars/Olympus"}, format="json").json()
    )
    from rest_framework.test import APIClient

    assert APIClient().get("/api/settings/").status_code == 401


def test_emails_only_when_an_order_is_wanted_and_for_the_games_going_on_too():
    game, seats = make_game(["ann", "bob", "cat"])
    api = token_client(seats["ann"].user)
    answer = api.patch(
        "/api/settings/", {"email_every_prompt": False, "apply_now": True}, format="json"
    )
    assert answer.status_code == 200 and answer.json()["email_every_prompt"] is False
    assert Seat.objects.get(pk=seats["ann"].pk).email_every_prompt is False
    assert Seat.objects.get(pk=seats["bob"].pk).email_every_prompt is True
    api.patch("/api/settings/", {"email_every_prompt": True}, format="json")
    assert Seat.objects.get(pk=seats["ann"].pk).email_every_prompt is False  # not applied now
