"""Deadlines: checking a game's deadline policy, computing them, enforcing them (default
orders), reminders, the sweep.

Policy (per game): a prompt opened at ``t`` is due at ``t + deadline_hours``. If that
moment falls inside the quiet hours (``quiet_hours_start`` to ``quiet_hours_end``, whole
hours of the clock in ``quiet_hours_time_zone``, UTC unless chosen, wrapping past midnight
when start > end), it is pushed to the end of the quiet window. ``Prompt.deadline`` is the announced deadline; the orders of missing seats
are filled ``grace_minutes`` after it. Reminders go ``reminder_hours`` before the
announced deadline to every active seat still without an order, once per prompt.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.db import IntegrityError, transaction
from django.db.models import F, FloatField, Func, Q
from django.utils import timezone

from games.errors import GameBusy, ValidationError
from games.models import Game, Prompt, Reminder, SealedOrder, Seat

logger = logging.getLogger(__name__)

# A prompt that has every order but is still open this long after it became
# resolvable is re-enqueued by the sweep (a lost task, a killed worker).
READY_SWEEP_SECONDS = 30
# A due prompt the sweep handed to the workers is left to them this long (a lost task is
# handed out again after it).
HANDED_OUT_FOR = timedelta(minutes=5)


def default_reminder_hours(deadline_hours: Any) -> float:
    """The reminder when none is chosen: 12 hours before the deadline, or half the
    deadline when that is shorter (a 12-hour deadline reminds at 6 hours)."""
    if not isinstance(deadline_hours, int | float) or deadline_hours <= 0:
        return 12.0
    return float(min(12, deadline_hours / 2))


MIN_REMINDER_HOURS = 0.25


def deadline_policy_check(
    *,
    deadline_hours: float,
    grace_minutes: int,
    quiet_hours_start: int | None,
    quiet_hours_end: int | None,
    reminder_hours: float,
    early_resolution_delay_seconds: int,
) -> None:
    if not isinstance(deadline_hours, int | float) or not 0 < deadline_hours <= 24 * 30:
        raise ValidationError("The deadline must be between a few minutes and 30 days (in hours).")
    if not isinstance(grace_minutes, int) or not 0 <= grace_minutes <= 24 * 60:
        raise ValidationError("The grace period must be 0 to 1440 minutes.")
    if (quiet_hours_start is None) != (quiet_hours_end is None):
        raise ValidationError("Quiet hours need both a start and an end hour, or neither.")
    for hour in (quiet_hours_start, quiet_hours_end):
        if hour is not None and (not isinstance(hour, int) or not 0 <= hour <= 23):
            raise ValidationError("Quiet hours are whole hours from 0 to 23.")
    if quiet_hours_start is not None and quiet_hours_start == quiet_hours_end:
        raise ValidationError("Quiet hours must not start and end at the same hour.")
    if not isinstance(reminder_hours, int | float) or reminder_hours < 0:
        raise ValidationError("The reminder time must be zero or more hours.")
    if 0 < reminder_hours < MIN_REMINDER_HOURS:
        # The reminder sweep runs every 5 minutes: a shorter window could fall between
        # two sweeps, and nobody would be reminded (a time audit).
        raise ValidationError(
            f"A reminder comes at least {MIN_REMINDER_HOURS:g} hours (15 minutes) before the "
            "deadline, or 0 for none."
        )
    if reminder_hours and reminder_hours >= deadline_hours:
        # It would go out with every turn email: the prompt opens already inside it.
        raise ValidationError(
            f"The reminder must come before the deadline: fewer hours than the deadline's "
            f"{deadline_hours:g}, or 0 for none."
        )
    if not isinstance(early_resolution_delay_seconds, int) or not (
        0 <= early_resolution_delay_seconds <= 24 * 3600
    ):
        raise ValidationError("The early-resolution delay must be 0 to 86400 seconds.")


def _in_quiet(hour_float: float, start: int, end: int) -> bool:
    if start < end:
        return start <= hour_float < end
    return hour_float >= start or hour_float < end


def _local_hour(moment: datetime, tz: ZoneInfo) -> float:
    local = moment.astimezone(tz)
    return local.hour + local.minute / 60 + local.second / 3600 + local.microsecond / 3.6e9


#: Every UTC offset and clock change of today's time zones falls on a quarter hour.
_QUARTER = timedelta(minutes=15)


def push_out_of_quiet_hours(
    *, moment: datetime, start: int | None, end: int | None, zone: str = "UTC"
) -> datetime:
    """``moment`` moved to the first moment after it that is outside the quiet window if
    it falls inside it; the hours are read on the clock of ``zone`` (so a window follows
    its daylight saving time). The result is in UTC.

    That moment is the window's end on the local clock, unless the clocks change in
    between: a window that ends inside the hour skipped in spring ends when the clocks
    jump past it (or the next day, if they jump into the window), and a clock set back
    into the open hours opens them at the change."""
    if start is None or end is None:
        return moment
    try:
        tz = ZoneInfo(zone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        tz = ZoneInfo("UTC")
    if not _in_quiet(_local_hour(moment, tz), start, end):
        return moment
    # The window's end on the local clock, today or tomorrow (wall-clock days: a DST
    # change in between moves the instant, not the hour).
    local = moment.astimezone(tz)
    wall = local.replace(tzinfo=None, hour=end, minute=0, second=0, microsecond=0)
    if wall <= local.replace(tzinfo=None):
        wall += timedelta(days=1)
    found = wall.replace(tzinfo=tz).astimezone(UTC)
    if found.astimezone(tz).utcoffset() == local.utcoffset() and not _in_quiet(
        _local_hour(found, tz), start, end
    ):
        return found  # no clock change in between: the usual case
    # A clock change in between: the first quarter hour (UTC) outside the window. Window
    # ends and clock changes both fall on quarter hours, so none is skipped.
    step = moment.astimezone(UTC)
    step = step.replace(minute=step.minute - step.minute % 15, second=0, microsecond=0)
    for _ in range(4 * 24 * 3):
        step += _QUARTER
        if not _in_quiet(_local_hour(step, tz), start, end):
            return step
    return found


def quiet_hours_move_words(*, game: Game, moved_from: datetime, deadline: datetime) -> str:
    """Why a deadline is where ``push_out_of_quiet_hours`` moved it from ``moved_from``,
    in words: "the end of the game's quiet hours" when the game's clock then reads their
    end; else (a clock change skipped their end, or set the clock back out of them) the
    first moment out of them, and that the clocks change that night."""
    zone = game.quiet_hours_time_zone or "UTC"
    try:
        tz = ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        tz, zone = ZoneInfo("UTC"), "UTC"
    end = game.quiet_hours_end
    local = deadline.astimezone(tz)
    if (local.hour, local.minute) == (end, 0):
        return "the end of the game's quiet hours"
    way = "forward" if local.utcoffset() > moved_from.astimezone(tz).utcoffset() else "back"
    return (
        f"the first moment out of the game's quiet hours, which end at {end:02d}:00 ({zone}):"
        f" the clocks go {way} that night"
    )


def out_of_quiet_hours(*, game: Game, moment: datetime) -> datetime:
    """``moment`` moved out of the game's quiet hours (``push_out_of_quiet_hours``)."""
    return push_out_of_quiet_hours(
        moment=moment,
        start=game.quiet_hours_start,
        end=game.quiet_hours_end,
        zone=game.quiet_hours_time_zone,
    )


