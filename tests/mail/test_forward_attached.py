"""An order only inside a forwarded message attached to the player's (message/rfc822):
attachments are not read, and the answer says so, not only that the text above is no order
(h2's review)."""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import make_msgid

import pytest

from games.mail.processing import process_message
from tests.mail.test_hostile_mail import answers, current

pytestmark = pytest.mark.django_db


def _with_forward(address: str, text: str) -> bytes:
    inner = EmailMessage()
    inner["From"] = "Ann <ann@example.com>"
    inner["Subject"] = "my order"
    inner.set_content("PLAY EXPAND\n")
    outer = EmailMessage()
    outer["From"] = "Ann <ann@example.com>"
    outer["To"] = address
    outer["Subject"] = "Re: League 7"
    outer["Message-ID"] = make_msgid()
    outer.set_content(text)
    outer.add_attachment(inner)  # message/rfc822
    return outer.as_bytes()


def test_an_order_in_an_attached_forward_is_not_read_and_the_answer_says_why(table) -> None:
    address = table.address("ann")
    row = process_message(_with_forward(address, "See the attached.\n"), address)
    assert row.outcome == "order_refused"
    assert current(table.seats["ann"]) is None  # nothing taken from the attachment
    [answer] = answers()
    assert "Attachments are not read" in answer.body
    assert "forwarded message" in answer.body


def test_a_message_with_only_a_greeting_and_an_attached_forward(table) -> None:
    address = table.address("ann")
    row = process_message(_with_forward(address, "\n"), address)
    assert row.outcome in ("empty", "attachment_only")
    [answer] = answers()
    assert "ttachments are not read" in answer.body
