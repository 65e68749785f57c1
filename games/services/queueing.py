"""Enqueueing Celery tasks once the current transaction commits, without failing the
request when the broker is away.

The work a task stands for is already in the database when it is enqueued (an order
stored, an email queued in the outbox): if the broker cannot take the message, the
beat's sweeps find that work again (complete prompts after ``READY_SWEEP_SECONDS``,
queued emails every minute, due deadlines every minute). So a broker outage costs a
delay, never a 500 answer for an order that was in fact stored.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from kombu.exceptions import OperationalError as BrokerError

logger = logging.getLogger(__name__)

RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}


def enqueue_on_commit(task: Any, *args: Any, countdown: int = 0) -> None:
    """``task.delay(*args)`` (or after ``countdown`` seconds) once the transaction
    commits; a broker that cannot be reached is logged, not raised."""

    def enqueue() -> None:
        try:
            # One retry at most: a request waits for the broker a couple of socket
            # timeouts, not Celery's default three retries of each.
            task.apply_async(args, countdown=countdown or None, retry_policy=RETRY_POLICY)
        except BrokerError as exc:  # kombu's: the broker could not be reached
            logger.warning(
                "could not queue %s%r (%s): a sweep of the beat picks the work up",
                getattr(task, "name", task), args, exc,
            )

    enqueue.task = task  # type: ignore[attr-defined]  # what it queues (tests read it)
    transaction.on_commit(enqueue)


#: A game's end queues the sweeps of ``settings.FIVEX_GAME_OVER_TASKS`` this many seconds
#: later, once for all the games that end meanwhile (a deadline that closes fifty tables
#: at once: one sweep, not fifty replays of a rating pool's history).
GAME_OVER_DELAY_SECONDS = 3


def enqueue_game_over_tasks() -> None:
    """A game ended (finished, walked over or ended by its organizer): once the
    transaction commits, queue each task ``settings.FIVEX_GAME_OVER_TASKS`` names, without
    arguments, ``GAME_OVER_DELAY_SECONDS`` later, unless one was queued in the last such
    interval (it runs after this game's end committed, and sees it). By name, since what
    reacts to a game's end (the tournaments' results) lives in rooms the games room does
    not import; each such task is a sweep, safe to run at any time, that the beat runs
    every minute anyway: this only spares the wait for it."""
    from celery import current_app
    from django.conf import settings
    from django.core.cache import cache
    from django.utils.module_loading import import_string

    for name in getattr(settings, "FIVEX_GAME_OVER_TASKS", ()):
        # The task itself, by its dotted path (it honours task_always_eager, which a
        # signature sent by name does not), else a signature by that name.
        try:
            task = import_string(name)
        except ImportError:
            task = current_app.signature(name)

        def enqueue(task: Any = task, name: str = name) -> None:
            if current_app.conf.task_always_eager:
                first = True  # run at once, not later: each end runs its own
            else:
                try:  # the first game's end in the interval queues the sweep
                    first = cache.add(f"fivex:game-over:{name}", 1, timeout=GAME_OVER_DELAY_SECONDS)
                except Exception:  # noqa: BLE001 - no cache: queue it anyway
                    first = True
            if not first:
                return
            try:
                task.apply_async(countdown=GAME_OVER_DELAY_SECONDS, retry_policy=RETRY_POLICY)
            except BrokerError as exc:
                logger.warning("could not queue %s (%s): the beat's sweep picks it up", name, exc)

        enqueue.task = task  # type: ignore[attr-defined]  # what it queues (tests read it)
        transaction.on_commit(enqueue)
