"""Storing an inbound message before anything else: :func:`store_message`.

The raw message becomes an :class:`~games.mail.models.InboundMail` row in its own
transaction, so a crash never loses an order. The seat is resolved from the token in the
envelope recipient at that moment. The same Message-ID delivered twice to the same
address is stored once (a message with none is known by the hash of its bytes);
another message reusing a Message-ID gets a row of its own. A seat's address over its
hourly intake (``MAIL_INTAKE_PER_HOUR``) keeps only the headers, marked ignored.

Reading and answering a stored row is ``games.mail.processing``'s.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from games.mail.addresses import address_digest, redact_address, token_from_address
from games.mail.headers import (
    clean_text,
    dkim_result,
    header_section,
    header_text,
    parse_bytes,
    sender_address,
)
from games.mail.limits import intake_per_hour, max_bytes, too_many_parts
from games.mail.models import InboundMail
from games.mail.parsing import parse_message

if TYPE_CHECKING:
    from games.models import Seat

logger = logging.getLogger("games.mail")

Status = InboundMail.Status


def seat_for_recipient(envelope_recipient: str) -> Seat | None:
    """The seat whose token the envelope recipient holds, or None (unknown, closed)."""
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
        "sender_user_id": _sender_account(sender, stored_sender),
        "source": source,
        "dkim": dkim,
    }
    if flooded:
        fields.update(status=Status.IGNORED, outcome="rate_limited",
                      error=f"more than {intake_per_hour()} messages in an hour to this seat")  # fmt: skip
    row, created = _create_or_get(fields)
    if not created:
        first = row
        reused = None if truncated else _reused_message_id(row, raw_bytes, message_id)
        if reused is not None:
            # Another message under an id used before (a script's fixed Message-ID): its
            # own row, known by its text, so its redelivery is still read once.
            fields["message_id"] = reused
            row, created = _create_or_get(fields)
            if created:
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


def _sender_account(sender: str, envelope_sender: str) -> int | None:
    """The account whose verified address sent the message (From:, else MAIL FROM), as
    the addresses stand now: recorded on the row, so the account's data download lists
    it and an address changing hands later does not make it the new owner's."""
    from games.selectors_addresses import account_of_address

    for address in (sender, envelope_sender):
        if address and address != "<>":
            account = account_of_address(address)
            if account is not None:
                return account
    return None


def _create_or_get(fields: dict[str, Any]) -> tuple[InboundMail, bool]:
    """``(row, created)``: the row ``fields`` describe, stored now, or the one stored
    before under the same Message-ID and recipient (the unique constraint decides, so
    two deliveries racing each other store one row)."""
    try:
        with transaction.atomic():
            return InboundMail.objects.create(**fields), True
    except IntegrityError:
        row = InboundMail.objects.get(
            message_id=fields["message_id"], recipient_digest=fields["recipient_digest"]
        )
        return row, False


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


def load_seat(seat_id: int) -> Seat:
    """The seat of a stored row, with what its answer needs (game, player, settings)."""
    from games.models import Seat

    return Seat.objects.select_related("game", "user", "user__player_settings").get(pk=seat_id)
