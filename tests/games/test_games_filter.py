"""The games page and the API list one game's games when asked (``?game=6x5`` on the page,
``?ruleset=6x5`` over the API), keeping the choice from page to page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.services.games import game_create
from games.views import lobby
from tests.games.core_support import make_users
from tests.games.web_support import token_client, visible_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def games():
    ann, bob = make_users(["ann", "bob"])
    made = {
        (ruleset, n): game_create(
            organizer=ann,
            ruleset=ruleset,
            seats_count=2 if ruleset == "4x-dice" else 3,
            name=f"{ruleset} table {n}",
        )
        for ruleset in ("5x", "6x5", "4x-dice")
        for n in (1, 2)
    }
    return ann, bob, made


def test_the_page_lists_one_games_open_games_when_asked(games, client, monkeypatch):
    _, bob, made = games
    client.force_login(bob)
    every = visible_text(client.get(reverse("games:list")).content.decode())
    assert all(f"{ruleset} table" in every for ruleset in ("5x", "6x5", "4x-dice"))
    page = client.get(reverse("games:list"), {"game": "6x5"}).content.decode()
    text = visible_text(page)
    assert "6x5 table 1" in text and "6x5 table 2" in text
    assert "5x table" not in text and "4x-dice table" not in text
    assert "Showing 6x5 games only" in text and '<option value="6x5" selected>' in page
    # An unknown game lists every game, and says nothing of a filter.
    text = visible_text(client.get(reverse("games:list"), {"game": "chess"}).content.decode())
    assert "5x table 1" in text and "Showing" not in text
    # One game a page: the next page's link keeps the choice.
    monkeypatch.setattr(lobby, "GAMES_PAGE", 1)
    page = client.get(reverse("games:list"), {"game": "6x5"}).content.decode()
    assert "game=6x5&amp;open=2#open-games" in page or "open=2&amp;game=6x5#open-games" in page
    # The player's own games are not filtered (the list says all of them).
    own = game_create(
        organizer=bob, ruleset="5x", seats_count=3, name="Bobs own table", seat_organizer=True
    )
    text = visible_text(client.get(reverse("games:list"), {"game": "6x5"}).content.decode())
    assert own.name in text


def test_the_api_lists_one_rulesets_games(games):
    ann, bob, made = games
    api = token_client(bob)
    answer = api.get("/api/games/open/", {"ruleset": "4x-dice"})
    assert answer.status_code == 200
    assert sorted(g["name"] for g in answer.json()) == ["4x-dice table 1", "4x-dice table 2"]
    assert api.get("/api/games/open/", {"ruleset": "chess"}).status_code == 400
    assert len(api.get("/api/games/open/").json()) == 6
    mine = token_client(ann).get("/api/games/", {"ruleset": "6x5"}).json()
    assert sorted(g["name"] for g in mine) == ["6x5 table 1", "6x5 table 2"]


def test_the_page_finds_games_by_name_or_player(games, client):
    from games.services.games import game_join

    ann, bob, made = games
    (cat,) = make_users(["cat"])
    game_join(game=made[("5x", 2)], user=cat)  # cat plays in one game named "5x table 2"
    client.force_login(bob)
    page = client.get(reverse("games:list"), {"q": "TABLE 1"}).content.decode()
    text = visible_text(page)
    assert all(f"{r} table 1" in text for r in ("5x", "6x5", "4x-dice")) and "table 2" not in text
    assert "Showing games matching “TABLE 1” (in their name, or a player of that name) only" in text
    assert 'name="q" value="TABLE 1"' in page
    # A player's name: the games they play in (whatever their name), with the game filter.
    text = visible_text(client.get(reverse("games:list"), {"q": "cat"}).content.decode())
    assert "5x table 2" in text and "table 1" not in text and "6x5 table 2" not in text
    text = visible_text(client.get(reverse("games:list"), {"q": "cat", "game": "6x5"}).content.decode())
    assert "table" not in text
    assert "No open 6x5 game matching “cat” is waiting for players right now." in text
    # Nothing typed: every game; a NUL is no error.
    assert client.get(reverse("games:list"), {"q": "a\x00b"}).status_code == 200


def test_the_api_finds_games_by_name_or_player(games):
    from games.services.games import game_join

    ann, bob, made = games
    (cat,) = make_users(["cat"])
    game_join(game=made[("6x5", 1)], user=cat)
    api = token_client(bob)
    found = api.get("/api/games/open/", {"q": "table 2"}).json()
    assert sorted(g["name"] for g in found) == ["4x-dice table 2", "5x table 2", "6x5 table 2"]
    assert [g["name"] for g in api.get("/api/games/open/", {"q": "CAT"}).json()] == ["6x5 table 1"]
    both = api.get("/api/games/open/", {"q": "table", "ruleset": "5x"}).json()
    assert sorted(g["name"] for g in both) == ["5x table 1", "5x table 2"]
    assert api.get("/api/games/open/", {"q": "x" * 101}).status_code == 400
    mine = token_client(cat).get("/api/games/", {"q": "6x5"}).json()
    assert [g["name"] for g in mine] == ["6x5 table 1"]
