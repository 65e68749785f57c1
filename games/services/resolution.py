"""Opening prompts and resolving them exactly once.

``prompt_resolve`` is the only path that applies orders to the engine state. The
``resolve_prompt`` task (an order completed the prompt) and the deadline sweep (time
ran out) both call it; it takes the game's row lock, re-checks that the prompt is still
open, and writes the new prompt, snapshot, log entries and notifications in the same
transaction. Whoever comes second finds the prompt resolved and does nothing; the
unique constraint on (game, number) of Prompt is the last line of defence.
"""

from __future__ import annotations

import logging
import os
import time
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.utils import timezone

from engine.base import StepRejected, events_for
from games.models import (
    Game,
    GameMessage,
    LogEntry,
    PlayerSettings,
    PlayerWebhook,
    Prompt,
    SealedOrder,
    Seat,
    StateSnapshot,
)
from games.services.audit import end_reveal, log_append_many
from games.services.locking import lock_game
from games.sql import db_datetime, db_json, insert_instance, instance, update_row

logger = logging.getLogger(__name__)

# Test-only: seconds to sleep inside the resolution transaction (to kill a worker
# mid-resolution). Ignored in production.
SLEEP_ENV = "FIVEX_TEST_RESOLVE_SLEEP"


def open_prompt_locked(*, game: Game) -> Prompt | None:
    """The game's open prompt, locked (the caller holds the game lock)."""
    return (
        Prompt.objects.select_for_update()
        .filter(game=game, status=Prompt.Status.OPEN)
        .order_by("-number")
        .first()
    )


def prompt_open(
    *,
    game: Game,
    state: dict,
    number: int,
    now: datetime | None = None,
    seats: list[Seat] | None = None,
) -> Prompt:
    """Open prompt ``number`` for ``state``: store the prompt and the snapshot, set its
    deadline from the game's policy, fill the orders of resigned seats with defaults,
    enter the only legal order of each seat that has no choice (``Prompt.forced``), and
    schedule resolution if nothing is missing. The caller holds the game lock.
    ``seats``: the game's seats that are not replaced (in seating order), if the caller
    already read them in this transaction; spares a query. The prompt's ``log_head`` is
    the log's tail ``(seq, hash)`` after the orders entered here, None if none was."""
    from games.services.deadlines import deadline_for
    from games.services.game_options import ruleset_get
    from games.services.orders import order_fill_default, order_fill_forced, prompt_check_ready
    from games.services.webhooks import webhooks_order_needed

    rules = ruleset_get(game.ruleset)
    now = now or timezone.now()
    pending = rules.pending(state)
    deadline = deadline_for(game=game, start=now)
    if seats is None:
        seats = list(
            Seat.objects.filter(game=game, name__in=pending)
            .exclude(status=Seat.Status.REPLACED)
            .order_by("position", "id")
        )
    seats = [s for s in seats if s.name in pending]  # seating order, as pending
    resigned = [s for s in seats if s.status == Seat.Status.RESIGNED]
    forced: dict[str, str] = {}
    for seat in seats:
        if seat.status == Seat.Status.ACTIVE:
            text = rules.forced_order(state, seat.name)
            if text is not None:
                forced[seat.name] = text
    prompt = insert_instance(
        Prompt(
            game=game,
            number=number,
            round=rules.progress(state),
            phase=rules.phase(state),
            pending=pending,
            deadline=deadline if game.status == Game.Status.ACTIVE else None,
            paused_remaining_seconds=(
                None if game.status == Game.Status.ACTIVE else (deadline - now).total_seconds()
            ),
            forced=list(forced),
        )
    )
    insert_instance(StateSnapshot(game=game, prompt_number=number, state=state))
    prompt.log_head = None  # type: ignore[attr-defined]
    for seat in resigned:
        order = order_fill_default(
            game=game, prompt=prompt, seat=seat, reason="resigned", state=state
        )
        prompt.log_head = order.log_tail  # type: ignore[attr-defined]
    for seat in seats:
        if seat.name in forced:
            order = order_fill_forced(
                game=game, prompt=prompt, seat=seat, text=forced[seat.name], state=state
            )
            prompt.log_head = order.log_tail  # type: ignore[attr-defined]
    # A prompt created in this transaction has no orders but the ones just entered.
    have = {seat.name for seat in resigned} | set(forced)
    prompt_check_ready(game=game, prompt=prompt, have=have)
    # The players' webhooks, for the seats asked (as the "your order" emails).
    asked = [s for s in seats if s.status == Seat.Status.ACTIVE and s.name not in forced]
    webhooks_order_needed(game=game, prompt=prompt, seats=asked)
    return prompt