def deadline_for(*, game: Game, start: datetime) -> datetime:
    """The announced deadline of a prompt opened at ``start`` under the game's policy."""
    return out_of_quiet_hours(game=game, moment=start + timedelta(hours=game.deadline_hours))


def enforce_due_at(*, game: Game, prompt: Prompt) -> datetime | None:
    """When the missing orders of ``prompt`` are filled by default (deadline + grace)."""
    if prompt.deadline is None:
        return None
    return prompt.deadline + timedelta(minutes=game.grace_minutes)


def enforce_deadlines(*, now: datetime | None = None, inline_seconds: float | None = None) -> int:
    """Resolve every open prompt of an active game whose deadline (plus grace) has
    passed, filling missing orders with default orders. Also re-enqueues prompts that
    are complete but still open (lost task). Returns how many prompts were resolved here.

    ``inline_seconds`` (the beat's sweep): once the sweep has spent that long, the
    prompts still due are handed to the workers as ``resolve_overdue_prompt`` tasks
    (on the resolution queue, shared by every worker) instead of being resolved one
    after another in this task, so a minute with thousands of deadlines does not
    overrun the next sweep. Each is resolved exactly once whoever gets it first."""
    from games.services.orders import schedule_resolution

    now = now or timezone.now()
    started = time.monotonic()
    resolved = 0
    handed: list[tuple[int, int, int]] = []  # (prompt id, game id, prompt number)
    read_deadlines: dict[int, datetime] = {}  # the deadline each was handed out for
    due = (
        Prompt.objects.filter(
            status=Prompt.Status.OPEN, game__status=Game.Status.ACTIVE, deadline__lte=now
        )
        .select_related("game")
        .order_by("deadline", "pk")
    )
    for prompt in due:
        due_at = enforce_due_at(game=prompt.game, prompt=prompt)
        if due_at is None or due_at > now:
            continue
        if prompt.handed_out_at is not None and prompt.handed_out_at > now - HANDED_OUT_FOR:
            continue  # a worker has it (or will soon): neither queued again nor raced here
        if inline_seconds is not None and time.monotonic() - started >= inline_seconds:
            handed.append((prompt.pk, prompt.game_id, prompt.number))
            read_deadlines[prompt.pk] = prompt.deadline
            continue
        try:
            if overdue_prompt_resolve(game_id=prompt.game_id, prompt_number=prompt.number, now=now):
                resolved += 1
        except Exception:  # one broken game must not stop the sweep for the others
            logger.exception("deadline resolution failed for game %s", prompt.game_id)
    if handed:
        _hand_out(handed, now, read_deadlines=read_deadlines)
        logger.info("deadline sweep: %d due prompts handed to the workers", len(handed))
    stale = Prompt.objects.filter(
        status=Prompt.Status.OPEN,
        game__status=Game.Status.ACTIVE,
        resolve_after__lte=now - timedelta(seconds=READY_SWEEP_SECONDS),
    )
    for prompt in stale:
        with transaction.atomic():
            schedule_resolution(game_id=prompt.game_id, prompt_number=prompt.number)
    return resolved


