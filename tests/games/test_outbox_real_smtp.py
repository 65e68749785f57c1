"""The outbox against a real SMTP server (aiosmtpd): an email carries one Message-ID over
all its attempts (a receiver, or a mail client, that got the first attempt after all — the
server took the text, then answered a temporary error — sees the second as the same
message); a server closing at RCPT TO (421) is the server away, not one address refused."""

from __future__ import annotations

import email
import email.policy
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import OutboxMessage
from games.services.outbox import outbox_enqueue
from games.services.outbox_sending import outbox_send, outbox_send_many
from tests.conftest import smtp_server

pytestmark = pytest.mark.django_db


class _RefusesFirstData:
    """An aiosmtpd handler that reads each message, answers the first DATA with a
    temporary error (451) and accepts the rest: every attempt's text is kept."""

    def __init__(self) -> None:
        self.seen: list[email.message.EmailMessage] = []

    async def handle_DATA(self, server, session, envelope) -> str:  # noqa: N802 (aiosmtpd hook)
        raw = envelope.original_content or envelope.content
        self.seen.append(email.message_from_bytes(raw, policy=email.policy.default))
        if len(self.seen) == 1:
            return "451 4.3.0 Temporary local problem, try again later"
        return "250 Message accepted for delivery"


@pytest.fixture
def refusing_smtp(settings) -> Iterator[_RefusesFirstData]:
    handler = _RefusesFirstData()
    with smtp_server(settings, handler):
        yield handler


def _two_attempts(message_id: int, *, batch: bool) -> list[tuple[str, float]]:
    now = timezone.now()
    results = []
    for at in (now, now + timedelta(seconds=31)):  # the retry is due after 30 s
        if batch:
            results += outbox_send_many(message_ids=[message_id], now=at)
        else:
            results.append(outbox_send(message_id=message_id, now=at))
    return results


@pytest.mark.parametrize("batch", [False, True], ids=["outbox_send", "outbox_send_many"])
def test_a_queued_email_keeps_its_message_id_across_attempts(refusing_smtp, batch) -> None:
    message = outbox_enqueue(to="ann@example.com", subject="s", body="b", queue_task=False)
    assert _two_attempts(message.pk, batch=batch) == [("retrying", 30), ("sent", 0)]
    ids = [m["Message-ID"] for m in refusing_smtp.seen]
    assert len(ids) == 2 and ids[0] and ids[0] == ids[1]


@pytest.mark.parametrize("batch", [False, True], ids=["outbox_send", "outbox_send_many"])
def test_a_row_without_a_message_id_gets_one_that_every_attempt_keeps(refusing_smtp, batch) -> None:
    """A row queued without one (before Message-IDs were chosen at queueing, from the
    admin, a script): Django made a new one at each attempt, so a copy the server had
    taken was a second message to the reader."""
    message = OutboxMessage.objects.create(to="ann@example.com", subject="s", body="b", headers={})
    other = OutboxMessage.objects.create(to="bob@example.com", subject="s", body="b", headers={})
    assert _two_attempts(message.pk, batch=batch) == [("retrying", 30), ("sent", 0)]
    ids = [m["Message-ID"] for m in refusing_smtp.seen]
    assert len(ids) == 2 and ids[0] and ids[0] == ids[1]
    assert ids[0].startswith("<") and ids[0].endswith(">") and "@" in ids[0]
    assert outbox_send(message_id=other.pk) == ("sent", 0)  # another row's is its own
    assert refusing_smtp.seen[2]["Message-ID"] not in ("", ids[0])


class _ClosesAtRcpt:
    """An aiosmtpd handler answering every RCPT TO "421": the server itself is going
    away (smtplib then closes the connection), not refusing the one address."""

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options) -> str:  # noqa: N802
        return "421 4.3.2 Service shutting down, closing transmission channel"


def test_a_421_to_rcpt_is_the_mail_server_away_not_one_address_refused(settings) -> None:
    """smtplib raises a 421 to RCPT TO as SMTPRecipientsRefused, as a full mailbox: it was
    taken for one address refused (its back-off kept when the server came back, and not
    late for /healthz). It is the mail server's: it is written as such."""
    from fivex_site.health import check_mail

    with smtp_server(settings, _ClosesAtRcpt()):
        message = outbox_enqueue(to="ann@example.com", subject="s", body="b", queue_task=False)
        assert outbox_send(message_id=message.pk)[0] == "retrying"
    message.refresh_from_db()
    assert message.last_error.startswith("mail server: SMTPRecipientsRefused"), message.last_error
    assert check_mail()["refused"] == 0
