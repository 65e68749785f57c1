"""The new-tournament form sent twice (a second tap while the first is on its way; Back
and Create again) makes one tournament (h3's organizer walk: it made "Walk" and
"walk-2", two drafts to tell apart); the same form edited makes another."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def _form(client: Client) -> dict[str, str]:
    page = client.get("/tournaments/new/").content.decode()
    key = re.search(r'name="create_key" value="([0-9a-f]{32})"', page)
    assert key, "the form carries its own key"
    return {"name": "Walk", "ruleset": "6x5", "table_sizes": "2", "rounds_count": "3",
            "deadline_hours": "48", "tiebreaks": "buchholz", "create_key": key.group(1),
            "away_days": "0", "quiet_hours_time_zone": "UTC"}  # fmt: skip


def test_the_form_sent_twice_makes_one_tournament():
    organizer = get_user_model().objects.create_user("olga", "olga@example.com", "pw")
    client = Client()
    client.force_login(organizer)
    data = _form(client)
    first = client.post("/tournaments/new/", data, follow=True)
    assert [str(m) for m in first.context["messages"]] == [
        "Tournament created. Open it for registration when ready."
    ]
    again = client.post("/tournaments/new/", data, follow=True)
    assert list(Tournament.objects.values_list("slug", flat=True)) == ["walk"]
    assert again.redirect_chain[-1][0] == "/tournaments/walk/manage/"
    assert [str(m) for m in again.context["messages"]] == [
        "This form created this tournament already: here it is."
    ]
    assert Tournament.objects.get().log.filter(kind="tournament_created").count() == 1
    # Edited and sent again (Back, another name, Create): another tournament.
    client.post("/tournaments/new/", {**data, "name": "Walk two"})
    assert sorted(Tournament.objects.values_list("slug", flat=True)) == ["walk", "walk-two"]
    # A fresh form (a new key) with the same fields: another one too (two cups may share
    # a name; their addresses differ).
    client.post("/tournaments/new/", _form(client))
    assert Tournament.objects.filter(name="Walk").count() == 2


def test_another_organizers_key_is_theirs_alone():
    User = get_user_model()
    olga, petra = (User.objects.create_user(n, f"{n}@example.com", "pw") for n in ("olga", "petra"))
    client = Client()
    client.force_login(olga)
    data = _form(client)
    client.post("/tournaments/new/", data)
    other = Client()
    other.force_login(petra)
    other.post("/tournaments/new/", data)
    assert sorted(Tournament.objects.values_list("organizer__username", flat=True)) == ["olga", "petra"]


def test_a_tampered_key_is_said_above_the_form():
    organizer = get_user_model().objects.create_user("olga", "olga@example.com", "pw")
    client = Client()
    client.force_login(organizer)
    page = client.post("/tournaments/new/", {**_form(client), "create_key": "x" * 5000}).content.decode()
    assert "This form was out of date: check it and create the tournament again." in page
    assert "x" * 100 not in page and not Tournament.objects.exists()