def _hand_out(
    handed: list[tuple[int, int, int]],
    now: datetime,
    read_deadlines: dict[int, datetime] | None = None,
) -> None:
    """Queue ``resolve_overdue_prompt`` for each (prompt id, game id, number) due by
    ``now``, and note the hand-out (the sweeps leave them to the workers a while).
    ``read_deadlines``: the deadline each prompt was found due at (by prompt id); a
    prompt whose deadline changed since (extended, paused) is not noted: its task finds
    it not due, and the sweep must not leave its new deadline alone (a race audit)."""
    from games.tasks import resolve_overdue_prompt

    if read_deadlines:
        unchanged = Q(pk__in=[])
        for pk, _g, _n in handed:
            unchanged |= Q(pk=pk, deadline=read_deadlines[pk])
        Prompt.objects.filter(unchanged).update(handed_out_at=now)
    else:
        Prompt.objects.filter(pk__in=[pk for pk, _g, _n in handed]).update(handed_out_at=now)
    for _pk, game_id, number in handed:
        resolve_overdue_prompt.delay(game_id, number, now.isoformat())


def stuck_prompts_requeue(*, prompts: list[Any], now: datetime | None = None) -> int:
    """Queue again the resolution of prompts an incident left open (``StuckPrompt``s of
    ``games.selectors_stuck``), as the deadline sweep does: a complete prompt's
    ``resolve_prompt`` on commit, a prompt past its deadline handed to the workers
    (``resolve_overdue_prompt``: default orders, then the resolution). Either resolves a
    prompt exactly once, however often it is queued. Returns how many were queued."""
    from games.services.orders import schedule_resolution

    now = now or timezone.now()
    overdue = [(p.prompt_id, p.game_id, p.number) for p in prompts if p.owed]
    for prompt in prompts:
        if not prompt.owed:
            with transaction.atomic():
                schedule_resolution(game_id=prompt.game_id, prompt_number=prompt.number)
    if overdue:
        _hand_out(overdue, now)
    return len(prompts)


