"""The daily summary: a player who chose it (``PlayerSettings.turn_emails`` "daily") gets,
instead of the turn and result emails of every prompt, one email a day at the hour it
chose in its time zone, listing every game waiting for its order (prompt, deadline, the
seat's reply address, the game's page) and what happened in each game since the last
summary (the events the seat may see, as the turn emails word them).

What still comes one by one: deadline reminders (a summary must never make a player miss
a deadline), the end of a game, notices (paused, resumed, deadline moved, a seat handed
over), invitations and the account's emails.

At most one summary per player and day, the day being the player's own in the zone it
has now, and no day missed when the zone changes: a summary is due once the chosen hour
has come on the player's day and no summary was written earlier that day (the instants the
earlier ones were written, ``TurnSummary.until``, read on the zone's clock now). A player
moving across the date line from UTC+14 to UTC-11 had a summary at 20:00 that was 19:00 the
day before in its new zone: that day has had its summary, and the next comes at 20:00 the
day after (not an hour later, nor two days later). The ``TurnSummary`` row is written in
the transaction that queues the email, with the player's settings row locked first, so two
workers, or the beat run twice, never send two: the second waits for the first's commit,
then finds that day's summary (unique per player, day and zone besides).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F, Max, Q, Window
from django.db.models.functions import RowNumber
from django.template.loader import render_to_string
from django.utils import timezone

from engine.words import counted
from fivex_site.links import public_url
from games.models import Game, OutboxMessage, PlayerSettings, Prompt, SealedOrder, Seat, TurnSummary
from games.presentation import prompt_stage, winner_words
from games.selectors_lists import asked_seats
from games.selectors_players import time_zone_of

logger = logging.getLogger(__name__)

#: A summary tells at most so many prompts of one game (the rest is on the game's log).
PROMPTS_PER_GAME = 50
#: A game whose deadline is shorter than this may pass its deadline between two summaries.
SUMMARY_PERIOD_HOURS = 24
LIVE = (Game.Status.ACTIVE, Game.Status.PAUSED)
OVER = (Game.Status.FINISHED, Game.Status.ABANDONED)


@dataclass
class GameSummary:
    """What one summary says of one seat's game."""

    game: Game
    seat: Seat
    prompt: Prompt | None = None  # the open prompt, when it waits for the seat's order
    stage: str = ""
    reply_address: str = ""
    url: str = ""
    paused: bool = False
    open_number: int | None = None  # the open prompt's number, asking the seat or not
    waits_for: list[str] = field(default_factory=list)  # who the open prompt waits for (public)
    lines: list[str] = field(default_factory=list)  # what happened since the last summary

    @property
    def waiting(self) -> bool:
        return self.prompt is not None


def summary_due_day(*, row: PlayerSettings, now: datetime, last: datetime | None = None) -> date | None:
    """The day (in the player's time zone) whose summary is due at ``now``: once the
    chosen hour has come that day (on the clock: an hour the clocks skip comes at their
    change, an hour they repeat the first time); None before it, on the day the summary
    was turned on after that hour (the first one comes at the hour the next day), and when
    the last summary, written at ``last``, was written that day or later on this zone's
    clock (one written in another zone before the player moved it counts as of the day
    it was on here)."""
    zone = time_zone_of(user=row.user)
    local = now.astimezone(zone)
    at = datetime.combine(local.date(), time(row.summary_hour), tzinfo=zone)
    if local < at or (row.summary_since is not None and row.summary_since > at):
        return None
    if last is not None and last.astimezone(zone).date() >= local.date():
        return None
    return local.date()


def summaries_due(*, now: datetime) -> list[tuple[int, date]]:
    """The players whose summary of the day is due and not written yet: (user id, day)."""
    rows = list(
        PlayerSettings.objects.filter(turn_emails=PlayerSettings.TurnEmails.DAILY, user__is_active=True)
        .exclude(user__email="")
        .select_related("user")
    )
    # Only those whose hour has come today can be due: their recent summaries alone are
    # read (not a list of every player who wants one, every five minutes).
    rows = [row for row in rows if summary_due_day(row=row, now=now) is not None]
    if not rows:
        return []
    # The last summary of each, among the recent ones only: one that counts for today was
    # written since today began in the player's zone (25 hours ago at most), and its day,
    # in whichever zone, is at most a day before that moment's UTC date (the index's
    # second column: the players' whole history is not read every five minutes).
    last = dict(
        TurnSummary.objects.filter(
            user_id__in=[row.user_id for row in rows], day__gte=(now - timedelta(days=3)).date()
        )
        .values("user_id")
        .annotate(last=Max("until"))
        .values_list("user_id", "last")
    )
    due = (
        (row.user_id, summary_due_day(row=row, now=now, last=last.get(row.user_id))) for row in rows
    )
    return sorted((user_id, day) for user_id, day in due if day is not None)


