"""A player's time zone: dates on its pages, in its emails and in the email gateway's
answers are written in it; the API and the stored deadlines stay in UTC."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from django.urls import reverse

from games.errors import ValidationError
from games.models import OutboxMessage, PlayerSettings, Prompt
from games.services.notifications import notify_reminder
from games.services.organizer import deadline_extend
from games.services.players import player_time_zone_set
from tests.games.web_support import eager_celery, make_user

__all__ = ["eager_celery"]

pytestmark = pytest.mark.django_db

# 2027-01-15 12:00 UTC is 13:00 in Paris (CET, winter) and 07:00 in New York (EST).
DEADLINE = datetime(2027, 1, 15, 12, 0, tzinfo=UTC)


def _game_with_deadline():
    from games.services.games import game_create, game_join

    org = make_user("tzorg")
    game = game_create(organizer=org, ruleset="5x", options={"leaders": False}, seats_count=3,
                       name="Zones", deadline_hours=24)  # fmt: skip
    for name in ("paris", "newyork", "utc"):
        game_join(game=game, user=make_user(name))
    prompt = Prompt.objects.get(game=game, resolved_at__isnull=True)
    Prompt.objects.filter(pk=prompt.pk).update(deadline=DEADLINE)
    prompt.refresh_from_db()
    game.refresh_from_db()
    player_time_zone_set(user=game.seats.get(name="paris").user, time_zone="Europe/Paris")
    player_time_zone_set(user=game.seats.get(name="newyork").user, time_zone="America/New_York")
    return org, game, prompt


def test_a_time_zone_is_checked_and_a_bad_one_changes_nothing():
    user = make_user("zed")
    player_time_zone_set(user=user, time_zone=" Asia/Tokyo ")
    assert PlayerSettings.objects.get(user=user).time_zone == "Asia/Tokyo"
    for bad in ("Mars/Olympus", "", None, "Europe/Paris\x00", 42, "localtime", "Factory", "posixrules"):
        with pytest.raises(ValidationError):
            player_time_zone_set(user=user, time_zone=bad)
    assert PlayerSettings.objects.get(user=user).time_zone == "Asia/Tokyo"


def test_the_settings_page_sets_the_zone_and_refuses_an_unknown_one(client):
    user = make_user("set")
    url = reverse("games:player_settings")
    assert client.get(url).status_code == 302  # signed in only
    client.force_login(user)
    page = client.get(url).content.decode()
    assert '<option value="UTC" selected>UTC</option>' in page
    assert '<option value="Europe/Paris">Europe/Paris</option>' in page

    response = client.post(url, {"time_zone": "Europe/Paris"})
    assert response.status_code == 302
    assert PlayerSettings.objects.get(user=user).time_zone == "Europe/Paris"
    assert "Dates are now written in Europe/Paris time." in client.get(url).content.decode()

    response = client.post(url, {"time_zone": "Europe/Atlantis"})
    assert response.status_code == 400
    assert "Unknown time zone &#x27;Europe/Atlantis&#x27;" in response.content.decode()
    assert PlayerSettings.objects.get(user=user).time_zone == "Europe/Paris"


def test_the_settings_page_keeps_a_stored_zone_it_does_not_list(client):
    # Sign-up stores what the browser reports, an alias the list leaves out included:
    # the page must show it, so that Save does not quietly switch the player to UTC.
    user = make_user("alias")
    player_time_zone_set(user=user, time_zone="Etc/GMT+12")
    client.force_login(user)
    url = reverse("games:player_settings")
    page = client.get(url).content.decode()
    assert '<option value="Etc/GMT+12" selected>Etc/GMT+12</option>' in page
    # one zone selected (the page's other select is the daily summary's hour)
    zone_form = page.split('id="time-zone-form"', 1)[1].split("</form>", 1)[0]
    assert zone_form.count(" selected>") == 1
    # After a refused value the zone still in force stays selected.
    refused = client.post(url, {"time_zone": "Mars/Olympus"}).content.decode()
    assert '<option value="Etc/GMT+12" selected>Etc/GMT+12</option>' in refused
    assert PlayerSettings.objects.get(user=user).time_zone == "Etc/GMT+12"


def test_the_browser_rewrites_times_only_for_readers_without_a_zone(client):
    _org, game, _prompt = _game_with_deadline()
    client.force_login(game.seats.get(name="paris").user)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert '<time datetime="2027-01-15T12:00:00+00:00">Fri 15 Jan 2027, 13:00 CET</time>' in page
    assert "data-local" not in page
    client.force_login(game.seats.get(name="utc").user)  # chose nothing
    assert " data-local>Fri 15 Jan 2027, 12:00 UTC</time>" in client.get(f"/games/{game.pk}/").content.decode()
    client.logout()
    assert " data-local>Fri 15 Jan 2027, 12:00 UTC</time>" in client.get(f"/games/{game.pk}/").content.decode()


def test_pages_write_the_deadline_in_the_players_zone(client):
    _org, game, _prompt = _game_with_deadline()
    client.force_login(game.seats.get(name="paris").user)
    home = client.get("/").content.decode()
    assert "your order is needed by <time datetime=\"2027-01-15T12:00:00+00:00\">Fri 15 Jan, 13:00 CET</time>" in home
    assert "Fri 15 Jan 2027, 13:00 CET" in client.get(f"/games/{game.pk}/").content.decode()
    client.force_login(game.seats.get(name="newyork").user)
    assert "your order is needed by <time datetime=\"2027-01-15T12:00:00+00:00\">Fri 15 Jan, 07:00 EST" in (
        client.get("/games/").content.decode())
    # A player who chose nothing reads UTC from the server, marked for the browser's zone
    # on every page (site.js), not on the game page alone.
    client.force_login(game.organizer)
    assert "Fri 15 Jan 2027, 12:00 UTC" in client.get(f"/games/{game.pk}/").content.decode()
    assert ' data-local data-style="">' in client.get("/games/").content.decode()  # its games' dates


def test_the_api_stays_in_utc_for_a_player_with_a_zone(client):
    _org, game, _prompt = _game_with_deadline()
    client.force_login(game.seats.get(name="paris").user)
    data = client.get(f"/api/games/{game.pk}/").json()
    assert data["prompt"]["deadline"] == "2027-01-15T12:00:00Z"


def test_emails_write_dates_in_each_readers_zone(django_capture_on_commit_callbacks):
    org, game, prompt = _game_with_deadline()
    for seat in game.seats.all():
        notify_reminder(game=game, prompt=prompt, seat=seat)
    reminders = {m.to: m.body for m in OutboxMessage.objects.filter(kind="reminder")}
    assert "Deadline: Fri 15 Jan 2027, 13:00 CET." in reminders["paris@example.test"]
    assert "Deadline: Fri 15 Jan 2027, 07:00 EST." in reminders["newyork@example.test"]

    deadline_extend(game=game, by=org, hours=2, reason="snow")  # 14:00 UTC
    notices = {m.to: m.body for m in OutboxMessage.objects.filter(kind="notice")}
    assert "the new deadline is Fri 15 Jan 2027, 15:00 CET" in notices["paris@example.test"]
    assert "the new deadline is Fri 15 Jan 2027, 09:00 EST" in notices["newyork@example.test"]
    # Stored and enforced in UTC.
    prompt.refresh_from_db()
    assert prompt.deadline == datetime(2027, 1, 15, 14, 0, tzinfo=UTC)


def test_the_email_gateway_answers_in_the_players_zone(settings):
    from games.mail.processing import process_message
    from games.services.seats import seat_reply_address

    settings.ORDERS_DOMAIN = "orders.example"
    _org, game, _prompt = _game_with_deadline()
    seat = game.seats.get(name="newyork")
    address = seat_reply_address(seat=seat)
    raw = (
        f"From: <newyork@example.test>\r\nTo: {address}\r\nSubject: order\r\n"
        "Message-ID: <tz-1@example.test>\r\n\r\nPLAY EXPLORE\r\n"
    ).encode()
    row = process_message(raw, address, source="pipe")
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    [reply] = OutboxMessage.objects.filter(kind="mail_reply", to="newyork@example.test")
    assert "Deadline: Fri 15 Jan 2027, 07:00 EST" in reply.body


def test_the_emails_after_a_resolution_are_in_each_readers_zone(
    django_capture_on_commit_callbacks, eager_celery
):
    import zoneinfo

    from tests.games.web_support import submit_orders

    _org, game, _prompt = _game_with_deadline()
    submit_orders(game, django_capture_on_commit_callbacks,
                  {"paris": "PLAY EXCAVATE", "newyork": "PLAY EXPAND", "utc": "PLAY EXPLOIT"})  # fmt: skip
    nxt = Prompt.objects.get(game=game, resolved_at__isnull=True)
    assert nxt.number == 2 and nxt.deadline is not None
    for name, zone in (("paris", "Europe/Paris"), ("newyork", "America/New_York"), ("utc", "UTC")):
        local = nxt.deadline.astimezone(zoneinfo.ZoneInfo(zone))
        [mail] = OutboxMessage.objects.filter(kind="prompt_resolved", to=f"{name}@example.test")
        assert f"deadline {local:%a} {local.day} {local:%b %Y, %H:%M} {local.tzname()}." in mail.body


def test_the_log_page_names_the_zone_its_times_are_in(client):
    _org, game, _prompt = _game_with_deadline()
    assert "When (UTC)" in client.get(f"/games/{game.pk}/log/").content.decode()
    client.force_login(game.seats.get(name="paris").user)
    assert "When (Europe/Paris)" in client.get(f"/games/{game.pk}/log/").content.decode()


def test_quiet_hours_are_chosen_in_a_time_zone_the_organizers_own_by_default(client):
    from games.models import Game
    from tests.games.web_support import token_client

    user = make_user("quietorg")
    player_time_zone_set(user=user, time_zone="Asia/Tokyo")
    client.force_login(user)
    page = client.get(reverse("games:create")).content.decode()
    assert '<option value="Asia/Tokyo" selected>Asia/Tokyo</option>' in page
    base = {"ruleset": "5x", "seats_count": 3, "deadline_hours": 24, "play": "on",
            "quiet_hours_start": 23, "quiet_hours_end": 7}  # fmt: skip
    assert client.post(reverse("games:create"), {**base, "name": "Tokyo nights",
                                                 "quiet_hours_time_zone": "Asia/Tokyo"}).status_code == 302  # fmt: skip
    assert Game.objects.get(name="Tokyo nights").quiet_hours_time_zone == "Asia/Tokyo"
    bad = client.post(reverse("games:create"), {**base, "name": "Nowhere",
                                                "quiet_hours_time_zone": "Asia/Atlantis"})  # fmt: skip
    assert bad.status_code == 200 and not Game.objects.filter(name="Nowhere").exists()

    api = token_client(user)
    body = {"ruleset": "5x", "seats_count": 3, "quiet_hours_start": 23, "quiet_hours_end": 7}
    made = api.post("/api/games/", {**body, "quiet_hours_time_zone": "America/Chicago"}, format="json")
    assert made.status_code == 201 and made.json()["quiet_hours_time_zone"] == "America/Chicago"
    default = api.post("/api/games/", body, format="json")
    assert default.json()["quiet_hours_time_zone"] == "UTC"
    refused = api.post("/api/games/", {**body, "quiet_hours_time_zone": "Mars/Base"}, format="json")
    assert refused.status_code == 400
    assert "Unknown time zone" in str(refused.json()["fields"]["quiet_hours_time_zone"])


def test_a_deadline_in_the_quiet_hours_of_the_games_zone_waits_for_their_end():
    from datetime import timedelta

    from games.services.deadlines import deadline_for
    from games.services.games import game_create

    game = game_create(organizer=make_user("qz"), ruleset="5x", seats_count=3, deadline_hours=24,
                       quiet_hours_start=22, quiet_hours_end=7,
                       quiet_hours_time_zone="America/New_York")  # fmt: skip
    # Opened at 03:30 UTC on 12 Jan 2027: due 03:30 UTC the next day = 22:30 EST, quiet.
    start = datetime(2027, 1, 12, 3, 30, tzinfo=UTC)
    assert deadline_for(game=game, start=start) == datetime(2027, 1, 13, 12, 0, tzinfo=UTC)
    # Three hours earlier it is 19:30 EST: not quiet.
    assert deadline_for(game=game, start=start - timedelta(hours=3)) == start - timedelta(hours=3) + timedelta(hours=24)
    assert game.log.get(kind="game_created").payload["quiet_hours_time_zone"] == "America/New_York"


def test_the_games_list_writes_created_times_with_their_zone(client):
    import zoneinfo

    _org, game, _prompt = _game_with_deadline()
    for name, zone in (("paris", "Europe/Paris"), ("newyork", "America/New_York"), ("utc", "UTC")):
        client.force_login(game.seats.get(name=name).user)
        html = client.get(reverse("games:list")).content.decode()
        local = game.created_at.astimezone(zoneinfo.ZoneInfo(zone))
        assert f"{local:%a} {local.day} {local:%b %Y, %H:%M} {local.tzname()}" in html, name


@pytest.mark.django_db
def test_a_player_sets_the_emails_of_new_seats_once(client):
    """From a league player's walk: "only when I must order" had to be chosen game by
    game, and every new table started at "after every prompt" again."""
    from games.models import Seat
    from games.services.games import game_create, game_join
    from tests.games.web_support import make_user

    ann, org = make_user("ann"), make_user("org")
    before = game_create(organizer=org, ruleset="5x", seats_count=3)
    old_seat = game_join(game=before, user=ann)
    client.force_login(ann)
    page = client.get("/account/settings/").content.decode()
    assert 'name="email_every_prompt" value="1" checked' in page
    saved = client.post("/account/settings/", {"form": "emails", "email_every_prompt": "0"}, follow=True)
    assert "New seats email you only when your order is wanted." in saved.content.decode()
    assert Seat.objects.get(pk=old_seat.pk).email_every_prompt is True  # not asked to change
    later = game_create(organizer=org, ruleset="5x", seats_count=3)
    assert game_join(game=later, user=ann).email_every_prompt is False
    assert 'name="email_every_prompt" value="0" checked' in client.get("/account/settings/").content.decode()
    both = client.post("/account/settings/", {"form": "emails", "email_every_prompt": "1",
                                              "apply_now": "1"}, follow=True)  # fmt: skip
    assert "1 seat of your games changed too." in both.content.decode()
    assert set(Seat.objects.filter(user=ann).values_list("email_every_prompt", flat=True)) == {True}


def test_the_hour_a_clock_goes_back_is_written_with_its_zone():
    """A time audit: in the repeated hour of a DST end, Django's ``T`` wrote no zone
    ("Sun 1 Nov 2026, 01:30 ."): two deadlines an hour apart read alike, on pages and in
    the reminder and turn emails."""
    from django.template import Context, Template
    from django.utils import timezone as tz

    from games.templatetags.games_extras import iso_attr, when

    first, second = datetime(2026, 11, 1, 5, 30, tzinfo=UTC), datetime(2026, 11, 1, 6, 30, tzinfo=UTC)
    with tz.override("America/New_York"):
        assert when(first) == "Sun 1 Nov 2026, 01:30 EDT"
        assert when(second) == "Sun 1 Nov 2026, 01:30 EST"
        assert when(second, "short") == "Sun 1 Nov, 01:30 EST"
        assert when("2026-11-01T06:30:21.225570+00:00", "seconds") == "Sun 1 Nov 2026, 01:30:21 EST"
        page = Template("{% load games_extras %}{{ d|when }}").render(Context({"d": first}))
        assert page == "Sun 1 Nov 2026, 01:30 EDT"
    with tz.override("Europe/Paris"):  # 25 Oct 2026: 02:30 comes twice
        assert when(datetime(2026, 10, 25, 0, 30, tzinfo=UTC)).endswith("02:30 CEST")
        assert when(datetime(2026, 10, 25, 1, 30, tzinfo=UTC)).endswith("02:30 CET")
    # A <time datetime> to the second (HTML allows three digits of a fraction at most).
    assert iso_attr("2026-11-01T06:30:21.225570+00:00") == "2026-11-01T06:30:21+00:00"


def test_a_countdowns_moment_is_to_the_millisecond_rounded_up():
    # The countdown's deadline (data-countdown): to the second, rounded down, the page said
    # "deadline passed" up to a second before orders closed; a microsecond past a
    # millisecond still counts as the next one.
    from games.templatetags.games_extras import iso_ms_attr

    assert iso_ms_attr("2026-11-01T06:30:21.225570+00:00") == "2026-11-01T06:30:21.226+00:00"
    assert iso_ms_attr("2026-11-01T06:30:21.999001+00:00") == "2026-11-01T06:30:22.000+00:00"
    assert iso_ms_attr(datetime(2026, 11, 1, 6, 30, 21, 900_000, tzinfo=UTC)) == "2026-11-01T06:30:21.900+00:00"


def test_a_reminder_in_the_repeated_hour_names_its_zone():
    org, game, prompt = _game_with_deadline()
    Prompt.objects.filter(pk=prompt.pk).update(deadline=datetime(2026, 11, 1, 6, 30, tzinfo=UTC))
    prompt.refresh_from_db()
    seat = game.seats.get(name="newyork")
    notify_reminder(game=game, prompt=prompt, seat=seat)
    body = OutboxMessage.objects.filter(seat=seat, kind="reminder").latest("id").body
    assert "Deadline: Sun 1 Nov 2026, 01:30 EST." in body


def test_the_api_writes_utc_under_a_path_prefix_too(client):
    """A time audit: served under /fivex/, the middleware read request.path (with the
    prefix) and wrote a signed-in player's API times in the player's zone."""
    from django.urls import set_script_prefix

    org, game, prompt = _game_with_deadline()
    client.force_login(game.seats.get(name="paris").user)
    set_script_prefix("/fivex/")
    try:
        answer = client.get("/api/games/", SCRIPT_NAME="/fivex")
    finally:
        set_script_prefix("/")
    assert answer.status_code == 200
    text = answer.content.decode()
    assert "+01:00" not in text and "+02:00" not in text
    assert '"created_at":"' in text.replace(" ", "") and "Z\"" in text


@pytest.mark.parametrize(
    ("zone", "deadline", "written"),
    [
        # Lord Howe, 5 Apr 2026: 02:00 (+11) goes back half an hour, to 01:30 (+10:30), at
        # 15:00 UTC on the 4th: 01:45 comes twice.
        ("Australia/Lord_Howe", datetime(2026, 4, 4, 14, 45, tzinfo=UTC), "Sun 5 Apr 2026, 01:45 +11"),
        ("Australia/Lord_Howe", datetime(2026, 4, 4, 15, 15, tzinfo=UTC), "Sun 5 Apr 2026, 01:45 +1030"),
        # Auckland, same night: 03:00 NZDT back to 02:00 NZST at 14:00 UTC.
        ("Pacific/Auckland", datetime(2026, 4, 4, 13, 30, tzinfo=UTC), "Sun 5 Apr 2026, 02:30 NZDT"),
        ("Pacific/Auckland", datetime(2026, 4, 4, 14, 30, tzinfo=UTC), "Sun 5 Apr 2026, 02:30 NZST"),
        # Santiago, 5 Apr 2026: 00:00 (-03) back to 23:00 (-04) at 03:00 UTC: Saturday twice.
        ("America/Santiago", datetime(2026, 4, 5, 2, 30, tzinfo=UTC), "Sat 4 Apr 2026, 23:30 -03"),
        ("America/Santiago", datetime(2026, 4, 5, 3, 30, tzinfo=UTC), "Sat 4 Apr 2026, 23:30 -04"),
        # Kathmandu (+5:45) and Kolkata (+5:30) never change.
        ("Asia/Kathmandu", datetime(2026, 4, 5, 3, 30, tzinfo=UTC), "Sun 5 Apr 2026, 09:15 +0545"),
        ("Asia/Kolkata", datetime(2026, 4, 5, 3, 30, tzinfo=UTC), "Sun 5 Apr 2026, 09:00 IST"),
    ],
)
def test_a_deadline_around_a_clock_change_is_written_on_the_readers_clock(client, zone, deadline, written):
    _org, game, prompt = _game_with_deadline()
    Prompt.objects.filter(pk=prompt.pk).update(deadline=deadline)
    prompt.refresh_from_db()
    seat = game.seats.get(name="paris")
    player_time_zone_set(user=seat.user, time_zone=zone)
    notify_reminder(game=game, prompt=prompt, seat=seat)
    body = OutboxMessage.objects.filter(seat=seat, kind="reminder").latest("id").body
    assert f"Deadline: {written}." in body
    client.force_login(seat.user)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert f'<time datetime="{deadline.isoformat()}">{written}</time>' in page


def test_the_log_pages_times_in_the_hour_a_clock_goes_back_name_their_zone(client):
    """The log's "When (America/New_York)" column wrote the hour that comes twice alike:
    an entry at 05:30:10 UTC and one at 06:30:10 UTC both read 01:30:10, the later one
    seemingly before an entry at 01:50 EDT. In that hour it names the zone; elsewhere the
    column's heading does."""
    from games.models import LogEntry

    _org, game, _prompt = _game_with_deadline()
    player_time_zone_set(user=game.seats.get(name="newyork").user, time_zone="America/New_York")
    entries = list(LogEntry.objects.filter(game=game).order_by("seq")[:4])
    moments = [datetime(2026, 11, 1, 5, 30, 10, tzinfo=UTC), datetime(2026, 11, 1, 5, 50, 0, tzinfo=UTC),
               datetime(2026, 11, 1, 6, 30, 10, tzinfo=UTC), datetime(2026, 11, 1, 7, 0, 0, tzinfo=UTC)]  # fmt: skip
    for entry, moment in zip(entries, moments, strict=True):
        LogEntry.objects.filter(pk=entry.pk).update(created_at=moment)
    client.force_login(game.seats.get(name="newyork").user)
    page = client.get(f"/games/{game.pk}/log/").content.decode()
    assert "When (America/New_York)" in page
    cells = re.findall(r'<td class="small muted when">([^<]*)</td>', page)
    assert cells[:4] == [
        "1 Nov 2026 01:30:10 EDT", "1 Nov 2026 01:50:00 EDT", "1 Nov 2026 01:30:10 EST",
        "1 Nov 2026 02:00:00",
    ]  # fmt: skip
