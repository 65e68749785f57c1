"""An email that repeats the sealed order, written with other spaces or another letter
case, is that order (as the engine reads it): nothing is stored, and the answer says so."""

from __future__ import annotations

import hashlib

import pytest

from games.mail.processing import process_message
from games.models import LogEntry, OutboxMessage, SealedOrder

pytestmark = pytest.mark.django_db


def message(*, to: str, body: str, msgid: str) -> bytes:
    return (
        f"From: Ann <ann@example.com>\r\nTo: {to}\r\nSubject: Re: your turn\r\n"
        f"Message-ID: <{msgid}@example.com>\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n\r\n" + body.replace("\n", "\r\n")
    ).encode()


def test_an_email_repeating_the_sealed_order_in_other_case_stores_nothing(table) -> None:
    # Regression: "play  explore" after "PLAY EXPLORE" was sealed again (a new receipt,
    # an order_replaced entry) and answered as if it were a new order.
    address = table.address("ann")
    process_message(message(to=address, body="PLAY EXPLORE\n", msgid="first"), address)
    row = process_message(message(to=address, body="play  explore\n", msgid="again"), address)
    assert row.outcome == "order_accepted"
    [order] = SealedOrder.objects.filter(seat=table.seats["ann"])
    assert order.text == "PLAY EXPLORE"
    assert not LogEntry.objects.filter(game=table.game, kind="order_replaced").exists()
    first, again = OutboxMessage.objects.filter(to="ann@example.com", kind="mail_reply").order_by("id")
    receipt = hashlib.sha256(f"{order.salt}:PLAY EXPLORE".encode()).hexdigest()
    assert f"Receipt (SHA-256 commitment): {receipt}" in again.body
    assert "nothing new was stored" in again.body, again.body
    assert "nothing new was stored" not in first.body, first.body
    assert "It replaces" not in again.body


def test_an_email_repeating_the_sealed_order_says_nothing_new_was_stored(table) -> None:
    address = table.address("ann")
    process_message(message(to=address, body="PLAY EXPAND\n", msgid="one"), address)
    process_message(message(to=address, body="PLAY EXPAND\n", msgid="two"), address)
    assert SealedOrder.objects.filter(seat=table.seats["ann"]).count() == 1
    again = OutboxMessage.objects.filter(to="ann@example.com", kind="mail_reply").last()
    assert "This order was sealed already for decision 1" in again.body, again.body
    assert "nothing new was stored" in again.body, again.body
