"""A player who is away: a game that allows it (``away_days``) moves a passing deadline to
their return instead of playing their default order, as long as the seat's days last;
logged, told, verified; a game that does not allow it plays the default as before."""

from __future__ import annotations

import html
from datetime import UTC, date, datetime, time, timedelta
from io import StringIO
from zoneinfo import ZoneInfo

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from games.errors import ValidationError
from games.models import Game, LogEntry, OutboxMessage, Prompt, SealedOrder, Seat
from games.selectors import current_prompt
from games.services.away import player_away_set
from games.services.deadlines import overdue_prompt_resolve
from games.services.games import game_create
from games.services.orders import order_submit
from tests.games.core_support import make_game, make_users
from tests.games.web_support import token_client, visible_text

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


def end_of(day: date) -> datetime:
    """The end of ``day`` in UTC (the players here have no time zone of their own)."""
    return datetime.combine(day + DAY, time(0, 0), tzinfo=timezone.get_current_timezone())


def started(away_days: int) -> tuple[Game, dict[str, Seat], Prompt]:
    game, seats = make_game(["ann", "bob", "cat"], deadline_hours=24, away_days=away_days)
    assert game.status == Game.Status.ACTIVE
    return game, seats, current_prompt(game=game)


def others_order(game: Game, seats: dict[str, Seat], prompt: Prompt, *, but: str) -> None:
    import engine
    from games.selectors import current_state

    rules = engine.get(game.ruleset)
    for name in prompt.pending:
        if name != but:
            order_submit(
                seat=seats[name],
                text=rules.default_order(current_state(game=game), name),
                source="web",
            )


def due(prompt: Prompt, now: datetime) -> None:
    """Put the prompt's deadline a minute before ``now``."""
    Prompt.objects.filter(pk=prompt.pk).update(deadline=now - timedelta(minutes=1))
    prompt.refresh_from_db()


def test_a_deadline_waits_for_a_player_away_then_plays_the_default(client):
    game, seats, prompt = started(away_days=3)
    now = timezone.now()
    back = player_away_set(user=seats["bob"].user, until=now.date() + DAY, now=now)
    assert back == end_of(now.date() + DAY)
    others_order(game, seats, prompt, but="bob")
    due(prompt, now)
    old = prompt.deadline

    assert overdue_prompt_resolve(game_id=game.pk, prompt_number=prompt.number, now=now) is False
    prompt.refresh_from_db()
    assert prompt.status == Prompt.Status.OPEN and prompt.deadline == back
    assert not SealedOrder.objects.filter(prompt=prompt, seat_name="bob").exists()
    held = LogEntry.objects.get(game=game, kind="deadline_held")
    assert held.payload["prompt"] == prompt.number and held.payload["away"] == {
        "bob": back.isoformat()
    }
    waited = (back - old).total_seconds()
    assert Seat.objects.get(pk=seats["bob"].pk).away_held_seconds == pytest.approx(waited)
    told = OutboxMessage.objects.filter(subject__contains="Deadline moved: a player is away")
    assert {m.to for m in told} == {"ann@example.com", "bob@example.com", "cat@example.com"}
    assert "waits for bob (away until" in told[0].body

    log = visible_text(client.get(reverse("games:log", args=[game.pk])).content.decode())
    assert f"Decision {prompt.number}'s deadline waits for bob, away: it moved to" in html.unescape(
        log
    )

    # The new deadline passes, bob never ordered: his default order is played.
    later = back + timedelta(minutes=1)
    assert overdue_prompt_resolve(game_id=game.pk, prompt_number=prompt.number, now=later) is True
    prompt.refresh_from_db()
    assert prompt.status == Prompt.Status.RESOLVED
    assert (
        SealedOrder.objects.get(prompt=prompt, seat_name="bob", is_current=True).source == "default"
    )
    out = StringIO()
    call_command("verify_game", str(game.pk), stdout=out)
    assert "OK" in out.getvalue()


