"""The public status poll (/games/<id>/status.json): one query, ETag / If-None-Match."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.models import Prompt
from games.services import games as game_services
from games.services import orders as order_services
from tests.games.web_support import make_user

pytestmark = pytest.mark.django_db

DEAL = {"ann": ["GANDHI", "CAESAR"], "bob": ["QIN", "DIDO"], "cat": ["NAPOLEON", "TOKUGAWA"]}


@pytest.fixture
def users():
    return {n: make_user(n) for n in ("ann", "bob", "cat")}


@pytest.fixture
def started(users, django_capture_on_commit_callbacks):
    game = game_services.game_create(
        organizer=users["ann"], ruleset="5x", seats_count=3, name="Poll", setup={"deal": DEAL}
    )
    with django_capture_on_commit_callbacks(execute=True):
        for name in ("ann", "bob", "cat"):
            game_services.game_join(game=game, user=users[name])
    game.refresh_from_db()
    return game


def test_poll_answers_from_one_query_with_the_open_prompt(client, started):
    url = reverse("games:status", args=[started.pk])
    deadline = Prompt.objects.get(game=started, number=1).deadline
    with CaptureQueriesContext(connection) as queries:
        answer = client.get(url)
    assert answer.status_code == 200 and answer["Content-Type"] == "application/json"
    assert len(queries) == 1
    body = answer.json()
    assert body["status"] == "active" and body["prompt"] == 1
    assert sorted(body["pending"]) == ["ann", "bob", "cat"]
    assert body["ordered"] == [] and body["sealed"] == {}
    assert body["deadline"] == deadline.isoformat() and body["deadline"].endswith("+00:00")
    assert body["version"] == f"active:1:0:{deadline.isoformat()}:-:3"  # three active seats


def test_poll_shows_who_ordered_but_never_the_text(client, started):
    url = reverse("games:status", args=[started.pk])
    bob = started.seats.get(name="bob")
    order_services.order_submit(seat=bob, text="PASS DIDO", source="web")
    order_services.order_submit(seat=bob, text="PASS QIN", source="web")  # replaces it
    answer = client.get(url)
    body = answer.json()
    assert body["ordered"] == ["bob"] and body["prompt"] == 1
    assert "QIN" not in answer.content.decode() and "DIDO" not in answer.content.decode()


def test_poll_changes_when_an_order_is_replaced_or_withdrawn(client, started):
    """The page compares its own seat's order with the poll's: a replacement from another
    device, or an order withdrawn when the seat was handed over, changes the answer even
    though the number of sealed seats stays the same."""
    from games.models import SealedOrder
    from games.services.handover import seat_replace
    from tests.games.web_support import make_user

    url = reverse("games:status", args=[started.pk])
    bob = started.seats.get(name="bob")
    first = order_services.order_submit(seat=bob, text="PASS DIDO", source="web")
    before = client.get(url).json()
    assert before["sealed"] == {"bob": first.commitment[:12]}  # public: the log has it
    second = order_services.order_submit(seat=bob, text="PASS QIN", source="web")
    after = client.get(url).json()
    assert after["ordered"] == before["ordered"] == ["bob"]
    assert after["sealed"] == {"bob": second.commitment[:12]}
    assert after["version"] != before["version"]
    # Bob's seat handed over and cat sealing in between: one sealed seat still, but whose
    # changed.
    seat_replace(seat=bob, new_user=make_user("dan"), by=started.organizer)
    order_services.order_submit(seat=started.seats.get(name="cat"), text="PASS TOKUGAWA", source="web")
    later = client.get(url).json()
    assert later["ordered"] == ["cat"] and later["version"] != after["version"]
    assert (after["seats"], later["seats"]) == (3, 5)  # a row more, and one row replaced
    assert not SealedOrder.objects.filter(prompt__game=started, seat_name="bob", is_current=True).exists()
    # The page renders the same version and its own seat's order, as the poll gives them.
    client.force_login(started.seats.get(name="cat").user)
    page = client.get(reverse("games:detail", args=[started.pk])).content.decode()
    assert f'data-version="{later["version"]}"' in page
    assert f'data-my-order="{later["sealed"]["cat"]}"' in page
    # A seat that resigned, then handed over: the counter moves at each step (its default
    # order stays, so the orders alone would not tell).
    from games.services.games import seat_resign

    seat_resign(seat=started.seats.get(name="cat"))
    resigned = client.get(url).json()
    seat_replace(seat=started.seats.get(name="cat", status="resigned"), new_user=make_user("eve"),
                 by=started.organizer)  # fmt: skip
    handed = client.get(url).json()
    assert (resigned["seats"], handed["seats"]) == (6, 7)
    assert len({later["version"], resigned["version"], handed["version"]}) == 3


def test_poll_etag_gives_304_until_something_changes(client, started):
    url = reverse("games:status", args=[started.pk])
    first = client.get(url)
    etag = first["ETag"]
    assert etag.startswith('"') and etag.endswith('"')
    same = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert same.status_code == 304 and same.content == b"" and same["ETag"] == etag
    assert client.get(url, HTTP_IF_NONE_MATCH='"stale"').status_code == 200
    order_services.order_submit(seat=started.seats.get(name="cat"), text="PASS TOKUGAWA", source="web")
    changed = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and changed.json()["ordered"] == ["cat"]
    assert changed["ETag"] != etag


def test_poll_of_forming_and_unknown_games(client, users):
    forming = game_services.game_create(organizer=users["ann"], ruleset="5x", seats_count=3)
    body = client.get(reverse("games:status", args=[forming.pk])).json()
    assert body == {
        "status": "forming",
        "prompt": None,
        "pending": [],
        "deadline": None,
        "ordered": [],
        "sealed": {},
        "seats": 0,
        "version": "forming:None:0:None:-:0",  # nobody seated yet
    }
    assert client.get(reverse("games:status", args=[forming.pk + 999])).status_code == 404
    assert client.post(reverse("games:status", args=[forming.pk])).status_code == 405


def test_a_private_games_poll_is_kept_by_no_shared_cache(client, users):
    """A public game's summary is the same for everyone (a proxy may keep it and revalidate);
    a private game's is for its players only."""
    public = game_services.game_create(organizer=users["ann"], ruleset="5x", seats_count=3)
    assert client.get(reverse("games:status", args=[public.pk]))["Cache-Control"] == "no-cache"
    private = game_services.game_create(
        organizer=users["ann"], ruleset="5x", seats_count=3, is_private=True
    )
    client.force_login(users["ann"])
    answer = client.get(reverse("games:status", args=[private.pk]))
    assert answer.status_code == 200
    assert answer["Cache-Control"] == "private, no-cache"
    client.logout()
    assert client.get(reverse("games:status", args=[private.pk])).status_code == 404