def _test_sleep() -> None:
    if getattr(settings, "FIVEX_ENV", "development") == "production":
        return
    seconds = os.environ.get(SLEEP_ENV)
    if seconds:
        time.sleep(float(seconds))


def _read_for_resolution(
    *, game: Game, number: int
) -> tuple[Prompt, Any, tuple[int, str] | None, dict[str, SealedOrder], list[Seat]] | None:
    """Prompt ``number`` of the game, read in one statement with what resolving it
    needs: its snapshot's state, the log's tail (``(seq, hash)`` or None), its current
    orders by seat name (``orders.current_orders``) and the game's seats that are not
    replaced, with their users, in seating order (``notifications.seats_for_mail``).
    All as complete model instances, as the ORM reads them; None when there is no such
    prompt. The caller holds the game lock: every writer of a prompt, an order, a seat
    or the log takes it first, so none of that changes under us before the transaction
    ends, and the read comes in a statement of its own after the lock is held (see
    ``orders._lock_for_order``)."""
    with connection.cursor() as cursor:
        cursor.execute(
            _READ_SQL,
            [game.pk, number, game.pk, Seat.Status.REPLACED.value],
        )
        rows = cursor.fetchall()
    if not rows or rows[0][0] != 0:  # no prompt row (seat rows sort after it)
        return None
    first = rows[0]
    prompt = instance(Prompt, _PROMPT_COLS, first[_P])
    state = db_json(first[_STATE]) if first[_STATE] is not None else None
    tail = (first[_STATE + 1], first[_STATE + 2]) if first[_STATE + 1] is not None else None
    prompt.talked = bool(first[_TALK])  # type: ignore[attr-defined]
    orders: dict[str, SealedOrder] = {}
    seats: list[Seat] = []
    for row in rows:
        if row[0] == 0:
            if row[_O.start] is not None:
                order = instance(SealedOrder, _ORDER_COLS, row[_O])
                orders[order.seat_name] = order
        else:
            seat = instance(Seat, _SEAT_COLS, row[_S])
            seat.user = instance(_User, _USER_COLS, row[_U])
            # The player's time zone for its email (as select_related would cache it).
            # ... and when the player said they are back (``games.services.away``).
            # ... and whether the player takes a daily summary instead (``summaries``).
            seat.user.player_settings = PlayerSettings(
                time_zone=row[_TZ] or "UTC", away_until=db_datetime(row[_TZ + 2]),
                turn_emails=row[_TZ + 3] or PlayerSettings.TurnEmails.EACH,
            )
            # Whether the player has an active webhook: the next prompt's webhooks
            # (``webhooks_order_needed``) need no query of their own when none has.
            seat.webhook_on = bool(row[_TZ + 1])
            seats.append(seat)
    return prompt, state, tail, orders, seats


def _all_columns(model: Any) -> tuple[str, ...]:
    return tuple(f.attname for f in model._meta.concrete_fields)


