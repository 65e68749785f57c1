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
from django.db import transaction
from django.db.models import CharField, IntegerField, JSONField
from django.db.models.expressions import RawSQL
from django.utils import timezone

from engine.base import StepRejected, events_for
from games.models import Game, LogEntry, Prompt, Seat, StateSnapshot
from games.services.audit import end_reveal, log_append_many
from games.services.locking import lock_game

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
    deadline from the game's policy, fill the orders of resigned seats with defaults and
    schedule resolution if nothing is missing. The caller holds the game lock.
    ``seats``: the game's seats that are not replaced (in seating order), if the caller
    already read them in this transaction; spares a query."""
    from games.services.deadlines import deadline_for
    from games.services.games import ruleset_get
    from games.services.orders import order_fill_default, prompt_check_ready

    rules = ruleset_get(game.ruleset)
    now = now or timezone.now()
    pending = rules.pending(state)
    deadline = deadline_for(game=game, start=now)
    prompt = Prompt.objects.create(
        game=game,
        number=number,
        round=rules.progress(state),
        phase=rules.phase(state),
        pending=pending,
        deadline=deadline if game.status == Game.Status.ACTIVE else None,
        paused_remaining_seconds=(
            None if game.status == Game.Status.ACTIVE else (deadline - now).total_seconds()
        ),
    )
    StateSnapshot.objects.create(game=game, prompt_number=number, state=state)
    if seats is None:
        resigned = list(
            Seat.objects.filter(game=game, status=Seat.Status.RESIGNED, name__in=pending)
        )
    else:  # seating order: the same order as the query's (positions are distinct)
        resigned = [s for s in seats if s.status == Seat.Status.RESIGNED and s.name in pending]
    for seat in resigned:
        order_fill_default(game=game, prompt=prompt, seat=seat, reason="resigned", state=state)
    # A prompt created in this transaction has no orders but the defaults just filled.
    prompt_check_ready(game=game, prompt=prompt, have={seat.name for seat in resigned})
    return prompt


def _test_sleep() -> None:
    if getattr(settings, "FIVEX_ENV", "development") == "production":
        return
    seconds = os.environ.get(SLEEP_ENV)
    if seconds:
        time.sleep(float(seconds))


def _prompt_for_resolution(*, game: Game, number: int) -> Prompt | None:
    """Prompt ``number`` of the game, read in one query with what resolving it needs
    next: its snapshot's state (``snapshot_state``) and the log's tail (``tail_seq``,
    ``tail_hash``). The caller holds the game lock: every writer of a prompt or of the
    log takes it first, so the prompt needs no row lock of its own and none of this
    changes under us before the transaction ends."""
    return (
        Prompt.objects.filter(game=game, number=number)
        .annotate(
            snapshot_state=RawSQL(_SNAPSHOT_STATE_SQL, (), output_field=JSONField()),
            tail_seq=RawSQL(_TAIL_SQL.format(column="seq"), (), output_field=IntegerField()),
            tail_hash=RawSQL(_TAIL_SQL.format(column="hash"), (), output_field=CharField()),
        )
        .first()
    )


# Correlated subqueries of ``_prompt_for_resolution`` (raw SQL: Subquery() expressions
# cost as much Python to compile as the separate queries they would replace).
_PROMPT, _SNAPSHOT, _LOG = (f'"{m._meta.db_table}"' for m in (Prompt, StateSnapshot, LogEntry))
_SNAPSHOT_STATE_SQL = (
    f'SELECT s."state" FROM {_SNAPSHOT} s WHERE s."game_id" = {_PROMPT}."game_id"'
    f' AND s."prompt_number" = {_PROMPT}."number"'
)
_TAIL_SQL = (
    f'SELECT l."{{column}}" FROM {_LOG} l WHERE l."game_id" = {_PROMPT}."game_id"'
    ' ORDER BY l."seq" DESC LIMIT 1'
)


def prompt_resolve(
    *, game_id: int, prompt_number: int, fill_missing: bool = False, now: datetime | None = None
) -> bool:
    """Resolve one prompt exactly once; return True if this call resolved it.

    Does nothing (returns False) when the prompt is already resolved, the game is not
    active, an order is missing (unless ``fill_missing``: the deadline path, which gives
    each missing seat its default order, logged ``nmr_applied``), or the early-resolution
    delay has not passed."""
    from games.services.deadlines import deadline_for
    from games.services.games import ruleset_get
    from games.services.notifications import notify_prompt_resolved, seats_for_mail
    from games.services.orders import current_orders, order_fill_default, prompt_state

    with transaction.atomic():
        game = lock_game(game_id=game_id)
        prompt = _prompt_for_resolution(game=game, number=prompt_number)
        if prompt is None or prompt.status != Prompt.Status.OPEN:
            return False
        if game.status != Game.Status.ACTIVE:
            return False
        now = now or timezone.now()
        orders = current_orders(prompt=prompt)
        missing = [name for name in prompt.pending if name not in orders]
        if missing and not fill_missing:
            return False
        if (
            not missing
            and not fill_missing
            and prompt.resolve_after is not None
            and now + timedelta(seconds=1) < prompt.resolve_after
        ):
            return False
        # Read once, for the defaults, the next prompt's resigned seats and the emails.
        seats = seats_for_mail(game=game)
        # The log's tail as read with the prompt, while nothing was logged since.
        tail = (prompt.tail_seq, prompt.tail_hash) if prompt.tail_seq is not None else None
        if missing:
            by_name = {s.name: s for s in seats}
            for name in missing:
                orders[name] = order_fill_default(
                    game=game,
                    prompt=prompt,
                    seat=by_name[name],
                    reason="deadline",
                    state=prompt.snapshot_state,
                )
            tail = False  # nmr_applied entries were logged: read the tail again
        _test_sleep()
        rules = ruleset_get(game.ruleset)
        state = prompt.snapshot_state
        if state is None:  # no snapshot: a broken game; fail as the direct read does
            state = prompt_state(prompt=prompt)
        new_state, events, applied = _apply(game, prompt, rules, state, orders)
        if applied is not orders:  # a refused order was replaced, and that was logged
            orders, tail = applied, False

        prompt.status = Prompt.Status.RESOLVED
        prompt.resolved_at = now
        prompt.events = events
        prompt.save(update_fields=["status", "resolved_at", "events"])
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
            _finish_locked(
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
            log_append_many(
                game=game,
                entries=[("orders_revealed", revealed), ("prompt_resolved", resolved)],
                tail=tail,
            )
            next_prompt = prompt_open(
                game=game, state=new_state, number=prompt.number + 1, now=now, seats=seats
            )
        notify_prompt_resolved(
            game=game,
            prompt=prompt,
            events=events,
            state=new_state,
            next_prompt=next_prompt,
            seats=seats,
        )
    logger.info("game %s: prompt %s resolved", game_id, prompt_number)
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
            if order is None or order.source == "default":
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
) -> None:
    """The game is over: store the final state and ranking, reveal the seed. The log
    gets ``logged_first`` (the resolution's entries), then ``game_finished``, in one
    INSERT; ``tail`` as in ``log_append_many``."""
    from games.services.games import ruleset_get

    rules = ruleset_get(game.ruleset)
    StateSnapshot.objects.create(game=game, prompt_number=after + 1, state=state)
    game.status = Game.Status.FINISHED
    game.finished_at = now
    game.ranking = rules.ranking(state)
    game.save(update_fields=["status", "finished_at", "ranking"])
    log_append_many(
        game=game,
        entries=[
            *logged_first,
            ("game_finished", {"ranking": game.ranking, **end_reveal(game=game)}),
        ],
        tail=tail,
    )