def test_a_seat_waits_only_as_long_as_the_game_allows():
    game, seats, prompt = started(away_days=1)
    now = timezone.now()
    player_away_set(user=seats["bob"].user, until=now.date() + 10 * DAY, now=now)
    others_order(game, seats, prompt, but="bob")
    due(prompt, now)
    old = prompt.deadline
    assert overdue_prompt_resolve(game_id=game.pk, prompt_number=prompt.number, now=now) is False
    prompt.refresh_from_db()
    assert prompt.deadline == old + DAY  # one day, not ten
    held = LogEntry.objects.get(game=game, kind="deadline_held").payload
    assert held["away"] == {"bob": end_of(now.date() + 10 * DAY).isoformat()}  # his return, said
    assert held["held_hours"] == {"bob": 24.0}
    told = OutboxMessage.objects.filter(subject__contains="Deadline moved").first().body
    assert "bob's waits in this game are used up" in told
    # Its day used, the next time it passes bob's default is played, though he is away.
    later = prompt.deadline + timedelta(minutes=1)
    assert overdue_prompt_resolve(game_id=game.pk, prompt_number=prompt.number, now=later) is True
    assert LogEntry.objects.filter(game=game, kind="deadline_held").count() == 1
    assert LogEntry.objects.filter(game=game, kind="nmr_applied", payload__seat="bob").exists()


def test_a_player_back_early_orders_and_the_prompt_resolves():
    game, seats, prompt = started(away_days=3)
    now = timezone.now()
    player_away_set(user=seats["bob"].user, until=now.date() + DAY, now=now)
    others_order(game, seats, prompt, but="bob")
    due(prompt, now)
    assert overdue_prompt_resolve(game_id=game.pk, prompt_number=prompt.number, now=now) is False
    from games.services.resolution import prompt_resolve

    others_order(game, seats, prompt, but="")  # bob too now (the others replace theirs)
    assert prompt_resolve(game_id=game.pk, prompt_number=prompt.number) is True
    assert SealedOrder.objects.get(prompt=prompt, seat_name="bob", is_current=True).source == "web"


def test_a_game_that_does_not_wait_plays_the_default_of_a_player_away():
    game, seats, prompt = started(away_days=0)
    now = timezone.now()
    player_away_set(user=seats["bob"].user, until=now.date() + DAY, now=now)
    others_order(game, seats, prompt, but="bob")
    due(prompt, now)
    assert overdue_prompt_resolve(game_id=game.pk, prompt_number=prompt.number, now=now) is True
    assert not LogEntry.objects.filter(game=game, kind="deadline_held").exists()


def test_a_resigned_seat_or_a_player_back_is_not_waited_for():
    game, seats, prompt = started(away_days=3)
    now = timezone.now()
    player_away_set(user=seats["bob"].user, until=now.date() + DAY, now=now)
    player_away_set(user=seats["bob"].user, until=None)  # back
    others_order(game, seats, prompt, but="bob")
    due(prompt, now)
    assert overdue_prompt_resolve(game_id=game.pk, prompt_number=prompt.number, now=now) is True


def test_saying_when_you_are_away(client):
    [ann] = make_users(["ann"])
    client.force_login(ann)
    url = reverse("games:player_settings")
    today = timezone.now().date()
    answer = client.post(url, {"form": "away", "until": (today + 3 * DAY).isoformat()}, follow=True)
    page = html.unescape(visible_text(answer.content.decode()))
    assert "You are away until" in page and "I am back" in page
    for bad, said in (
        ("next week", "as a date (YYYY-MM-DD)"),
        ((today - DAY).isoformat(), "That day is past"),
        ((today + 61 * DAY).isoformat(), "at most 60 days ahead"),
    ):
        answer = client.post(url, {"form": "away", "until": bad})
        assert answer.status_code == 400 and said in html.unescape(answer.content.decode()), bad
    answer = client.post(url, {"form": "away", "action": "back"}, follow=True)
    assert "You are not away" in html.unescape(visible_text(answer.content.decode()))
    with pytest.raises(ValidationError):
        player_away_set(user=ann, until=today - DAY)


def test_the_game_page_says_who_is_away_where_the_game_waits(client):
    waiting, seats, _ = started(away_days=3)
    player_away_set(user=seats["bob"].user, until=timezone.now().date() + DAY)
    client.force_login(seats["ann"].user)
    page = visible_text(client.get(reverse("games:detail", args=[waiting.pk])).content.decode())
    assert "bob away until" in page
    assert "a deadline waits for a player who is away, up to 3 days a player in all" in page
    strict, _ = make_game(["bob", "dan", "eve"], deadline_hours=24)  # bob away here too
    client.force_login(seats["bob"].user)
    assert "away until" not in visible_text(
        client.get(reverse("games:detail", args=[strict.pk])).content.decode()
    )


