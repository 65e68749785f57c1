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


# An order in quotes, as autocorrect writes a typed '"' (Word, Outlook, phones) or as a
# player copies it: one pair of matching quotes around the whole order.
QUOTED = ["“PLAY EXPAND”", '"PLAY EXPAND"', "‘PLAY EXPAND’", "'PLAY EXPAND'", "«PLAY EXPAND»", "„PLAY EXPAND“"]


def test_an_order_in_quotes_is_the_order(table, smtpd) -> None:
    """It was refused with "“PLAY is not an order of the play phase": the player had
    written exactly a listed order, in quotes."""
    address = table.address("ann")
    for n, quoted in enumerate(QUOTED):
        order = ("PLAY EXPAND", "PLAY EXPLORE")[n % 2]
        raw = message(to=address, body=quoted.replace("PLAY EXPAND", order) + "\n")
        row = send(smtpd, "ann@example.com", address, raw)
        assert (row.status, row.outcome) == ("processed", "order_accepted"), (quoted, row.error)
        assert current_text(table.seats["ann"]) == order, quoted
    # The sealed order again in quotes is the same order: nothing new is stored.
    row = send(smtpd, "ann@example.com", address, message(to=address, body="“PLAY EXPLORE.”\n"))
    assert row.outcome == "order_accepted"
    assert "nothing new was stored" in last_answer(), last_answer()
    assert SealedOrder.objects.filter(seat=table.seats["ann"]).count() == len(QUOTED)


def test_a_quote_inside_an_order_is_not_taken_away(table, smtpd) -> None:
    address = table.address("ann")
    for body in ('PLAY "EXPAND"', '"PLAY" "EXPAND"', "“PLAY EXPAND"):
        row = send(smtpd, "ann@example.com", address, message(to=address, body=body + "\n"))
        assert (row.status, row.outcome) == ("rejected", "order_refused"), body
    assert current_text(table.seats["ann"]) is None
