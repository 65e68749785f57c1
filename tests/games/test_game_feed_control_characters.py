"""A game's Atom feed whatever its organizer typed: a reason for ending it early holding a
control character (a vertical tab pasted from a word processor), which XML 1.0 cannot
carry, is written with a space there (review finding: the feed was a 500 for everyone,
for good)."""

from __future__ import annotations

import pytest
from django.test import Client

from games.services.organizer import game_end
from tests.games.core_support import make_game

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("reason", ["Stopped\x0bfor good", "bell\x07 and form\x0cfeed"])
def test_the_feed_of_a_game_ended_with_any_reason_is_served(reason):
    game, _ = make_game(["ann", "bob", "cat"])
    game_end(game=game, by=game.organizer, reason=reason)
    answer = Client().get(f"/games/{game.pk}/feed.atom")
    assert answer.status_code == 200
    body = answer.content.decode()
    assert "<title>Game over</title>" in body
    words = [w for w in reason.replace("\x07", " ").split() if w.isalpha()]
    assert all(w in body for w in words)
