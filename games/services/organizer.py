"""Organizer tools: extend a deadline, remind, pause and resume, end a game (handing a
seat to another player: ``games.services.handover``; what the tools share, who may use
them and who acted: ``games.services.organizer_common``; what the tools panel shows:
``games.services.organizer_panel``).

Each action is checked (organizer only, right game status, capped where it can be
abused), logged in the game's audit log and announced to the seats.

Ending a game early (``game_end``) makes it **abandoned**: no ranking is stored
(``Game.ranking`` stays null, since the rules rank only a finished game), the open
prompt's sealed orders are never revealed, and the seed is revealed in the
``game_ended`` entry so the played part can still be verified.
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.errors import GameStateError, ValidationError
from games.models import Game, LogEntry, Prompt, SealedOrder, Seat
from games.presentation import and_list, hours_length, local_time, resumption_words
from games.services.audit import end_reveal, log_append
from games.services.deadlines import out_of_quiet_hours, quiet_hours_move_words, reminders_reset
from games.services.locking import lock_game
from games.services.organizer_common import (
    _check_organizer,
    _clean_reason,
    _day_cap_reached,
    _open_prompt,
    _reason_said,
    acting,
    locked_forming,
    log_count,
    who_acted,
)
from games.services.queueing import enqueue_game_over_tasks

MAX_EXTENSION_HOURS = 24 * 14
# deadline_extend's refusal when the prompt's deadline was extended as often as allowed.
EXTENSIONS_CAPPED = "extensions_capped"
# deadline_extend's refusal of what the caller saw: the prompt it named was resolved, or
# its deadline was extended since (a double click, an API client's retry).
PROMPT_CLOSED = "prompt_closed"
ALREADY_EXTENDED = "already_extended"
# game_pause's refusal when the game was paused PAUSES_PER_DAY times in the last day.
PAUSES_CAPPED = "pauses_capped"
# Every pause or resume emails players, with the game's name (text the organizer chose)
# in it: without a limit, pausing and resuming in a loop mailed them as often as an
# organizer liked (a security audit; seat offers have limits of their own, handover.py).
PAUSES_PER_DAY = 4


def deadline_extend(
    *,
    game: Game,
    by: Any,
    hours: float,
    reason: str = "",
    prompt_number: int | None = None,
    extensions_seen: int | None = None,
) -> Prompt:
    """Push the open prompt's deadline back by ``hours`` (at most
    ``GAMES_MAX_DEADLINE_EXTENSIONS`` times per prompt; a new deadline in the quiet hours
    moves to their end). Works while paused too (the remaining time grows). Raises
    PermissionDenied, GameStateError, ValidationError.

    ``prompt_number`` and ``extensions_seen``, what the organizer's page showed: when the
    prompt was resolved meanwhile (the deadline won the race) or its deadline was extended
    meanwhile (a double click), nothing is extended and the GameStateError says why."""
    from games.services.notifications import notify_game_notice

    if (
        not isinstance(hours, int | float)
        or isinstance(hours, bool)
        or not (0 < hours <= MAX_EXTENSION_HOURS)
    ):
        raise ValidationError(f"Extend by more than 0 and at most {MAX_EXTENSION_HOURS} hours.")
    cap = getattr(settings, "GAMES_MAX_DEADLINE_EXTENSIONS", 3)
    with transaction.atomic():
        game = lock_game(game_id=game.pk)
        _check_organizer(game, by)
        if game.status not in (Game.Status.ACTIVE, Game.Status.PAUSED):
            raise GameStateError("Only a game in progress has a deadline to extend.")
        prompt = _open_prompt(game)
        # Numbers no page or answer ever showed (a client's bug): not a race to report.
        if prompt_number is not None and prompt_number > prompt.number:
            raise ValidationError(
                f"prompt: there is no prompt {prompt_number} yet (prompt {prompt.number} is "
                "open): nothing was extended.",
                field="prompt",
            )
        if prompt_number is not None and prompt.number != prompt_number:
            raise GameStateError(
                f"Prompt {prompt_number} was resolved before the extension arrived (prompt "
                f"{prompt.number} is open now): nothing was extended.",
                code=PROMPT_CLOSED,
            )
        if extensions_seen is not None and extensions_seen > prompt.extensions:
            raise ValidationError(
                f"extensions: the deadline of prompt {prompt.number} was extended "
                f"{prompt.extensions} times, not {extensions_seen}: nothing was extended.",
                field="extensions",
            )
        if extensions_seen is not None and prompt.extensions != extensions_seen:
            now = f" (now {local_time(prompt.deadline)})" if prompt.deadline else ""
            raise GameStateError(
                f"The deadline of prompt {prompt.number} was just extended{now}: nothing more "
                "was changed.",
                code=ALREADY_EXTENDED,
            )
        if prompt.extensions >= cap:
            times = f"{prompt.extensions} time{'' if prompt.extensions == 1 else 's'}"
            then = (
                "The game is paused: its deadline stays stopped until you resume it."
                if game.status == Game.Status.PAUSED
                else "To give the players more time, pause the game: its deadline stops "
                "until you resume it."
            )
            raise GameStateError(
                f"This deadline has already been extended {times} (the limit is {cap}). {then}",
                code=EXTENSIONS_CAPPED,
            )
        prompt.extensions += 1
        quiet = ""
        if prompt.deadline is not None:  # a deadline in the quiet hours moves to their end
            extended = prompt.deadline + timedelta(hours=hours)
            prompt.deadline = out_of_quiet_hours(game=game, moment=extended)
            if prompt.deadline != extended:
                quiet = quiet_hours_move_words(game=game, moved_from=extended, deadline=prompt.deadline)
        else:
            prompt.paused_remaining_seconds = (prompt.paused_remaining_seconds or 0) + hours * 3600
        # A new deadline: a hand-out of the old one to the workers (whose task finds the
        # prompt not due) no longer keeps the sweep off it (``deadlines.HANDED_OUT_FOR``).
        prompt.handed_out_at = None
        prompt.save(
            update_fields=["extensions", "deadline", "paused_remaining_seconds", "handed_out_at"]
        )
        reminders_reset(game=game, prompt=prompt)
        log_append(
            game=game,
            kind="deadline_extended",
            payload={
                "prompt": prompt.number,
                "hours": hours,
                "deadline": prompt.deadline.isoformat() if prompt.deadline else None,
                "extensions": prompt.extensions,
                "reason": _clean_reason(reason),
                **acting(game=game, by=by),
            },
        )
        staff = acting(game=game, by=by)["as"] == "staff"
        deadline, number, said = prompt.deadline, prompt.number, _reason_said(reason, staff=staff)
        who = who_acted(game=game, by=by)

        def text() -> str:  # in each reader's time zone
            when = (
                f"the new deadline is {local_time(deadline)}" if deadline else "the game is paused"
            )
            if quiet:
                when += f" ({quiet})"
            if staff:
                return f"{who} extended the deadline of decision {number} by {hours_length(hours)}; {when}.{said}"
            return f"the deadline of decision {number} was extended by {hours_length(hours)}; {when}.{said}"

        notify_game_notice(
            game=game,
            subject="Deadline extended",
            text=text,
            key=f"extended:{game.pk}:{prompt.number}:{prompt.extensions}",
            by=by,
        )
    return prompt


# game_remind's refusal when nothing is wrong: every order is in, or all were reminded.
NOBODY_TO_REMIND = "nobody_to_remind"


def _remind_targets(
    *, game: Game, prompt: Prompt, by: Any
) -> tuple[list[Seat], list[Seat], dict[str, Any], set[str]]:
    """The active seats that owe ``prompt`` an order (seat order), those of them ``by``
    may remind (not their own seat) and were not reminded for it yet, when each of the
    others was last reminded (by seat name), and the seats whose order is in."""
    sealed = set(
        SealedOrder.objects.filter(prompt=prompt, is_current=True).values_list(
            "seat_name", flat=True
        )
    )
    owing = list(
        Seat.objects.filter(
            game=game,
            status=Seat.Status.ACTIVE,
            name__in=[n for n in prompt.pending if n not in sealed],
        )
        .select_related("user", "user__player_settings")
        .order_by("position")
    )
    # Reminded already, as the log says (the outbox's rows are pruned in time): by seat
    # name, since the seat's holder took it (a seat handed over is a new row).
    sent = [
        (entry.created_at, name)
        for entry in LogEntry.objects.filter(
            game=game, kind="reminder_sent", payload__prompt=prompt.number
        )
        for name in (entry.payload.get("seats") or [])
    ]
    fresh: list[Seat] = []
    last: dict[str, Any] = {}
    for seat in owing:
        if seat.user_id == getattr(by, "pk", None):
            continue  # an organizer who plays is not emailed a reminder from themselves
        times = [at for at, name in sent if name == seat.name and at >= seat.joined_at]
        if times:
            last[seat.name] = max(times)
        else:
            fresh.append(seat)
    return owing, fresh, last, sealed


def game_remind(*, game: Game, by: Any) -> list[str]:
    """Email every active seat that still owes an order for the open prompt a reminder
    from the organizer, now (at most once per prompt and seat: a second click reminds
    only seats not reminded yet). Returns the seats reminded; logged ``reminder_sent``
    (who has not ordered is public: the game page shows it). Raises PermissionDenied,
    GameStateError."""
    from games.services.notifications import mailable, notify_reminder

    with transaction.atomic():
        game = lock_game(game_id=game.pk)
        _check_organizer(game, by, changes=False)  # a reminder only emails
        if game.status != Game.Status.ACTIVE:
            raise GameStateError("Only a running game's players can be reminded.")
        prompt = _open_prompt(game)
        owing, fresh, _last, sealed = _remind_targets(game=game, prompt=prompt, by=by)
        if not owing:
            raise GameStateError(
                f"Every order for prompt {prompt.number} is in: nobody to remind.",
                code=NOBODY_TO_REMIND,
            )
        # An organizer who plays is not emailed a reminder from themselves.
        owing = [seat for seat in owing if seat.user_id != getattr(by, "pk", None)]
        if not owing:
            raise GameStateError(
                f"Only your own order for prompt {prompt.number} is missing.", code=NOBODY_TO_REMIND
            )
        if fresh and not any(mailable(seat.user) for seat in fresh):
            raise GameStateError(
                f"{and_list([s.name for s in fresh])} cannot be reminded: no email address.",
                code="no_email",
            )
        fresh = [seat for seat in fresh if mailable(seat.user)]
        if not fresh:
            raise GameStateError(
                f"{and_list([s.name for s in owing])} {'was' if len(owing) == 1 else 'were'} already "
                f"reminded for prompt {prompt.number}.",
                code=NOBODY_TO_REMIND,
            )
        orders_in = (len(sealed & set(prompt.pending)), len(prompt.pending))
        names = [seat.name for seat in fresh]
        # Logged first: each reminder's footer names this entry, the log's newest.
        log_append(
            game=game,
            kind="reminder_sent",
            payload={"prompt": prompt.number, "seats": names, **acting(game=game, by=by)},
        )
        for seat in fresh:
            notify_reminder(
                game=game, prompt=prompt, seat=seat, by_organizer=True, orders_in=orders_in,
                by=who_acted(game=game, by=by),
            )  # fmt: skip
    return names


def _pauses_last_day(game: Game, now: Any) -> list:
    """When the game was paused in the day before ``now``, oldest first."""
    return list(
        LogEntry.objects.filter(
            game=game, kind="game_paused", created_at__gte=now - timedelta(days=1)
        )
        .order_by("created_at")
        .values_list("created_at", flat=True)
    )


def game_pause(*, game: Game, by: Any, reason: str = "") -> Game:
    """Pause an active game: the deadline is suspended (its remaining time kept) and
    orders are refused until it resumes."""
    from games.services.notifications import notify_game_notice

    with transaction.atomic():
        game = lock_game(game_id=game.pk)
        _check_organizer(game, by)
        if game.status == Game.Status.PAUSED:  # a second click, a second tab
            since = (
                LogEntry.objects.filter(game=game, kind="game_paused")
                .order_by("-seq")
                .values_list("created_at", flat=True)
                .first()
            )
            raise GameStateError(
                "The game is paused already"
                + (f" (since {local_time(since)})" if since else "")
                + ": nothing was changed. Resume it to start its deadline again."
            )
        if game.status != Game.Status.ACTIVE:
            raise GameStateError("Only an active game can be paused.")
        now = timezone.now()
        paused = _pauses_last_day(game, now)
        again = _day_cap_reached(paused, PAUSES_PER_DAY)
        if again is not None:
            # A 409 over the API, as the extensions' cap is: the game's state (its recent
            # pauses) refuses it, not the request.
            raise GameStateError(
                f"The game was paused {len(paused)} times in the last day, the limit: every "
                f"pause and resume emails each seat. It can be paused again from "
                f"{local_time(again)}; meanwhile you may extend the deadline.",
                code=PAUSES_CAPPED,
            )
        prompt = _open_prompt(game)
        # Signed: paused in the grace after the deadline, what is left of the grace comes
        # back, not the whole grace (a time audit: 30 minutes left gave 60 on resuming).
        grace = game.grace_minutes * 60
        remaining = (
            max(-float(grace), (prompt.deadline - now).total_seconds()) if prompt.deadline else 0.0
        )
        prompt.paused_remaining_seconds = remaining
        prompt.deadline = None
        prompt.save(update_fields=["paused_remaining_seconds", "deadline"])
        game.status = Game.Status.PAUSED
        game.save(update_fields=["status"])
        log_append(
            game=game,
            kind="game_paused",
            payload={
                "prompt": prompt.number,
                "remaining_seconds": round(remaining),
                "reason": _clean_reason(reason),
                **acting(game=game, by=by),
            },
        )
        staff = acting(game=game, by=by)["as"] == "staff"
        notify_game_notice(
            game=game,
            subject="Game paused",
            text=f"{who_acted(game=game, by=by)} paused the game; deadlines are suspended."
            + _reason_said(reason, staff=staff)
            + " "
            + resumption_words(
                number=prompt.number,
                remaining_seconds=remaining,
                grace_minutes=game.grace_minutes,
                quiet_hours=game.quiet_hours_start is not None and game.quiet_hours_end is not None,
            ),
            key=f"paused:{game.pk}:{log_count(game)}",
            by=by,
        )
    return game


def game_resume(*, game: Game, by: Any) -> Game:
    """Resume a paused game: the deadline is now plus the time that remained (moved to
    the end of the quiet hours if it falls in them)."""
    from games.services.notifications import notify_game_notice
    from games.services.orders import schedule_resolution

    with transaction.atomic():
        game = lock_game(game_id=game.pk)
        _check_organizer(game, by)
        if game.status == Game.Status.ACTIVE:  # a second click, a second tab
            raise GameStateError("The game is running already: nothing was changed.")
        if game.status != Game.Status.PAUSED:
            raise GameStateError("Only a paused game can be resumed.")
        now = timezone.now()
        prompt = _open_prompt(game)
        remaining = prompt.paused_remaining_seconds or 0.0
        prompt.deadline = now + timedelta(seconds=remaining)
        if remaining > 0:  # a deadline passed already (paused in its grace) stays passed
            prompt.deadline = out_of_quiet_hours(game=game, moment=prompt.deadline)
        prompt.paused_remaining_seconds = None
        prompt.handed_out_at = None  # a new deadline (see ``deadline_extend``)
        prompt.save(update_fields=["deadline", "paused_remaining_seconds", "handed_out_at"])
        reminders_reset(game=game, prompt=prompt)
        game.status = Game.Status.ACTIVE
        game.save(update_fields=["status"])
        log_append(
            game=game,
            kind="game_resumed",
            payload={
                "prompt": prompt.number,
                "deadline": prompt.deadline.isoformat(),
                **acting(game=game, by=by),
            },
        )
        if prompt.ready_at is not None:
            # Complete while paused (a resignation entered the last order): resolved when
            # its early-resolution delay is over; queued at once, the task found it not yet
            # due and gave up, and the prompt waited for the beat's sweep (h1's review).
            wait = (prompt.resolve_after - now).total_seconds() if prompt.resolve_after else 0
            schedule_resolution(
                game_id=game.pk, prompt_number=prompt.number, countdown=max(0, math.ceil(wait))
            )
        # The organizer's resumption reads as it always did; staff's says who.
        running = (
            "the game is running again"
            if acting(game=game, by=by)["as"] == "organizer"
            else f"{who_acted(game=game, by=by)} resumed the game"
        )
        newcomers = _seated_while_paused(game, prompt)

        def text() -> str:  # in each reader's time zone
            grace_end = prompt.deadline + timedelta(minutes=game.grace_minutes)
            if prompt.deadline > now:
                return f"{running}; the deadline is {local_time(prompt.deadline)}."
            if grace_end > now:
                return (
                    f"{running}; its deadline has passed, and orders are still taken until "
                    f"{local_time(grace_end)} (the grace that was left when it was paused)."
                )
            return (
                f"{running}; its deadline and grace had passed when it was paused: the "
                "orders still missing are filled with default orders now."
            )

        notify_game_notice(
            game=game,
            subject="Game resumed",
            text=text,
            key=f"resumed:{game.pk}:{log_count(game)}",
            exclude=[seat.pk for seat in newcomers],
            by=by,
        )
        if newcomers:
            from games.services.handover_notices import notify_seat_resumed
            from games.services.webhooks import webhook_seat_handed_over

            # Their welcome asked for no order (the game was paused): this asks, as the
            # prompt's opening would have (email and webhook).
            for seat in newcomers:
                notify_seat_resumed(game=game, seat=seat, prompt=prompt, text=text)
                webhook_seat_handed_over(game=game, prompt=prompt, seat=seat)
    return game


def _seated_while_paused(game: Game, prompt: Prompt) -> list[Seat]:
    """The game's seats (not replaced) whose player took them over since it was last
    paused: their welcome asked for no order (``handover_notices.notify_seat_handover``)."""
    paused_at = (
        LogEntry.objects.filter(game=game, kind="game_paused", created_at__lte=timezone.now())
        .order_by("-seq")
        .values_list("created_at", flat=True)
        .first()
    )
    if paused_at is None:
        return []
    return list(
        Seat.objects.filter(game=game, joined_at__gte=paused_at)
        .exclude(status=Seat.Status.REPLACED)
        .select_related("user", "user__player_settings")
        .order_by("position")
    )


def game_privacy_set(*, game: Game, by: Any, private: bool) -> Game:
    """Before the start, make a game private (joined by its invitation link only, its
    pages shown to its players) or public (listed, open to anyone). Logged. Raises
    PermissionDenied or GameStateError."""
    with transaction.atomic():
        game = lock_game(game_id=game.pk)
        _check_organizer(game, by)
        if game.status != Game.Status.FORMING:
            raise GameStateError("Only a game that has not started can change its privacy.")
        if game.is_private != bool(private):
            game.is_private = bool(private)
            game.save(update_fields=["is_private"])
            log_append(
                game=game,
                kind="privacy_changed",
                payload={"private": game.is_private, **acting(game=game, by=by)},
            )
    return game


def invite_link_renew(*, game: Game, by: Any) -> Game:
    """Before the start, give the game a new invitation link: the old one stops letting
    anyone in (sent to a wrong address, posted where it should not be). Players invited
    by name find the new one on their games page (the old link sends them there too).
    Not logged: the link is no part of the game's record. Raises PermissionDenied or
    GameStateError."""
    from games.models import new_token

    with transaction.atomic():
        game = locked_forming(
            game=game, by=by,
            refusal="The invitation link is renewed while a game is forming: nobody joins it now.",
        )  # fmt: skip
        game.invite_token = new_token()
        game.save(update_fields=["invite_token"])
    return game


def game_end(*, game: Game, by: Any, reason: str = "") -> Game:
    """End a game early: it becomes abandoned, without a ranking; the seed is revealed
    in the log. Raises PermissionDenied or GameStateError."""
    from games.services.handover import seat_offers_close  # it imports this module
    from games.services.notifications import notify_game_notice

    with transaction.atomic():
        game = lock_game(game_id=game.pk)
        _check_organizer(game, by)
        if game.status in (Game.Status.FINISHED, Game.Status.ABANDONED):
            raise GameStateError("The game is already over.", code="game_finished")
        was_started = game.status != Game.Status.FORMING
        game.status = Game.Status.ABANDONED
        game.finished_at = timezone.now()
        game.end_reason = _clean_reason(reason)
        game.save(update_fields=["status", "finished_at", "end_reason"])
        payload: dict[str, Any] = {"reason": game.end_reason, **acting(game=game, by=by)}
        if was_started:
            payload.update(end_reveal(game=game))
        # The offers first: the entry that ends the game is the log's last (the verifiers
        # refuse any entry after it).
        closed = seat_offers_close(game=game, why="the game was ended", by=by)
        ended = log_append(game=game, kind="game_ended", payload=payload)
        enqueue_game_over_tasks()
        notify_game_notice(
            game=game,
            subject="Game ended",
            text=f"{who_acted(game=game, by=by)} ended the game early"
            + (f": {game.end_reason}" if game.end_reason else ".")
            + (
                f" It is a table of {game.part_of_label}: its organizer enters the table's "
                "result (played offline, a forfeit, or none), which the round's page and "
                "your next email will show."
                if game.part_of_label
                else ""
            ),
            key=f"ended:{game.pk}",
            final_table=was_started,  # the table as it ended, every hand face up
            head=(ended.seq, ended.hash),  # the log's final entry
            by=by,
            organizer_note=(
                "\n\n"
                + " ".join(
                    f"Your offer of the seat {o.seat.name} to {o.to_user} was closed; they are told."
                    for o in closed
                )
            )
            if closed
            else "",
        )
    return game
