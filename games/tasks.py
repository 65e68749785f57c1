"""Celery tasks of the games room: thin wrappers that take ids and call one service.

Every task is safe to run twice: the services take the game's row lock and check
whether the work is already done.
"""

from __future__ import annotations

import logging
from datetime import datetime

from celery import shared_task
from django.conf import settings
from django.db import OperationalError
from django.utils import timezone

from engine.words import counted
from games.errors import GameBusy
from games.services import deadlines, outbox_sending, resolution, retention

logger = logging.getLogger(__name__)

# The resolution tasks: acknowledged once done (a worker lost mid-way gives the task to
# another) and retried while the game is busy or the database is away.
RESOLUTION_TASK = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": (OperationalError, GameBusy),
    "retry_backoff": 2,
    "max_retries": 5,
}


@shared_task(**RESOLUTION_TASK)
def resolve_prompt(game_id: int, prompt_number: int) -> bool:
    """Resolve the prompt if every order is in (exactly once; a no-op otherwise)."""
    return resolution.prompt_resolve(game_id=game_id, prompt_number=prompt_number)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def enforce_deadlines() -> int:
    """Beat (every minute): resolve due prompts with default orders for missing seats
    (after ``GAMES_DEADLINE_SWEEP_INLINE_SECONDS`` the rest go to the workers). Its start
    is recorded (``Heartbeat`` "sweep"): /healthz tells from it that beat and workers run."""
    from games.models import Heartbeat

    Heartbeat.objects.update_or_create(name="sweep", defaults={"at": timezone.now()})
    return deadlines.enforce_deadlines(inline_seconds=settings.GAMES_DEADLINE_SWEEP_INLINE_SECONDS)


@shared_task(**RESOLUTION_TASK)
def resolve_overdue_prompt(game_id: int, prompt_number: int, due_by: str) -> bool:
    """One prompt the deadline sweep handed out at ``due_by`` (ISO time): resolve it with
    default orders if its deadline (plus grace) is still past, as of now (the sweep's time
    if that is later: a sweep run ahead of the clock, as the tests do)."""
    now = max(datetime.fromisoformat(due_by), timezone.now())
    return deadlines.overdue_prompt_resolve(game_id=game_id, prompt_number=prompt_number, now=now)


@shared_task
def send_reminders() -> int:
    """Beat: remind seats whose order is missing shortly before the deadline."""
    return deadlines.send_reminders()


@shared_task
def send_turn_summaries() -> int:
    """Beat (every five minutes): queue the daily summaries that are due (once per
    player and day, whichever worker runs it)."""
    from games.services.summaries import send_turn_summaries as send_due

    return send_due()


@shared_task(bind=True, acks_late=True, max_retries=None)
def send_outbox_message(self, message_id: int) -> str:  # noqa: ANN001 - celery's bound task
    """Send one outbox message; a temporary failure schedules another attempt."""
    status, retry_in = outbox_sending.outbox_send(message_id=message_id)
    if status == "retrying":
        send_outbox_message.apply_async((message_id,), countdown=max(1, int(retry_in)))
    elif status == "sent":
        outbox_sending.outbox_wake_retries()
    return status


@shared_task(acks_late=True)
def send_outbox_batch(message_ids: list[int]) -> int:
    """Send several outbox messages in one task and one mail connection (the emails of
    one resolution); one that fails temporarily gets its own retry task, and the rest of
    the batch is left to the sweep. Returns how many were sent."""
    sent = 0
    results = outbox_sending.outbox_send_many(message_ids=message_ids)
    for message_id, (status, retry_in) in zip(message_ids, results, strict=True):
        if status == "retrying":
            send_outbox_message.apply_async((message_id,), countdown=max(1, int(retry_in)))
        sent += status == "sent"
    if sent:
        outbox_sending.outbox_wake_retries()
    return sent


@shared_task
def send_outbox() -> int:
    """Beat sweep: (re)send messages that are due (retries, lost tasks), a bounded number
    a run, in batches sharing a mail connection."""
    due = outbox_sending.outbox_due()
    for start in range(0, len(due), OUTBOX_BATCH):
        send_outbox_batch.delay(due[start : start + OUTBOX_BATCH])
    return len(due)


OUTBOX_BATCH = 50


@shared_task
def expire_seat_offers() -> int:
    """Beat (hourly): close the seat offers nobody answered in time."""
    from games.services.handover import seat_offers_expire

    return seat_offers_expire()


@shared_task
def prune_mail() -> dict[str, int]:
    """Beat (daily): delete inbound messages and sent emails older than
    ``MAIL_RETENTION_DAYS``."""
    pruned = retention.mail_prune()
    if any(pruned.values()):
        logger.info(
            "pruned %s, %s",
            counted(pruned["inbound"], "inbound message"), counted(pruned["outbox"], "sent email"),
        )
    return pruned


@shared_task
def prune_sessions() -> dict[str, int]:
    """Beat (daily): delete expired log-in sessions and the Sessions page's rows of them."""
    pruned = retention.sessions_prune()
    if any(pruned.values()):
        logger.info(
            "pruned %s, %s",
            counted(pruned["sessions"], "expired session"), counted(pruned["listed"], "listed session"),
        )
    return pruned


@shared_task(acks_late=True)
def send_webhook(delivery_id: int) -> str:
    """POST one webhook delivery; a network error, a 5xx or a 429 schedules another
    attempt (the beat's sweep also finds it, should this one be lost)."""
    from games.services.webhooks import webhook_delivery_send

    status, retry_in = webhook_delivery_send(delivery_id=delivery_id)
    if status == "retrying":
        send_webhook.apply_async((delivery_id,), countdown=max(1, int(retry_in)))
    return status


@shared_task
def send_webhooks() -> int:
    """Beat sweep (every minute): webhook deliveries due for another attempt, and those
    whose task was lost; old deliveries are deleted."""
    from games.services.webhooks import webhooks_due

    due = webhooks_due()
    for delivery_id in due:
        send_webhook.delay(delivery_id)
    return len(due)
