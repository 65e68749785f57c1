"""Entry point for deployments behind an email service provider: django-anymail's inbound
webhooks (``/anymail/<esp>/inbound/``) send the ``anymail.signals.inbound`` signal, and this
receiver hands the raw message to :func:`games.mail.processing.process_message`."""

from __future__ import annotations

import logging
from typing import Any

from anymail.signals import inbound
from django.dispatch import receiver

from games.mail.addresses import redact_address, split_orders_address

logger = logging.getLogger("games.mail")


def _envelope_recipient(message: Any) -> str:
    """The ESP's envelope recipient, else the first of our addresses in the headers."""
    recipient = getattr(message, "envelope_recipient", None)
    if recipient:
        return str(recipient)
    for header in ("Delivered-To", "X-Original-To", "To", "Cc"):
        for value in message.get_all(header, []) or []:
            for part in str(value).split(","):
                addr = part.strip()
                if "<" in addr:
                    addr = addr[addr.find("<") + 1 : addr.rfind(">")]
                if split_orders_address(addr):
                    return addr
    return ""


@receiver(inbound, dispatch_uid="games.mail.inbound")
def handle_inbound(sender: Any, event: Any, esp_name: str, **kwargs: Any) -> None:
    """Store the inbound message and queue its processing (the ESP gets its 200 fast)."""
    from games.mail.processing import process_message

    message = event.message
    try:
        raw = message.as_bytes()
    except Exception:  # noqa: BLE001 - a message the email package cannot re-serialise
        raw = str(message).encode("utf-8", "replace")
    recipient = _envelope_recipient(message)
    envelope_sender = getattr(message, "envelope_sender", None)
    logger.info("inbound webhook from %s to %s", esp_name, redact_address(recipient))
    process_message(
        raw,
        recipient,
        source="webhook",
        envelope_sender=envelope_sender,
        defer=True,
    )
