"""An order by email racing the deadline's sweep, on PostgreSQL with a second connection.

The sweep (``deadlines.overdue_prompt_resolve``) first reads the mail stored before
the deadline and not read yet, then resolves the prompt under the game's lock, filling
the missing orders with default ones. An email stored in time must count, whenever its
row commits and whoever reads it: never refused as late, never lost to the default,
never stored twice. (README, *Submitting orders by email*: "one that arrived before the
deadline counts as in time".)
"""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.utils import timezone

from games.mail.models import InboundMail
from games.models import LogEntry, OutboxMessage, Prompt, SealedOrder
from tests.concurrency import elsewhere, in_background, until_a_connection_waits_for_a_lock

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def order_mail(*, to: str, body: str = "PLAY EXPAND\r\n") -> bytes:
    """A reply written from scratch (no In-Reply-To): for the prompt open when it arrives."""
    return (
        f"From: Ann <ann@example.com>\r\nTo: {to}\r\nSubject: my order\r\n"
        "Message-ID: <race-1@example.com>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
        + body
    ).encode()


def _deadline_soon(table) -> object:
    """Prompt 1's deadline a minute from now, no grace: an email stored now is in time."""
    deadline = timezone.now() + timedelta(minutes=1)
    table.game.__class__.objects.filter(pk=table.game.pk).update(grace_minutes=0)
    Prompt.objects.filter(game=table.game, number=1).update(deadline=deadline)
    return deadline


def _anns_order_counted(table, row: InboundMail) -> None:
    revealed = LogEntry.objects.get(game=table.game, kind="orders_revealed").payload["orders"]
    assert (revealed["ann"]["source"], revealed["ann"]["text"]) == ("email", "PLAY EXPAND")
    assert {revealed[name]["source"] for name in ("bob", "cy")} == {"default"}
    row.refresh_from_db()
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    # Stored once, answered once: accepted, and nothing says it came too late.
    assert SealedOrder.objects.filter(prompt__number=1, seat_name="ann", source="email").count() == 1
    [answer] = OutboxMessage.objects.filter(kind="mail_reply", to="ann@example.com")
    assert "NOT accepted" not in answer.body and "not open any more" not in answer.body


def test_an_email_stored_in_time_just_after_the_sweep_read_the_mail_still_counts(
    table, monkeypatch
) -> None:
    """Guards against an in-time order refused as late: the email's row committed after
    the sweep's reading of the mail that came in time, before its resolution. The
    sweep gave ann the default order, and the email, read next, was refused: "Prompt 1
    is not open any more (its deadline passed: your seat's default order was played)"."""
    from games.mail.processing import process_stored
    from games.mail.storing import store_message
    from games.services import deadlines

    address = table.address("ann")
    deadline = _deadline_soon(table)
    real = deadlines._read_mail_that_came_in_time
    stored: list[InboundMail] = []

    def read_then_an_email_arrives(**kwargs) -> None:
        real(**kwargs)
        if not stored:  # committed on another connection, between the read and the lock
            stored.append(elsewhere(lambda: store_message(order_mail(to=address), address)[0]))

    monkeypatch.setattr(deadlines, "_read_mail_that_came_in_time", read_then_an_email_arrives)
    assert deadlines.enforce_deadlines(now=deadline + timedelta(minutes=1)) == 1
    [row] = stored
    assert row.created_at < deadline  # it came in time
    process_stored(row.pk)  # the worker's turn (a no-op if the sweep read it)
    _anns_order_counted(table, row)


def test_an_email_being_read_while_the_sweep_runs_counts_once(table, monkeypatch) -> None:
    """A worker holds the email's row (reading it) when the sweep comes: the sweep waits
    for it, then resolves with its order; the order is neither doubled nor lost."""
    import games.mail.processing as processing
    from games.mail.storing import store_message
    from games.services import deadlines

    address = table.address("ann")
    deadline = _deadline_soon(table)
    row, _created = store_message(order_mail(to=address), address)
    real = processing._decide
    reading = threading.Event()

    def slow_decide(locked_row):
        if not reading.is_set():
            reading.set()
            # the sweep starts meanwhile and must wait for this reading
            until_a_connection_waits_for_a_lock(timeout=2.0)
        return real(locked_row)

    monkeypatch.setattr(processing, "_decide", slow_decide)
    with in_background(lambda: processing.process_stored(row.pk)):
        assert reading.wait(10)
        assert deadlines.enforce_deadlines(now=deadline + timedelta(minutes=1)) == 1
    _anns_order_counted(table, row)
