"""The one core every inbound entry point calls: :func:`process_message`.

1. The raw message is stored (an :class:`~games.mail.models.InboundMail` row) before
   anything else, in its own transaction, so a crash never loses an order. The seat is
   resolved from the token in the envelope recipient at that moment; the same
   Message-ID delivered twice to the same address is stored (and processed) once
   (``games.mail.storing``; a repeated copy without a Message-ID is answered by
   ``games.mail.repeats``).
2. Processing reads the stored row under a lock, decides, calls
   ``games.services.orders.order_submit`` and queues the answer through the outbox, all
   in one transaction with the row's new status.

User errors (a refused order, an empty message, a finished game) are answered and end
the row as ``rejected``; auto-replies and bounces end it as ``ignored`` without an
answer; system errors (a bug, the database going away) leave it ``failed`` and raise
:class:`MailSystemError`, which the Celery task retries.

What a stored message says and how it is answered is decided in ``games.mail.decisions``
(:func:`_decide` hands it the seat); the limits are in ``games.mail.limits``.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from games.mail import replies, reply_texts
from games.mail.decisions import Outcome, _decide_for_seat
from games.mail.headers import clean_text
from games.mail.limits import max_attempts, time_budget
from games.mail.models import InboundMail
from games.mail.parsing import ParsedMail, parse_message
from games.mail.repeats import answer_repeat
from games.mail.storing import load_seat, store_message, synthesized_message_id
from games.selectors_players import time_zone_of

logger = logging.getLogger("games.mail")

Status = InboundMail.Status


class MailSystemError(Exception):
    """Processing failed for a reason that is not the sender's fault; retry later."""


class ProcessingTimedOut(Exception):
    """The processing ran past :func:`time_budget`. Celery's soft time limit is an
    exception raised wherever the work happens to be; the parser's handlers, which turn
    any failure into "unreadable" rather than a crash, may swallow it and carry on with a
    wrong answer (an auto-reply read as an order, a false "could not be read"). So the
    clock is also checked once the decision is made, inside its transaction: over the
    budget, the decision and everything it wrote are rolled back, as for the limit
    itself."""


def enqueue_processing(inbound_id: int) -> None:
    """Queue the Celery task that processes a stored row once the transaction commits.
    A broker failure is logged in one line, not raised (a traceback of a hundred lines for
    each message while the broker was away): the row is stored, and the sweep
    (``retry_stalled_inbound_mail``) picks it up."""
    from games.mail.tasks import process_inbound_mail
    from games.services.queueing import enqueue_on_commit

    enqueue_on_commit(process_inbound_mail, inbound_id)


def process_message(
    raw_bytes: bytes,
    envelope_recipient: str,
    *,
    source: str = InboundMail.Source.OTHER,
    envelope_sender: str | None = None,
    defer: bool = False,
) -> InboundMail:
    """Store one inbound message, then process it (now, or with ``defer`` in a Celery task
    queued on commit). Returns the row (the earlier one for a duplicate delivery).

    Never raises for anything the message contains; raises only when the message could
    not even be stored (the database is down), so the caller can ask for a resend."""
    row, created = store_message(
        raw_bytes, envelope_recipient, source=source, envelope_sender=envelope_sender
    )
    if not created:
        # No Message-ID header (the id stored is the bytes' hash): a Message-ID written
        # like ours would have to hold the hash of the bytes it is part of.
        if row.message_id == synthesized_message_id(bytes(raw_bytes or b"")):
            answer_repeat(row, raw_bytes, envelope_recipient, envelope_sender)
        return row
    if defer:
        enqueue_processing(row.pk)
        return row
    try:
        return process_stored(row.pk)
    except MailSystemError:
        enqueue_processing(row.pk)  # retried with back-off by the task
        row.refresh_from_db()
        return row


# --------------------------------------------------------------------------- processing