# One row for the prompt and each of its current orders (kind 0), then one for each
# seat with its user (kind 1); the other kind's columns are NULL (UNION ALL of two
# SELECTs: the NULLs take the other SELECT's column types on PostgreSQL).
_User = get_user_model()
_PROMPT_COLS, _ORDER_COLS, _SEAT_COLS, _USER_COLS = (
    _all_columns(m) for m in (Prompt, SealedOrder, Seat, _User)
)
_P = slice(1, 1 + len(_PROMPT_COLS))
_STATE = _P.stop  # then the tail's seq and hash, then whether anyone talked (_TALK)
_TALK = _STATE + 3
_O = slice(_STATE + 4, _STATE + 4 + len(_ORDER_COLS))
_S = slice(_O.stop, _O.stop + len(_SEAT_COLS))
_U = slice(_S.stop, _S.stop + len(_USER_COLS))
_TZ = _U.stop  # the seat player's time zone (PlayerSettings), NULL when not set;
# then whether the player has an active webhook, then until when the player is away, then
# its turn emails (one per prompt or a daily summary)


def _read_sql() -> str:
    prompt_t, snapshot_t, log_t, order_t, seat_t, user_t, settings_t, webhook_t, talk_t = (
        m._meta.db_table
        for m in (
            Prompt, StateSnapshot, LogEntry, SealedOrder, Seat, _User, PlayerSettings,
            PlayerWebhook, GameMessage,
        )
    )  # fmt: skip

    def cols(alias: str, model: Any) -> list[str]:
        return [
            f"{alias}.{connection.ops.quote_name(f.column)}" for f in model._meta.concrete_fields
        ]

    newest = f"FROM {log_t} l WHERE l.game_id = p.game_id ORDER BY l.seq DESC LIMIT 1"
    first = [
        "0",
        *cols("p", Prompt),
        f"(SELECT s.state FROM {snapshot_t} s WHERE s.game_id = p.game_id"
        " AND s.prompt_number = p.number)",
        f"(SELECT l.seq {newest})",
        f"(SELECT l.hash {newest})",
        # Whether anything was written at the table while the prompt was open: the turn
        # emails' talk line reads who only then (most prompts have none).
        f"EXISTS (SELECT 1 FROM {talk_t} m WHERE m.game_id = p.game_id"
        " AND m.created_at >= p.opened_at AND m.removed_at IS NULL)",
        *cols("o", SealedOrder),
        *["NULL"] * (len(_SEAT_COLS) + len(_USER_COLS) + 4),
    ]
    second = [
        "1",
        *["NULL"] * (_O.stop - 1),
        *cols("s", Seat),
        *cols("u", _User),
        "ps.time_zone",
        f"EXISTS (SELECT 1 FROM {webhook_t} w WHERE w.user_id = u.id AND w.active)",
        "ps.away_until",
        "ps.turn_emails",
    ]

    def at(part: slice, model: Any, name: str) -> int:  # an output column's position
        return 1 + part.start + _all_columns(model).index(name)

    order_by = [
        at(_O, SealedOrder, "submitted_at"), at(_O, SealedOrder, "id"),
        at(_S, Seat, "position"), at(_S, Seat, "id"),
    ]  # fmt: skip
    return (
        f"SELECT {', '.join(first)} FROM {prompt_t} p"
        f" LEFT JOIN {order_t} o ON o.prompt_id = p.id AND o.is_current"
        " WHERE p.game_id = %s AND p.number = %s"
        f" UNION ALL SELECT {', '.join(second)} FROM {seat_t} s"
        f" JOIN {user_t} u ON u.id = s.user_id"
        f" LEFT JOIN {settings_t} ps ON ps.user_id = u.id WHERE s.game_id = %s AND s.status <> %s"
        # kind; orders as current_orders (submitted_at, id); seats as seats_for_mail
        f" ORDER BY 1, {', '.join(map(str, order_by))}"
    )


_READ_SQL = _read_sql()


