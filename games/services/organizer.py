"""Organizer tools: extend a deadline, pause and resume, replace a player (an offer the
new player accepts), end a game.

Each action is checked (organizer only, right game status, capped where it can be
abused), logged in the game's audit log and announced to the seats.

Ending a game early (``game_end``) makes it **abandoned**: no ranking is stored
(``Game.ranking`` stays null, since the rules rank only a finished game), the open
prompt's sealed orders are never revealed, and the seed is revealed in the
``game_ended`` entry so the played part can still be verified.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games.errors import GameStateError, PermissionDenied, ValidationError
from games.models import Game, LogEntry, Prompt, SealedOrder, Seat, SeatOffer
from games.presentation import and_list, local_time
from games.services.audit import end_reveal, log_append
from games.services.deadlines import out_of_quiet_hours, reminders_reset
from games.services.locking import lock_game
from games.services.queueing import enqueue_game_over_tasks

MAX_EXTENSION_HOURS = 24 * 14
# deadline_extend's refusal when the prompt's deadline was extended as often as allowed.
EXTENSIONS_CAPPED = "extensions_capped"
# Every offer and every pause or resume emails players, with the game's name (text the
# organizer chose) in it: without a limit, offering a seat and withdrawing the offer, or
# pausing and resuming, in a loop mailed any player of the site as often as an organizer
# liked (a security audit: 20 emails to one player in a minute).
OFFERS_PER_GAME_PER_DAY = 10
OFFERS_PER_PLAYER_PER_DAY = 3
# ... and to one player from all games at once (games are easy to make).
OFFERS_TO_A_PLAYER_PER_DAY = 5
PAUSES_PER_DAY = 4


def _check_organizer(game: Game, by: Any) -> None:
    """The game's organizer, or staff (site administrators stand in for any organizer)."""
    from games.selectors import may_organize

    if not may_organize(game=game, user=by):
        raise PermissionDenied("Only the organizer of this game can do that.")


def _open_prompt(game: Game) -> Prompt:
    from games.services.resolution import open_prompt_locked

    prompt = open_prompt_locked(game=game)
    if prompt is None:
        raise GameStateError("No prompt is open.")
    return prompt


def _clean_reason(reason: str) -> str:
    return (reason or "").strip()[:500]


def acting(*, game: Game, by: Any) -> dict[str, str]:
    """Who did an organizer action, for its log entry: ``{"by": name, "as": "organizer"
    | "staff"}`` (site administrators may act in any game, one they play in too, and are
    not the organizer). Entries written before carry neither key: the organizer's."""
    role = "organizer" if getattr(by, "pk", None) == game.organizer_id else "staff"
    return {"by": str(by), "as": role}


def who_acted(*, game: Game, by: Any) -> str:
    """Who did an organizer action, as a players' notice says it: "the organizer" (its
    wording from the start), or "a site administrator (name)"."""
    if acting(game=game, by=by)["as"] == "staff":
        return f"a site administrator ({by})"
    return "the organizer"


