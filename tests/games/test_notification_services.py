"""The outbox: sending through a real SMTP server, retrying temporary failures,
recording permanent ones."""

from __future__ import annotations

import smtplib
import socket
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import OutboxMessage
from games.services.notifications import (
    MAX_ATTEMPTS,
    classify_smtp_error,
    outbox_due,
    outbox_enqueue,
    outbox_send,
    outbox_send_many,
)

pytestmark = pytest.mark.django_db


class ScriptedHandler:
    """An aiosmtpd handler answering DATA with scripted replies, then 250."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.accepted: list[bytes] = []
        self.peers: list[object] = []  # the client's address of each DATA: its session

    async def handle_DATA(self, server, session, envelope) -> str:  # noqa: N802
        self.peers.append(session.peer)
        if self.replies:
            return self.replies.pop(0)
        self.accepted.append(envelope.content)
        return "250 OK"


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def scripted_smtp(settings) -> Iterator[ScriptedHandler]:
    from aiosmtpd.controller import Controller

    handler = ScriptedHandler([])
    port = _port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    settings.MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {"host": "127.0.0.1", "port": port, "use_tls": False, "use_ssl": False},
        }
    }
    try:
        yield handler
    finally:
        controller.stop()


def _queue() -> OutboxMessage:
    return outbox_enqueue(
        to="ann@example.com",
        subject="Your turn",
        body="Prompt 3 is open.",
        reply_to="orders+abc@orders.localhost",
        kind="test",
    )


def test_temporary_failure_retries_with_backoff_then_sends(scripted_smtp) -> None:
    scripted_smtp.replies = ["451 4.3.0 try again later"]
    message = _queue()
    now = timezone.now()
    assert outbox_send(message_id=message.pk, now=now) == ("retrying", 30)
    message.refresh_from_db()
    assert message.status == "retrying" and message.attempts == 1
    assert "451" in message.last_error
    assert message.next_attempt_at == now + timedelta(seconds=30)
    # Not due yet: nothing is tried.
    assert outbox_send(message_id=message.pk, now=now + timedelta(seconds=10))[0] == "skipped"
    assert outbox_due(now=now + timedelta(seconds=10)) == []
    assert outbox_due(now=now + timedelta(seconds=31)) == [message.pk]
    assert outbox_send(message_id=message.pk, now=now + timedelta(seconds=31)) == ("sent", 0)
    message.refresh_from_db()
    assert message.status == "sent" and message.attempts == 2
    assert len(scripted_smtp.accepted) == 1
    raw = scripted_smtp.accepted[0]
    assert b"Reply-To: orders+abc@orders.localhost" in raw
    # Sending again is a no-op.
    assert outbox_send(message_id=message.pk)[0] == "skipped"
    assert len(scripted_smtp.accepted) == 1


def test_permanent_failure_is_recorded_without_retry(scripted_smtp) -> None:
    scripted_smtp.replies = ["550 5.1.1 no such mailbox"]
    message = _queue()
    assert outbox_send(message_id=message.pk) == ("failed", 0)
    message.refresh_from_db()
    assert message.status == "failed" and message.attempts == 1 and "550" in message.last_error
    assert outbox_due(now=timezone.now() + timedelta(days=1)) == []


def test_gives_up_after_max_attempts(scripted_smtp) -> None:
    scripted_smtp.replies = ["421 4.7.0 busy"] * MAX_ATTEMPTS
    message = _queue()
    now = timezone.now()
    statuses = []
    for i in range(MAX_ATTEMPTS):
        statuses.append(outbox_send(message_id=message.pk, now=now + timedelta(hours=i))[0])
    assert statuses == ["retrying"] * (MAX_ATTEMPTS - 1) + ["failed"]
    assert scripted_smtp.accepted == []


def test_connection_refused_is_temporary(settings) -> None:
    settings.MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {"host": "127.0.0.1", "port": _port(), "timeout": 2},
        }
    }
    message = _queue()
    assert outbox_send(message_id=message.pk)[0] == "retrying"


def test_classification_of_smtp_errors() -> None:
    assert classify_smtp_error(smtplib.SMTPServerDisconnected("gone")) == "temporary"
    assert classify_smtp_error(smtplib.SMTPConnectError(421, b"busy")) == "temporary"
    assert classify_smtp_error(smtplib.SMTPDataError(451, b"later")) == "temporary"
    assert classify_smtp_error(smtplib.SMTPDataError(554, b"no")) == "permanent"
    assert classify_smtp_error(smtplib.SMTPRecipientsRefused({"a@b": (450, b"x")})) == "temporary"
    assert classify_smtp_error(smtplib.SMTPRecipientsRefused({"a@b": (550, b"x")})) == "permanent"
    assert classify_smtp_error(ConnectionRefusedError()) == "temporary"
    assert classify_smtp_error(ValueError("bug")) == "permanent"


def test_enqueue_with_same_key_is_not_doubled() -> None:
    one = outbox_enqueue(to="a@example.com", subject="s", body="b", key="k1")
    two = outbox_enqueue(to="a@example.com", subject="s", body="b", key="k1")
    assert one.pk == two.pk and OutboxMessage.objects.count() == 1


def test_a_batch_shares_one_smtp_session_and_a_failure_opens_a_new_one(scripted_smtp) -> None:
    """The emails of one resolution go over one SMTP connection; a temporary failure
    retries that message later and the rest go on over a fresh connection."""
    messages = [
        outbox_enqueue(to=f"p{i}@example.com", subject="s", body=f"b{i}", kind="test")
        for i in range(4)
    ]
    scripted_smtp.replies = ["250 OK", "451 4.3.0 try again later"]
    results = outbox_send_many(message_ids=[m.pk for m in messages])
    assert [status for status, _ in results] == ["sent", "retrying", "sent", "sent"]
    assert len(scripted_smtp.peers) == 4
    first, second = scripted_smtp.peers[:2], scripted_smtp.peers[2:]
    assert first[0] == first[1] and second[0] == second[1] and first[0] != second[0]
    statuses = {m.pk: m.status for m in OutboxMessage.objects.filter(pk__in=[m.pk for m in messages])}
    assert [statuses[m.pk] for m in messages] == ["sent", "retrying", "sent", "sent"]
    # Nothing due is left out, nothing sent twice.
    assert outbox_send_many(message_ids=[m.pk for m in messages])[0][0] == "skipped"
    assert len(scripted_smtp.peers) == 4
