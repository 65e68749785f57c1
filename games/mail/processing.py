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
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from games.mail import authresults, replies
from games.mail.addresses import address_digest, redact_address, token_from_address
from games.mail.headers import (
    clean_text,
    dkim_result,
    header_section,
    header_text,
    parse_bytes,
    sender_address,
)
from games.mail.models import InboundMail
from games.mail.parsing import ParsedMail, parse_message
from games.selectors_players import time_zone_of

if TYPE_CHECKING:
    from games.models import Seat

logger = logging.getLogger("games.mail")

Status = InboundMail.Status


class MailSystemError(Exception):
    """Processing failed for a reason that is not the sender's fault; retry later."""


def max_bytes() -> int:
    """The largest message read (setting ``MAIL_MAX_BYTES``, default 1 MB); bigger ones
    are answered politely without being parsed."""
    return int(getattr(settings, "MAIL_MAX_BYTES", 1024 * 1024))


def max_parts() -> int:
    """The most MIME parts a message read may have (setting ``MAIL_MAX_PARTS``, default
    200; a reply with a few attachments has under 20): one of 1 MB in 200,000 empty parts
    held a mail worker 26 s (a security review), and the mail queue carries every
    outgoing email too. Counted before parsing, as boundary lines: an upper bound."""
    return int(getattr(settings, "MAIL_MAX_PARTS", 200))


def too_many_parts(raw: bytes, *, multipart: bool = True) -> bool:
    """Whether ``raw``, a ``multipart`` message, may hold more than ``max_parts`` MIME
    parts: its lines that start with "--" (each boundary line is one, at any depth; a
    signature's "-- " or a quoted rule counts too). A message that is not multipart has
    one part, whatever its lines."""
    if not multipart:
        return False
    limit = max_parts()
    return raw.startswith(b"--") + raw.count(b"\n--") > limit + 1  # + the closing boundary


def intake_per_hour() -> int:
    """The most messages a seat's address takes in an hour (setting
    ``MAIL_INTAKE_PER_HOUR``, default 60): more are stored as their header section,
    ``ignored`` (``rate_limited``), never read nor answered (a security review: one
    player could keep the mail workers busy, every outgoing email waiting behind)."""
    return int(getattr(settings, "MAIL_INTAKE_PER_HOUR", 60))


def max_attempts() -> int:
    """Processing attempts before giving up on a message (``MAIL_MAX_ATTEMPTS``)."""
    return int(getattr(settings, "MAIL_MAX_ATTEMPTS", 5))


def time_budget() -> float:
    """Seconds one processing may take (``MAIL_TASK_SOFT_TIME_LIMIT``, the inbound task's
    soft time limit)."""
    return float(getattr(settings, "MAIL_TASK_SOFT_TIME_LIMIT", 120))


class ProcessingTimedOut(Exception):
    """The processing ran past :func:`time_budget`. Celery's soft time limit is an
    exception raised wherever the work happens to be; the parser's handlers, which turn
    any failure into "unreadable" rather than a crash, may swallow it and carry on with a
    wrong answer (an auto-reply read as an order, a false "could not be read"). So the
    clock is also checked once the decision is made, inside its transaction: over the
    budget, the decision and everything it wrote are rolled back, as for the limit
    itself."""


