"""A new game like another (/games/new/?like=ID, "New game like this one" on a game's
page): the form filled in as that game was made, its name left to the player; a game the
player may not watch fills in nothing."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games.models import Game
from games.services.games import game_create
from tests.games.core_support import make_users
from tests.games.web_support import visible_text

pytestmark = pytest.mark.django_db

COPIED = (
    "ruleset", "seats_count", "options", "is_private", "require_sender_match", "talk_open",
    "away_days", "deadline_hours", "grace_minutes", "quiet_hours_start", "quiet_hours_end",
    "quiet_hours_time_zone", "reminder_hours", "early_resolution_delay_seconds",
)  # fmt: skip


def test_the_form_is_filled_in_as_the_game_was_made_and_makes_the_same_game(client):
    ann, bob = make_users(["ann", "bob"])
    old = game_create(
        organizer=ann, ruleset="6x5", seats_count=3, name="Madrid league",
        options={"goals": 2, "visible_goals": True, "max_turns": 150}, is_private=True,
        require_sender_match=True, talk_open=False, away_days=2, deadline_hours=12,
        grace_minutes=30, quiet_hours_start=23, quiet_hours_end=7,
        quiet_hours_time_zone="Europe/Madrid", reminder_hours=3,
        early_resolution_delay_seconds=60,
    )  # fmt: skip
    client.force_login(ann)
    page = client.get(reverse("games:detail", args=[old.pk])).content.decode()
    assert f'href="{reverse("games:create")}?like={old.pk}" id="like-link"' in page
    answer = client.get(reverse("games:create"), {"like": old.pk})
    html = answer.content.decode()
    assert "Filled in as Madrid league was made" in visible_text(html)
    assert '<option value="6x5" selected>' in html
    assert 'name="opt__6x5__max_turns" value="150"' in html
    # Sent as the page fills it in (a name given), it makes a game set up as the old one.
    form = answer.context["form"]
    data = {}
    for field in form:
        value = field.value()
        if value in (None, False):
            continue
        data[field.html_name] = "on" if value is True else value
    data["name"] = "Madrid league, again"
    created = client.post(reverse("games:create"), data)
    errs = re.findall(r"class=\"(?:error|errorlist|notice)[^\"]*\"[^>]*>(.*?)</(?:p|ul|div)>", created.content.decode(), re.S)
    assert created.status_code == 302, (errs, data)
    new = Game.objects.latest("id")
    assert new.pk != old.pk and new.name == "Madrid league, again"
    for attr in COPIED:
        assert getattr(new, attr) == getattr(old, attr), attr


def test_a_game_the_player_may_not_watch_fills_in_nothing(client):
    ann, bob = make_users(["ann", "bob"])
    private = game_create(
        organizer=ann, ruleset="6x5", seats_count=2, name="Secret", is_private=True,
        deadline_hours=12,
    )  # fmt: skip
    client.force_login(bob)
    for like in (str(private.pk), "999999", "x", "²"):
        answer = client.get(reverse("games:create"), {"like": like})
        assert answer.status_code == 200
        text = visible_text(answer.content.decode())
        assert "There is no such game to copy" in text and "Secret" not in text, like
        assert 'id="like-note"' not in answer.content.decode()
