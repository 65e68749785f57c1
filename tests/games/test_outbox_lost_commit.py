"""An email the mail server took, whose "sent" then did not commit (the database
connection lost between the two: a restart, a fail-over, a killed backend), is not sent
again (a resilience audit: 7 emails went out twice after pg_terminate_backend while the
outbox was sending). Real PostgreSQL, a real SMTP server (aiosmtpd) that kills the
sender's database connection while it accepts the message."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from django.conf import settings as django_settings
from django.db import connection

from games.models import OutboxMessage
from games.services.outbox import outbox_enqueue
from games.services.outbox_sending import outbox_send, outbox_send_many
from tests.conftest import smtp_server

pytestmark = pytest.mark.django_db(transaction=True)


class KillingHandler:
    """Accepts every message; while accepting the first ``kills`` ones, terminates the
    database backend ``pid`` (the sender's connection), before the client hears 250."""

    def __init__(self) -> None:
        self.accepted: list[bytes] = []
        self.pid: int | None = None
        self.kills = 1

    async def handle_DATA(self, server, session, envelope) -> str:  # noqa: N802
        self.accepted.append(envelope.content)
        if self.pid is not None and self.kills > 0:
            self.kills -= 1
            db = django_settings.DATABASES["default"]
            with psycopg.connect(
                host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432, user=db["USER"],
                password=db["PASSWORD"] or None, dbname=db["NAME"], autocommit=True,
            ) as admin:  # fmt: skip
                admin.execute("SELECT pg_terminate_backend(%s)", [self.pid])
        return "250 OK"


@pytest.fixture
def killing_smtp(settings) -> Iterator[KillingHandler]:
    if connection.vendor != "postgresql":
        pytest.skip("kills a PostgreSQL backend")
    handler = KillingHandler()
    with smtp_server(settings, handler):
        yield handler


def _queue(to: str) -> OutboxMessage:
    return outbox_enqueue(to=to, subject="Your turn", body="Prompt 3 is open.", kind="test")


def _arm(handler: KillingHandler) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        handler.pid = cursor.fetchone()[0]


@pytest.mark.parametrize("sender", ["batch", "one"])
def test_an_email_sent_whose_record_did_not_commit_is_not_sent_again(killing_smtp, sender) -> None:
    first, second = _queue("ann@example.com"), _queue("bob@example.com")
    _arm(killing_smtp)
    if sender == "batch":  # the resolution's emails and the sweep: one claim each
        results = outbox_send_many(message_ids=[first.pk, second.pk])
    else:
        results = [outbox_send(message_id=first.pk), outbox_send(message_id=second.pk)]
    assert results == [("sent", 0), ("sent", 0)]
    first.refresh_from_db()
    assert (first.status, first.attempts, first.sent_at is not None) == ("sent", 1, True)
    # The sweep finds nothing left to send: each email went out once.
    assert outbox_send_many(message_ids=[first.pk, second.pk]) == [("skipped", 0), ("skipped", 0)]
    assert len(killing_smtp.accepted) == 2
    assert b"ann@example.com" in killing_smtp.accepted[0]