#: How many times the sweep reads a due prompt's mail that came in time, when more of it
#: turned up unread while it did (the next sweep comes back after that).
MAIL_READS = 3


def overdue_prompt_resolve(*, game_id: int, prompt_number: int, now: datetime | None = None) -> bool:
    """Resolve one prompt whose deadline (plus grace) has passed by ``now``: orders by
    email that came in time are read first, then missing orders are filled by default.
    The deadline is checked again under the game's lock (an extension or a pause that
    committed after the sweep read the prompt wins). True if this call resolved it.

    An email stored in time but still unread once the game is locked (its row committed
    after the mail was read, or a worker reading it waits for this lock) is read before
    any default order is filled: the lock is let go, the mail read again (a worker's
    reading is waited for), and the prompt resolved then; a race audit found such an
    order refused as too late and the seat's default played."""
    from games.services.locking import lock_game
    from games.services.resolution import prompt_resolve

    now = now or timezone.now()
    prompt = (
        Prompt.objects.filter(game_id=game_id, number=prompt_number, status=Prompt.Status.OPEN)
        .select_related("game")
        .first()
    )
    if prompt is None:
        return False
    due_at = enforce_due_at(game=prompt.game, prompt=prompt)
    if due_at is None or due_at > now:
        return False
    for _read in range(MAIL_READS):
        _read_mail_that_came_in_time(game_id=game_id, due_at=due_at)
        with transaction.atomic():
            lock_game(game_id=game_id)  # no order lands from here to the resolution
            if _mail_unread(game_id=game_id, due_at=due_at):
                continue  # the lock is let go: a worker reading it finishes
            return prompt_resolve(
                game_id=game_id, prompt_number=prompt_number, fill_missing=True, now=now
            )
    logger.info(
        "game %s: prompt %s left open for the next sweep: mail stored in time is still unread",
        game_id, prompt_number,
    )  # fmt: skip
    return False


def _mail_unread(*, game_id: int, due_at: datetime) -> bool:
    """Whether an email to one of the game's seats, stored before ``due_at``, has not been
    read at all yet (``received``: committed after the mail was read, or being read)."""
    from games.mail.models import InboundMail

    return InboundMail.objects.filter(
        seat__game_id=game_id, created_at__lt=due_at, status=InboundMail.Status.RECEIVED
    ).exists()


def _read_mail_that_came_in_time(*, game_id: int, due_at: datetime) -> None:
    """Orders by email stored before the prompt closed but not read yet (a worker
    down, a queue behind): read them now, before their seats' orders are filled by
    default, so an order that arrived in time counts (each is processed once; a failure
    leaves the row for its own retries)."""
    from games.mail.limits import max_attempts
    from games.mail.models import InboundMail
    from games.mail.processing import MailSystemError, process_stored

    # Not read yet, or a first reading that failed (a database error) whose retries are
    # still to come: its retry may be hours away (a broker restart loses its countdown).
    waiting = (
        InboundMail.objects.filter(seat__game_id=game_id, created_at__lt=due_at)
        .filter(
            Q(status=InboundMail.Status.RECEIVED)
            | Q(status=InboundMail.Status.FAILED, outcome="system_error", attempts__lt=max_attempts())
        )
        .order_by("created_at", "pk")
        .values_list("pk", flat=True)
    )
    for inbound_id in waiting:
        try:
            process_stored(inbound_id)
        except MailSystemError:  # recorded on the row; its retries go on
            logger.warning("deadline sweep: inbound #%s could not be read first", inbound_id)


