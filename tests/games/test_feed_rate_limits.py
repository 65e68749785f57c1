"""Rate limits on the calendar feed (``/calendar/<token>.ics``, per address), on renewing its
address (``POST /api/calendar/`` and the Calendar page's "new address", per player,
counted together) and on the Atom feeds of tournaments and games (per client address): each was
unlimited, so one script could make the server build feeds (or new secrets) as fast as
it asked. Over a limit: 429 with ``Retry-After`` and a message saying so; nothing
changed."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from django.test import Client
from django.urls import reverse

from games.models import PlayerSettings
from games.services.players import calendar_feed_create
from tests.games.web_support import make_user, token_client
from tests.tournaments.test_tournament_services import _open_cup

pytestmark = pytest.mark.django_db


@pytest.fixture
def rates(settings):
    """Every rate as it is, but the ones a test names."""

    def set_rates(**changes: str) -> None:
        rest = settings.REST_FRAMEWORK
        settings.REST_FRAMEWORK = {
            **rest, "DEFAULT_THROTTLE_RATES": {**rest["DEFAULT_THROTTLE_RATES"], **changes},
        }  # fmt: skip

    return set_rates


def test_renewing_the_calendar_address_is_rate_limited_over_the_api_and_the_page(rates):
    # Regression: POST /api/calendar/ made a new secret (a write, a token) without limit.
    rates(calendar="3/hour")
    ann = make_user("ann")
    api = token_client(ann)
    assert api.post("/api/calendar/").status_code == 201
    assert api.post("/api/calendar/").status_code == 201
    page = Client()
    page.force_login(ann)
    assert page.post(reverse("games:calendar"), {"action": "create"}).status_code in (302, 303)
    digest = PlayerSettings.objects.get(user=ann).calendar_digest
    refused = api.post("/api/calendar/")
    assert refused.status_code == 429
    assert refused.json()["error"] == "throttled"
    assert "Too many new calendar addresses (at most 3 an hour)" in refused.json()["message"]
    assert 0 < int(refused["Retry-After"]) <= 3600
    refused_page = page.post(reverse("games:calendar"), {"action": "create"}, follow=True)
    assert "Too many new calendar addresses" in refused_page.content.decode()
    assert PlayerSettings.objects.get(user=ann).calendar_digest == digest  # nothing changed
    # Reading whether it is active, and turning it off, are not counted.
    assert api.get("/api/calendar/").status_code == 200
    assert api.delete("/api/calendar/").status_code == 204
    # Another player's quota is their own.
    assert token_client(make_user("bob")).post("/api/calendar/").status_code == 201


def test_the_calendar_feed_is_rate_limited_per_address(rates):
    # Regression: the secret feed address answered any number of requests, each a build
    # of the player's deadlines.
    rates(calendar_feed="2/min")
    ann_feed = reverse("games:calendar_feed", args=[calendar_feed_create(user=make_user("ann"))])
    bob_feed = reverse("games:calendar_feed", args=[calendar_feed_create(user=make_user("bob"))])
    app = Client()
    assert [app.get(ann_feed).status_code for _ in range(2)] == [200, 200]
    refused = app.get(ann_feed)
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 60
    assert refused["Content-Type"].startswith("text/plain")
    assert "Too many requests for this calendar" in refused.content.decode()
    assert app.get(bob_feed).status_code == 200  # another address, its own count


def test_guessing_calendar_addresses_is_rate_limited_per_client(rates):
    # Regression: the limit counted per address, so every guess was a fresh count: one
    # client could try addresses (each a database lookup) as fast as it asked.
    rates(calendar_feed_miss="3/hour")
    ann_feed = reverse("games:calendar_feed", args=[calendar_feed_create(user=make_user("ann"))])
    guesser = Client(REMOTE_ADDR="192.0.2.7")
    guesses = [reverse("games:calendar_feed", args=[f"guess{n:027d}AAAA"]) for n in range(5)]
    assert [guesser.get(url).status_code for url in guesses[:3]] == [404, 404, 404]
    refused = guesser.get(guesses[3])
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 3600
    assert refused["Content-Type"].startswith("text/plain")
    said = refused.content.decode()
    assert "Too many requests for unknown calendar addresses from your address" in said
    assert "at most 3 an hour" in said
    # Over it, a right address is still served (a calendar service fetching many players'
    # feeds from one address, some renewed since, keeps serving the others), and not counted.
    assert [guesser.get(ann_feed).status_code for _ in range(3)] == [200] * 3
    assert guesser.get(guesses[4]).status_code == 429
    # Another client's count is its own; a known address is never counted as a miss.
    app = Client(REMOTE_ADDR="192.0.2.8")
    assert [app.get(ann_feed).status_code for _ in range(5)] == [200] * 5
    assert app.get(guesses[4]).status_code == 404


def test_guesses_from_one_ipv6_network_share_one_count(rates):
    """An IPv6 client holds a whole /64 (2^64 addresses; a home line, a rented server):
    counted per address, each guess from a new address of its own network was a fresh
    count, and the limit on unknown calendar addresses held nobody back."""
    rates(calendar_feed_miss="3/hour")
    ann_feed = reverse("games:calendar_feed", args=[calendar_feed_create(user=make_user("ann"))])
    guesses = [reverse("games:calendar_feed", args=[f"guess{n:027d}AAAA"]) for n in range(5)]
    answers = [Client(REMOTE_ADDR=f"2001:db8:7:7::{n + 1:x}").get(url).status_code
               for n, url in enumerate(guesses)]  # fmt: skip
    assert answers == [404, 404, 404, 429, 429]
    # Another network's count is its own, whatever the addresses' likeness.
    assert Client(REMOTE_ADDR="2001:db8:7:8::1").get(ann_feed).status_code == 200
    assert Client(REMOTE_ADDR="2001:db8:7:8::2").get(guesses[0]).status_code == 404


def test_a_tournaments_atom_feed_is_rate_limited_per_client(rates):
    # Regression: the public feed was built for every request, without limit.
    rates(feed="2/min")
    _organizer, _players, t, _regs = _open_cup("fe", 4)
    url = reverse("tournaments:feed", args=[t.slug])
    reader = Client(REMOTE_ADDR="192.0.2.1")
    assert [reader.get(url).status_code for _ in range(2)] == [200, 200]
    refused = reader.get(url)
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 60
    assert "Too many requests for this feed" in refused.content.decode()
    # A game's feed counts with them (the same reader, an unknown game: not even looked up).
    assert reader.get(reverse("games:feed", args=[999_999])).status_code == 429
    assert Client(REMOTE_ADDR="192.0.2.2").get(url).status_code == 200  # another reader


def test_the_limits_turn_off_and_the_schema_documents_the_429(rates, client):
    rates(calendar=None, calendar_feed=None, calendar_feed_miss=None, feed=None)  # API_..._RATE=off
    ann = make_user("ann")
    api = token_client(ann)
    assert all(api.post("/api/calendar/").status_code == 201 for _ in range(4))
    token = urlsplit(api.post("/api/calendar/").json()["url"]).path
    assert all(Client().get(token).status_code == 200 for _ in range(4))
    assert all(Client().get(token[:-8] + "AAAA.ics").status_code == 404 for _ in range(70))
    schema = client.get("/api/schema/", {"format": "json"}).json()
    assert "429" in schema["paths"]["/api/calendar/"]["post"]["responses"]
