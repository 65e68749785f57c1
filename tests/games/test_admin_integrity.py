"""The admin cannot break a game (an operations audit: a finished 5X game turned into 4X
Dice for 5 seats answered 500 on every page and the API, while verify_game still said
OK; prompt deadlines were edited past the organizer's capped, logged extensions; games,
prompts and emails could be added by hand)."""

from __future__ import annotations

import pytest

from games.models import Game, Prompt
from tests.games.core_support import start_fixed

pytestmark = pytest.mark.django_db


def test_what_a_game_is_cannot_be_edited_in_the_admin(admin_client):
    game, _seats = start_fixed(["ann", "bob", "cat"])
    page = admin_client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert 'name="name"' in page and 'name="deadline_hours"' in page  # editable
    for field in ("ruleset", "options", "seats_count", "engine_version", "organizer"):
        assert f'name="{field}"' not in page, field
    answer = admin_client.post(f"/admin/games/game/{game.pk}/change/", {
        "name": "Renamed", "ruleset": "4x-dice", "seats_count": 5, "options": "{}",
        "deadline_hours": 24, "grace_minutes": 0, "quiet_hours_time_zone": "UTC",
        "reminder_hours": 12, "early_resolution_delay_seconds": 0,
        "seats-TOTAL_FORMS": 3, "seats-INITIAL_FORMS": 3,
        **{f"seats-{i}-id": seat.pk for i, seat in enumerate(game.seats.order_by("position"))},
    })  # fmt: skip
    assert answer.status_code == 302, answer.context["adminform"].form.errors
    game.refresh_from_db()
    assert (game.name, game.ruleset, game.seats_count) == ("Renamed", "5x", 3)
    assert admin_client.get(f"/games/{game.pk}/").status_code == 200
    # The deadline policy keeps the site's bounds (a deadline of 1e8 hours overflowed
    # every next prompt's deadline; a quiet hour of 99 was taken).
    for bad, said in (({"deadline_hours": 1e8}, "The deadline must be between"),
                      ({"quiet_hours_start": 99, "quiet_hours_end": 7}, "whole hours from 0 to 23")):
        refused = admin_client.post(f"/admin/games/game/{game.pk}/change/", {
            "name": "Renamed", "deadline_hours": 24, "grace_minutes": 0,
            "quiet_hours_time_zone": "UTC", "reminder_hours": 12,
            "early_resolution_delay_seconds": 0, "seats-TOTAL_FORMS": 3,
            "seats-INITIAL_FORMS": 3,
            **{f"seats-{i}-id": seat.pk for i, seat in enumerate(game.seats.order_by("position"))},
            **bad,
        })  # fmt: skip
        assert refused.status_code == 200 and said in refused.content.decode()
        game.refresh_from_db()
        assert game.deadline_hours == 24 and game.quiet_hours_start is None


def test_prompts_and_emails_are_shown_not_made_or_moved(admin_client):
    game, _seats = start_fixed(["ann", "bob", "cat"])
    prompt = Prompt.objects.get(game=game, number=1)
    before = prompt.deadline
    page = admin_client.get(f"/admin/games/prompt/{prompt.pk}/change/")
    assert page.status_code == 200 and 'name="deadline_0"' not in page.content.decode()
    admin_client.post(f"/admin/games/prompt/{prompt.pk}/change/", {"deadline_0": "2030-01-01"})
    prompt.refresh_from_db()
    assert prompt.deadline == before
    for model in ("game", "prompt", "outboxmessage"):
        assert admin_client.get(f"/admin/games/{model}/add/").status_code == 403, model
    assert Game.objects.count() == 1