def _reason_said(reason: str, *, staff: bool = False) -> str:
    """The reason typed as the players' notice gives it (one line), or ""."""
    why = " ".join(_clean_reason(reason).split()).rstrip(".")
    whose = "The site administrator's" if staff else "The organizer's"
    return f" {whose} reason: {why}." if why else ""


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
        if prompt_number is not None and prompt.number != prompt_number:
            raise GameStateError(
                f"Prompt {prompt_number} was resolved before the extension arrived (prompt "
                f"{prompt.number} is open now): nothing was extended."
            )
        if extensions_seen is not None and prompt.extensions != extensions_seen:
            now = f" (now {local_time(prompt.deadline)})" if prompt.deadline else ""
            raise GameStateError(
                f"The deadline of prompt {prompt.number} was just extended{now}: nothing more "
                "was changed."
            )
        if prompt.extensions >= cap:
            raise GameStateError(
                f"This deadline has already been extended {prompt.extensions} times "
                f"(the limit is {cap}).",
                code=EXTENSIONS_CAPPED,
            )
        prompt.extensions += 1
        quiet = False
        if prompt.deadline is not None:  # a deadline in the quiet hours moves to their end
            extended = prompt.deadline + timedelta(hours=hours)
            prompt.deadline = out_of_quiet_hours(game=game, moment=extended)
            quiet = prompt.deadline != extended
        else:
            prompt.paused_remaining_seconds = (prompt.paused_remaining_seconds or 0) + hours * 3600
        prompt.save(update_fields=["extensions", "deadline", "paused_remaining_seconds"])
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
                when += " (the end of the game's quiet hours)"
            if staff:
                return f"{who} extended the deadline of prompt {number} by {hours:g} hours; {when}.{said}"
            return f"the deadline of prompt {number} was extended by {hours:g} hours; {when}.{said}"

        notify_game_notice(
            game=game,
            subject="Deadline extended",
            text=text,
            key=f"extended:{game.pk}:{prompt.number}:{prompt.extensions}",
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
        SealedOrder.objects.filter(prompt=prompt, is_current=True).values_list("seat_name", flat=True)
    )
    owing = list(
        Seat.objects.filter(
            game=game, status=Seat.Status.ACTIVE, name__in=[n for n in prompt.pending if n not in sealed]
        ).select_related("user", "user__player_settings").order_by("position")
    )
    # Reminded already, as the log says (the outbox's rows are pruned in time): by seat
    # name, since the seat's holder took it (a seat handed over is a new row).
    sent = [
        (entry.created_at, name)
        for entry in LogEntry.objects.filter(game=game, kind="reminder_sent", payload__prompt=prompt.number)
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


def reminders_shown(*, game: Game, prompt: Prompt | None, by: Any) -> dict[str, Any] | None:
    """For the organizer's panel, the open prompt's reminders (a second click on Remind
    was refused with "...were already reminded", and nothing said so before):
    ``reminded``, the waiting seats reminded already ("ann and bob", seat order; "" for
    none) and ``were`` ("was" or "were"), ``last``, when the latest of them was, and
    ``fresh``, the seats a click would remind now ("cat"; ""), ``unreachable``, those not
    reminded yet that no email reaches (no address, a deactivated account). None when no
    prompt waits in a running game. A read: ``game_remind`` decides again under the
    game's lock."""
    from games.services.notifications import mailable

    if prompt is None or game.status != Game.Status.ACTIVE or prompt.status != Prompt.Status.OPEN:
        return None
    owing, fresh, last, _sealed = _remind_targets(game=game, prompt=prompt, by=by)
    reminded = [seat.name for seat in owing if seat.name in last]
    return {
        "reminded": and_list(reminded),
        "were": "was" if len(reminded) == 1 else "were",
        "last": max(last.values()) if last else None,
        "fresh": and_list([seat.name for seat in fresh if mailable(seat.user)]),
        # not "nobody is left to remind" when one is left that no email reaches (a code
        # review): as the button's answer says it
        "unreachable": and_list([seat.name for seat in fresh if not mailable(seat.user)]),
    }


def game_remind(*, game: Game, by: Any) -> list[str]:
    """Email every active seat that still owes an order for the open prompt a reminder
    from the organizer, now (at most once per prompt and seat: a second click reminds
    only seats not reminded yet). Returns the seats reminded; logged ``reminder_sent``
    (who has not ordered is public: the game page shows it). Raises PermissionDenied,
    GameStateError."""
    from games.services.notifications import mailable, notify_reminder

    with transaction.atomic():
        game = lock_game(game_id=game.pk)
        _check_organizer(game, by)
        if game.status != Game.Status.ACTIVE:
            raise GameStateError("Only a running game's players can be reminded.")
        prompt = _open_prompt(game)
        owing, fresh, _last, sealed = _remind_targets(game=game, prompt=prompt, by=by)
        if not owing:
            raise GameStateError(
                f"Every order for prompt {prompt.number} is in: nobody to remind.", code=NOBODY_TO_REMIND
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
        for seat in fresh:
            notify_reminder(
                game=game, prompt=prompt, seat=seat, by_organizer=True, orders_in=orders_in,
                by=who_acted(game=game, by=by),
            )  # fmt: skip
        names = [seat.name for seat in fresh]
        log_append(
            game=game,
            kind="reminder_sent",
            payload={"prompt": prompt.number, "seats": names, **acting(game=game, by=by)},
        )
    return names


def game_pause(*, game: Game, by: Any, reason: str = "") -> Game:
    """Pause an active game: the deadline is suspended (its remaining time kept) and
    orders are refused until it resumes."""
    from games.services.notifications import notify_game_notice

    with transaction.atomic():
        game = lock_game(game_id=game.pk)
        _check_organizer(game, by)
        if game.status != Game.Status.ACTIVE:
            raise GameStateError("Only an active game can be paused.")
        now = timezone.now()
        paused = list(
            LogEntry.objects.filter(
                game=game, kind="game_paused", created_at__gte=now - timedelta(days=1)
            )
            .order_by("created_at")
            .values_list("created_at", flat=True)
        )
        again = _day_cap_reached(paused, PAUSES_PER_DAY)
        if again is not None:
            raise ValidationError(
                f"The game was paused {len(paused)} times in the last day, the limit: every "
                f"pause and resume emails each seat. It can be paused again from "
                f"{local_time(again)}; meanwhile you may extend the deadline."
            )
        prompt = _open_prompt(game)
        remaining = max(0.0, (prompt.deadline - now).total_seconds()) if prompt.deadline else 0.0
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
            + _reason_said(reason, staff=staff),
            key=f"paused:{game.pk}:{log_count(game)}",
        )
    return game


def log_count(game: Game) -> int:
    """How many log entries the game has (a cheap unique suffix for notice keys)."""
    return game.log.count()


def game_resume(*, game: Game, by: Any) -> Game:
    """Resume a paused game: the deadline is now plus the time that remained (moved to
    the end of the quiet hours if it falls in them)."""
    from games.services.notifications import notify_game_notice
    from games.services.orders import schedule_resolution

    with transaction.atomic():
        game = lock_game(game_id=game.pk)
        _check_organizer(game, by)
        if game.status != Game.Status.PAUSED:
            raise GameStateError("Only a paused game can be resumed.")
        now = timezone.now()
        prompt = _open_prompt(game)
        remaining = prompt.paused_remaining_seconds or 0.0
        prompt.deadline = out_of_quiet_hours(game=game, moment=now + timedelta(seconds=remaining))
        prompt.paused_remaining_seconds = None
        prompt.save(update_fields=["deadline", "paused_remaining_seconds"])
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
            schedule_resolution(game_id=game.pk, prompt_number=prompt.number)
        # The organizer's resumption reads as it always did; staff's says who.
        running = (
            "the game is running again"
            if acting(game=game, by=by)["as"] == "organizer"
            else f"{who_acted(game=game, by=by)} resumed the game"
        )
        notify_game_notice(
            game=game,
            subject="Game resumed",
            text=lambda: f"{running}; the deadline is {local_time(prompt.deadline)}.",
            key=f"resumed:{game.pk}:{log_count(game)}",
        )
    return game


def seat_replace(*, seat: Seat, new_user: Any, by: Any, offered: bool = False) -> Seat:
    """Hand a seat to another player: the old seat row becomes ``replaced`` (its mail
    address stops working), a new row with the same engine name and position takes
    over, active. The old player's sealed order for the open prompt, if it sent one (or
    the default order standing for a seat that resigned), is withdrawn unread: the new
    player orders for itself (the default order if it does not), and a sealed order is
    never shown to anyone else. A replaced player does not
    come back to the game (unless staff hands the seat): handing a seat to a friend to
    read its hand and then back would be a peek. Every other seat is told. Returns the
    new seat. An organizer's handover goes through an offer the new player accepts
    (``seat_offer``; ``offered``: this is that acceptance); staff may hand a seat at once."""
    with transaction.atomic():
        game = lock_game(game_id=seat.game_id)
        _check_organizer(game, by)
        old = Seat.objects.select_related("user").get(pk=seat.pk)
        _check_handover(game=game, old=old, new_user=new_user, by=by)
        who = who_acted(game=game, by=by)
        # An offer of this seat still waiting is moot now, and so is another seat's offer
        # to the player who takes this one: they close, and their players are told.
        accepted: int | None = None
        for moot in SeatOffer.objects.filter(
            Q(seat=old) | Q(to_user=new_user), game=game, status=SeatOffer.Status.PENDING
        ).select_related("seat", "to_user", "game"):
            if moot.seat_id != old.pk:
                _offer_close(moot, why=f"you play the seat {old.name} now", logged="player_seated", by=by)
            elif offered and moot.to_user_id == getattr(new_user, "pk", None):
                accepted = moot.pk  # the offer being accepted: ``seat_offer_accept`` closes it
            else:
                _offer_close(moot, why="the seat was handed to another player", logged="seat_taken", by=by)
        was_resigned = old.status == Seat.Status.RESIGNED
        old.status = Seat.Status.REPLACED
        old.save(update_fields=["status"])
        from games.services.players import email_every_prompt_default

        new = Seat.objects.create(
            game=game, user=new_user, name=old.name, position=old.position,
            email_every_prompt=email_every_prompt_default(user=new_user),
        )  # fmt: skip
        from games.services.notifications import (
            notify_game_notice,
            notify_seat_handover,
            notify_seat_released,
        )
        from games.services.resolution import open_prompt_locked

        prompt = open_prompt_locked(game=game)
        withdrawn = False
        if prompt is not None:
            # The old player's own order, or the default order standing for a seat that
            # resigned: the new player chooses (a forced order stays: there is no choice).
            withdrawn = bool(
                SealedOrder.objects.filter(prompt=prompt, seat_name=old.name, is_current=True)
                .exclude(source=SealedOrder.Source.FORCED)
                .update(is_current=False)
            )
            if withdrawn and prompt.ready_at is not None:  # incomplete again
                Prompt.objects.filter(pk=prompt.pk).update(ready_at=None, resolve_after=None)
                prompt.ready_at = prompt.resolve_after = None
        # Both holders by name: the seats' players are public on the game's page.
        payload: dict[str, Any] = {
            "seat": old.name, "was_resigned": was_resigned, "order_withdrawn": withdrawn,
            "from": str(old.user), "to": str(new_user), **acting(game=game, by=by),
        }  # fmt: skip
        if accepted is not None:
            payload["offer"] = accepted
        log_append(game=game, kind="seat_replaced", payload=payload)
        notify_seat_released(game=game, seat=old, who=who)
        notify_game_notice(
            game=game,
            subject=f"Seat {old.name} has a new player",
            text=_handover_notice(old.name, prompt, was_resigned=was_resigned, withdrawn=withdrawn, who=who),
            key=f"replaced:{game.pk}:{log_count(game)}",
            exclude=[new.pk, old.pk],
        )
        if prompt is not None:
            from games.services.orders import prompt_state

            notify_seat_handover(
                game=game, seat=new, state=prompt_state(prompt=prompt), prompt=prompt, by=by,
                offered=offered,
            )
    return new


def _check_handover(*, game: Game, old: Seat, new_user: Any, by: Any) -> None:
    """Whether seat ``old`` may go to ``new_user`` (handed by ``by``): raises
    GameStateError or ValidationError with the reason if not."""
    if game.status not in (Game.Status.ACTIVE, Game.Status.PAUSED):
        raise GameStateError("Players can only be replaced in a game in progress.")
    if old.status == Seat.Status.REPLACED:
        raise GameStateError("This seat has already been handed to another player.")
    if getattr(new_user, "pk", None) == game.organizer_id and not getattr(by, "is_staff", False):
        # The organizer would read the seat's hand (and could hand it on): a peek.
        raise ValidationError(
            "An organizer cannot take a seat of their own game's players: hand it to "
            "another player (a site administrator can do it if it must be you)."
        )
    held = list(Seat.objects.filter(game=game, user=new_user).values_list("status", flat=True))
    if any(status != Seat.Status.REPLACED for status in held):
        raise ValidationError(f"{new_user} already holds a seat in this game.")
    if held and not getattr(by, "is_staff", False):
        raise ValidationError(
            f"{new_user} was replaced in this game before, and a replaced player does not "
            "come back (a site administrator can do it if it was a mistake)."
        )


def seat_offer(*, seat: Seat, new_user: Any, by: Any) -> SeatOffer:
    """Offer seat ``seat`` to ``new_user``: nothing changes until they accept
    (``seat_offer_accept``), and they are emailed the offer (who makes it, the game,
    the seat; nothing of its hand). An offer of the same seat to another player still
    waiting is withdrawn (that player is told); the same offer twice (a double click)
    is one offer. Raises PermissionDenied, GameStateError or ValidationError."""
    from games.services.notifications import notify_seat_offer

    with transaction.atomic():
        game = lock_game(game_id=seat.game_id)
        _check_organizer(game, by)
        old = Seat.objects.get(pk=seat.pk)
        _check_handover(game=game, old=old, new_user=new_user, by=by)
        waiting = list(
            SeatOffer.objects.filter(game=game, status=SeatOffer.Status.PENDING)
            .filter(Q(seat=old) | Q(to_user=new_user))
            .select_related("seat", "to_user")
        )
        for offer in waiting:
            if offer.seat_id == old.pk and offer.to_user_id == new_user.pk:
                return offer  # the same offer again
            if offer.to_user_id == new_user.pk:
                raise ValidationError(
                    f"{new_user} is already offered the seat {offer.seat.name} in this game: "
                    "withdraw that offer first."
                )
        _check_offer_limits(game=game, new_user=new_user)
        who = who_acted(game=game, by=by)
        for offer in waiting:  # this seat, offered to someone else: superseded
            _offer_close(offer, why=f"{who} offered it to another player", logged="superseded", by=by)
        offer = SeatOffer.objects.create(game=game, seat=old, to_user=new_user, by=by)
        # Logged without the player offered: the log is public, and a player who declines
        # (or never answers) has no part in the game; the handover names them.
        log_append(
            game=game,
            kind="seat_offered",
            payload={"seat": old.name, "offer": offer.pk, **acting(game=game, by=by)},
        )
        notify_seat_offer(offer=offer)
    return offer


def _day_cap_reached(times: list, cap: int):  # noqa: ANN202 - a datetime or None
    """When a capped action (``times``: the last day's, oldest first) may be done again:
    once the oldest counted is a day old; None while under ``cap``."""
    if len(times) < cap:
        return None
    return times[len(times) - cap] + timedelta(days=1)


def _check_offer_limits(*, game: Game, new_user: Any) -> None:
    """Each offer emails its player (and its withdrawal once more): a player who declined
    a seat in this game is not asked again for a day, and offers are capped over a day -
    a game's in all and to one player, and to one player from any game. A refusal says
    when the next offer may be made."""
    now = timezone.now()
    since = now - timedelta(days=1)
    declined = (
        SeatOffer.objects.filter(
            game=game, to_user=new_user, status=SeatOffer.Status.DECLINED, decided_at__gte=since
        )
        .order_by("-decided_at")
        .first()
    )
    if declined is not None:
        raise ValidationError(
            f"{new_user} declined a seat in this game less than a day ago: offer a seat to "
            f"another player, or to {new_user} again from "
            f"{local_time(declined.decided_at + timedelta(days=1))}."
        )
    caps = (
        (SeatOffer.objects.filter(game=game, to_user=new_user), OFFERS_PER_PLAYER_PER_DAY,
         f"{new_user} was offered a seat in this game {{n}} times in the last day, the limit "
         "(each offer emails them)"),
        (SeatOffer.objects.filter(to_user=new_user), OFFERS_TO_A_PLAYER_PER_DAY,
         f"{new_user} was offered seats {{n}} times in the last day, the limit (each offer "
         "emails them)"),
        (SeatOffer.objects.filter(game=game), OFFERS_PER_GAME_PER_DAY,
         "This game's seats were offered {n} times in the last day, the limit (each offer "
         "emails a player)"),
    )  # fmt: skip
    for offers, cap, said in caps:
        recent = list(
            offers.filter(created_at__gte=since).order_by("created_at").values_list("created_at", flat=True)
        )
        again = _day_cap_reached(recent, cap)
        if again is not None:
            raise ValidationError(f"{said.format(n=len(recent))}: the next from {local_time(again)}.")


def _offer_close(
    offer: SeatOffer,
    *,
    why: str | None,
    status: str = SeatOffer.Status.WITHDRAWN,
    logged: str | None = None,
    by: Any = None,
) -> None:
    """Close a waiting offer (withdrawn unless ``status`` says otherwise) and tell its
    player ``why`` (None: nobody is told). ``logged``: why it was withdrawn, for the log's
    ``seat_offer_withdrawn`` entry (``withdrawn``, ``superseded``, ``seat_taken``,
    ``player_seated``; ``by`` did it); None: not logged here (an acceptance is the
    handover's entry, a decline has its own, and the game's end closes the rest)."""
    from games.services.notifications import notify_seat_offer_closed

    offer.status, offer.decided_at = status, timezone.now()
    offer.save(update_fields=["status", "decided_at"])
    if logged is not None:
        log_append(
            game=offer.game,
            kind="seat_offer_withdrawn",
            payload={
                "seat": offer.seat.name, "offer": offer.pk, "why": logged, **acting(game=offer.game, by=by),
            },
        )  # fmt: skip
    if why is not None:
        notify_seat_offer_closed(offer=offer, why=why)


def seat_offers_close(*, game: Game, why: str) -> int:
    """Close the game's offers still waiting (its end makes them moot) and tell each
    player offered a seat ``why``. Called under the game's lock. Returns how many."""
    closed = 0
    for offer in SeatOffer.objects.filter(game=game, status=SeatOffer.Status.PENDING).select_related(
        "seat", "to_user"
    ):
        offer.game = game
        _offer_close(offer, why=why)
        closed += 1
    return closed


def _pending_offer(offer: SeatOffer) -> SeatOffer:
    """``offer`` read again under its game's lock; GameStateError unless it still waits
    for an answer in a game in progress whose seat nobody else took meanwhile."""
    game = lock_game(game_id=offer.game_id)
    offer = SeatOffer.objects.select_related("seat", "to_user", "by").get(pk=offer.pk)
    offer.game = game
    if offer.status != SeatOffer.Status.PENDING:
        raise GameStateError(f"This offer was {offer.status} already: nothing was changed.")
    if game.status not in (Game.Status.ACTIVE, Game.Status.PAUSED):
        raise GameStateError("This game is over: the offer no longer stands.")
    return offer


def seat_offer_accept(*, offer: SeatOffer, by: Any) -> Seat:
    """The player offered a seat takes it: the seat is handed over (``seat_replace``,
    logged and announced as the organizer's handover). Returns the new seat. Raises
    PermissionDenied (not their offer), GameStateError (the offer no longer stands) or
    ValidationError (the handover's checks; the offer stays as it was)."""
    if getattr(by, "pk", None) != offer.to_user_id:
        raise PermissionDenied("This offer is for another player.")
    with transaction.atomic():
        offer = _pending_offer(offer)
        seat = seat_replace(seat=offer.seat, new_user=offer.to_user, by=offer.by, offered=True)
        _offer_close(offer, why=None, status=SeatOffer.Status.ACCEPTED)
    return seat


def seat_offer_decline(*, offer: SeatOffer, by: Any) -> SeatOffer:
    """The player offered a seat says no; the organizer is told. Raises
    PermissionDenied or GameStateError."""
    from games.services.notifications import notify_seat_offer_declined

    if getattr(by, "pk", None) != offer.to_user_id:
        raise PermissionDenied("This offer is for another player.")
    with transaction.atomic():
        offer = _pending_offer(offer)
        _offer_close(offer, why=None, status=SeatOffer.Status.DECLINED)
        # Not naming the player (see ``seat_offer``).
        log_append(
            game=offer.game, kind="seat_offer_declined", payload={"seat": offer.seat.name, "offer": offer.pk}
        )
        notify_seat_offer_declined(offer=offer)
    return offer


def seat_offer_withdraw(*, offer: SeatOffer, by: Any) -> SeatOffer:
    """The organizer takes an offer back before it is answered; the player is told.
    Raises PermissionDenied or GameStateError."""
    _check_organizer(offer.game, by)
    with transaction.atomic():
        offer = _pending_offer(offer)
        _offer_close(offer, why=f"{who_acted(game=offer.game, by=by)} withdrew it", logged="withdrawn", by=by)
    return offer


def _handover_notice(
    name: str, prompt: Prompt | None, *, was_resigned: bool, withdrawn: bool, who: str = "the organizer"
) -> str:
    """What the other seats are told when seat ``name`` gets a new player (``who``
    handed it: ``who_acted``)."""
    text = f"{who} handed the seat {name} to another player"
    if was_resigned:
        text += " (its player had resigned: the new player orders for it from now on)"
    if withdrawn and prompt is not None:
        whose = "entered for the seat" if was_resigned else "the previous player had sealed"
        text += (
            f". The order {whose} for prompt {prompt.number} was withdrawn unread, so the"
            " prompt waits for the new player's order (or the deadline)"
        )
    return text + "."


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


def game_end(*, game: Game, by: Any, reason: str = "") -> Game:
    """End a game early: it becomes abandoned, without a ranking; the seed is revealed
    in the log. Raises PermissionDenied or GameStateError."""
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
        log_append(game=game, kind="game_ended", payload=payload)
        seat_offers_close(game=game, why="the game was ended")
        enqueue_game_over_tasks()
        notify_game_notice(
            game=game,
            subject="Game ended",
            text=f"{who_acted(game=game, by=by)} ended the game early"
            + (f": {game.end_reason}" if game.end_reason else "."),
            key=f"ended:{game.pk}",
            final_table=was_started,  # the table as it ended, every hand face up
        )
    return game
