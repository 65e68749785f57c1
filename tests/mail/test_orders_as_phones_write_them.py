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


def test_a_4x_dice_order_one_word_per_line_is_refused_saying_to_write_it_on_one_line(smtpd) -> None:
    """ALLOCATE / EXPLORE / EXPAND / EXTRACT on four lines was answered "you have 3 dice:
    name 3 areas" (the first line read alone, the rest as a sign-off), contradicting what
    the player wrote, and without the lines read. The order language has one line for
    an allocation (tests/conformance: the engine refuses several): never guessed."""
    from games.models import Prompt
    from games.services.seats import seat_reply_address
    from tests.mail.test_other_games_by_email import seated

    game, seats = seated("4x-dice", ["orb", "ray"], options={"dice": 3})
    assert Prompt.objects.get(game=game, number=1).phase == "allocate"
    to = seat_reply_address(seat=seats["orb"])
    body = "ALLOCATE\nEXPLORE\nEXPAND\nEXTRACT\n"
    row = send(smtpd, "orb@example.com", to, message(to=to, sender="orb@example.com", body=body))
    assert (row.status, row.outcome) == ("rejected", "order_refused")
    answer = last_answer("orb@example.com")
    assert "name 3 areas" not in answer, answer
    assert "write the order on one line: ALLOCATE EXPLORE EXPAND EXTRACT" in answer, answer
    assert "These 4 lines of your message were read as the order" in answer, answer
    assert "  | ALLOCATE\n  | EXPLORE\n  | EXPAND\n  | EXTRACT\n" in answer, answer
    assert current_text(seats["orb"]) is None
    # Too few areas one per line: still told to write one line, and what is then wrong.
    body = "ALLOCATE\nEXPLORE\nEXPAND\n"
    row = send(smtpd, "orb@example.com", to, message(to=to, sender="orb@example.com", body=body))
    assert (row.status, row.outcome) == ("rejected", "order_refused")
    answer = last_answer("orb@example.com")
    assert "write the order on one line" in answer and "ALLOCATE EXPLORE EXPAND" in answer, answer
    assert "you have 3 dice: name 3 areas" in answer, answer
    assert "These 3 lines of your message were read as the order" in answer, answer
    # As the player then sends it: taken.
    row = send(smtpd, "orb@example.com", to, message(
        to=to, sender="orb@example.com", body="ALLOCATE EXPLORE EXPAND EXTRACT\n"
    ))
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current_text(seats["orb"]) == "ALLOCATE EXPLORE EXPAND EXTRACT"


def test_an_order_above_a_one_word_sign_off_is_still_the_order(table, smtpd) -> None:
    address = table.address("ann")
    row = send(smtpd, "ann@example.com", address, message(to=address, body="PLAY EXPLORE\nAnn\n"))
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current_text(table.seats["ann"]) == "PLAY EXPLORE"


def test_a_command_in_quotes_is_the_command(table, smtpd) -> None:
    """“STATUS” or "HELP" (autocorrect's quotes, or a player copying the command from the
    email) was refused as an order: "“STATUS” is not an order", where the same quotes
    around an order are taken away."""
    address = table.address("bob")
    for n, quoted in enumerate([*QUOTED, "“Help?”", "„STATUS.“"]):
        command = ("STATUS", "HELP")[n % 2]
        body = quoted.replace("PLAY EXPAND", command) + "\n"
        row = send(smtpd, "bob@example.com", address, message(to=address, sender="bob@example.com", body=body))
        assert (row.status, row.outcome) == ("processed", "commands"), (body, row.error)
        answer = last_answer("bob@example.com")
        assert "NOT accepted" not in answer, (body, answer)
        expected = "STATUS: your view of the game" if "STATUS" in body else "HELP: "
        assert expected in answer, (body, answer)
    assert current_text(table.seats["bob"]) is None  # nothing was stored
    # A quote inside is no command: it stays the player's text, refused as an order.
    row = send(smtpd, "bob@example.com", address, message(to=address, sender="bob@example.com", body='"STATUS" "HELP"\n'))
    assert (row.status, row.outcome) == ("rejected", "order_refused")


def test_an_order_in_quotes_in_the_subject_gets_the_subject_hint(table, smtpd) -> None:
    """An empty body under the Subject “PLAY EXPLORE” was answered "no order" where the
    Subject PLAY EXPLORE gets "write the order in the body": the subject is read as the
    body is (one pair of quotes taken away), and still never taken as the order."""
    address = table.address("ann")
    for quoted in QUOTED:
        subject = "Re: [League 7] " + quoted.replace("PLAY EXPAND", "play explore")
        row = send(smtpd, "ann@example.com", address, message(to=address, subject=subject, body=""))
        assert (row.status, row.outcome) == ("rejected", "order_in_subject"), (subject, row.error)
        answer = last_answer()
        assert "write the order in the body, not the subject" in answer, (subject, answer)
    assert current_text(table.seats["ann"]) is None  # never taken as the order


