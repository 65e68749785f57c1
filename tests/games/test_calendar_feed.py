"""The calendar of a player's deadlines: a secret iCalendar address, shown once, that
lists every prompt waiting for the player's order and nothing of anyone else's."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import pytest
from django.urls import reverse
from django.utils import timezone
from icalendar import Calendar

from games.models import PlayerSettings, Prompt
from games.services.orders import order_submit
from games.services.players import calendar_feed_create
from tests.games.web_support import make_user

pytestmark = pytest.mark.django_db

DEADLINE = datetime(2027, 1, 15, 12, 0, tzinfo=UTC)


def _started(name: str, players=("ann", "bob", "cat")):
    from games.services.games import game_create, game_join

    users = {n: make_user(n) for n in players}
    game = game_create(organizer=users[players[0]], ruleset="5x", seats_count=len(players),
                       name=name, options={"leaders": False})  # fmt: skip
    for user in users.values():
        game_join(game=game, user=user)
    Prompt.objects.filter(game=game, status=Prompt.Status.OPEN).update(deadline=DEADLINE)
    return game, users


def _events(body: bytes) -> list:
    return [c for c in Calendar.from_ical(body).walk() if c.name == "VEVENT"]


def test_the_feed_lists_the_prompts_waiting_for_the_players_order(client):
    game, users = _started("Winter; league, table 1")
    token = calendar_feed_create(user=users["ann"])
    url = reverse("games:calendar_feed", args=[token])
    response = client.get(url)  # no login: calendar apps have none
    assert response.status_code == 200
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    [event] = _events(response.content)
    prompt = Prompt.objects.get(game=game, status=Prompt.Status.OPEN)
    assert str(event["summary"]) == f"FiveX: order due — Winter; league, table 1, decision {prompt.number}"
    assert str(event["description"]).startswith(f"Your order for decision {prompt.number} of Winter; league")
    assert event.decoded("dtend") == DEADLINE
    assert (DEADLINE - event.decoded("dtstart")).total_seconds() == 30 * 60
    assert str(event["url"]).endswith(f"/games/{game.pk}/")
    assert str(event["uid"]).startswith(f"fivex-prompt-{prompt.pk}@")
    [alarm] = [c for c in event.subcomponents if c.name == "VALARM"]
    assert alarm.decoded("trigger").total_seconds() == -3600
    # The text is escaped as iCalendar wants it (a comma and a semicolon in the name).
    assert "SUMMARY:FiveX: order due — Winter\\; league\\, table 1".encode() in response.content
    assert event["sequence"] == 0
    # An extension moves the event and revises it (its SEQUENCE grows, its UID stays).
    from games.services.organizer import deadline_extend

    deadline_extend(game=game, by=users["ann"], hours=5)
    [moved] = _events(client.get(url).content)
    assert moved.decoded("dtend") == DEADLINE + timedelta(hours=5) and moved["sequence"] == 1
    assert str(moved["uid"]) == str(event["uid"])
    # A pause and its resumption move it too: a revision more (a time audit: SEQUENCE
    # stayed while the deadline moved).
    from games.services.organizer import game_pause, game_resume

    game_pause(game=game, by=users["ann"])
    assert _events(client.get(url).content) == []  # paused: no deadline
    game_resume(game=game, by=users["ann"])
    [resumed] = _events(client.get(url).content)
    assert resumed["sequence"] == 2 and str(resumed["uid"]) == str(event["uid"])
    # The order sent: the event goes; the calendar keeps one component (its zone), as
    # RFC 5545 wants of every calendar.
    order_submit(seat=game.seats.get(user=users["ann"]), text="PLAY EXPLORE", source="web")
    empty = client.get(url).content
    assert _events(empty) == []
    assert [c.name for c in Calendar.from_ical(empty).subcomponents] == ["VTIMEZONE"]


def test_the_feed_is_only_the_players_own(client):
    game, users = _started("Mine")
    other, _ = _started("Theirs", players=("dan", "eve", "fay"))
    token = calendar_feed_create(user=users["bob"])
    body = client.get(reverse("games:calendar_feed", args=[token])).content
    assert [str(e["summary"]) for e in _events(body)] == ["FiveX: order due — Mine, decision 1"]
    assert b"Theirs" not in body


def test_an_address_is_shown_once_renewed_and_turned_off(client):
    user = make_user("zoe")
    client.force_login(user)
    page = reverse("games:calendar")
    assert "You have no calendar address." in client.get(page).content.decode()
    made = client.post(page, {"action": "create"})
    # A redirect (a reload makes no other address) to the page, which shows it once; not
    # in clear in the session meanwhile (games.views.once).
    assert made.status_code == 303 and made["Location"] == page
    assert "new_calendar_token" not in client.session
    response = client.get(page)
    assert "no-store" in response["Cache-Control"]  # the secret is on this page once
    shown = response.content.decode()
    first = shown.split('id="new-calendar-url">')[1].split("<")[0]
    token = first.rsplit("/", 1)[1].removesuffix(".ics")
    assert first.startswith("http") and client.get(urlsplit(first).path).status_code == 200
    assert 'id="new-calendar-url"' not in client.get(page).content.decode()  # once
    stored = PlayerSettings.objects.get(user=user).calendar_digest  # its SHA-256 only
    assert stored == hashlib.sha256(token.encode()).hexdigest()
    client.post(page, {"action": "create"})  # a new address: the old one stops working
    assert client.get(reverse("games:calendar_feed", args=[token])).status_code == 404
    client.post(page, {"action": "revoke"})
    assert PlayerSettings.objects.get(user=user).calendar_digest == ""
    assert "You have no calendar address." in client.get(page).content.decode()


@pytest.mark.parametrize("token", ["x", "a" * 30, "a" * 200, "%00" * 30, "a%20" * 20])
def test_an_unknown_address_is_a_404(client, db, token):
    assert client.get(f"/calendar/{token}.ics").status_code == 404


def test_the_calendar_page_needs_a_login(client, db):
    response = client.get(reverse("games:calendar"))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_a_seat_handed_over_after_its_player_resigned_asks_the_new_player(client):
    """The resigned seat's default order is withdrawn at the handover: the new player is
    asked (home page, API, calendar), as on its game page."""
    from games.selectors_lists import orders_needed
    from games.services.games import seat_resign
    from games.services.handover import seat_replace

    game, users = _started("Handed")
    seat_resign(seat=game.seats.get(user=users["cat"]))
    assert game.pk not in orders_needed(user=users["cat"])
    newcomer = make_user("eve")
    seat_replace(seat=game.seats.get(user=users["cat"]), new_user=newcomer, by=users["ann"])
    prompt = orders_needed(user=newcomer)[game.pk]
    assert not prompt.orders.filter(seat_name="cat", is_current=True).exists()
    token = calendar_feed_create(user=newcomer)
    [event] = _events(client.get(reverse("games:calendar_feed", args=[token])).content)
    assert str(event["summary"]) == f"FiveX: order due — Handed, decision {prompt.number}"


def test_a_default_order_standing_for_an_active_seat_still_asks_its_player():
    from django.db import transaction

    from games.selectors_lists import orders_needed
    from games.services.locking import lock_game
    from games.services.orders import order_fill_default

    game, users = _started("Stand-in")
    prompt = Prompt.objects.get(game=game, status=Prompt.Status.OPEN)
    with transaction.atomic():
        locked = lock_game(game_id=game.pk)
        order_fill_default(game=locked, prompt=prompt, seat=game.seats.get(user=users["bob"]),
                           reason="test")  # fmt: skip
    assert game.pk in orders_needed(user=users["bob"])
    order_submit(seat=game.seats.get(user=users["bob"]), text="PLAY EXPLORE", source="web")
    assert game.pk not in orders_needed(user=users["bob"])


def test_a_calendar_address_is_no_choice_of_time_zone(client):
    """Making the address creates the player's settings row; that is no time zone chosen:
    the game page still shows times in the browser's zone and emails in UTC."""
    from games.selectors_players import chosen_time_zone, time_zone_of

    game, users = _started("Zones")
    calendar_feed_create(user=users["ann"])
    assert chosen_time_zone(user=PlayerSettings.objects.get(user=users["ann"]).user) == ""
    assert time_zone_of(user=users["ann"]).key == "UTC"
    client.force_login(users["ann"])
    assert " data-local>" in client.get(f"/games/{game.pk}/").content.decode()


