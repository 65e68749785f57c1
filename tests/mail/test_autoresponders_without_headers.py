"""An automatic responder that marks its mail in no way (no Auto-Submitted, no
Precedence, an ordinary subject) answers every email FiveX sends to the player, and
FiveX answered each of its messages: a loop held back only by the hourly cap, some 20
emails an hour for as long as the player was away. The same refusal is answered a few
times a day, then no more."""

from __future__ import annotations

import pytest

from games.mail.decisions import SAME_REFUSAL_ANSWERS_PER_DAY
from games.mail.models import InboundMail
from games.models import OutboxMessage, SealedOrder
from tests.mail.test_hand_built_messages import send
from tests.mail.test_hostile_mail import message

pytestmark = pytest.mark.django_db(transaction=True)

VACATION = "I am on vacation until 12 December and will answer when I am back.\r\n"


def test_the_same_refusal_is_answered_a_few_times_a_day_then_not(table, smtpd) -> None:
    # Guards against a reply loop with a responder that says it is automatic nowhere.
    address = table.address("ann")
    rows = [
        send(smtpd, "ann@example.com", address,
             message(to=address, subject="Re: [League 7] Round 1", body=VACATION))
        for _ in range(SAME_REFUSAL_ANSWERS_PER_DAY + 2)
    ]
    assert [r.status for r in rows] == ["rejected"] * len(rows)
    answers = list(OutboxMessage.objects.filter(kind="mail_reply").order_by("id"))
    assert len(answers) == SAME_REFUSAL_ANSWERS_PER_DAY
    assert "not answered again" in " ".join(answers[-1].body.split())
    assert "not answered again" not in answers[0].body
    for row in rows[SAME_REFUSAL_ANSWERS_PER_DAY:]:
        assert "not answered" in row.error, row.error
    # Another message is answered as ever, and an order is taken and confirmed.
    row = send(smtpd, "ann@example.com", address, message(to=address, body="PLAY EXPLORE\r\n"))
    assert row.outcome == "order_accepted"
    assert OutboxMessage.objects.filter(kind="mail_reply").count() == SAME_REFUSAL_ANSWERS_PER_DAY + 1
    assert SealedOrder.objects.get(seat=table.seats["ann"], is_current=True).text == "PLAY EXPLORE"
    assert InboundMail.objects.filter(status="failed").count() == 0


def test_different_messages_refused_for_the_same_reason_are_all_answered(table, smtpd) -> None:
    # A player trying again with other words is no responder: every try is answered.
    address = table.address("ann")
    for card in ("EXPLORE", "EXPAND", "EXCAVATE", "EXPLOIT", "EXTERMINATE"):
        body = f"PLAY {card}\r\nPLAY {card}\r\n"  # two orders: the same reason every time
        send(smtpd, "ann@example.com", address, message(to=address, body=body))
    answers = OutboxMessage.objects.filter(kind="mail_reply")
    assert answers.count() == 5
    assert not any("not answered again" in a.body for a in answers)
