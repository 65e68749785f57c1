"""An SMTP server for order mail (aiosmtpd), for ``manage.py runsmtpd``.

Unknown recipients are refused at RCPT time with 550 (wrong domain, or a token no seat
has), so nothing is accepted that cannot be delivered. An accepted message is stored
synchronously (an InboundMail row) before the server answers 250 to DATA, and its
processing is queued to Celery once that row is committed. If storing fails the server
answers 451, and the sending MTA tries again later: nothing is lost either way.
"""

from __future__ import annotations

import logging
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections, connections

from games.mail.addresses import (
    RedactAddressesFilter,
    orders_domain,
    redact_address,
    split_orders_address,
)

logger = logging.getLogger("games.mail")


def redact_aiosmtpd_logs() -> None:
    """aiosmtpd logs every command verbatim (RCPT TO holds a seat's token) to the
    ``mail.log`` logger: redact addresses there (idempotent)."""
    smtp_logger = logging.getLogger("mail.log")
    if not any(isinstance(f, RedactAddressesFilter) for f in smtp_logger.filters):
        smtp_logger.addFilter(RedactAddressesFilter())


def smtp_max_bytes() -> int:
    """Hard limit of the SMTP server (``MAIL_SMTP_MAX_BYTES``, default 32 MB). Between
    ``MAIL_MAX_BYTES`` and this, a message is accepted and answered politely; above it,
    refused with 552 during DATA."""
    return int(getattr(settings, "MAIL_SMTP_MAX_BYTES", 32 * 1024 * 1024))


def _known_recipient(address: str) -> bool:
    from games.services.seats import seat_for_token

    close_old_connections()
    try:
        parts = split_orders_address(address)
        return parts is not None and seat_for_token(token=parts.token) is not None
    finally:
        connections.close_all()  # this thread's: nothing stays open between messages


def _store(raw: bytes, recipient: str, mail_from: str | None) -> int:
    from games.mail.processing import process_message

    close_old_connections()
    try:
        row = process_message(raw, recipient, source="smtp", envelope_sender=mail_from, defer=True)
        return int(row.pk)
    finally:
        connections.close_all()  # this thread's: nothing stays open between messages


class OrdersHandler:
    """aiosmtpd handler: RCPT checks the address, DATA stores and queues."""

    async def handle_RCPT(  # noqa: N802 - aiosmtpd hook name
        self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: list[str]
    ) -> str:
        if split_orders_address(address) is None:
            logger.info(
                "smtp: refused recipient %s (not an orders address)", redact_address(address)
            )
            return "550 5.1.1 Unknown recipient: not an orders address of this server"
        try:
            known = await sync_to_async(_known_recipient)(address)
        except Exception:  # noqa: BLE001 - the database is away: ask the client to retry
            logger.exception("smtp: recipient lookup failed")
            return "451 4.3.0 Temporary failure, please try again later"
        if not known:
            logger.info("smtp: refused recipient %s (unknown token)", redact_address(address))
            return "550 5.1.1 Unknown recipient: this reply address is unknown or expired"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        raw = envelope.original_content or envelope.content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        try:
            for recipient in envelope.rcpt_tos:
                await sync_to_async(_store)(raw, recipient, envelope.mail_from)
        except Exception:  # noqa: BLE001 - not stored: the client keeps it and retries
            logger.exception("smtp: could not store a message")
            return "451 4.3.0 Temporary failure, please try again later"
        return "250 2.0.0 Message accepted"


class OrdersSMTP(SMTP):
    """aiosmtpd's server with longer lines allowed: RFC 5321 caps a line at 1,000 bytes,
    but real mail (HTML from some clients, long unwrapped lines) exceeds it, and aiosmtpd
    answers a permanent ``500 Line too long`` that makes the sender's server bounce the
    order instead of delivering it. The message size limit still applies."""

    line_length_limit = 1024 * 1024


class OrdersController(Controller):
    def factory(self) -> SMTP:
        # A single line may be as long as the largest message (then refused as too big
        # during DATA, with an answer, rather than bounced as "Line too long"). A class
        # of its own: aiosmtpd sizes its stream reader from the class attribute.
        limit = max(OrdersSMTP.line_length_limit, smtp_max_bytes())
        server_class = type("OrdersSMTPSized", (OrdersSMTP,), {"line_length_limit": limit})
        return server_class(self.handler, **self.SMTP_kwargs)


def make_controller(host: str = "127.0.0.1", port: int = 2525) -> Controller:
    """An aiosmtpd Controller (call ``start()``/``stop()``) serving order mail."""
    redact_aiosmtpd_logs()
    return OrdersController(
        OrdersHandler(),
        hostname=host,
        port=port,
        server_hostname=orders_domain(),  # the banner name; avoids a slow getfqdn()
        data_size_limit=smtp_max_bytes(),
        enable_SMTPUTF8=True,
        ident="FiveX orders",
    )
