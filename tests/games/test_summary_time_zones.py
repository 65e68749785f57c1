"""The daily summary across time zones (``games.services.summaries``): at most one a day,
the day being the player's own (in the zone it has now), and none missed when the player
moves its zone across the date line or the clocks change. Fixed clocks: the beat is run
every hour over a few days, and the instants it queued a summary are compared with
the instants worked out by hand (UTC offsets of the time zone database)."""

from __future__ import annotations

import re
import zoneinfo
from datetime import UTC, datetime, timedelta

import pytest

from games.models import OutboxMessage, TurnSummary
from games.services.games import game_create, game_join, game_start
from games.services.players import player_time_zone_set, player_turn_emails_set
from games.services.summaries import send_turn_summaries
from tests.games.core_support import make_users

pytestmark = pytest.mark.django_db

STEP = timedelta(hours=1)


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def _player(zone: str, hour: int):
    """ann, summary at ``hour`` in ``zone``, seated in a started game that waits for her
    order (so every summary has something to tell)."""
    ann, bob, cat, organizer = make_users(["ann", "bob", "cat", "organizer"])
    player_time_zone_set(user=ann, time_zone=zone)
    player_turn_emails_set(user=ann, turn_emails="daily", hour=hour)
    game = game_create(organizer=organizer, ruleset="5x", options={}, seats_count=6, name="Alpha")
    for user in (ann, bob, cat):
        game_join(game=game, user=user)
    game_start(game=game, user=organizer, fixed_order=["ann", "bob", "cat"])
    return ann


def _beat(start: datetime, end: datetime) -> list[datetime]:
    """Run the summaries' beat every ``STEP`` from ``start`` (included) to ``end``
    (excluded); the instants at which it queued one."""
    sent = []
    now = start
    while now < end:
        count = send_turn_summaries(now=now)
        assert count in (0, 1)
        if count:
            sent.append(now)
        now += STEP
    return sent


def _emails() -> int:
    return OutboxMessage.objects.filter(kind="turn_summary", to="ann@example.com").count()


@pytest.mark.parametrize(
    ("before", "after", "switch", "expected"),
    [
        # Kiritimati (UTC+14) -> Pago Pago (UTC-11), summary at 20:00. The one of 14 Jan in
        # Kiritimati went at 06:00Z, 19:00 on 13 Jan in Pago Pago: Pago Pago's 13 Jan has
        # had its summary (none at its 20:00, 07:00Z), its 14 Jan gets one (07:00Z on 15 Jan).
        (
            "Pacific/Kiritimati", "Pacific/Pago_Pago", "2027-01-14 07:00",
            ["2027-01-13 06:00", "2027-01-14 06:00", "2027-01-15 07:00", "2027-01-16 07:00"],
        ),
        # Pago Pago -> Kiritimati: 13 Jan's went at 07:00Z on 14 Jan, 21:00 on 14 Jan in
        # Kiritimati, which has had its summary then; the next is Kiritimati's 15 Jan, 20:00
        # (06:00Z on 15 Jan).
        (
            "Pacific/Pago_Pago", "Pacific/Kiritimati", "2027-01-14 08:00",
            ["2027-01-13 07:00", "2027-01-14 07:00", "2027-01-15 06:00", "2027-01-16 06:00"],
        ),
        # Tongatapu (UTC+13) -> Pago Pago: the same clock, the date one day back. 14 Jan's
        # (Tongatapu) went at 07:00Z, Pago Pago's 13 Jan at 20:00: its 14 Jan still gets one.
        (
            "Pacific/Tongatapu", "Pacific/Pago_Pago", "2027-01-14 08:00",
            ["2027-01-13 07:00", "2027-01-14 07:00", "2027-01-15 07:00", "2027-01-16 07:00"],
        ),
        # Pago Pago -> Tongatapu: 13 Jan's (Pago Pago) went at 20:00 on 14 Jan in Tongatapu.
        (
            "Pacific/Pago_Pago", "Pacific/Tongatapu", "2027-01-14 08:00",
            ["2027-01-13 07:00", "2027-01-14 07:00", "2027-01-15 07:00", "2027-01-16 07:00"],
        ),
    ],
)
def test_a_zone_changed_across_the_date_line_gives_one_summary_a_day_and_misses_none(
    before: str, after: str, switch: str, expected: list[str]
) -> None:
    ann = _player(before, hour=20)
    switch_at = _utc(switch)
    sent = _beat(_utc("2027-01-12 12:00"), switch_at)
    player_time_zone_set(user=ann, time_zone=after)
    sent += _beat(switch_at, _utc("2027-01-16 12:00"))
    assert sent == [_utc(text) for text in expected]
    assert _emails() == len(expected)
    # In the zone the player has now, no local day had two summaries, and every day since
    # the switch had one.
    zone = zoneinfo.ZoneInfo(after)
    days = [moment.astimezone(zone).date() for moment in sent]
    assert len(days) == len(set(days))
    since = [day for moment, day in zip(sent, days, strict=True) if moment > switch_at]
    assert since == [since[0] + timedelta(days=n) for n in range(len(since))]


