"""Players who are away: a deadline that waits for them.

A player says until when they are away (*Account → Settings*, ``player_away_set``). A
game may wait for its players when they are away: ``Game.away_days`` days a seat over
the whole game (0, the default: it never waits). When a prompt's deadline (plus grace)
passes with the order of such a seat missing, the deadline sweep moves the deadline to
the player's return instead of entering the default order (``deadline_hold``, called by
``resolution.prompt_resolve`` under the game's lock), at most as far as the seat's days
left allow; the move is logged (``deadline_held``) and every seat is told. The seat's
player orders as usual meanwhile (a prompt resolves as soon as every order is in); once
the new deadline passes, the sweep fills what is still missing, as it always does (or
waits again, for another player away, or for the same one while days are left).

A held deadline is not moved when the player changes their return (another day, another
time zone): a later return is waited for when it passes (the sweep holds it again), and
an earlier one never brings it forward, as every seat was told it (README, "Players who
are away").

Being away is public in the games that wait for it: the other players see why their
deadline moved, and the seat list says "away until ...".
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.utils import timezone

from games.errors import ValidationError
from games.models import Game, PlayerSettings, Prompt, Seat
from games.presentation import and_list, duration_words, local_time

#: The most days a game may wait for each of its seats (``Game.away_days``).
AWAY_DAYS_MAX = 14
#: How far ahead a player may say they are away.
AWAY_AHEAD_DAYS = 60
#: A wait shorter than this is not worth moving a deadline for: the defaults are entered.
SHORTEST_HOLD = timedelta(minutes=5)


def away_days_check(value: Any) -> int:
    """``Game.away_days`` as given to a new game: a whole number of days, 0 to
    ``AWAY_DAYS_MAX``. Raises ValidationError."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= AWAY_DAYS_MAX:
        raise ValidationError(
            f"away_days: a whole number of days from 0 (deadlines never wait) to {AWAY_DAYS_MAX}.",
            field="away_days",
        )
    return value


def player_away_set(
    *, user: Any, until: date | None, now: datetime | None = None
) -> datetime | None:
    """``user`` is away until the end of the day ``until`` in their own time zone (None:
    not away, or back). Returns the moment stored. Raises ValidationError (a day past, or
    more than ``AWAY_AHEAD_DAYS`` ahead)."""
    from games.selectors_players import time_zone_of

    if until is None:
        PlayerSettings.objects.filter(user=user).update(away_until=None)
        return None
    zone = time_zone_of(user=user)
    now = now or timezone.now()
    today = now.astimezone(zone).date()
    if until < today:
        raise ValidationError("That day is past: say the last day you are away.", field="until")
    if until > today + timedelta(days=AWAY_AHEAD_DAYS):
        raise ValidationError(
            f"Say at most {AWAY_AHEAD_DAYS} days ahead; you can say it again later.", field="until"
        )
    moment = day_end(until, zone)
    PlayerSettings.objects.update_or_create(user=user, defaults={"away_until": moment})
    return moment


def day_end(day: date, zone: ZoneInfo) -> datetime:
    """The end of ``day`` where the player lives: the next day's start there, in UTC
    (where the clocks jump from 00:00 to 01:00 that day, the moment of the jump)."""
    return datetime.combine(day + timedelta(days=1), time(0, 0), tzinfo=zone).astimezone(UTC)


def away_end_in_zone(until: datetime, *, before: str, after: str) -> datetime:
    """The end of a player's last day away (``until``, that day's end in the zone named
    ``before``: "" is UTC) once the player's zone is ``after``: the same day's end there.
    A moment that is no day's end in ``before`` (none ``player_away_set`` stores) is kept."""
    last = (until - timedelta(microseconds=1)).astimezone(_zone(before)).date()
    if day_end(last, _zone(before)) != until:
        return until
    return day_end(last, _zone(after))


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):  # a zone this machine lost
        return ZoneInfo("UTC")


def away_until(*, user: Any, now: datetime | None = None) -> datetime | None:
    """Until when ``user`` is away, or None (not away, or the day is past)."""
    until = PlayerSettings.objects.filter(user=user).values_list("away_until", flat=True).first()
    return until if until is not None and until > (now or timezone.now()) else None


def seats_away(*, seats: list[Seat], now: datetime | None = None) -> dict[str, datetime]:
    """The seats (active ones) whose player is away now: seat name -> until when."""
    now = now or timezone.now()
    users = {seat.user_id: seat.name for seat in seats if seat.status == Seat.Status.ACTIVE}
    if not users:
        return {}
    return {
        users[user_id]: until
        for user_id, until in PlayerSettings.objects.filter(
            user_id__in=list(users), away_until__gt=now
        ).values_list("user_id", "away_until")
    }


def _days_left(game: Game, seat: Seat) -> float:
    """How long (seconds) the game may still wait for the seat's player while away."""
    return game.away_days * 86400.0 - seat.away_held_seconds