def test_a_game_is_made_to_wait_by_the_form_and_the_api(client):
    [ann] = make_users(["ann"])
    api = token_client(ann)
    made = api.post(
        "/api/games/", {"ruleset": "5x", "seats_count": 3, "away_days": 7}, format="json"
    )
    assert made.status_code == 201 and made.json()["away_days"] == 7
    assert Game.objects.get(pk=made.json()["id"]).away_days == 7
    for bad in (15, -1, "3", True):
        answer = api.post(
            "/api/games/", {"ruleset": "5x", "seats_count": 3, "away_days": bad}, format="json"
        )
        assert answer.status_code == 400, bad
    assert (
        api.post("/api/games/", {"ruleset": "5x", "seats_count": 3}, format="json").json()[
            "away_days"
        ]
        == 0
    )
    for bad in (15, -1, True, "3"):
        with pytest.raises(ValidationError):
            game_create(organizer=ann, ruleset="5x", seats_count=3, away_days=bad)


def test_the_api_says_until_when_you_are_away():
    [ann] = make_users(["ann"])
    api = token_client(ann)
    assert api.get("/api/away/").json() == {"away_until": None}
    today = timezone.now().date()
    said = api.put("/api/away/", {"until": (today + 2 * DAY).isoformat()}, format="json")
    assert said.status_code == 200
    assert said.json()["away_until"] == end_of(today + 2 * DAY).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert api.get("/api/away/").json() == said.json()
    for bad in (
        {"until": (today - DAY).isoformat()},
        {"until": "soon"},
        {},
        {"until": "2030-01-01", "x": 1},
    ):
        assert api.put("/api/away/", bad, format="json").status_code == 400, bad
    assert api.delete("/api/away/").json() == {"away_until": None}
    assert api.get("/api/away/").json() == {"away_until": None}


def test_an_order_from_a_player_away_is_taken_after_the_deadline_the_game_waits_for():
    from games.errors import DeadlinePassed

    game, seats, prompt = started(away_days=3)
    now = timezone.now()
    player_away_set(user=seats["bob"].user, until=now.date() + DAY, now=now)
    others_order(game, seats, prompt, but="bob")
    due(prompt, now)  # passed a minute ago; the sweep has not come by yet
    import engine
    from games.selectors import current_state

    text = engine.get(game.ruleset).default_order(current_state(game=game), "bob")
    order = order_submit(seat=seats["bob"], text=text, source="web")
    assert order.source == "web" and order.seat_name == "bob"
    # cat, not away, is refused at the same moment (the deadline stands for the others).
    Prompt.objects.filter(pk=prompt.pk).update(deadline=now - timedelta(minutes=1))
    cat_order = SealedOrder.objects.get(prompt=prompt, seat_name="cat", is_current=True)
    other = next(
        o
        for o in engine.get(game.ruleset).legal_orders(current_state(game=game), "cat")
        if o != cat_order.text
    )
    with pytest.raises(DeadlinePassed):
        order_submit(seat=seats["cat"], text=other, source="web")


def test_a_tournament_made_to_wait_gives_its_tables_the_days(client):
    from tournaments.services import rounds
    from tournaments.services import tournaments as tsvc

    boss, ann, bob = make_users(["boss", "ann", "bob"])
    for bad in (15, -1, True):
        with pytest.raises(ValidationError):
            tsvc.tournament_create(organizer=boss, name="Bad", ruleset="6x5", table_sizes=[2],
                                   rounds_count=1, away_days=bad)  # fmt: skip
    cup = tsvc.tournament_create(organizer=boss, name="Patient Cup", ruleset="6x5",
                                 table_sizes=[2], rounds_count=1, away_days=3)  # fmt: skip
    tsvc.tournament_open(tournament=cup, by=boss)
    for user in (ann, bob):
        tsvc.registration_add(tournament=cup, user=user)
    rnd = rounds.round_start(rnd=rounds.round_pair(tournament=cup, by=boss), by=boss)
    assert rnd.tables.get().game.away_days == 3
    page = visible_text(client.get(reverse("tournaments:detail", args=[cup.slug])).content.decode())
    assert "Its tables' deadlines wait for a player who is away, up to 3 days a game" in page
    # The form takes it (and leaves it at 0 when not given).
    client.force_login(boss)
    form = client.get(reverse("tournaments:create")).content.decode()
    assert 'name="away_days"' in form


