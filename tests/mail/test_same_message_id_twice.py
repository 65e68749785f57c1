"""The same message delivered twice through the SMTP gateway is read once; a different
message that reuses an earlier one's Message-ID (a script or a mail program writing a
fixed id) is a message of its own, never dropped as a redelivery."""

from __future__ import annotations

import pytest

from games.mail.models import InboundMail
from games.models import OutboxMessage, SealedOrder
from tests.mail.test_hand_built_messages import send
from tests.mail.test_hostile_mail import message

pytestmark = pytest.mark.django_db(transaction=True)

RECEIVED = b"Received: from mx2.example.net by mx.example.org; Tue, 1 Dec 2026 06:21:00 +0000\r\n"


def answers() -> list[OutboxMessage]:
    return list(OutboxMessage.objects.filter(kind="mail_reply").order_by("id"))


def orders(seat) -> list[tuple[str, bool]]:
    return list(SealedOrder.objects.filter(seat=seat).order_by("id").values_list("text", "is_current"))


def test_a_redelivery_with_another_received_line_is_read_once(table, smtpd) -> None:
    address = table.address("ann")
    raw = message(to=address, body="PLAY EXPLORE\r\n", msgid="<twice@example.com>")
    send(smtpd, "ann@example.com", address, raw)
    assert send(smtpd, "ann@example.com", address, RECEIVED + raw) is None  # nothing new stored
    assert orders(table.seats["ann"]) == [("PLAY EXPLORE", True)]
    assert len(answers()) == 1


def test_another_message_with_a_reused_message_id_is_read(table, smtpd) -> None:
    # Guards against a second order dropped silently as a "redelivery" of the first.
    address = table.address("ann")
    first = message(to=address, body="PLAY EXPLORE\r\n", msgid="<1@localhost>")
    second = message(to=address, subject="changed my mind", body="PLAY EXPAND\r\n", msgid="<1@localhost>")
    send(smtpd, "ann@example.com", address, first)
    row = send(smtpd, "ann@example.com", address, second)
    assert row is not None and (row.status, row.outcome) == ("processed", "order_accepted"), row
    assert orders(table.seats["ann"]) == [("PLAY EXPLORE", False), ("PLAY EXPAND", True)]
    assert [a.to for a in answers()] == ["ann@example.com"] * 2
    assert "PLAY EXPAND" in answers()[-1].body
    # That second message redelivered (a Received line more) is still read once.
    assert send(smtpd, "ann@example.com", address, RECEIVED + second) is None
    assert InboundMail.objects.count() == 2 and len(answers()) == 2
    assert orders(table.seats["ann"])[-1] == ("PLAY EXPAND", True)