def process_stored(inbound_id: int) -> InboundMail:
    """Process a stored row once: a row already processed, rejected or ignored is left
    alone (safe to run twice). Raises MailSystemError after recording a system failure.

    The attempt is counted before the work, in a transaction of its own: a worker killed
    while reading the message (out of memory, the task's hard time limit) has used one all
    the same, so a message that kills workers is given up, and the player told, after
    ``MAIL_MAX_ATTEMPTS`` deliveries instead of being redelivered forever."""
    pending = (Status.RECEIVED, Status.FAILED)
    if not InboundMail.objects.filter(pk=inbound_id, status__in=pending).update(
        attempts=F("attempts") + 1
    ):
        return InboundMail.objects.get(pk=inbound_id)  # done already (or DoesNotExist)
    attempts = InboundMail.objects.values_list("attempts", flat=True).get(pk=inbound_id)
    if attempts > max_attempts():
        # The earlier attempts never finished (their workers died): no more tries.
        InboundMail.objects.filter(pk=inbound_id, status__in=pending).update(
            status=Status.FAILED,
            outcome="system_error",
            attempts=max_attempts(),
            error="processing never finished (the worker was lost each time)",
        )
        raise MailSystemError("processing never finished")
    started = time.monotonic()
    try:
        with transaction.atomic():
            row = InboundMail.objects.select_for_update().get(pk=inbound_id)
            if row.status not in pending:
                return row
            outcome = _decide(row)
            # 1 s of slack: the task's limit started counting a little before this clock.
            if time.monotonic() - started >= time_budget() - 1:
                raise ProcessingTimedOut(f"processing took over {time_budget():g} s")
            row.status = outcome.status
            row.outcome = outcome.code
            row.error = outcome.error[:4000]
            row.processed_at = timezone.now()
            row.save(update_fields=["status", "outcome", "error", "processed_at"])
    except InboundMail.DoesNotExist:
        raise
    except Exception as exc:
        logger.exception("inbound #%s: system error while processing", inbound_id)
        timed_out = _is_time_limit(exc)
        InboundMail.objects.filter(pk=inbound_id).update(
            status=Status.FAILED,
            outcome="timeout" if timed_out else "system_error",
            # A message that takes too long takes too long every time: no retry. (The
            # attempt itself was counted before the work.)
            attempts=max_attempts() if timed_out else F("attempts"),
            error=clean_text(f"{type(exc).__name__}: {exc}")[:4000],
        )
        raise MailSystemError(str(exc)) from exc
    logger.info("inbound #%s to %s: %s (%s)", row.pk, row.recipient, row.status, row.outcome)
    return row


def _is_time_limit(exc: BaseException) -> bool:
    """Whether ``exc`` is Celery's soft time limit (the task took too long)."""
    if isinstance(exc, ProcessingTimedOut):
        return True
    try:
        from celery.exceptions import SoftTimeLimitExceeded
    except ImportError:  # pragma: no cover - Celery is a dependency
        return False
    return isinstance(exc, SoftTimeLimitExceeded)


def give_up(inbound_id: int) -> None:
    """After the last retry: keep the row as failed and tell the player, in words they
    can act on, that the message could not be processed. The answer is built from the
    message's headers when they can be read, else without them (no threading, the
    game's title as subject): the player is told either way."""
    with transaction.atomic():
        row = InboundMail.objects.select_for_update().get(pk=inbound_id)
        if row.status != Status.FAILED or row.outcome == "gave_up":
            return
        row.outcome = "gave_up"
        row.save(update_fields=["outcome"])
        if row.seat_id is None:
            return
        try:
            parsed = parse_message(
                bytes(row.raw), envelope_sender=_envelope_sender(row), headers_only=True
            )
        except Exception:  # noqa: BLE001 - parse_message should not raise; if it does
            parsed = ParsedMail()
        if parsed.is_auto:
            return
        seat = load_seat(row.seat_id)
        try:
            with transaction.atomic():
                replies.send_reply(
                    seat=seat,
                    inbound=row,
                    parsed=parsed,
                    sections=[reply_texts.system_failure_text()],
                    key="gave-up",
                )
        except Exception:  # noqa: BLE001 - the headers broke the answer: without them
            logger.exception("inbound #%s: answer from its headers failed", inbound_id)
            replies.send_reply(
                seat=seat,
                inbound=row,
                parsed=ParsedMail(),
                sections=[reply_texts.system_failure_text()],
                key="gave-up",
            )
    logger.error(
        "inbound #%s to %s: gave up after %s attempts", inbound_id, row.recipient, row.attempts
    )


def stalled_rows(*, now: datetime | None = None) -> list[int]:
    """Rows a crash left behind: received but never processed (older than two minutes),
    or failed without a live retry chain (older than an hour, not given up)."""
    now = now or timezone.now()
    received = InboundMail.objects.filter(
        status=Status.RECEIVED, created_at__lt=now - timedelta(minutes=2)
    )
    failed = InboundMail.objects.filter(
        status=Status.FAILED,
        created_at__lt=now - timedelta(hours=1),
        attempts__lt=max_attempts(),
    ).exclude(outcome="gave_up")
    return list(received.values_list("pk", flat=True)[:200]) + list(
        failed.values_list("pk", flat=True)[:200]
    )


def _envelope_sender(row: InboundMail) -> str | None:
    if row.envelope_sender == "<>":
        return ""
    return row.envelope_sender or None


def _decide(row: InboundMail) -> Outcome:
    if row.seat_id is None:
        # No reply: the address is unknown, so there is nobody we may answer safely.
        return Outcome(Status.REJECTED, "unknown_recipient", "no seat has this address")
    parsed = parse_message(
        bytes(row.raw), envelope_sender=_envelope_sender(row), headers_only=row.truncated
    )
    if parsed.is_auto:
        # Never answered, never an order: a receipt is logged as one (admin, log line).
        code = "receipt" if parsed.receipt else "auto_reply"
        return Outcome(Status.IGNORED, code, parsed.auto_reason)
    seat = load_seat(row.seat_id)
    if not seat.user.is_active:  # closed since the message was stored: as at storing
        return Outcome(Status.REJECTED, "unknown_recipient", "the seat's account is deactivated")
    with timezone.override(time_zone_of(user=seat.user)):  # the answer's dates
        return _decide_for_seat(row, parsed, seat)