def send_turn_summaries(*, now: datetime | None = None) -> int:
    """Beat: queue the summaries due (each in its own transaction: one that fails is
    tried again at the next run). Returns how many emails were queued."""
    now = now or timezone.now()
    sent = 0
    for user_id, day in summaries_due(now=now):
        try:
            sent += turn_summary_send(user_id=user_id, day=day, now=now) is not None
        except Exception:  # one player's summary never stops the others'
            logger.exception("daily summary of user %s for %s failed", user_id, day)
    return sent


def turn_summary_send(*, user_id: int, day: date, now: datetime) -> OutboxMessage | None:
    """Write the player's summary of ``day`` and queue its email (in the outbox, sent by
    the outbox's tasks), once: None when it was written already (by this or another
    worker), when it is not due any more (the player's zone or hour changed since it was
    found due: ``summary_due_day``, read again under the lock), when the player no longer
    wants it, or when there is nothing to tell."""
    from games.services.notifications import mailable, wants_daily_summary
    from games.services.outbox import outbox_enqueue

    with transaction.atomic():
        # Locked: a second worker waits here for the first's commit, then finds its row.
        row = (
            PlayerSettings.objects.select_for_update(of=("self",))
            .select_related("user")
            .filter(user_id=user_id)
            .first()
        )
        if row is None or not wants_daily_summary(row.user) or not mailable(row.user):
            return None
        last = TurnSummary.objects.filter(user_id=user_id).order_by("-until", "-id").first()
        if summary_due_day(row=row, now=now, last=last.until if last else None) != day:
            return None  # written since, or the zone or the hour changed: not due now
        zone_name = time_zone_of(user=row.user).key
        try:
            with transaction.atomic():
                summary = TurnSummary.objects.create(
                    user_id=user_id, day=day, time_zone=zone_name, until=now
                )
        except IntegrityError:  # another worker wrote it
            return None
        since = row.summary_since or now - timedelta(hours=SUMMARY_PERIOD_HOURS)
        covered: dict[str, int] = {}
        if last is not None and last.until >= since:
            since, covered = last.until, dict(last.covered or {})
        # (turned off and on again since the last one: the emails of every prompt told
        # what happened meanwhile; this one starts at the switch)
        games, summary.covered = summary_games(user=row.user, since=since, covered=covered)
        if not games:
            summary.save(update_fields=["covered"])
            return None
        waiting = [g for g in games if g.waiting]
        with timezone.override(time_zone_of(user=row.user)):
            body = render_to_string(
                "games/email/summary.txt",
                {
                    "day": day,
                    "waiting": waiting,
                    "others": [g for g in games if not g.waiting],
                    "settings_url": public_url("/account/settings/#turn-emails"),
                },
            )
        count = counted(len(waiting), "game")
        message = outbox_enqueue(
            to=row.user.email,
            subject=(
                f"Daily summary: {count} {'waits' if len(waiting) == 1 else 'wait'} for your order"
                if waiting
                else "Daily summary: no game waits for your order"
            ),
            body=body,
            kind="turn_summary",
            key=f"summary:{user_id}:{day.isoformat()}:{zone_name}",
        )
        summary.message = message
        summary.save(update_fields=["covered", "message"])
    return message


def summary_games(
    *, user: Any, since: datetime, covered: dict[str, int]
) -> tuple[list[GameSummary], dict[str, int]]:
    """What a summary tells of each of the player's seats: the games waiting for its order
    first, then those where something happened since ``since`` (or, for a seat in
    ``covered``, since the prompt numbered there), by game. Returns them and the new
    ``covered`` (per seat id, the last resolved prompt told).

    A fixed number of queries whatever the number of games (each read for all the seats'
    games at once), not a few per game."""
    from games.services.notifications import game_url, seat_event_lines, started_words
    from games.services.seats import seat_reply_address

    seats = list(
        Seat.objects.filter(user=user, status=Seat.Status.ACTIVE)
        .filter(Q(game__status__in=LIVE) | Q(game__status__in=OVER, game__finished_at__gt=since))
        .select_related("game")
        .order_by("game_id", "position", "id")
    )
    if not seats:
        return [], {}
    told_by_game = _told_prompts(seats=seats, since=since, covered=covered)
    game_ids = {seat.game_id for seat in seats}
    last_by_game = dict(
        Prompt.objects.filter(game_id__in=game_ids, status=Prompt.Status.RESOLVED)
        .values("game_id")
        .annotate(last=Max("number"))
        .values_list("game_id", "last")
    )
    started_ids = {
        seat.game_id
        for seat in seats
        if str(seat.pk) not in covered and seat.game.started_at is not None and seat.game.started_at > since
    }
    seating: dict[int, list[str]] = {}
    for game_id, name in (
        Seat.objects.filter(game_id__in=started_ids).order_by("game_id", "position").values_list("game_id", "name")
    ):
        seating.setdefault(game_id, []).append(name)
    open_prompts = _open_prompts(games=[seat.game for seat in seats])
    out: list[GameSummary] = []
    new_covered: dict[str, int] = {}
    for seat in seats:
        game = seat.game
        after = covered.get(str(seat.pk))
        prompts = [
            p
            for p in told_by_game.get(game.pk, [])
            if (p.number > after if after is not None else p.resolved_at > since)
        ][-PROMPTS_PER_GAME:]
        last = last_by_game.get(game.pk)
        if last is not None:
            new_covered[str(seat.pk)] = last
        item = GameSummary(
            game=game, seat=seat, reply_address=seat_reply_address(seat=seat), url=game_url(game),
            paused=game.status == Game.Status.PAUSED,
        )  # fmt: skip
        if after is None and game.started_at is not None and game.started_at > since:
            item.lines.append(started_words(game, seating=seating.get(game.pk, [])))
        for told in prompts:
            # the turn email's headline, then its "What happened" lines
            item.lines.append(f"Decision {told.number} ({told.phase}) is resolved.")
            item.lines += [
                f"  - {line}"
                for line in seat_event_lines(game=game, events=list(told.events or []), seat_name=seat.name)
            ]
        if game.status == Game.Status.FINISHED:
            item.lines.append(f"The game is over: {winner_words(game.ranking)} (emailed to you then).")
        elif game.status == Game.Status.ABANDONED:
            item.lines.append("The game was ended early (emailed to you then).")
        prompt, item.waits_for = open_prompts.get(game.pk, (None, []))
        if prompt is not None and seat.name in item.waits_for:
            item.prompt = prompt
        if prompt is not None:
            item.open_number = prompt.number
            item.stage = prompt_stage(ruleset=game.ruleset, round_number=prompt.round, phase=prompt.phase)
        if item.waiting or item.lines:
            out.append(item)
    out.sort(key=lambda g: (not g.waiting, g.game.pk))
    return out, new_covered


