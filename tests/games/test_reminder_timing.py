"""When reminders go out, from a time-handling audit: reminders went out in the quiet
hours (at 01:00 Paris), a player reminded before the old deadline heard nothing before
an extended one, and a reminder window shorter than the sweep's 5 minutes could be
missed altogether."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from games.errors import ValidationError
from games.models import OutboxMessage, Prompt, Reminder
from games.services.deadlines import reminder_due_at, send_reminders
from games.services.games import game_create
from games.services.organizer import deadline_extend
from tests.games.core_support import start_fixed

pytestmark = pytest.mark.django_db

PARIS = ZoneInfo("Europe/Paris")
NAMES = ["ann", "bob", "cat"]


def _quiet_game(reminder_hours: float, deadline_local: datetime, opened_local: datetime):
    game, seats = start_fixed(NAMES, deadline_hours=24, reminder_hours=reminder_hours,
                              quiet_hours_start=22, quiet_hours_end=8,
                              quiet_hours_time_zone="Europe/Paris")  # fmt: skip
    prompt = Prompt.objects.get(game=game, number=1)
    Prompt.objects.filter(pk=prompt.pk).update(
        deadline=deadline_local.astimezone(UTC), opened_at=opened_local.astimezone(UTC)
    )
    prompt.refresh_from_db()
    return game, seats, prompt


def test_a_reminder_due_in_the_quiet_hours_waits_for_their_end():
    # Deadline Sat 16 Jan 2027 12:00 Paris, reminder 7 hours before: 05:00, quiet (22-8):
    # at 08:00 instead, still four hours before the deadline.
    game, _seats, prompt = _quiet_game(7, datetime(2027, 1, 16, 12, 0, tzinfo=PARIS),
                                       datetime(2027, 1, 15, 12, 0, tzinfo=PARIS))  # fmt: skip
    assert reminder_due_at(game=game, prompt=prompt) == datetime(2027, 1, 16, 8, 0, tzinfo=PARIS)
    assert send_reminders(now=datetime(2027, 1, 16, 5, 5, tzinfo=PARIS)) == 0
    assert send_reminders(now=datetime(2027, 1, 16, 8, 1, tzinfo=PARIS)) == 3


def test_a_reminder_whose_quiet_hours_end_at_the_deadline_comes_before_them():
    # The audit's case: deadline moved to Sat 16 Jan 08:00 (the quiet hours' end), reminder
    # 7 hours before (01:00, quiet): the evening before, at 21:45, the last quarter hour
    # before the quiet hours (the prompt was open since Thursday).
    game, _seats, prompt = _quiet_game(7, datetime(2027, 1, 16, 8, 0, tzinfo=PARIS),
                                       datetime(2027, 1, 14, 23, 0, tzinfo=PARIS))  # fmt: skip
    due = reminder_due_at(game=game, prompt=prompt)
    assert due == datetime(2027, 1, 15, 21, 45, tzinfo=PARIS)
    assert send_reminders(now=datetime(2027, 1, 16, 1, 5, tzinfo=PARIS)) == 3  # past it: sent
    assert Reminder.objects.count() == 3



def test_a_reminder_moved_back_almost_a_day_is_still_found_by_the_sweep():
    # The sweep's database bound (a reminder comes at most a day before its planned moment):
    # quiet hours 09:00-08:00 (23 hours), deadline Sat 16 Jan 08:10, reminder one hour
    # before (07:10, quiet; the window's end leaves 10 minutes): Friday 08:55, 22 h earlier.
    game, _seats = start_fixed(NAMES, deadline_hours=24, reminder_hours=1,
                               quiet_hours_start=9, quiet_hours_end=8)  # fmt: skip
    prompt = Prompt.objects.get(game=game, number=1)
    Prompt.objects.filter(pk=prompt.pk).update(
        deadline=datetime(2027, 1, 16, 8, 10, tzinfo=UTC),
        opened_at=datetime(2027, 1, 14, 8, 0, tzinfo=UTC),
    )
    prompt.refresh_from_db()
    assert reminder_due_at(game=game, prompt=prompt) == datetime(2027, 1, 15, 8, 55, tzinfo=UTC)
    assert send_reminders(now=datetime(2027, 1, 15, 8, 50, tzinfo=UTC)) == 0
    assert send_reminders(now=datetime(2027, 1, 15, 8, 56, tzinfo=UTC)) == 3

def test_without_quiet_hours_nothing_moves():
    game, _seats = start_fixed(NAMES, deadline_hours=24, reminder_hours=6)
    prompt = Prompt.objects.get(game=game, number=1)
    assert reminder_due_at(game=game, prompt=prompt) == prompt.deadline - timedelta(hours=6)


def test_an_extension_sends_the_reminder_again_before_the_new_deadline():
    game, _seats = start_fixed(NAMES, deadline_hours=24, reminder_hours=2)
    prompt = Prompt.objects.get(game=game, number=1)
    assert send_reminders(now=prompt.deadline - timedelta(hours=1)) == 3
    deadline_extend(game=game, by=game.organizer, hours=48)
    prompt.refresh_from_db()
    assert Reminder.objects.count() == 0  # the new reminder time is still to come
    assert send_reminders(now=prompt.deadline - timedelta(hours=3)) == 0
    assert send_reminders(now=prompt.deadline - timedelta(hours=1)) == 3
    assert OutboxMessage.objects.filter(kind="reminder").count() == 6


def test_a_short_extension_inside_the_window_does_not_remind_at_once():
    from django.utils import timezone

    game, _seats = start_fixed(NAMES, deadline_hours=24, reminder_hours=6)
    prompt = Prompt.objects.get(game=game, number=1)
    Prompt.objects.filter(pk=prompt.pk).update(deadline=timezone.now() + timedelta(minutes=30))
    assert send_reminders() == 3
    deadline_extend(game=game, by=game.organizer, hours=1)  # its notice says the deadline
    assert Reminder.objects.count() == 3  # the new reminder time is past already
    assert send_reminders() == 0


def test_a_reminder_window_shorter_than_the_sweep_is_refused():
    game, _seats = start_fixed(NAMES)
    for hours in (0.05, 0.2):
        with pytest.raises(ValidationError, match="at least 0.25 hours"):
            game_create(organizer=game.organizer, ruleset="5x", seats_count=3, reminder_hours=hours)
    game_create(organizer=game.organizer, ruleset="5x", seats_count=3, reminder_hours=0.25)
    game_create(organizer=game.organizer, ruleset="5x", seats_count=3, reminder_hours=0)


def test_a_reminder_across_the_night_the_clocks_go_back():
    """Paris, Sun 25 Oct 2026: 03:00 CEST goes back to 02:00 CET at 01:00 UTC. Quiet hours
    22:00-08:00 Paris. The deadline pushed to their end, Sun 08:00 CET (07:00 UTC)."""
    deadline = datetime(2026, 10, 25, 7, 0, tzinfo=UTC)
    opened = datetime(2026, 10, 24, 6, 0, tzinfo=UTC)  # Sat 08:00 CEST
    # 12 real hours before: Sat 19:00 UTC, 21:00 CEST (not 20:00: the night is an hour longer).
    game, _seats, prompt = _quiet_game(12, deadline, opened)
    assert reminder_due_at(game=game, prompt=prompt) == datetime(2026, 10, 24, 19, 0, tzinfo=UTC)
    # 6 hours before: 01:00 UTC, the second 02:00 (CET), quiet; their end is the deadline:
    # the last quarter hour before them, Sat 21:45 CEST (19:45 UTC).
    game.reminder_hours = 6
    game.save(update_fields=["reminder_hours"])
    assert reminder_due_at(game=game, prompt=prompt) == datetime(2026, 10, 24, 19, 45, tzinfo=UTC)
    assert send_reminders(now=datetime(2026, 10, 24, 19, 44, tzinfo=UTC)) == 0
    assert send_reminders(now=datetime(2026, 10, 24, 19, 45, tzinfo=UTC)) == 3