def test_a_refused_first_line_above_a_sign_off_shows_what_was_ignored(table, smtpd) -> None:
    """"PLAY NAPOLEON" above "Thanks,\\nAnna" was refused with the first line's reason
    and nothing of what was taken for the sign-off; then (an earlier fix) with the
    sign-off among "the lines read as the order", which it was not. The order's reason,
    and the sign-off said to be ignored."""
    address = table.address("ann")
    for body in ("PLAY NAPOLEON\n\nThanks,\nAnna\n", "PLAY NAPOLEON\nThanks,\nAnna\n"):
        row = send(smtpd, "ann@example.com", address, message(to=address, body=body))
        assert (row.status, row.outcome) == ("rejected", "order_refused"), (body, row.outcome)
        answer = last_answer()
        assert "NAPOLEON is not in your hand" in answer, answer  # the order's own reason
        assert "were read as the order" not in answer, answer  # one line was
        assert "taken for a sign-off, not an order, and ignored:\n\n    Thanks,\n    Anna" in answer, answer
    assert current_text(table.seats["ann"]) is None


def test_a_6x5_order_one_word_per_line_is_refused_saying_to_write_it_on_one_line(smtpd) -> None:
    """6x5's actions have several words, on one line (the spec: only CHANGE <k> is a
    line of its own), and PLACE / BLUE / 1,0 on three lines is refused as 4X Dice's
    ALLOCATE one word a line is; above a sign-off ("Thanks,\nHex") it was answered
    "the order has 3 action lines" without the lines read. Never read as one line."""
    from games.models import Prompt
    from games.services.seats import seat_reply_address
    from tests.mail.test_other_games_by_email import seated

    game, seats = seated("6x5", ["hexa", "hexb"])
    [mover] = Prompt.objects.get(game=game, number=1).pending
    to = seat_reply_address(seat=seats[mover])
    sender = f"{mover}@example.com"
    row = send(smtpd, sender, to, message(to=to, sender=sender, body="PLACE\nBLUE\n1,0\n"))
    assert (row.status, row.outcome) == ("rejected", "order_refused")
    answer = last_answer(sender)
    assert "The words of your order are on 3 lines" in answer, answer
    assert "write the order on one line: PLACE BLUE 1,0" in answer, answer
    assert "These 3 lines of your message were read as the order" in answer, answer
    assert "  | PLACE\n  | BLUE\n  | 1,0\n" in answer, answer
    assert current_text(seats[mover]) is None
    for body in ("PLACE\nBLUE\n1,0\n\nThanks,\nHex\n", "place\nblue\n1,\n0\n\nCheers\n"):
        row = send(smtpd, sender, to, message(to=to, sender=sender, body=body))
        assert (row.status, row.outcome) == ("rejected", "order_refused"), body
        answer = last_answer(sender)
        assert "action lines" not in answer, answer
        lines = 3 if "BLUE" in body else 4
        assert f"The words of your order are on {lines} lines" in answer, answer
        one_line = "PLACE BLUE 1,0" if "BLUE" in body else "place blue 1, 0"
        assert f"write the order on one line: {one_line}" in answer, answer
        assert f"These {lines} lines of your message were read as the order" in answer, answer
        assert "taken for a sign-off" in answer, answer  # not among the lines read
    assert current_text(seats[mover]) is None
    # As the player then sends it: taken.
    row = send(smtpd, sender, to, message(to=to, sender=sender, body="PLACE BLUE 1,0\n"))
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current_text(seats[mover]) == "PLACE BLUE 1,0"


def test_a_6x5_change_one_word_per_line_is_refused_saying_to_write_it_on_one_line(smtpd) -> None:
    """With change_goal, CHANGE / 1 / PLACE / BLUE / 1,0 a word a line was answered only
    "CHANGE needs the number of a goal" (the rules' reason for the first line): a later
    line starting an order (PLACE) kept the one-word-per-line refusal from being given.
    The engine takes CHANGE <k> before the action on the same line, so that is the line
    to send; the message is still refused (nothing is guessed)."""
    from games.models import Prompt
    from games.services.seats import seat_reply_address
    from tests.mail.test_other_games_by_email import seated

    game, seats = seated("6x5", ["hexa", "hexb"], options={"change_goal": True})
    [mover] = Prompt.objects.get(game=game, number=1).pending
    to = seat_reply_address(seat=seats[mover])
    sender = f"{mover}@example.com"
    row = send(smtpd, sender, to, message(to=to, sender=sender, body="CHANGE\n1\nPLACE\nBLUE\n1,0\n"))
    assert (row.status, row.outcome) == ("rejected", "order_refused")
    answer = last_answer(sender)
    assert "CHANGE needs the number of a goal" not in answer, answer
    assert "The words of your order are on 5 lines" in answer, answer
    assert "write the order on one line: CHANGE 1 PLACE BLUE 1,0" in answer, answer
    assert "These 5 lines of your message were read as the order" in answer, answer
    assert current_text(seats[mover]) is None
    # As the player then sends it: taken.
    row = send(smtpd, sender, to, message(to=to, sender=sender, body="CHANGE 1 PLACE BLUE 1,0\n"))
    assert (row.status, row.outcome) == ("processed", "order_accepted"), row.error
    assert current_text(seats[mover]) is not None