# A reminder moved out of the quiet hours still comes this long before the deadline.
REMINDER_MARGIN = timedelta(minutes=15)


def reminder_due_at(*, game: Game, prompt: Prompt) -> datetime:
    """When the reminder of ``prompt`` goes out: ``reminder_hours`` before its deadline,
    unless that falls in the game's quiet hours (a time audit: reminders went out at
    01:00): then at the window's end if that is still before the deadline (with
    ``REMINDER_MARGIN``), else at the last quarter hour before the window while the prompt
    was open, else as planned (nothing better)."""
    planned = prompt.deadline - timedelta(hours=game.reminder_hours)
    start, end = game.quiet_hours_start, game.quiet_hours_end
    zone = game.quiet_hours_time_zone
    after = push_out_of_quiet_hours(moment=planned, start=start, end=end, zone=zone)
    if after == planned:
        return planned
    if after + REMINDER_MARGIN <= prompt.deadline:
        return after
    moment = planned.replace(second=0, microsecond=0)
    opened = prompt.opened_at
    for _step in range(24 * 4):
        moment -= timedelta(minutes=15)
        if opened is not None and moment < opened:
            break
        if push_out_of_quiet_hours(moment=moment, start=start, end=end, zone=zone) == moment:
            return moment
    return planned


def reminders_reset(*, game: Game, prompt: Prompt, now: datetime | None = None) -> int:
    """After a deadline moved (an extension, a resume): the reminders already sent for
    ``prompt`` are forgotten when the new reminder time is still to come, so that they go
    out again before the new deadline (a time audit: a player reminded before the old
    deadline heard nothing before the new one). A reminder time already past keeps them:
    the notice of the change has just said the deadline. Returns how many were forgotten."""
    if prompt.deadline is None or game.reminder_hours <= 0:
        return 0
    if reminder_due_at(game=game, prompt=prompt) <= (now or timezone.now()):
        return 0
    return Reminder.objects.filter(prompt=prompt).delete()[0]


class _EpochHours(Func):
    """A moment as hours since 1970 (a float), on PostgreSQL and on SQLite (zero-config
    mode), whose duration arithmetic Django writes differently."""

    output_field = FloatField()
    template = "(EXTRACT(EPOCH FROM %(expressions)s) / 3600.0)"

    def as_sqlite(self, compiler, connection, **extra):  # type: ignore[no-untyped-def]
        # SQLite stores a UTC moment as text; julianday() reads it in days.
        template = "((julianday(%(expressions)s) - 2440587.5) * 24.0)"
        return self.as_sql(compiler, connection, template=template, **extra)


#: How far before its planned moment (``reminder_hours`` before the deadline) a reminder
#: can come: the quiet hours move it back by a day at most (``reminder_due_at``), plus an
#: hour to spare (its minute rounding, a clock change).
_REMINDER_BOUND_HOURS = 25.0
#: The game's columns ``reminder_due_at`` reads.
_REMINDER_GAME_FIELDS = (
    "game__reminder_hours",
    "game__quiet_hours_start",
    "game__quiet_hours_end",
    "game__quiet_hours_time_zone",
)