def test_a_zone_changed_to_the_east_before_the_hour_gives_that_day_s_summary() -> None:
    """Pago Pago -> Kiritimati at 08:00: the summary of 13 Jan (Pago Pago) went at 19:00Z on
    13 Jan, 09:00 on 14 Jan in Kiritimati; moved at 12:00Z (02:00 on 15 Jan there), the
    player gets 15 Jan's at 08:00 (18:00Z on 14 Jan)."""
    ann = _player("Pacific/Pago_Pago", hour=8)
    sent = _beat(_utc("2027-01-13 12:00"), _utc("2027-01-14 12:00"))
    player_time_zone_set(user=ann, time_zone="Pacific/Kiritimati")
    sent += _beat(_utc("2027-01-14 12:00"), _utc("2027-01-16 00:00"))
    assert sent == [_utc("2027-01-13 19:00"), _utc("2027-01-14 18:00"), _utc("2027-01-15 18:00")]


@pytest.mark.parametrize(
    ("zone", "hour", "start", "expected"),
    [
        # Auckland (UTC+13 in summer), the clocks forward on 26 Sep 2027 at 02:00 (to 03:00):
        # 02:00 does not exist that day, the summary comes at 03:00 NZDT.
        ("Pacific/Auckland", 2, "2027-09-24 12:00", ["2027-09-24 14:00", "2027-09-25 14:00", "2027-09-26 13:00"]),
        # Back on 4 Apr 2027 at 03:00 (to 02:00): 02:00 comes twice, one summary (the first).
        ("Pacific/Auckland", 2, "2027-04-02 12:00", ["2027-04-02 13:00", "2027-04-03 13:00", "2027-04-04 14:00"]),
        # New York, forward on 14 Mar 2027 at 02:00, back on 7 Nov 2027 at 02:00 (01:00 twice).
        ("America/New_York", 2, "2027-03-13 06:00", ["2027-03-13 07:00", "2027-03-14 07:00", "2027-03-15 06:00"]),
        ("America/New_York", 1, "2027-11-06 04:00", ["2027-11-06 05:00", "2027-11-07 05:00", "2027-11-08 06:00"]),
    ],
)
def test_the_clock_change_days_have_one_summary_each(zone: str, hour: int, start: str, expected: list[str]) -> None:
    """Each run starts on a local day before its hour (a summary turned on before it)."""
    _player(zone, hour=hour)
    begin = _utc(start)
    sent = _beat(begin, begin + timedelta(days=3, hours=-2))
    assert sent == [_utc(text) for text in expected]
    assert TurnSummary.objects.count() == 3


def test_the_beat_reads_the_summaries_of_the_players_whose_hour_has_come_only():
    """Every five minutes the beat looks for each player's last summary: only for those
    whose chosen hour has come today (the others' cannot be due whatever they hold), not
    for every player who wants one (a list of every such player's id, every run)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.services.summaries import summaries_due

    ann = _player("Europe/Madrid", 8)
    [zed] = make_users(["zed"])
    player_turn_emails_set(user=zed, turn_emails="daily", hour=20)  # UTC: not yet at 09:00
    with CaptureQueriesContext(connection) as queries:
        due = summaries_due(now=_utc("2027-01-15T09:00:00"))
    assert [user_id for user_id, _day in due] == [ann.pk]
    read = [q["sql"] for q in queries if '"games_turnsummary"' in q["sql"]]
    assert len(read) == 1, read
    asked = re.search(r'"user_id" IN \(([^)]*)\)', read[0])
    assert asked is not None, read[0]
    assert [int(n) for n in asked.group(1).split(",")] == [ann.pk]