def test_a_game_that_does_not_wait_tells_its_organizer_alone_who_is_away(client):
    from tests.games.core_support import start_fixed

    game, seats = start_fixed(["ann", "bob", "cat"], deadline_hours=24)  # not seated: organizer
    assert not game.away_days
    player_away_set(user=seats["bob"].user, until=timezone.now().date() + DAY)
    client.force_login(game.organizer)
    page = visible_text(client.get(reverse("games:detail", args=[game.pk])).content.decode())
    assert "bob away until" in page and "(told to you alone: the game does not wait)" in page
    for name in ("ann", "cat"):  # the players see nothing of it: the game does not wait
        client.force_login(seats[name].user)
        page = visible_text(client.get(reverse("games:detail", args=[game.pk])).content.decode())
        assert "away until" not in page, name
    client.logout()
    page = visible_text(client.get(reverse("games:detail", args=[game.pk])).content.decode())
    assert "away until" not in page


def test_a_late_order_is_taken_only_while_the_sweep_would_have_waited():
    # Guards against a player away being taken any time after the deadline while the
    # sweep had not come by (a beat down for days): the wait ends at their return, or
    # when their days run out, as the sweep's hold would.
    import engine
    from games.errors import DeadlinePassed
    from games.selectors import current_state

    game, seats, prompt = started(away_days=3)
    now = timezone.now()
    player_away_set(user=seats["bob"].user, until=(now - 3 * DAY).date(), now=now - 4 * DAY)
    others_order(game, seats, prompt, but="bob")
    due(prompt, now - 4 * DAY)  # four days ago; bob was back two days later
    text = engine.get(game.ruleset).default_order(current_state(game=game), "bob")
    with pytest.raises(DeadlinePassed):
        order_submit(seat=seats["bob"], text=text, source="web")
    # Away still, with a minute of the game's days left: the sweep would not wait.
    player_away_set(user=seats["bob"].user, until=(now + DAY).date(), now=now)
    due(prompt, now)
    Seat.objects.filter(pk=seats["bob"].pk).update(away_held_seconds=3 * 86400 - 60)
    seats["bob"].refresh_from_db()
    with pytest.raises(DeadlinePassed):
        order_submit(seat=seats["bob"], text=text, source="web")
    # With a day left it would: the order is taken.
    Seat.objects.filter(pk=seats["bob"].pk).update(away_held_seconds=2 * 86400)
    seats["bob"].refresh_from_db()
    assert order_submit(seat=seats["bob"], text=text, source="web").seat_name == "bob"


def test_your_away_day_reads_as_a_day_of_your_own_time_zone(client):
    """A newcomer's walk: setting the last day away to 5 Dec read "You are away until Sun 6
    Dec 2026, 00:00 UTC" (the moment the day ends, a day later than typed, in UTC). It says
    the day typed, written as the site writes dates, with the zone it ends in."""
    from games.services.players import player_time_zone_set

    [ann] = make_users(["ann"])
    player_time_zone_set(user=ann, time_zone="Pacific/Auckland")  # far from UTC: another date
    client.force_login(ann)
    url = reverse("games:player_settings")
    day = timezone.now().date() + 3 * DAY
    said = f"You are away until the end of {day:%a} {day.day} {day:%b %Y} (Pacific/Auckland time)"
    answer = client.post(url, {"form": "away", "until": day.isoformat()}, follow=True)
    page = html.unescape(visible_text(answer.content.decode()))
    assert page.count(said) == 2, page  # the message and the panel
    assert ", 00:00 NZ" not in page  # the moment the day ends, as it was written


def test_who_is_away_reads_in_the_readers_time_like_the_pages_other_times(client):
    """The seat list's "away until" is a moment like the deadline beside it: for a reader
    without a time zone of their own, written in the browser's (data-local), as the
    deadline is, not in UTC."""
    waiting, seats, _ = started(away_days=3)
    until = player_away_set(user=seats["bob"].user, until=timezone.now().date() + DAY)
    client.force_login(seats["ann"].user)
    page = client.get(reverse("games:detail", args=[waiting.pk])).content.decode()
    away = page[page.index('class="small away"'):]
    away = away[: away.index("</span>")]
    assert f'<time datetime="{until.isoformat()}" data-local' in away, away


