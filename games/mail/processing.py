"""The one core every inbound entry point calls: :func:`process_message`.

1. The raw message is stored (an :class:`~games.mail.models.InboundMail` row) before
   anything else, in its own transaction, so a crash never loses an order. The seat is
   resolved from the token in the envelope recipient at that moment; the same
   Message-ID delivered twice to the same address is stored (and processed) once.
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

import hashlib
import logging
import time
import uuid
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from games.mail import replies, reply_texts
from games.mail.addresses import address_digest, redact_address, token_from_address
from games.mail.decisions import Outcome, _decide_for_seat
from games.mail.headers import (
    clean_text,
    dkim_result,
    header_section,
    header_text,
    parse_bytes,
    sender_address,
)
from games.mail.limits import intake_per_hour, max_attempts, max_bytes, time_budget, too_many_parts
from games.mail.models import InboundMail
from games.mail.parsing import ParsedMail, parse_message
from games.selectors_players import time_zone_of

if TYPE_CHECKING:
    from games.models import Seat

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


# --------------------------------------------------------------------------- storing


def seat_for_recipient(envelope_recipient: str) -> Seat | None:
    from games.services.seats import seat_for_token

    token = token_from_address(envelope_recipient)
    return seat_for_token(token=token) if token else None


def store_message(
    raw_bytes: bytes,
    envelope_recipient: str,
    *,
    source: str = InboundMail.Source.OTHER,
    envelope_sender: str | None = None,
) -> tuple[InboundMail, bool]:
    """Store a message as received; return (row, created). ``created`` is False when the
    same Message-ID already arrived at the same address (the first row is returned).

    An oversize message keeps only its header section. Raises only on a database
    failure (the caller then asks the sender's MTA to try again later)."""
    raw_bytes = bytes(raw_bytes or b"")
    # Envelope values come from the MTA, a pipe's arguments or a webhook's JSON: no NUL.
    envelope_recipient = clean_text(envelope_recipient)
    if envelope_sender is not None:
        envelope_sender = clean_text(envelope_sender)
    size = len(raw_bytes)
    # Too large, or too many parts to read in reasonable time: only the header section
    # is kept, and the sender is answered without the body being parsed.
    truncated = size > max_bytes()
    # Whatever the headers hold, the message is stored: a header nothing can read is a
    # problem of the message (answered when it is processed), never a reason to make the
    # sender's server try again forever.
    message_id, sender, dkim = "", "", ""
    multipart = True  # unless the headers say otherwise
    try:
        section = header_section(raw_bytes)
        head = parse_bytes(section, headers_only=True)
        # One part for sure only when the whole header section was read (a Content-Type
        # past 64 KB of headers is the parser's, not ours) and says neither multipart nor
        # an embedded message (which may be multipart): a code review got 100,000 parts
        # through either way.
        ended = section.endswith((b"\r\n\r\n", b"\n\n"))
        multipart = not ended or head.get_content_maintype() in ("multipart", "message")
        message_id = clean_text(header_text(head, "Message-ID"))[:998]
        sender = clean_text(sender_address(head)[0])[:320]
        dkim = clean_text(dkim_result(head))[:32]
    except Exception:  # noqa: BLE001 - unreadable headers: stored all the same
        logger.warning("inbound message to %s: unreadable headers", redact_address(envelope_recipient))
    truncated = truncated or too_many_parts(raw_bytes, multipart=multipart)
    if not message_id:
        # No Message-ID: identical bytes are still recognised as the same delivery.
        message_id = synthesized_message_id(raw_bytes)
    seat = seat_for_recipient(envelope_recipient)
    flooded = seat is not None and over_intake(seat.pk)
    if envelope_sender is None:
        stored_sender = ""
    else:
        stored_sender = envelope_sender.strip() or "<>"
    fields = {
        "raw": header_section(raw_bytes) if truncated or flooded else raw_bytes,
        "size": size,
        "truncated": truncated,
        "message_id": message_id,
        "recipient": clean_text(redact_address(envelope_recipient))[:320],
        "recipient_digest": address_digest(envelope_recipient),
        "sender": sender,
        "envelope_sender": clean_text(stored_sender)[:320],
        "seat": seat,
        "source": source,
        "dkim": dkim,
    }
    if flooded:
        fields.update(status=Status.IGNORED, outcome="rate_limited",
                      error=f"more than {intake_per_hour()} messages in an hour to this seat")  # fmt: skip
    try:
        with transaction.atomic():
            row = InboundMail.objects.create(**fields)
    except IntegrityError:
        row = InboundMail.objects.get(
            message_id=message_id, recipient_digest=fields["recipient_digest"]
        )
        first = row
        reused = None if truncated else _reused_message_id(row, raw_bytes, message_id)
        if reused is not None:
            # Another message under an id used before (a script's fixed Message-ID): its
            # own row, known by its text, so its redelivery is still read once.
            fields["message_id"] = reused
            try:
                with transaction.atomic():
                    row = InboundMail.objects.create(**fields)
            except IntegrityError:
                row = InboundMail.objects.get(
                    message_id=reused, recipient_digest=fields["recipient_digest"]
                )
            else:
                logger.info(
                    "stored inbound #%s via %s to %s: another message with the Message-ID of #%s",
                    row.pk, source, fields["recipient"], first.pk,
                )  # fmt: skip
                return row, True
        logger.info(
            "duplicate inbound message to %s (same Message-ID as #%s): not processed again",
            fields["recipient"],
            row.pk,
        )
        return row, False
    logger.info(
        "stored inbound #%s via %s from %s to %s (%d bytes%s)",
        row.pk,
        source,
        _logged_sender(sender, envelope_sender),
        fields["recipient"],
        size,
        ", oversize" if truncated else ", over the hour's intake: ignored" if flooded else "",
    )
    return row, True


def _text_read(raw_bytes: bytes) -> str:
    """What a message says, as the gateway reads it (its subject and its text without
    quotes): the same for a redelivery, whatever the relaying servers re-encoded."""
    parsed = parse_message(raw_bytes)
    return f"{parsed.subject}\n{parsed.text}\n{parsed.has_attachments}"


def _reused_message_id(first: InboundMail, raw_bytes: bytes, message_id: str) -> str | None:
    """None when ``raw_bytes`` is a redelivery of ``first`` (whose Message-ID it has);
    else the id to store it under: another message reusing the id, as a script or a
    broken mail program does with a fixed one ("<1@localhost>"), which was dropped as a
    redelivery, unread and unanswered. A redelivery's headers differ (a ``Received`` line
    more), not what it says. A first copy kept as headers only (oversize, over the
    hour's intake), or one whose Message-ID was made from its bytes, is compared no
    further, nor an oversize copy (never read in full): a redelivery then."""
    headers_only = first.truncated or first.outcome == "rate_limited"
    if headers_only or message_id.startswith(SYNTHESIZED_ID_PREFIX):
        return None
    try:
        said = _text_read(raw_bytes)
        if said == _text_read(bytes(first.raw)):
            return None
    except Exception:  # noqa: BLE001 - never fail a delivery over this comparison
        logger.exception("inbound #%s: comparing a message with the same Message-ID failed", first.pk)
        return None
    digest = hashlib.sha256(said.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"{message_id[:900]} #text-{digest}"


def over_intake(seat_id: int) -> bool:
    """Whether the seat's address took ``MAIL_INTAKE_PER_HOUR`` messages in the last hour
    (counted up to the limit): more are neither read nor answered."""
    limit = intake_per_hour()
    recent = InboundMail.objects.filter(
        seat_id=seat_id, created_at__gte=timezone.now() - timedelta(hours=1)
    )
    return recent.values("pk")[:limit].count() >= limit


SYNTHESIZED_ID_PREFIX = "<sha256-"
SYNTHESIZED_ID_SUFFIX = "@fivex.invalid>"


def synthesized_message_id(raw_bytes: bytes) -> str:
    """The id of a message without a Message-ID header: the SHA-256 of its bytes."""
    return f"{SYNTHESIZED_ID_PREFIX}{hashlib.sha256(raw_bytes).hexdigest()}{SYNTHESIZED_ID_SUFFIX}"


def _logged_sender(sender: str, envelope_sender: str | None) -> str:
    """The sender as the intake's log line names it, redacted: the From: address, else
    the envelope sender saying so ("<>" alone would read as a null return path)."""
    if sender:
        return redact_address(sender)
    if envelope_sender is None or not envelope_sender.strip():
        return "an unknown sender (no From header, no envelope sender)"
    return f"{redact_address(envelope_sender)} (envelope; no From header)"


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
            _answer_repeat(row, raw_bytes, envelope_recipient, envelope_sender)
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


def _answer_repeat(
    row: InboundMail, raw_bytes: bytes, envelope_recipient: str, envelope_sender: str | None
) -> None:
    """Tell the seat holder that a copy of a message without a Message-ID was not read.

    Such a message is known only by its bytes, and an MTA's redelivery (its 250 lost)
    and a player's deliberate resend (a script sending the same order again after a
    refusal) are the same bytes with the same envelope: nothing tells them apart. So a
    copy is never read twice, but it is answered (within the seat's hourly answers), so
    a player's order is never lost without a word; a redelivery costs one short email.
    A message with a Message-ID (every mail program writes one) is a redelivery when it
    repeats and stays silent. Auto-replies, and a message whose first copy was ignored,
    are never answered, nor a copy whose first is not handled yet (its own answer is to
    come), nor one while the seat is over its hourly intake (``MAIL_INTAKE_PER_HOUR``:
    fresh mail is then neither read nor answered). Nor is a copy sent to an address that no longer leads to the
    seat (a new private address since, a replaced seat, a closed account) or to a seat
    no longer playing (resigned, its game over): a fresh message there is not read as an
    order, and a copy must not make the server email the player where a fresh one would
    not. A failure here is logged, never raised: the first copy stands."""
    if row.seat_id is None or row.status not in (Status.PROCESSED, Status.REJECTED):
        # Ignored: never answered. Not handled yet (queued, or failed and to be retried):
        # "handled then" would be false, and the first copy's own answer is still to come.
        return
    try:
        if over_intake(row.seat_id):  # as a fresh message now: neither read nor answered
            return
        parsed = parse_message(
            bytes(raw_bytes or b""), envelope_sender=envelope_sender, headers_only=True
        )
        if parsed.is_auto:
            return
        current = seat_for_recipient(envelope_recipient)  # the address's seat now
        if current is None or current.pk != row.seat_id:
            return
        seat = _load_seat(row.seat_id)
        over = str(seat.game.status) in ("finished", "abandoned")
        if not seat.user.is_active or str(seat.status) != "active" or over:
            return
        with transaction.atomic(), timezone.override(time_zone_of(user=seat.user)):
            sent = replies.send_reply(
                seat=seat,
                inbound=row,
                parsed=parsed,
                sections=[reply_texts.repeat_text(arrived=row.created_at)],
                key=f"repeat-{uuid.uuid4().hex}",  # every copy its own answer (hourly cap)
            )
        logger.info(
            "inbound #%s to %s: a copy without Message-ID arrived again: %s",
            row.pk,
            row.recipient,
            "answered" if sent is not None else "not answered (hourly answer limit)",
        )
    except Exception:  # noqa: BLE001 - the copy was stored before; never fail its delivery
        logger.exception("inbound #%s: answering a repeated copy failed", row.pk)


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
        seat = _load_seat(row.seat_id)
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


def _load_seat(seat_id: int) -> Seat:
    from games.models import Seat

    return Seat.objects.select_related("game", "user", "user__player_settings").get(pk=seat_id)


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
    seat = _load_seat(row.seat_id)
    if not seat.user.is_active:  # closed since the message was stored: as at storing
        return Outcome(Status.REJECTED, "unknown_recipient", "the seat's account is deactivated")
    with timezone.override(time_zone_of(user=seat.user)):  # the answer's dates
        return _decide_for_seat(row, parsed, seat)