@dataclass
class Outcome:
    """How processing ended: the row's new status, a machine code and a note."""

    status: str
    code: str
    error: str = ""
    sections: list[str] = field(default_factory=list)


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
        message_id = f"<sha256-{hashlib.sha256(raw_bytes).hexdigest()}@fivex.invalid>"
    seat = seat_for_recipient(envelope_recipient)
    flooded = seat is not None and InboundMail.objects.filter(
        seat=seat, created_at__gte=timezone.now() - timedelta(hours=1)
    ).values("pk")[: intake_per_hour()].count() >= intake_per_hour()  # counted up to the limit
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
        redact_address(fields["sender"]),
        fields["recipient"],
        size,
        ", oversize" if truncated else ", over the hour's intake: ignored" if flooded else "",
    )
    return row, True


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
        seat = _load_seat(row.seat_id)
        try:
            with transaction.atomic():
                replies.send_reply(
                    seat=seat,
                    inbound=row,
                    parsed=parsed,
                    sections=[replies.system_failure_text()],
                    key="gave-up",
                )
        except Exception:  # noqa: BLE001 - the headers broke the answer: without them
            logger.exception("inbound #%s: answer from its headers failed", inbound_id)
            replies.send_reply(
                seat=seat,
                inbound=row,
                parsed=ParsedMail(),
                sections=[replies.system_failure_text()],
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


def authserv_ids() -> list[str]:
    """The authserv-ids of the site's own receiving mail servers (``MAIL_AUTHSERV_ID``,
    comma-separated): their Authentication-Results headers are trusted."""
    value = getattr(settings, "MAIL_AUTHSERV_ID", "") or ""
    return [part.strip() for part in value.split(",") if part.strip()]


def sender_matches(*, seat: Seat, sender: str) -> bool:
    """Whether ``sender`` is the seat holder's account address (or one of its verified
    allauth addresses), compared case-insensitively."""
    sender = (sender or "").strip().lower()
    user = getattr(seat, "user", None)
    if not sender or user is None:
        return False
    if (user.email or "").strip().lower() == sender:
        return True
    try:
        from allauth.account.models import EmailAddress
    except Exception:  # noqa: BLE001 - allauth not installed
        return False
    return EmailAddress.objects.filter(user=user, email__iexact=sender, verified=True).exists()


def _decide(row: InboundMail) -> Outcome:
    if row.seat_id is None:
        # No reply: the address is unknown, so there is nobody we may answer safely.
        return Outcome(Status.REJECTED, "unknown_recipient", "no seat has this address")
    parsed = parse_message(
        bytes(row.raw), envelope_sender=_envelope_sender(row), headers_only=row.truncated
    )
    if parsed.is_auto:
        return Outcome(Status.IGNORED, "auto_reply", parsed.auto_reason)
    seat = _load_seat(row.seat_id)
    if not seat.user.is_active:  # closed since the message was stored: as at storing
        return Outcome(Status.REJECTED, "unknown_recipient", "the seat's account is deactivated")
    with timezone.override(time_zone_of(user=seat.user)):  # the answer's dates
        return _decide_for_seat(row, parsed, seat)


def _decide_for_seat(row: InboundMail, parsed: ParsedMail, seat: Seat) -> Outcome:
    parsed.order_text = _before_our_email(parsed.order_text, seat.game)
    outcome = _answer(seat, row, parsed)
    if outcome.sections:
        from games.selectors import current_prompt

        # An answer that asks again (a refusal, HELP) names the prompt open now, so an
        # order sent in reply to it answers that prompt; a confirmation names none (a
        # player often replies to the newest email, which may be the confirmation of the
        # order that closed the prompt, to order for the next one).
        number = None
        if outcome.code not in ("order_accepted", "deadline_passed"):
            prompt = current_prompt(game=seat.game)
            if prompt is not None and seat.name in (prompt.pending or []):
                number = prompt.number
        sent = replies.send_reply(
            seat=seat, inbound=row, parsed=parsed, sections=outcome.sections, prompt_number=number
        )
        if sent is None:  # recorded on the row: the player was not told
            note = "not answered (hourly answer limit)"
            outcome.error = f"{outcome.error}; {note}" if outcome.error else note
    return outcome


def _answer(seat: Seat, row: InboundMail, parsed: ParsedMail) -> Outcome:
    game = seat.game
    rejected = Status.REJECTED
    # A From: with several mailboxes, or one parsed with defects, matches nobody.
    sender_ok = parsed.sender_ok and sender_matches(seat=seat, sender=parsed.sender)
    # The sender as the answers name it (None: no single address in the usual form).
    named = parsed.sender if parsed.sender_ok or not parsed.sender else None
    if getattr(game, "require_sender_match", False) and not sender_ok:
        text = replies.sender_mismatch_text(sender=named)
        return Outcome(rejected, "sender_mismatch", "sender is not the seat's address", [text])
    trusted = authserv_ids()
    if getattr(game, "require_sender_match", False) and trusted:
        verified, why = authresults.verdict(parsed.auth_results, parsed.sender, trusted)
        if not verified:
            text = replies.sender_unverified_text(sender=parsed.sender, why=why)
            return Outcome(rejected, "sender_unverified", why[:200], [text])
    if str(getattr(seat, "status", "active")) != "active":
        return Outcome(
            rejected, "seat_inactive", "seat is not active", [replies.inactive_text(seat)]
        )
    if row.truncated and row.size <= max_bytes():
        text = replies.too_many_parts_text(limit=max_parts())
        return Outcome(rejected, "too_large", "too many MIME parts", [text])
    if row.truncated:
        text = replies.too_large_text(size=row.size, limit=max_bytes())
        return Outcome(rejected, "too_large", f"{row.size} bytes", [text])
    if str(game.status) in ("finished", "abandoned"):
        return _game_over(seat, parsed)
    if parsed.garbled:
        return Outcome(rejected, "garbled", "unreadable body", [replies.garbled_text(seat)])
    if not parsed.has_text and parsed.has_attachments:
        text = replies.attachment_only_text(seat)
        return Outcome(rejected, "attachment_only", "no text part", [text])
    if not parsed.commands and not parsed.order_text:
        in_subject = _order_in_subject(seat, parsed.subject)
        if in_subject is not None:
            # Never taken as the order (nothing is guessed): the player is told where to
            # write it.
            text = replies.order_in_subject_text(seat, in_subject)
            return Outcome(rejected, "order_in_subject", "order in the subject only", [text])
        return Outcome(rejected, "empty", "no order or command", [replies.empty_text(seat)])
    outcome = Outcome(Status.PROCESSED, "commands")
    signoff = ""
    if parsed.commands and parsed.order_text and _is_signoff(parsed.order_text, seat):
        # "STATUS\n\nThanks,\nBob": the command is the message, the rest a sign-off.
        signoff, parsed.order_text = parsed.order_text, ""
    if parsed.order_text:
        from games.services.outbox import prompt_answered

        # A reply to the email of one prompt answers that prompt: if it has closed since,
        # the order is refused rather than put on the next one. Any other message answers
        # the prompt that was open when it arrived (it may be read later: a worker down,
        # a retry), never one opened after it.
        # Without In-Reply-To the parent is the last id of References (RFC 5322 3.6.4;
        # some programs write only that).
        parent = parsed.in_reply_to.strip() or (parsed.references.split() or [""])[-1]
        answered = prompt_answered(in_reply_to=parent, game_id=game.pk)
        if answered is None:
            answered = _prompt_open_at(game_id=game.pk, moment=row.created_at)
        outcome = _submit(seat, parsed.order_text, answered, row.created_at)
    foreign = not sender_ok
    for command in parsed.commands:
        if command in ("QUIET", "ALL"):  # as the game page's "Email me" choice
            from games.services.seats import seat_email_every_prompt_set

            seat_email_every_prompt_set(seat=seat, every=command == "ALL")
        outcome.sections.append(replies.command_text(seat, command))
    if signoff:
        outcome.sections.append(replies.signoff_note(ignored=signoff.strip(), command=True))
    if foreign and outcome.sections:  # whatever it did, the seat holder learns of it
        outcome.sections.append(replies.foreign_sender_text(sender=named))
    return outcome


_SUBJECT_PREFIX_RE = re.compile(
    r"^\s*(re|aw|sv|vs|antw|réf|ref|fwd?|wg|tr|rv|enc|odp|přep)\s*(\[\d+\])?\s*:\s*", re.IGNORECASE
)
_SUBJECT_END_PUNCT_RE = re.compile(r"[\s.!]+$")


def _order_in_subject(seat: Seat, subject: str) -> str | None:
    """The order a message's Subject holds, once the reply and forward prefixes ("Re:",
    "Fwd:") and the game's bracketed title ("[League 7]") are taken away: a legal order
    of the seat (as the game writes it), or text the rules parse as an order. None
    otherwise. Only said back to the player, never taken as the order."""
    import unicodedata

    from games.selectors import current_state, legal_orders
    from games.services.games import ruleset_get

    text = unicodedata.normalize("NFKC", subject or "")[:300].strip()
    title = re.compile(r"\s*\[\s*" + re.escape(seat.game.title) + r"\s*\]\s*", re.IGNORECASE)
    for _ in range(20):  # "Re: [League 7] Fwd: ..." (bounded)
        before = text
        text = _SUBJECT_PREFIX_RE.sub("", text, count=1)
        found = title.match(text)
        if found:
            text = text[found.end() :]
        if text == before:
            break
    text = " ".join(_SUBJECT_END_PUNCT_RE.sub("", text).split())
    if not text:
        return None
    for order in legal_orders(seat=seat):
        if " ".join(order.split()).upper() == text.upper():
            return order
    state = current_state(game=seat.game)
    if not state:
        return None
    try:
        ruleset_get(seat.game.ruleset).parse_order(state, seat.name, text)
    except Exception:  # noqa: BLE001 - IllegalOrder or worse: not an order
        return None
    return text


def _game_over(seat: Seat, parsed: ParsedMail) -> Outcome:
    """A message for a finished or abandoned game: an order is refused; commands are
    answered from what may be known once the game is over (``replies.game_over_text``:
    a finished game's ranking and log, an abandoned game's page only)."""
    sections = [replies.finished_text(seat.game, details=not parsed.commands)]
    sections += [replies.game_over_text(seat, command) for command in parsed.commands]
    order_text = parsed.order_text
    if parsed.commands and order_text and _is_signoff(order_text, seat):
        order_text = ""  # "STATUS\n\nThanks,\nAnn"
    if order_text or not parsed.commands:
        return Outcome(Status.REJECTED, "game_finished", "game is over", sections)
    return Outcome(Status.PROCESSED, "commands", "game is over", sections)


def _before_our_email(text: str, game: Any) -> str:
    """The text above a copy of one of our own emails pasted or quoted without ``>``
    (some clients reply that way): our game emails start with "<game title> — ...", a
    reminder with "Reminder: <game title> ...", a notice with "<game title>: ..." (answers
    start with the "above this line" marker, which ``strip_reply`` cuts at)."""
    if not text:
        return text
    heads = (f"{game.title} — ", f"{game.title}: ", f"Reminder: {game.title} ")
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.strip().startswith(heads):
            return "\n".join(lines[:i]).strip()
    return text


_SIGNOFF_RE = re.compile(
    r"(thanks?|thank you|thx|cheers|regards|best|br|kind regards|greetings|grü(ß|ss)e|gruss|"
    r"saludos|merci|cordialement|ciao|bye|sent from)\b",
    re.IGNORECASE,
)


def _is_signoff(text: str, seat: Any) -> bool:
    """Whether the text beside a command reads as a sign-off ("Thanks,\nBob"): a few
    lines whose first starts with a parting word, or ends with a comma without starting
    with one of the seat's order words ("PLAY EXPLORE," is an order)."""
    from games.selectors import legal_orders

    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines or len(lines) > 8:
        return False
    if _SIGNOFF_RE.match(lines[0]):
        return True
    verbs = {o.split()[0].upper() for o in legal_orders(seat=seat) if o.split()}
    first = lines[0].split()[0].upper().strip(",.;:")
    return lines[0].endswith(",") and first not in verbs


def _prompt_open_at(*, game_id: int, moment: datetime | None) -> int | None:
    """The number of the game's prompt that was open at ``moment`` (None before the
    first one, or without a moment)."""
    from games.models import Prompt

    if moment is None:
        return None
    prompt = (
        Prompt.objects.filter(game_id=game_id, opened_at__lte=moment)
        .order_by("-number")
        .only("number")
        .first()
    )
    return None if prompt is None else prompt.number


def _submit(
    seat: Seat, text: str, expected_prompt: int | None = None, arrived_at: Any = None
) -> Outcome:
    from games.errors import ApplicationError, OrderRefused

    try:
        sealed = _submit_text(seat, text, expected_prompt, arrived_at)
    except OrderRefused as exc:
        lead, rest = lead_in(seat, text)
        if lead:  # "Hi all,\nMy order:\nPLAY EXPAND": the order is what follows
            outcome = _submit(seat, rest, expected_prompt, arrived_at)
            if outcome.status == Status.PROCESSED:
                outcome.sections.insert(1, replies.lead_in_note(ignored=lead))
            return outcome
        head = signed_off_head(seat, text)
        if head is None:
            below = _order_below_a_line(seat, text)
            if below is None:
                return _refused(seat, exc, text)
            # "ok then" above an order: still refused (a line above an order is read past
            # only as a lead-in: ending with ':' or ','), but saying why, where "not 2
            # orders" puzzled a player who wrote one.
            first, order = below
            shown = _cut(first)
            lead = first.rstrip(".!?;,: ") + ":"
            colon = f' "{lead}"' if len(lead) <= 40 else ""
            if "\n" in order:  # a 6x5 CHANGE, 4X Dice hits a line each: as they are
                again = "your order again without that line:\n\n" + "\n".join(
                    f"    {line.strip()}" for line in order.splitlines() if line.strip()
                ) + "\n\n"
            else:
                again = f"{_cut(order)} again without that line "
            return _refused(
                seat,
                OrderRefused(
                    f'the line above your order, "{shown}", is not part of it, so nothing '
                    f"was stored. Send {again}(or end that line with a colon,{colon} and it "
                    "is read past as a lead-in).",
                    code="order_refused",
                ),
                text,
            )
        ignored = text.strip()[len(head) :]
        named = _other_order_named(seat, head, ignored)
        if named is not None:
            # "PLAY EXPAND / (blank) / Sorry, I meant PLAY EXPLORE": no sign-off, a
            # correction. Nothing is guessed: refused, nothing changes.
            order, line = named
            part = "paragraph" if re.match(r"[ \t]*\n[ \t]*\n", ignored) else "line"
            return _refused(
                seat,
                OrderRefused(
                    f"your message is ambiguous: its first {part} is the order "
                    f"{replies.one_line_order(head)}, but the text after it names the order "
                    f'{order} ("{line[:120]}"). Nothing was stored for this message; send '
                    "again with only the order you mean.",
                    code="order_ambiguous",
                ),
            )
        try:
            sealed = _submit_text(seat, head, expected_prompt, arrived_at)
        except ApplicationError as head_exc:
            # The rest is a sign-off: the reason about the order itself says more
            # ("NAPOLEON is not in your hand") than about the line count.
            return _refused(seat, head_exc)
        paragraph = bool(re.match(r"[ \t]*\n[ \t]*\n", ignored))
        note = replies.signoff_note(ignored=ignored.strip(), paragraph=paragraph)
        fresh = _fresh(sealed, arrived_at)
        sections = [replies.accepted_text(seat, sealed, fresh=fresh), note]
        return Outcome(Status.PROCESSED, "order_accepted", "sign-off ignored", sections)
    except ApplicationError as exc:
        return _refused(seat, exc)
    text = replies.accepted_text(seat, sealed, fresh=_fresh(sealed, arrived_at))
    return Outcome(Status.PROCESSED, "order_accepted", "", [text])


def _typed_words(text: str) -> list[str]:
    """The words of ``text`` as typed, without the punctuation around them."""
    return [w for w in (w.strip(",.;:!?\"'()") for w in text.split()) if w]


def _order_words(text: str) -> list[str]:
    return [w.upper() for w in _typed_words(text)]


def _other_order_named(seat: Seat, head: str, rest: str) -> tuple[str, str] | None:
    """``(order, line)``: the first legal order of the seat, other than ``head``, that a
    line of ``rest`` names as a phrase ("Sorry, I meant PLAY EXPLORE"); None when there
    is none. Linear in the text: only words that start a legal order are looked at."""
    from games.selectors import legal_orders

    head_words = tuple(_order_words(head))
    by_verb: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for order in legal_orders(seat=seat):
        words = tuple(_order_words(order))
        if words and words != head_words:
            by_verb.setdefault(words[0], []).append((words, order))
    if not by_verb:
        return None
    for line in rest.splitlines():
        typed = _typed_words(line)
        words = [w.upper() for w in typed]
        for i, word in enumerate(words):
            for candidate, order in by_verb.get(word, ()):
                if len(candidate) == 1 and typed[i] != word:
                    continue  # a one-word order in lower case is prose: "pass the beer"
                if tuple(words[i : i + len(candidate)]) == candidate:
                    return order, " ".join(line.split())
    return None


def _cut(text: str, limit: int = 120) -> str:
    """A line of the player's quoted in an answer, at most ``limit`` characters."""
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + "…"


def _order_below_a_line(seat: Seat, text: str) -> tuple[str, str] | None:
    """``(first line, the rest)`` when ``text`` is one line that is no order (no order
    word, no legal order named, no address) above text that is a legal order of the
    seat now, as the engine reads it (nothing stored); None otherwise."""
    from engine.base import EngineError
    from games.models import StateSnapshot
    from games.selectors import current_prompt, legal_orders
    from games.services.games import ruleset_get

    lines = text.strip().split("\n")
    first, rest = " ".join(lines[0].split()), "\n".join(lines[1:]).strip()
    if not first or not rest or "@" in first:
        return None
    words = _order_words(first)
    verbs = {o.split()[0].upper() for o in legal_orders(seat=seat) if o.split()}
    if not words or words[0] in verbs or _other_order_named(seat, "", first) is not None:
        return None
    prompt = current_prompt(game=seat.game)
    if prompt is None or seat.name not in (prompt.pending or []):
        return None
    state = StateSnapshot.objects.filter(game=seat.game, prompt_number=prompt.number).first()
    if state is None:
        return None
    try:
        ruleset_get(seat.game.ruleset).parse_order(state.state, seat.name, rest)
    except EngineError:
        return None
    return first, rest


LEAD_IN_LINES = 3
#: The most words a lead-in before a colon on the order's own line may have.
INLINE_LEAD_IN_WORDS = 6


def lead_in(seat: Seat, text: str) -> tuple[str, str]:
    """``(lead-in, the rest)``: the greeting or lead-in above the order of a message whose
    whole text was refused ("Hi all," "Changed my mind:"): up to ``LEAD_IN_LINES``
    leading lines that end with a colon or a comma (or, on the order's own line, up to
    ``INLINE_LEAD_IN_WORDS`` words before a colon: "My order: PLAY EXPAND"), none starting with one of the seat's
    order words or naming one of its legal orders (then it is an order, and the message
    stays ambiguous), nor holding an address (an attribution: what follows may be quoted). ``("", text)`` when there is none, or nothing follows it."""
    from games.selectors import legal_orders

    verbs = {o.split()[0].upper() for o in legal_orders(seat=seat) if o.split()}
    lines = text.strip().split("\n")
    taken: list[str] = []
    i = 0
    while i < len(lines) and len(taken) < LEAD_IN_LINES:
        line = " ".join(lines[i].split())
        if not line:
            i += 1
            continue
        words = _order_words(line)
        if not line.endswith((":", ",")) and ":" in line and words and words[0] not in verbs:
            # "My order: PLAY EXPAND": a short lead-in before a colon on the order's own
            # line (left open by earlier sessions: refused), read past as one on a line of
            # its own is
            head, after = line.split(":", 1)
            if (
                len(_order_words(head)) <= INLINE_LEAD_IN_WORDS and after.strip()
                and "@" not in head and _other_order_named(seat, "", head) is None
            ):
                taken.append(head.strip() + ":")
                lines[i] = after.strip()
            break
        if not line.endswith((":", ",")) or not words or words[0] in verbs:
            break
        if "@" in line:  # "… <fivex@localhost>:" may attribute what follows to someone
            break
        if _other_order_named(seat, "", line) is not None:
            break
        taken.append(line)
        i += 1
    rest = "\n".join(lines[i:]).strip()
    if not taken or not rest:
        return "", text
    return "\n".join(taken), rest


def _fresh(sealed: Any, arrived_at: Any) -> bool:
    """Whether this message stored the order (not a resend of the current one)."""
    return arrived_at is None or sealed.submitted_at is None or sealed.submitted_at >= arrived_at


def _submit_text(
    seat: Seat, text: str, expected_prompt: int | None = None, arrived_at: Any = None
):
    from games.errors import DeadlinePassed
    from games.services.orders import order_submit, sweep_soon

    try:
        with transaction.atomic():
            return order_submit(
                seat=seat,
                text=text,
                source="email",
                expected_prompt=expected_prompt,
                arrived_at=arrived_at,
            )
    except DeadlinePassed:
        sweep_soon()  # this savepoint's rollback dropped the one order_submit asked for
        raise


def _refused(seat: Seat, exc, text: str = "") -> Outcome:
    """A refusal; with ``text`` (what was read as the order) the lines read are shown when
    there are several: a quote or signature the gateway did not recognise is then plain
    to see, where "not 3 orders" alone puzzles a player who wrote one."""
    sections = [replies.refused_text(seat, exc)]
    read = replies.lines_read_text(text)
    if read:
        sections.append(read)
    return Outcome(Status.REJECTED, exc.code[:32], exc.message, sections)


def signed_off_head(seat: Seat, text: str) -> str | None:
    """The order part of a message whose whole text was refused, when the rest is a
    sign-off ("Thanks,\nAnn" with no "-- " marker): the first paragraph (the first line
    when there is no blank line), if no later line is an order on its own or starts with
    an order's verb (a second, perhaps illegal, order: the message is ambiguous and stays
    refused). None when that does not apply; whether that head is a legal order is left
    to ``order_submit``."""
    from engine.base import IllegalOrder
    from games.selectors import current_state, legal_orders
    from games.services.games import ruleset_get

    paragraphs = re.split(r"\n[ \t]*\n", text.strip(), maxsplit=1)
    if len(paragraphs) < 2:
        paragraphs = text.strip().split("\n", 1)  # no blank line: the first line
    if len(paragraphs) < 2:
        return None
    head, tail = paragraphs[0].strip(), paragraphs[1]
    game = seat.game
    rules = ruleset_get(game.ruleset)
    state = current_state(game=game)
    if not state:  # not started: nothing to read orders against
        return None
    verbs = {o.split()[0].upper() for o in legal_orders(seat=seat) if o.split()}
    if head.split():
        verbs.add(head.split()[0].upper())
    for line in tail.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.split()[0].upper().strip(",.;:") in verbs:
            return None  # looks like another order (a legal one or not): ambiguous
        try:
            rules.parse_order(state, seat.name, line)
        except IllegalOrder:
            continue
        except Exception:  # an engine refusing oddly: treat as ambiguous
            return None
        return None  # a second order after the blank line: ambiguous
    return head or None