@pytest.mark.parametrize(
    ("before", "after", "stored_after", "said"),
    [
        # The last day away is 15 Jan 2027. In Pago Pago (UTC-11) it ends at 11:00 UTC on 16 Jan;
        # moved to Kiritimati (UTC+14), the same day ends at 10:00 UTC on 15 Jan. Kept as it
        # was, the page said "the end of Sun 17 Jan" (11:00 UTC on 16 Jan is 01:00 on 17 Jan
        # there): two days later than the day typed.
        ("Pacific/Pago_Pago", "Pacific/Kiritimati", datetime(2027, 1, 15, 10, 0, tzinfo=UTC), "Fri 15 Jan 2027"),
        # And back: "the end of Thu 14 Jan" (10:00 UTC on 15 Jan is 23:00 on 14 Jan there).
        ("Pacific/Kiritimati", "Pacific/Pago_Pago", datetime(2027, 1, 16, 11, 0, tzinfo=UTC), "Fri 15 Jan 2027"),
        # Madrid to New York, the day the clocks go forward in New York (14 Mar 2027).
        ("Europe/Madrid", "America/New_York", datetime(2027, 3, 15, 4, 0, tzinfo=UTC), "Sun 14 Mar 2027"),
        # Santiago's clocks go forward at midnight (5 Sep 2027, 00:00 is 01:00): its 4 Sep
        # ends at 04:00 UTC; in Madrid, at 22:00 UTC.
        ("America/Santiago", "Europe/Madrid", datetime(2027, 9, 4, 22, 0, tzinfo=UTC), "Sat 4 Sep 2027"),
    ],
)
def test_the_last_day_away_stays_the_day_typed_when_the_player_changes_time_zone(
    client, before, after, stored_after, said
):
    """The day away ends at midnight in the player's time zone: a player who changes zone
    (travelling) is away until the end of the same day in the new one, and the settings
    page and the API say so."""
    from games.models import PlayerSettings
    from games.services.players import player_time_zone_set

    [ann] = make_users(["ann"])
    player_time_zone_set(user=ann, time_zone=before)
    day = datetime.strptime(said, "%a %d %b %Y").date()
    player_away_set(user=ann, until=day, now=datetime.combine(day, time(12), tzinfo=UTC) - 5 * DAY)
    player_time_zone_set(user=ann, time_zone=after)
    assert PlayerSettings.objects.get(user=ann).away_until == stored_after
    client.force_login(ann)
    page = html.unescape(visible_text(client.get(reverse("games:player_settings")).content.decode()))
    assert f"You are away until the end of {said} ({after} time)" in page
    answer = token_client(ann).get("/api/away/")
    assert answer.json()["away_until"] == f"{stored_after:%Y-%m-%dT%H:%M:%SZ}"


@pytest.mark.parametrize(
    ("zone", "day", "said", "ends"),
    [
        # Santiago's clocks go from 00:00 to 01:00 on 5 Sep 2027: the 4th ends at 04:00 UTC,
        # which its clock reads 01:00 on the 5th (the page said "the end of Sun 5 Sep").
        ("America/Santiago", date(2027, 9, 4), "Sat 4 Sep 2027", datetime(2027, 9, 5, 4, 0, tzinfo=UTC)),
        # Havana's, on 14 Mar 2027.
        ("America/Havana", date(2027, 3, 13), "Sat 13 Mar 2027", datetime(2027, 3, 14, 5, 0, tzinfo=UTC)),
        # Kiritimati (UTC+14) and Pago Pago (UTC-11), no clock change.
        ("Pacific/Kiritimati", date(2027, 1, 15), "Fri 15 Jan 2027", datetime(2027, 1, 15, 10, 0, tzinfo=UTC)),
        ("Pacific/Pago_Pago", date(2027, 1, 15), "Fri 15 Jan 2027", datetime(2027, 1, 16, 11, 0, tzinfo=UTC)),
    ],
)
def test_the_last_day_away_reads_as_typed_where_the_clocks_skip_midnight(client, zone, day, said, ends):
    """The day away ends at the next day's start: where the clocks jump from 00:00 to
    01:00 that start reads 01:00, and the day before it is still the one typed."""
    from games.services.players import player_time_zone_set

    [ann] = make_users(["ann"])
    player_time_zone_set(user=ann, time_zone=zone)
    assert player_away_set(user=ann, until=day, now=datetime.combine(day, time(12), tzinfo=UTC) - 5 * DAY) == ends
    client.force_login(ann)
    page = html.unescape(visible_text(client.get(reverse("games:player_settings")).content.decode()))
    assert f"You are away until the end of {said} ({zone} time)" in page