def _told_prompts(*, seats: list[Seat], since: datetime, covered: dict[str, int]) -> dict[int, list[Prompt]]:
    """Per game, the resolved prompts some seat's summary tells (resolved since ``since``,
    or numbered after the seat's ``covered`` prompt), the last ``PROMPTS_PER_GAME`` of
    them by number, oldest first: one query for every game."""
    told = Q()
    for seat in seats:
        after = covered.get(str(seat.pk))
        told |= Q(game_id=seat.game_id) & (
            Q(number__gt=after) if after is not None else Q(resolved_at__gt=since)
        )
    rows = (
        Prompt.objects.filter(told, status=Prompt.Status.RESOLVED)
        .annotate(
            latest=Window(RowNumber(), partition_by=[F("game_id")], order_by=F("number").desc())
        )
        .filter(latest__lte=PROMPTS_PER_GAME)
        .only("id", "game_id", "number", "phase", "events", "resolved_at")
        .order_by("game_id", "number")
    )
    out: dict[int, list[Prompt]] = {}
    for prompt in rows:
        out.setdefault(prompt.game_id, []).append(prompt)
    return out


def _open_prompts(*, games: list[Game]) -> dict[int, tuple[Prompt | None, list[str]]]:
    """Per game going on, its open prompt and the seats it still waits for, asked and
    without an order (public: the game page shows who has ordered); a paused game has
    none (no order is taken). Two queries for every game."""
    active = {game.pk for game in games if game.status == Game.Status.ACTIVE}
    prompts: dict[int, Prompt] = {}
    for prompt in Prompt.objects.filter(game_id__in=active, status=Prompt.Status.OPEN).order_by(
        "game_id", "-number"
    ):
        prompts.setdefault(prompt.game_id, prompt)
    ordered: dict[int, set[str]] = {}
    for prompt_id, seat_name in SealedOrder.objects.filter(
        prompt_id__in=[p.pk for p in prompts.values()], is_current=True
    ).values_list("prompt_id", "seat_name"):
        ordered.setdefault(prompt_id, set()).add(seat_name)
    out: dict[int, tuple[Prompt | None, list[str]]] = {}
    for game_id, prompt in prompts.items():
        done = ordered.get(prompt.pk, set())
        out[game_id] = (prompt, [n for n in asked_seats(prompt) if n not in done])
    return out


def short_deadline_games(*, user: Any) -> list[Game]:
    """The player's games going on (or forming) whose deadlines are shorter than a day:
    the daily summary may come after such a deadline (the reminder still comes)."""
    return list(
        Game.objects.filter(
            seats__user=user,
            seats__status=Seat.Status.ACTIVE,
            status__in=[Game.Status.FORMING, *LIVE],
            deadline_hours__lt=SUMMARY_PERIOD_HOURS,
        )
        .distinct()
        .order_by("pk")
    )


def summary_warning(*, user: Any) -> str:
    """What the settings say to a player whose games have deadlines shorter than a day
    ("" when none has): the daily summary may come after such a deadline."""
    from games.presentation import and_list

    games = short_deadline_games(user=user)
    if not games:
        return ""
    titles = and_list([g.title for g in games[:5]] + ([f"{len(games) - 5} more"] if len(games) > 5 else []))
    return (
        f"{titles} {'has deadlines' if len(games) == 1 else 'have deadlines'} shorter than a "
        "day: with the daily summary, a prompt may open and reach its deadline between two "
        "summaries. The reminder before the deadline still comes by email."
    )
