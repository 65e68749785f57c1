"""A game without a name is called by its ruleset's own name and number everywhere:
its page, the lists, the emails' subjects and bodies."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.models import OutboxMessage
from games.services.games import game_create, game_join
from tests.games.web_support import make_user

pytestmark = pytest.mark.django_db


def test_an_unnamed_game_is_called_by_its_rulesets_name_and_number(client):
    users = [make_user(n) for n in ("ann", "bob")]
    game = game_create(organizer=users[0], ruleset="4x-dice", options={}, seats_count=2)
    for user in users:
        game_join(game=game, user=user)
    title = f"4X Dice game {game.pk}"
    assert str(game) == title
    client.force_login(users[0])
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert f"<h1>{title}</h1>" in page
    for url in (reverse("home"), reverse("games:list")):
        listing = client.get(url).content.decode()
        assert title in listing and "<td>4X Dice</td>" in listing and "4x-dice" not in listing
    started = OutboxMessage.objects.filter(game=game, kind="game_started")
    assert started.count() == 2
    for message in started:
        assert message.subject.startswith(f"[{title}] ")
        assert message.body.startswith(f"{title} — ")


def test_a_named_game_keeps_its_name():
    (ann,) = [make_user("ann")]
    game = game_create(organizer=ann, ruleset="5x", options={}, seats_count=3, name="Tuesday league")
    assert str(game) == game.title == "Tuesday league"
