"""Orders as phones and webmail write them, sent over real SMTP to the order server (an
audit of orders by email from real mail programs): a default signature without a "-- "
above it ("Sent via the Samsung Galaxy …"), an order in quotes (autocorrect's “…”), an
order written one word per line."""

from __future__ import annotations

import pytest

from games.models import OutboxMessage, SealedOrder
from tests.mail.test_hand_built_messages import send
from tests.mail.test_hostile_mail import message

pytestmark = pytest.mark.django_db(transaction=True)

# The default signatures of phone and webmail programs, written below the text without
# a "-- " separator.
DEFAULT_SIGNATURES = [
    "Sent via the Samsung Galaxy S23, an AT&T 5G smartphone",
    "Sent with Proton Mail secure email.",
    "Sent from Proton Mail mobile",
    "Get Outlook for Android<https://aka.ms/AAb9ysg>",
    "Get Outlook for iOS",
    "Sent from Yahoo Mail for iPhone",
    "Sent from Mail for Windows",
    "Sent from my BlackBerry 10 smartphone.",
    "Sent from my HUAWEI",
]


def last_answer(to: str = "ann@example.com") -> str:
    return OutboxMessage.objects.filter(kind="mail_reply", to=to).order_by("-id").first().body


def current_text(seat) -> str | None:
    order = SealedOrder.objects.filter(seat=seat, is_current=True).first()
    return None if order is None else order.text


def test_a_command_above_a_default_phone_signature_is_only_the_command(table, smtpd) -> None:
    """STATUS or HELP above "Sent via the Samsung Galaxy …" or "Sent with Proton Mail …"
    was answered "Your order was NOT accepted: SENT is not an order"."""
    address = table.address("bob")
    for signature in DEFAULT_SIGNATURES:
        for command in ("STATUS", "HELP"):
            raw = message(to=address, sender="bob@example.com", body=f"{command}\n\n{signature}\n")
            row = send(smtpd, "bob@example.com", address, raw)
            assert (row.status, row.outcome) == ("processed", "commands"), (command, signature)
            assert "NOT accepted" not in last_answer("bob@example.com"), (command, signature)
    assert current_text(table.seats["bob"]) is None  # nothing was stored


def test_an_order_above_a_default_phone_signature_is_the_order(table, smtpd) -> None:
    address = table.address("ann")
    for n, signature in enumerate(DEFAULT_SIGNATURES):
        order = ("PLAY EXPLORE", "PLAY EXPAND")[n % 2]
        row = send(smtpd, "ann@example.com", address, message(to=address, body=f"{order}\n\n{signature}\n"))
        assert (row.status, row.outcome) == ("processed", "order_accepted"), signature
        assert current_text(table.seats["ann"]) == order, signature