def prompt_resolve(
    *, game_id: int, prompt_number: int, fill_missing: bool = False, now: datetime | None = None
) -> bool:
    """Resolve one prompt exactly once; return True if this call resolved it.

    Does nothing (returns False) when the prompt is already resolved, the game is not
    active, an order is missing (unless ``fill_missing``: the deadline path, which gives
    each missing seat its default order, logged ``nmr_applied``), or the early-resolution
    delay has not passed."""
    from games.services.deadlines import deadline_for, enforce_due_at
    from games.services.game_options import ruleset_get
    from games.services.notifications import notify_prompt_resolved
    from games.services.orders import order_fill_default, prompt_state

    with transaction.atomic():
        game = lock_game(game_id=game_id)
        read = _read_for_resolution(game=game, number=prompt_number)
        if read is None:
            return False
        # The seats (not replaced, with users) serve the defaults, the next prompt's
        # resigned seats and the emails; the log's tail is as read with the prompt,
        # while nothing was logged since.
        prompt, snapshot_state, tail, orders, seats = read
        if prompt.status != Prompt.Status.OPEN:
            return False
        if game.status != Game.Status.ACTIVE:
            return False
        now = now or timezone.now()
        missing = [name for name in prompt.pending if name not in orders]
        if missing and not fill_missing:
            return False
        if missing:  # the deadline path: due still, as read under the lock (an extension
            # or a pause committed after the sweep read the prompt keeps it open)
            due_at = enforce_due_at(game=game, prompt=prompt)
            if due_at is None or due_at > now:
                return False
        if (
            not missing
            and not fill_missing
            and prompt.resolve_after is not None
            and now + timedelta(seconds=1) < prompt.resolve_after
        ):
            return False
        if missing and game.away_days:
            from games.services.away import deadline_hold

            # A missing seat's player is away and the game waits for them: the deadline
            # moves instead (logged, told); the sweep comes back at the new one.
            if deadline_hold(game=game, prompt=prompt, missing=missing, seats=seats, now=now):
                return False
        if missing:
            by_name = {s.name: s for s in seats}
            for name in missing:
                # A missing seat has no current order; each nmr_applied entry follows
                # the one before it (the deadline sweep read both once a seat: 17
                # statements a prompt).
                orders[name] = order = order_fill_default(
                    game=game,
                    prompt=prompt,
                    seat=by_name[name],
                    reason="deadline",
                    state=snapshot_state,
                    previous=None,
                    tail=tail,
                )
                tail = order.log_tail
        _test_sleep()
        rules = ruleset_get(game.ruleset)
        state = snapshot_state
        if state is None:  # no snapshot: a broken game; fail as the direct read does
            state = prompt_state(prompt=prompt)
        new_state, events, applied = _apply(game, prompt, rules, state, orders)
        if applied is not orders:  # a refused order was replaced, and that was logged
            orders, tail = applied, False

        prompt.status = Prompt.Status.RESOLVED
        prompt.resolved_at = now
        prompt.events = events
        update_row(
            Prompt, prompt.pk, {"status": prompt.status, "resolved_at": now, "events": events}
        )
        revealed = {
            "prompt": prompt.number,
            "orders": {
                name: {
                    "text": orders[name].text,
                    "salt": orders[name].salt,
                    "commitment": orders[name].commitment,
                    "source": orders[name].source,
                }
                for name in prompt.pending
            },
        }
        public = [e.get("text", "") for e in events_for(events, None)]
        next_prompt = None
        if rules.is_over(new_state):
            resolved = {"prompt": prompt.number, "events": public, "next": None}
            logged = _finish_locked(
                game=game,
                state=new_state,
                after=prompt.number,
                now=now,
                logged_first=[("orders_revealed", revealed), ("prompt_resolved", resolved)],
                tail=tail,
            )
        else:
            resolved = {
                "prompt": prompt.number,
                "events": public,
                "next": {
                    "prompt": prompt.number + 1,
                    "round": rules.progress(new_state),
                    "phase": rules.phase(new_state),
                    "pending": rules.pending(new_state),
                    "deadline": _iso(deadline_for(game=game, start=now)),
                },
            }
            logged = log_append_many(
                game=game,
                entries=[("orders_revealed", revealed), ("prompt_resolved", resolved)],
                tail=tail,
            )
            next_prompt = prompt_open(
                game=game, state=new_state, number=prompt.number + 1, now=now, seats=seats
            )
        # The emails name the log's newest entry, written in this transaction: the
        # resolution's last, or the next prompt's last entered order.
        head = getattr(next_prompt, "log_head", None) or (logged[-1].seq, logged[-1].hash)
        notify_prompt_resolved(
            game=game,
            prompt=prompt,
            events=events,
            state=new_state,
            next_prompt=next_prompt,
            seats=seats,
            entered={
                name: (orders[name].source, "deadline" if name in missing else "", orders[name].text)
                for name in prompt.pending
                if orders[name].source in ("default", "forced")
            },
            head=head,
            # each seat's own order of this prompt, revealed now: its receipt
            receipts={name: orders[name].commitment for name in prompt.pending},
        )
    # What an operator looks for: a prompt the deadline closed, and whose orders it made
    # (the seats' names are public; their orders are not logged).
    logger.info("game %s: prompt %s resolved%s", game_id, prompt_number,
                f" at its deadline, default orders for {', '.join(missing)}" if missing else "")  # fmt: skip
    return True


