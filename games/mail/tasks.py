"""Celery tasks of the email gateway (they take ids and are safe to run twice)."""

from __future__ import annotations

import logging

from celery import shared_task

from engine.words import counted
from games.mail.limits import max_attempts, time_budget
from games.mail.processing import MailSystemError, give_up, process_stored, stalled_rows

logger = logging.getLogger("games.mail")


def _backoff(retries: int) -> int:
    return min(30 * 2**retries, 1800)


SOFT_TIME_LIMIT = int(time_budget())
"""Seconds one processing may take (``MAIL_TASK_SOFT_TIME_LIMIT``): a message that takes
longer is given up at once (the player is told), never retried; the hard limit leaves
time for that answer."""


@shared_task(
    bind=True,
    acks_late=True,
    max_retries=None,
    soft_time_limit=SOFT_TIME_LIMIT,
    time_limit=SOFT_TIME_LIMIT + 60,
    name="games.mail.tasks.process_inbound_mail",
)
def process_inbound_mail(self, inbound_id: int) -> str:
    """Process a stored inbound message. System errors are retried with exponential
    back-off (30 s, 1 min, 2 min, ...) up to ``MAIL_MAX_ATTEMPTS`` attempts; then the
    player is told, and the row stays ``failed`` for an administrator. A processing that
    hits the soft time limit counts as the last attempt (``process_stored``)."""
    from games.mail.models import InboundMail

    try:
        row = process_stored(inbound_id)
    except InboundMail.DoesNotExist:
        logger.warning("inbound #%s does not exist", inbound_id)
        return "missing"
    except MailSystemError as exc:
        attempts = (
            InboundMail.objects.filter(pk=inbound_id).values_list("attempts", flat=True).first()
            or 0
        )
        if attempts >= max_attempts():
            give_up(inbound_id)
            return "failed"
        raise self.retry(exc=exc, countdown=_backoff(self.request.retries)) from None
    return str(row.status)


@shared_task(name="games.mail.tasks.retry_stalled_inbound_mail")
def retry_stalled_inbound_mail() -> int:
    """Beat sweep: queue every row a crash or a broker outage left unprocessed."""
    ids = stalled_rows()
    for inbound_id in ids:
        process_inbound_mail.delay(inbound_id)
    if ids:
        logger.info("re-queued %s", counted(len(ids), "stalled inbound message"))
    return len(ids)
