"""Table talk by email from a program that reuses one Message-ID for every message (a
script's fixed id, as orders by email already allow for): each message is written at the
table (review finding: the second was refused as 'This Idempotency-Key wrote another
message', a key the player never sent)."""

from __future__ import annotations

import pytest

from games.models import GameMessage
from tests.mail.test_hand_built_messages import send
from tests.mail.test_hostile_mail import message
from tests.mail.test_talk_by_email import last_answer

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_talk_messages_under_one_message_id_are_both_written(table, smtpd) -> None:
    address = table.address("ann")
    fixed = "<1@localhost>"
    first = send(smtpd, "ann@example.com", address, message(to=address, body="TALK: first\r\n", msgid=fixed))
    second = send(smtpd, "ann@example.com", address, message(to=address, body="TALK: second\r\n", msgid=fixed))
    assert (first.outcome, second.outcome) == ("talk_posted", "talk_posted"), second.error
    assert "Idempotency-Key" not in last_answer()
    assert list(GameMessage.objects.order_by("id").values_list("text", flat=True)) == ["first", "second"]
    # The second delivered again (its copy): still written once.
    send(smtpd, "ann@example.com", address, message(to=address, body="TALK: second\r\n", msgid=fixed))
    assert GameMessage.objects.count() == 2
