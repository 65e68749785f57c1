"""The calendar feed of a player with several games: the one waiting for their order is
an event, the one they ordered in, the one over and the one paused are not; only their
own games (a private one's name too), no hand or order of anyone; a fixed number of
queries whatever the number of games; renewed, turned off, an account closed: 404."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from icalendar import Calendar

from games.models import Prompt, SealedOrder
from games.services.games import game_create_seated
from games.services.orders import order_submit
from games.services.organizer import game_end, game_pause
from games.services.players import calendar_feed_create, calendar_feed_revoke
from tests.games.web_support import make_user

pytestmark = pytest.mark.django_db

DEADLINE = datetime(2027, 3, 1, 18, 0, tzinfo=UTC)
# Each table's deal: every leader named here is a secret of its seat.
DEALS = {
    "ann bob cat": {"ann": ["CLEOPATRA", "CAESAR"], "bob": ["QIN", "DIDO"], "cat": ["NAPOLEON", "ERIK"]},
    "ann dan eve": {"ann": ["GANDHI", "ISABELLA"], "dan": ["TOKUGAWA", "BOUDICCA"], "eve": ["MONTEZUMA", "SULEIMAN"]},
    "dan eve fay": {"dan": ["GENGHIS", "CATHARINE"], "eve": ["ELIZABETH", "CLEOPATRA"], "fay": ["QIN", "DIDO"]},
}
SECRETS = [leader for deal in DEALS.values() for hand in deal.values() for leader in hand]


def _table(name: str, players: str, users: dict, *, hours: int, **kwargs):
    """A started 5X game (leaders dealt as ``DEALS[players]``) whose first deadline is
    ``hours`` after DEADLINE."""
    seated = [users[n] for n in players.split()]
    game = game_create_seated(organizer=seated[0], ruleset="5x", users=seated, name=name,
                              setup={"deal": DEALS[players]}, **kwargs)  # fmt: skip
    Prompt.objects.filter(game=game, status=Prompt.Status.OPEN).update(
        deadline=DEADLINE + timedelta(hours=hours)
    )
    return game


def _feed(client, token: str):
    response = client.get(reverse("games:calendar_feed", args=[token]))
    assert response.status_code == 200
    events = [c for c in Calendar.from_ical(response.content).walk() if c.name == "VEVENT"]
    return response, {str(e["summary"]): e for e in events}


@pytest.fixture
def world():
    users = {n: make_user(n) for n in ("ann", "bob", "cat", "dan", "eve", "fay")}
    games = {
        "waiting": _table("Waiting table", "ann bob cat", users, hours=1, is_private=False,
                          part_of=("Winter cup, round 2", "/tournaments/1/rounds/2/")),
        "ordered": _table("Ordered table", "ann bob cat", users, hours=2, is_private=False),
        "over": _table("Over table", "ann bob cat", users, hours=3, is_private=False),
        "paused": _table("Paused table", "ann bob cat", users, hours=4, is_private=False),
        "cellar": _table("Cellar club", "ann dan eve", users, hours=5, is_private=True),
        "attic": _table("Attic club", "dan eve fay", users, hours=6, is_private=True),
    }  # fmt: skip
    order_submit(seat=games["ordered"].seats.get(name="ann"), text="PASS CAESAR", source="web")
    # Others' sealed orders, in the games of ann's feed and outside it.
    order_submit(seat=games["waiting"].seats.get(name="bob"), text="PASS DIDO", source="web")
    order_submit(seat=games["cellar"].seats.get(name="dan"), text="PASS BOUDICCA", source="email")
    order_submit(seat=games["attic"].seats.get(name="fay"), text="PASS DIDO", source="api")
    game_end(game=games["over"], by=users["ann"])
    game_pause(game=games["paused"], by=users["ann"])
    return users, games


def test_the_feed_has_an_event_for_each_game_waiting_for_the_players_order(client, world):
    users, games = world
    response, events = _feed(client, calendar_feed_create(user=users["ann"]))
    # The summaries as the feature's description words them.
    assert list(events) == [
        "FiveX: order due — Waiting table, decision 1",
        "FiveX: order due — Cellar club, decision 1",  # private: ann plays in it
    ]
    waiting = events["FiveX: order due — Waiting table, decision 1"]
    assert waiting.decoded("dtend") == DEADLINE + timedelta(hours=1)
    assert waiting.decoded("dtend") - waiting.decoded("dtstart") == timedelta(minutes=30)
    assert waiting.decoded("dtstamp").tzinfo is not None
    description = str(waiting["description"])
    assert f"/games/{games['waiting'].pk}/" in description and str(waiting["url"]).endswith(
        f"/games/{games['waiting'].pk}/"
    )
    assert "Winter cup, round 2" in description  # the tournament round it is a table of
    assert "2027-03-01 19:00 UTC" in description
    [alarm] = [c for c in waiting.subcomponents if c.name == "VALARM"]
    assert alarm.decoded("trigger") == -timedelta(hours=1)
    body = response.content.decode()
    for absent in ("Ordered table", "Over table", "Paused table", "Attic club"):
        assert absent not in body
    # Stable, distinct UIDs: one per prompt of the player's.
    prompts = {g: Prompt.objects.get(game=games[g], number=1).pk for g in ("waiting", "cellar")}
    assert sorted(str(e["uid"]).split("@")[0] for e in events.values()) == sorted(
        f"fivex-prompt-{pk}" for pk in prompts.values()
    )
    _, again = _feed(client, calendar_feed_create(user=users["ann"]))  # a renewed address
    assert {str(e["uid"]) for e in again.values()} == {str(e["uid"]) for e in events.values()}


def test_the_feed_holds_no_hand_and_no_order(client, world):
    """Secrecy: no leader dealt to anyone (ann's own hand included), no order text, no
    commitment or salt of any sealed order."""
    users, _ = world
    for name in ("ann", "bob", "dan"):
        body = client.get(
            reverse("games:calendar_feed", args=[calendar_feed_create(user=users[name])])
        ).content.decode()
        for secret in SECRETS:
            assert not re.search(rf"\b{secret}\b", body, re.IGNORECASE), (name, secret)
        orders = list(SealedOrder.objects.all())
        assert orders  # sealed orders there are, to be kept out of the feed
        for order in orders:
            assert order.salt not in body and order.commitment not in body
            assert order.text not in body


def test_each_players_feed_is_their_own(client, world):
    users, _ = world
    _, bob = _feed(client, calendar_feed_create(user=users["bob"]))
    # bob ordered in the waiting table; ann did in the ordered one, bob did not.
    assert list(bob) == ["FiveX: order due — Ordered table, decision 1"]
    _, dan = _feed(client, calendar_feed_create(user=users["dan"]))
    # dan ordered in the cellar: his attic game only (private, his own).
    assert list(dan) == ["FiveX: order due — Attic club, decision 1"]
    _, fay = _feed(client, calendar_feed_create(user=users["fay"]))
    assert fay == {}


def test_the_feed_is_a_fixed_number_of_queries_whatever_the_number_of_games(client, world):
    users, _ = world
    token = calendar_feed_create(user=users["ann"])
    url = reverse("games:calendar_feed", args=[token])
    with CaptureQueriesContext(connection) as few:
        assert client.get(url).status_code == 200
    for n in range(4):
        _table(f"More {n}", "ann bob cat", users, hours=10 + n, is_private=False)
    with CaptureQueriesContext(connection) as many:
        _, events = _feed(client, token)
    assert len(events) == 6
    assert len(many.captured_queries) == len(few.captured_queries)


def test_an_unchanged_feed_is_a_304_and_a_changed_one_is_not(client, world):
    users, games = world
    url = reverse("games:calendar_feed", args=[calendar_feed_create(user=users["ann"])])
    first = client.get(url)
    assert first["ETag"] and "max-age" in first["Cache-Control"]
    assert "private" in first["Cache-Control"]
    unchanged = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert unchanged.status_code == 304 and unchanged.content == b""
    order_submit(seat=games["waiting"].seats.get(name="ann"), text="PASS CAESAR", source="web")
    changed = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200 and changed["ETag"] != first["ETag"]
    assert b"Waiting table" not in changed.content


def test_a_renewed_address_works_and_the_old_one_and_a_turned_off_one_are_404s(client, world):
    users, _ = world
    old = calendar_feed_create(user=users["ann"])
    new = calendar_feed_create(user=users["ann"])
    assert client.get(reverse("games:calendar_feed", args=[old])).status_code == 404
    assert client.get(reverse("games:calendar_feed", args=[new])).status_code == 200
    assert calendar_feed_revoke(user=users["ann"]) is True
    assert client.get(reverse("games:calendar_feed", args=[new])).status_code == 404
    assert calendar_feed_revoke(user=users["ann"]) is False


def test_a_closed_accounts_address_is_a_404(client, world):
    from fivex_site.account_close import account_close

    users, _ = world
    token = calendar_feed_create(user=users["fay"])
    assert client.get(reverse("games:calendar_feed", args=[token])).status_code == 200
    account_close(user=users["fay"])
    assert client.get(reverse("games:calendar_feed", args=[token])).status_code == 404


def test_the_address_is_not_guessable(db):
    users = [make_user(n) for n in ("gus", "hal")]
    tokens = {calendar_feed_create(user=u) for u in users for _ in range(5)}
    assert len(tokens) == 10
    assert all(len(t) >= 32 for t in tokens)  # 24 random bytes, URL-safe base64