def test_a_new_address_renewed_elsewhere_is_not_shown(client):
    user = make_user("sam")
    client.force_login(user)
    page = reverse("games:calendar")
    # Made and not renewed: the page shows it, once.
    assert client.post(page, {"action": "create"})["Location"] == page
    shown = client.get(page)
    assert shown.status_code == 200 and 'id="new-calendar-url"' in shown.content.decode()
    assert client.post(page, {"action": "create"})["Location"] == page  # this session's address...
    calendar_feed_create(user=user)  # ...renewed from another session before it was shown
    answer = client.get(page)
    assert answer.status_code == 200
    html = answer.content.decode()
    assert "Your calendar address works." in html  # the renewed one, not shown here
    assert 'id="new-calendar-url"' not in html and ".ics" not in html


def test_a_deadline_in_the_hour_a_clock_goes_back_is_written_in_utc(client):
    """New York, 1 Nov 2026: 01:30 comes twice (EDT, 05:30 UTC; EST, 06:30 UTC). The feed
    writes the moment in UTC, whatever the player's zone: no calendar can take the second
    01:30 for the first."""
    from games.services.players import player_time_zone_set

    game, users = _started("Repeated hour")
    player_time_zone_set(user=users["ann"], time_zone="America/New_York")
    Prompt.objects.filter(game=game, status=Prompt.Status.OPEN).update(
        deadline=datetime(2026, 11, 1, 6, 30, tzinfo=UTC))  # fmt: skip
    body = client.get(reverse("games:calendar_feed", args=[calendar_feed_create(user=users["ann"])])).content
    [event] = _events(body)
    assert event.decoded("dtend") == datetime(2026, 11, 1, 6, 30, tzinfo=UTC)
    assert b"DTEND:20261101T063000Z" in body and b"DTSTART:20261101T060000Z" in body