def _apply(
    game: Game, prompt: Prompt, rules: Any, state: dict, orders: dict
) -> tuple[dict, list, dict]:
    """Run the engine on the prompt's current orders; return the new state, the events
    and the orders actually applied (``orders`` itself unless one was replaced). An
    order the engine accepted when it was submitted is accepted again (same state);
    should the engine still refuse one (a bug), that seat gets its default order,
    logged, rather than blocking the game."""
    from games.services.orders import current_orders, order_fill_default

    for _attempt in range(len(prompt.pending) + 1):
        step = {name: orders[name].text for name in prompt.pending}
        try:
            new_state, events = rules.submit_step(state, step)
            return new_state, events, orders
        except StepRejected as exc:
            order = orders.get(exc.seat)
            if order is None or order.source in ("default", "forced"):
                raise
            logger.error(
                "game %s prompt %s: engine refused a stored order of %s: %s",
                game.pk,
                prompt.number,
                exc.seat,
                exc.reason,
            )
            order_fill_default(game=game, prompt=prompt, seat=order.seat, reason="refused")
            orders = current_orders(prompt=prompt)
    raise RuntimeError("unreachable: every seat already has its default order")


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _finish_locked(
    *,
    game: Game,
    state: dict,
    after: int,
    now: datetime,
    logged_first: list[tuple[str, dict[str, Any]]],
    tail: tuple[int, str] | None | bool,
) -> list[LogEntry]:
    """The game is over: store the final state and ranking, reveal the seed. The log
    gets ``logged_first`` (the resolution's entries), then ``game_finished``, in one
    INSERT; ``tail`` as in ``log_append_many``. Returns the entries logged."""
    from games.services.game_options import ruleset_get

    rules = ruleset_get(game.ruleset)
    StateSnapshot.objects.create(game=game, prompt_number=after + 1, state=state)
    game.status = Game.Status.FINISHED
    game.finished_at = now
    game.ranking = rules.ranking(state)
    game.save(update_fields=["status", "finished_at", "ranking"])
    from games.services.handover import seat_offers_close
    from games.services.queueing import enqueue_game_over_tasks

    offers_closed: list[tuple[str, dict[str, Any]]] = []
    seat_offers_close(game=game, why="the game is over", entries=offers_closed)
    enqueue_game_over_tasks()
    return log_append_many(
        game=game,
        entries=[
            *logged_first,
            *offers_closed,  # before the entry that ends the log
            ("game_finished", {"ranking": game.ranking, **end_reveal(game=game)}),
        ],
        tail=tail,
    )