def waits_for_seat(
    *, game: Game, seat: Seat, prompt: Prompt, at: datetime, arrived: datetime
) -> bool:
    """Whether an order of ``seat`` that ``arrived`` after the prompt's deadline passed at
    ``at`` (the deadline plus grace) is still taken: the game waits for players who are
    away, and the sweep, run at ``at``, would have moved the deadline for this seat
    (``deadline_hold``: to the player's return, or their days' end, at least
    ``SHORTEST_HOLD`` later), a wait ``arrived`` falls in (out of the quiet hours, plus
    grace). Read only for an order past its deadline, before the sweep came by."""
    from games.services.deadlines import out_of_quiet_hours

    left = _days_left(game, seat)
    if not game.away_days or prompt.deadline is None or left <= 0:
        return False
    until = (
        PlayerSettings.objects.filter(user_id=seat.user_id)
        .values_list("away_until", flat=True)
        .first()
    )
    if until is None or until <= at:
        return False
    hold = min(until, prompt.deadline + timedelta(seconds=left))
    if hold < at + SHORTEST_HOLD:
        return False
    ends = out_of_quiet_hours(game=game, moment=hold) + timedelta(minutes=game.grace_minutes)
    return arrived < ends


def _player_away_until(seat: Seat, now: datetime) -> datetime | None:
    settings_row = getattr(seat.user, "player_settings", None)
    until = getattr(settings_row, "away_until", None)
    return until if until is not None and until > now else None


def deadline_hold(
    *, game: Game, prompt: Prompt, missing: list[str], seats: list[Seat], now: datetime
) -> bool:
    """The deadline sweep found ``prompt`` due with the orders of ``missing`` seats not in:
    when the game waits for players who are away (``Game.away_days``) and some of them are,
    with days left, move its deadline to the latest of their returns (each seat's wait
    capped by its days left; out of the quiet hours), count each seat's wait, log it
    (``deadline_held``) and tell every seat. True when the deadline moved (nothing is
    resolved then). The caller holds the game's lock and read ``seats`` (with their
    users and settings) under it."""
    from games.services.audit import log_append
    from games.services.deadlines import out_of_quiet_hours, reminders_reset
    from games.services.notifications import notify_game_notice

    if prompt.deadline is None or not game.away_days:
        return False
    budget = game.away_days * 86400.0
    by_name = {seat.name: seat for seat in seats}
    holds: dict[str, datetime] = {}
    returns: dict[str, datetime] = {}  # when each said they are back (a hold may stop short)
    for name in missing:
        seat = by_name.get(name)
        if seat is None or seat.status != Seat.Status.ACTIVE:
            continue
        until = _player_away_until(seat, now)
        left = _days_left(game, seat)
        if until is None or left <= 0:
            continue
        hold = min(until, prompt.deadline + timedelta(seconds=left))
        if hold >= now + SHORTEST_HOLD:
            holds[name], returns[name] = hold, until
    if not holds:
        return False
    old = prompt.deadline
    new = out_of_quiet_hours(game=game, moment=max(holds.values()))
    waited: dict[str, float] = {}
    for name, hold in holds.items():
        seat = by_name[name]
        # A seat pays for its own wait only: to its return (or its days' end), not for
        # a later player's nor for the quiet hours.
        seat.away_held_seconds = min(budget, seat.away_held_seconds + (hold - old).total_seconds())
        Seat.objects.filter(pk=seat.pk).update(away_held_seconds=seat.away_held_seconds)
        waited[name] = round(seat.away_held_seconds / 3600, 2)
    prompt.deadline = new
    prompt.handed_out_at = None  # a new deadline: the sweep's hand-out of the old one ends
    prompt.save(update_fields=["deadline", "handed_out_at"])
    reminders_reset(game=game, prompt=prompt, now=now)
    log_append(
        game=game,
        kind="deadline_held",
        payload={
            "prompt": prompt.number,
            "deadline": new.isoformat(),
            "away": {name: returns[name].isoformat() for name in sorted(holds)},
            # each seat's waits so far in this game, in hours (at most away_days × 24)
            "held_hours": dict(sorted(waited.items())),
            "away_days": game.away_days,
        },
    )
    number, names = prompt.number, sorted(holds)
    days_left = {name: _days_left(game, by_name[name]) for name in names}

    def text() -> str:  # in each reader's time zone
        who = and_list([f"{name} (away until {local_time(returns[name])})" for name in names])
        left = "; ".join(
            f"{name} may hold it {duration_words(days_left[name])} more in this game"
            if days_left[name] >= 60
            else f"{name}'s waits in this game are used up"
            for name in names
        )
        return (
            f"the deadline of decision {number} waits for {who}: it is now {local_time(new)}. "
            f"The game waits up to {game.away_days} day{'s' if game.away_days != 1 else ''} "
            f"in all for a player who is away ({left}). Orders may be sent and replaced as "
            "usual; the decision is resolved as soon as every order is in."
        )

    notify_game_notice(
        game=game,
        subject="Deadline moved: a player is away",
        text=text,
        key=f"held:{game.pk}:{prompt.number}:{new.isoformat()}",
    )
    return True
