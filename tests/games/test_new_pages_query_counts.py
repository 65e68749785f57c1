"""The pages and API answers this session added read in a fixed number of statements,
however long the game, its table talk or the player's list of games grows: a seat's
review of a prompt (page and API), a spectator's, the game's feed, the games page with
its unread-talk counts and search (review check: no fault found)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games.models import GameMessage
from tests.games.core_support import make_game, play_defaults
from tests.games.web_support import token_client

pytestmark = pytest.mark.django_db


def _statements(client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        answer = client.get(url)
    assert answer.status_code == 200, (url, answer.status_code)
    return len(ctx)


def _walk(game, seats, number: int) -> dict[str, int]:
    ann = seats["ann"].user
    signed_in, visitor = Client(), Client()
    signed_in.force_login(ann)
    api = token_client(ann)
    _statements(signed_in, "/games/")  # the session's first read of the user, aside
    return {
        "seat's review": _statements(signed_in, f"/games/{game.pk}/review/{number}/"),
        "seat's review (API)": _statements(api, f"/api/games/{game.pk}/review/{number}/"),
        "spectator's review": _statements(visitor, f"/games/{game.pk}/review/{number}/"),
        "feed": _statements(visitor, f"/games/{game.pk}/feed.atom"),
        "games page": _statements(signed_in, "/games/"),
        "games page, searched": _statements(signed_in, "/games/?q=bob"),
        "my games (API), searched": _statements(api, "/api/games/?q=bob"),
    }


def test_the_new_reads_do_not_grow_with_the_game_its_talk_or_the_games():
    game, seats = make_game(["ann", "bob", "cat"])
    play_defaults(game, prompts=2)
    GameMessage.objects.create(game=game, author=seats["bob"].user, seat_name="bob", text="hi")
    small = _walk(game, seats, 1)
    play_defaults(game, prompts=8)  # a 5X game of three ends near its 12th prompt
    game.refresh_from_db()
    assert game.status == "active" and game.prompts.filter(status="resolved").count() >= 9
    for i in range(40):
        GameMessage.objects.create(game=game, author=seats["cat"].user, seat_name="cat", text=f"m{i}")
    for _ in range(12):  # more games of ann's, each with talk she has not read
        other, other_seats = make_game(["ann", "bob", "cat"])
        GameMessage.objects.create(game=other, author=other_seats["bob"].user, seat_name="bob", text="x")
    last = game.prompts.filter(status="resolved").order_by("-number").first().number
    large = _walk(game, seats, last)
    assert large == small