def test_the_settings_page_has_a_calendar_section_leading_to_the_calendar_page(client):
    client.force_login(make_user("ida"))
    page = client.get("/account/settings/").content.decode()
    section = page.split('<div class="panel" id="calendar">')[1].split("</div>")[0]
    assert "<h2>Calendar</h2>" in section
    assert f'href="{reverse("games:calendar")}"' in section


def test_a_deadline_held_for_a_player_away_revises_the_event(client):
    """Regression: a deadline moved to an away player's return (``deadline_held``) moved
    the event of every other player still to order without revising it (its SEQUENCE
    stayed): a calendar that keeps an event by its UID and SEQUENCE kept the old time."""
    from games.services.away import player_away_set
    from games.services.deadlines import overdue_prompt_resolve
    from tests.games.test_away import due, started

    game, seats, prompt = started(away_days=3)
    now = timezone.now()
    player_away_set(user=seats["bob"].user, until=now.date() + timedelta(days=1), now=now)
    token = calendar_feed_create(user=seats["ann"].user)  # ann has not ordered either
    url = reverse("games:calendar_feed", args=[token])
    due(prompt, now)
    [before] = _events(client.get(url).content)
    assert overdue_prompt_resolve(game_id=game.pk, prompt_number=prompt.number, now=now) is False
    prompt.refresh_from_db()
    [after] = _events(client.get(url).content)
    assert after.decoded("dtend") == prompt.deadline != before.decoded("dtend")
    assert str(after["uid"]) == str(before["uid"])
    assert after["sequence"] == before["sequence"] + 1


@pytest.mark.parametrize(
    ("zone", "deadline", "local"),
    [
        # 10:30 UTC on 14 Jan is 00:30 on 15 Jan in Kiritimati (UTC+14)...
        ("Pacific/Kiritimati", datetime(2027, 1, 14, 10, 30, tzinfo=UTC), "Fri 15 Jan 2027, 00:30 +14"),
        # ...and 22:00 on 14 Jan in Pago Pago (UTC-11) when it is 09:00 UTC on 15 Jan.
        ("Pacific/Pago_Pago", datetime(2027, 1, 15, 9, 0, tzinfo=UTC), "Thu 14 Jan 2027, 22:00 SST"),
        # Auckland in summer (UTC+13), and the hour New York's clocks repeat (the second 01:30).
        ("Pacific/Auckland", datetime(2027, 1, 14, 11, 0, tzinfo=UTC), "Fri 15 Jan 2027, 00:00 NZDT"),
        ("America/New_York", datetime(2026, 11, 1, 6, 30, tzinfo=UTC), "Sun 1 Nov 2026, 01:30 EST"),
    ],
)
def test_the_event_s_description_gives_the_deadline_on_the_player_s_own_clock(client, zone, deadline, local):
    """The event's times are UTC (the calendar app shows them on its own clock), but its
    description is read as written: the deadline in UTC alone gave a player in UTC+14 or
    UTC-11 another date than their own. It says it in the player's zone, then in UTC; a
    new zone is a new feed (its entity tag changes)."""
    from games.services.players import player_time_zone_set

    game, users = _started("Date line")
    Prompt.objects.filter(game=game, status=Prompt.Status.OPEN).update(deadline=deadline)
    url = reverse("games:calendar_feed", args=[calendar_feed_create(user=users["ann"])])
    before = client.get(url)
    player_time_zone_set(user=users["ann"], time_zone=zone)
    response = client.get(url, HTTP_IF_NONE_MATCH=before["ETag"])
    assert response.status_code == 200
    [event] = _events(response.content)
    description = str(event["description"])
    assert f"is due by {local} ({deadline:%Y-%m-%d %H:%M} UTC)." in description
    assert event.decoded("dtend") == deadline
