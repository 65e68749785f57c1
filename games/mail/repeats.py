"""The answer to a copy of a message without a Message-ID: :func:`answer_repeat`.

Such a copy is stored once and never read again (``games.mail.storing``); this tells the
seat holder so, when an answer is due at all.
"""

from __future__ import annotations

import logging
import uuid

from django.db import transaction
from django.utils import timezone

from games.mail import replies, reply_texts
from games.mail.models import InboundMail
from games.mail.parsing import parse_message
from games.mail.storing import load_seat, over_intake, seat_for_recipient
from games.selectors_players import time_zone_of

logger = logging.getLogger("games.mail")

Status = InboundMail.Status


def answer_repeat(
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
        seat = load_seat(row.seat_id)
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