def send_reminders(*, now: datetime | None = None) -> int:
    """Email every active seat that still owes an order when its prompt's reminder is due
    (``reminder_due_at``: the game's ``reminder_hours`` before the deadline, out of the
    quiet hours); once per prompt and seat (again after ``reminders_reset``). Returns how
    many reminders were queued. The prompts whose reminder is due, the orders and the
    reminders already sent are read in three queries, then the whole rows of the prompts
    someone is reminded of and their seats in two (the sweep runs every few minutes: it
    read two a prompt and tried to insert every reminder again)."""
    from games.services.notifications import notify_reminder

    now = now or timezone.now()
    # The database leaves out every prompt whose reminder is more than a day away (the
    # quiet hours move a reminder earlier by a day at most, or later; an hour to spare),
    # and the choice reads only the columns it needs (a data-at-scale audit: every open
    # prompt of every active game, whole rows, every five minutes).
    candidates = (
        Prompt.objects.filter(
            status=Prompt.Status.OPEN,
            game__status=Game.Status.ACTIVE,
            game__reminder_hours__gt=0,
            deadline__gt=now,
        )
        .alias(
            reminder_bound=_EpochHours("deadline") - F("game__reminder_hours") - _REMINDER_BOUND_HOURS
        )
        .filter(reminder_bound__lte=now.timestamp() / 3600)
        .select_related("game")
        .only("game_id", "number", "pending", "deadline", "opened_at", *_REMINDER_GAME_FIELDS)
    )
    due = [p for p in candidates if reminder_due_at(game=p.game, prompt=p) <= now]
    if not due:
        return 0
    ids = [p.pk for p in due]
    done = set(
        SealedOrder.objects.filter(prompt_id__in=ids, is_current=True).values_list(
            "prompt_id", "seat_name"
        )
    )
    done |= set(Reminder.objects.filter(prompt_id__in=ids).values_list("prompt_id", "seat_name"))
    owing = [(p.pk, name) for p in due for name in p.pending if (p.pk, name) not in done]
    if not owing:
        return 0
    # The whole rows of the few prompts someone is reminded of (the email shows the game).
    prompts = Prompt.objects.select_related("game").in_bulk({pk for pk, _n in owing})
    owing = [(prompts[pk], name) for pk, name in owing if pk in prompts]
    seats = {
        (seat.game_id, seat.name): seat
        for seat in Seat.objects.filter(
            game_id__in={p.game_id for p, _n in owing},
            status=Seat.Status.ACTIVE,
            name__in={name for _p, name in owing},
        ).select_related("user", "user__player_settings")
    }
    sent = 0
    for prompt, name in owing:
        seat = seats.get((prompt.game_id, name))
        if seat is None:  # resigned or replaced meanwhile: no reminder
            continue
        try:
            with transaction.atomic():
                # Read again under the game's lock: what was read above may have changed
                # since (a race audit: a deadline extended meanwhile got its reminder now,
                # over ``reminders_reset``, and none before the new deadline; a prompt
                # resolved meanwhile was reminded of, closed).
                fresh = _reminder_still_owed(prompt=prompt, seat=seat, now=now)
                if fresh is None:
                    continue
                Reminder.objects.create(prompt=fresh, seat_name=name)
                notify_reminder(game=fresh.game, prompt=fresh, seat=seat)
        except IntegrityError:
            continue  # reminded by a sweep running at the same moment
        except GameBusy:
            continue  # the next sweep, in five minutes
        sent += 1
    return sent


def _reminder_still_owed(*, prompt: Prompt, seat: Seat, now: datetime) -> Prompt | None:
    """``prompt`` read again after taking its game's lock, if ``seat`` (active still) is
    to be reminded of it now: the prompt still open in a running game, its reminder due
    before its deadline, the seat's order not in. None otherwise."""
    from games.services.locking import lock_game

    game = lock_game(game_id=prompt.game_id)
    if game.status != Game.Status.ACTIVE:
        return None
    fresh = Prompt.objects.filter(pk=prompt.pk, status=Prompt.Status.OPEN).first()
    if fresh is None or fresh.deadline is None or fresh.deadline <= now:
        return None
    fresh.game = game
    if reminder_due_at(game=game, prompt=fresh) > now:
        return None
    if not Seat.objects.filter(pk=seat.pk, status=Seat.Status.ACTIVE).exists():
        return None
    if SealedOrder.objects.filter(prompt=fresh, seat_name=seat.name, is_current=True).exists():
        return None
    return fresh