def test_a_held_deadline_waits_again_for_a_later_return_once_it_passes():
    """README (Players who are away): a deadline already held is not moved when the
    player's return moves later (another day, or a time zone to the west); once the
    deadline every seat was told passes, the sweep waits again for the new return (the
    seat's days allowing) and tells every seat again."""
    from games.models import PlayerSettings
    from games.services.players import player_time_zone_set

    game, seats, prompt = started(away_days=3)
    bob = seats["bob"].user
    now = timezone.now()
    back = player_away_set(user=bob, until=now.date() + DAY, now=now)
    others_order(game, seats, prompt, but="bob")
    due(prompt, now)
    assert overdue_prompt_resolve(game_id=game.pk, prompt_number=prompt.number, now=now) is False
    prompt.refresh_from_db()
    assert prompt.deadline == back
    # bob travels west: the same last day ends 7 or 8 hours later (UTC-7/-8).
    player_time_zone_set(user=bob, time_zone="America/Los_Angeles")
    new_back = PlayerSettings.objects.get(user=bob).away_until
    assert timedelta(hours=7) <= new_back - back <= timedelta(hours=8)
    prompt.refresh_from_db()
    assert prompt.deadline == back  # as every seat was told, until it passes
    at = back + timedelta(minutes=game.grace_minutes + 1)
    assert overdue_prompt_resolve(game_id=game.pk, prompt_number=prompt.number, now=at) is False
    prompt.refresh_from_db()
    assert prompt.status == Prompt.Status.OPEN and prompt.deadline == new_back
    assert LogEntry.objects.filter(game=game, kind="deadline_held").count() == 2
    told = OutboxMessage.objects.filter(subject__contains="Deadline moved: a player is away")
    assert sorted(m.to for m in told) == sorted(2 * ["ann@example.com", "bob@example.com", "cat@example.com"])


@pytest.mark.parametrize("how", ["back", "east"])
def test_a_held_deadline_is_never_shortened_by_an_earlier_return(how):
    """README (Players who are away): a player back earlier than said (*I am back*, or a
    time zone to the east) does not bring a held deadline forward: every seat was told
    it, and a seat that counts on it must not have its default played sooner. The
    deadline passes as told, then the orders still missing get their defaults."""
    from games.services.players import player_time_zone_set

    game, seats, prompt = started(away_days=3)
    bob = seats["bob"].user
    now = timezone.now()
    back = player_away_set(user=bob, until=now.date() + 2 * DAY, now=now)
    others_order(game, seats, prompt, but="bob")
    due(prompt, now)
    assert overdue_prompt_resolve(game_id=game.pk, prompt_number=prompt.number, now=now) is False
    if how == "back":
        player_away_set(user=bob, until=None)
    else:
        player_time_zone_set(user=bob, time_zone="Asia/Tokyo")  # the day ends 9 hours sooner
    prompt.refresh_from_db()
    assert prompt.deadline == back
    early = back - timedelta(hours=1)
    assert overdue_prompt_resolve(game_id=game.pk, prompt_number=prompt.number, now=early) is False
    prompt.refresh_from_db()
    assert prompt.status == Prompt.Status.OPEN and prompt.deadline == back
    at = back + timedelta(minutes=game.grace_minutes + 1)
    assert overdue_prompt_resolve(game_id=game.pk, prompt_number=prompt.number, now=at) is True
    assert SealedOrder.objects.get(prompt=prompt, seat_name="bob", is_current=True).source == "default"
    assert LogEntry.objects.filter(game=game, kind="deadline_held").count() == 1


def test_an_away_that_has_ended_stays_ended_when_the_player_changes_time_zone():
    """Back from an away typed in Kiritimati (UTC+14), a player who then sets Pago Pago
    (UTC-11), where that last day is not over yet, is not away again: moved as an away
    still running is, the ended one came back for up to a day, and every deadline of a
    game waiting for its players was held for a player who was back."""
    from games.models import PlayerSettings
    from games.services.away import away_until
    from games.services.players import player_time_zone_set

    [ann] = make_users(["ann"])
    player_time_zone_set(user=ann, time_zone="Pacific/Kiritimati")
    now = timezone.now()
    yesterday = (now.astimezone(ZoneInfo("Pacific/Kiritimati")) - DAY).date()
    ended = player_away_set(user=ann, until=yesterday, now=now - 5 * DAY)
    assert ended <= now and away_until(user=ann) is None  # back already
    player_time_zone_set(user=ann, time_zone="Pacific/Pago_Pago")
    assert away_until(user=ann) is None
    assert PlayerSettings.objects.get(user=ann).away_until == ended
