"""A game's Atom feed (/games/ID/feed.atom): each resolved prompt's public events, newest
first, linked to its review; a private game's is a 404 to strangers; nothing sealed."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from django.urls import reverse

from games.models import Game
from tests.games.core_support import play_defaults
from tests.games.test_review_pages import ROUND_1, played  # noqa: F401
from tests.games.web_support import DEAL, DRAFT, eager_celery, make_user  # noqa: F401

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"


def entries(client, game: Game) -> list[dict[str, str]]:
    answer = client.get(reverse("games:feed", args=[game.pk]))
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("application/atom+xml")
    root = ET.fromstring(answer.content)
    return [
        {
            "title": e.findtext(f"{ATOM}title"),
            "link": e.find(f"{ATOM}link").get("href"),
            "summary": e.findtext(f"{ATOM}summary") or "",
        }
        for e in root.findall(f"{ATOM}entry")
    ]


def test_a_running_games_feed_gives_the_public_events_newest_first(played, client):  # noqa: F811
    game = played
    feed = entries(client, game)  # nobody signed in, as a feed reader
    assert [e["title"] for e in feed] == ["Round 1 · play (decision 2)", "Draft (decision 1)"]
    assert feed[0]["link"].endswith(reverse("games:review_step", args=[game.pk, 2]))
    assert "played" in feed[0]["summary"]  # round 1's reveal
    assert "the Great Leader draft is over" in feed[1]["summary"]
    text = " ".join(e["summary"] for e in feed)
    # The draft's passes (each told to its seat alone) and the orders stay sealed.
    for secret in ("you passed", "PASS DIDO", "PASS CAESAR", "PASS ERIK", "CLEOPATRA"):
        assert secret not in text, secret
    # The game page offers it.
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert f'href="{reverse("games:feed", args=[game.pk])}"' in page
    assert 'rel="alternate" type="application/atom+xml"' in page


def test_a_game_over_has_its_end_first(played, client):  # noqa: F811
    game = played
    assert play_defaults(game)
    game.refresh_from_db()
    feed = entries(client, game)
    assert feed[0]["title"] == "Game over"
    assert feed[0]["link"].endswith(reverse("games:review_end", args=[game.pk]))
    from games.presentation import winner_words

    assert game.ranking and feed[0]["summary"].startswith(f"Result: {winner_words(game.ranking)}.")
    assert f"{game.ranking[0][0]} " in feed[0]["summary"]  # the winner named, as written


def test_a_private_games_feed_is_a_404_to_strangers(played, client):  # noqa: F811
    game = played
    Game.objects.filter(pk=game.pk).update(is_private=True)
    assert client.get(reverse("games:feed", args=[game.pk])).status_code == 404
    client.force_login(make_user("zed"))
    assert client.get(reverse("games:feed", args=[game.pk])).status_code == 404
    client.force_login(game.seats.get(name="bob").user)
    assert client.get(reverse("games:feed", args=[game.pk])).status_code == 200
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert "feed.atom" not in page  # not offered: a feed reader could not read it


def test_each_entry_s_id_is_an_absolute_address(played, client, settings):  # noqa: F811
    """Regression: an entry's Atom id was a path ("/games/3/review/2/"): RFC 4287 wants an
    absolute IRI, which feed readers tell entries apart by."""
    settings.FIVEX_BASE_URL = "https://fivex.example"
    game = played
    assert play_defaults(game)
    root = ET.fromstring(client.get(reverse("games:feed", args=[game.pk])).content)
    ids = [e.findtext(f"{ATOM}id") for e in root.findall(f"{ATOM}entry")]
    assert ids == [
        "https://fivex.example" + reverse("games:review_end", args=[game.pk]),
        *[
            "https://fivex.example" + reverse("games:review_step", args=[game.pk, number])
            for number in range(len(ids) - 1, 0, -1)
        ],
    ]
