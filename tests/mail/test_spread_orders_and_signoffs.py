"""Orders written one word per line, and refusals above a sign-off, sent over real SMTP
to the order gateway (the aiosmtpd controller ``runsmtpd`` starts), then processed as the
worker does: the answer says to write the order on one line whenever its words would make
an order of the game's language, and the lines it lists as read are the lines read as the
order, never the sign-off below them."""

from __future__ import annotations

import pytest

from games.models import Prompt
from tests.mail.test_hand_built_messages import send
from tests.mail.test_hostile_mail import message
from tests.mail.test_orders_as_phones_write_them import current_text, last_answer

pytestmark = pytest.mark.django_db(transaction=True)


def _seat_to(ruleset: str, names: list[str], options: dict | None = None):
    from games.services.seats import seat_reply_address
    from tests.mail.test_other_games_by_email import seated

    game, seats = seated(ruleset, names, options=options)
    mover = sorted(Prompt.objects.get(game=game, number=1).pending)[0]
    return seats[mover], seat_reply_address(seat=seats[mover]), f"{mover}@example.com"


def _lines_read(answer: str) -> list[str]:
    """The lines an answer lists as read as the order ("  | ..." below "These N lines")."""
    if "were read as the order" not in answer:
        return []
    listed = answer.split("were read as the order", 1)[1].split("\n")[1:]
    out = []
    for line in listed:
        if not line.startswith("  | "):
            break
        out.append(line[4:])
    return out


CHANGE_BODIES = [
    "CHANGE 1\nPLACE\nBLUE\n1,0\n\nThanks, Ann\n",  # the sign-off after a blank line
    "CHANGE 1\nPLACE\nBLUE\n1,0\n",  # no sign-off
    "CHANGE 1\nPLACE\nBLUE\n1,0\nThanks, Ann\n",  # the sign-off on the next line
    "change 1\nplace\nblue\n1,0\n\nCheers\n",
]


def test_a_6x5_change_on_one_line_then_an_action_a_word_a_line_is_told_to_write_one_line(smtpd) -> None:
    """With change_goal, CHANGE 1 on one line and PLACE / BLUE / 1,0 a word a line was
    answered "one action per turn: the order has 3 action lines" (or "CHANGE needs ..."):
    the one-word-per-line refusal was given only when every line held one word. Refused
    (nothing is guessed), saying the line to send, which is then taken."""
    seat, to, sender = _seat_to("6x5", ["hexa", "hexb"], {"change_goal": True})
    for body in CHANGE_BODIES:
        row = send(smtpd, sender, to, message(to=to, sender=sender, body=body))
        assert (row.status, row.outcome) == ("rejected", "order_refused"), (body, row.error)
        answer = last_answer(sender)
        assert "action lines" not in answer, (body, answer)
        assert "CHANGE needs the number of a goal" not in answer, (body, answer)
        one_line = "CHANGE 1 PLACE BLUE 1,0" if "PLACE" in body else "change 1 place blue 1,0"
        assert f"write the order on one line: {one_line}\n" in answer, (body, answer)
        assert "The words of your order are on 4 lines" in answer, (body, answer)
        assert _lines_read(answer) == body.split("\n")[:4], (body, answer)
        assert current_text(seat) is None, body
    row = send(smtpd, sender, to, message(to=to, sender=sender, body="CHANGE 1 PLACE BLUE 1,0\n"))
    assert (row.status, row.outcome) == ("processed", "order_accepted"), row.error
    assert current_text(seat) is not None


def test_a_5x_order_a_word_a_line_with_a_verb_not_legal_now_gets_both_reasons(smtpd) -> None:
    """PLAY / EXPAND during the leader draft got only "PLAY is not an order of the draft
    phase": the hint to write one line was given only for a verb legal now. Now both:
    the line it makes (an order of 5X, refused now) and the verb's own reason."""
    seat, to, sender = _seat_to("5x", ["ann", "bob", "cat"])
    assert Prompt.objects.get(game=seat.game, number=1).phase == "draft"
    for body, lines in (("PLAY\nEXPAND\n", 2), ("PLAY\nEXPAND\n\nThanks,\nAnn\n", 2), ("play\nexpand\n", 2)):
        row = send(smtpd, sender, to, message(to=to, sender=sender, body=body))
        assert (row.status, row.outcome) == ("rejected", "order_refused"), body
        answer = last_answer(sender)
        joined = "play expand" if "play" in body else "PLAY EXPAND"
        assert f"The words of your order are on {lines} lines" in answer, (body, answer)
        assert f"write the order on one line (as one line, {joined} would be refused too: " in answer, (body, answer)
        assert "PLAY is not an order of the draft phase" in answer, (body, answer)
        assert current_text(seat) is None
    # Words that make no order of the language: only the verb's own reason, no line offered.
    for body in ("PLAY\nAnn\n", "BID\nEXPAND\n"):
        row = send(smtpd, sender, to, message(to=to, sender=sender, body=body))
        assert (row.status, row.outcome) == ("rejected", "order_refused"), body
        answer = last_answer(sender)
        assert "write the order on one line" not in answer, (body, answer)
        assert "is not an order of the draft phase" in answer, (body, answer)
    assert current_text(seat) is None


def test_a_6x5_order_a_word_a_line_with_a_verb_not_legal_now_gets_both_reasons(smtpd) -> None:
    """Without change_goal, CHANGE / 1 / PLACE / BLUE / 1,0 got only "CHANGE is only
    allowed with the change_goal option"; it is a 6x5 order as one line, so the answer
    says that line too, with the verb's reason."""
    seat, to, sender = _seat_to("6x5", ["hexa", "hexb"])
    row = send(smtpd, sender, to, message(to=to, sender=sender, body="CHANGE\n1\nPLACE\nBLUE\n1,0\n"))
    assert (row.status, row.outcome) == ("rejected", "order_refused")
    answer = last_answer(sender)
    assert "The words of your order are on 5 lines" in answer, answer
    assert "(as one line, CHANGE 1 PLACE BLUE 1,0 would be refused too: " in answer, answer
    assert "CHANGE is only allowed with the change_goal option" in answer, answer
    assert current_text(seat) is None


SIGNOFFS = ["Thanks", "Thanks,\nAnn", "Cheers, Ann", "-- \nAnn", "Sent from my iPhone"]


def test_a_refused_first_line_above_a_sign_off_does_not_list_the_sign_off_as_read(table, smtpd) -> None:
    """PLAY NAPOLEON above "Thanks,\\nAnn" listed "Thanks," and "Ann" among "the lines of
    your message read as the order": they were taken for a sign-off, and the answer now
    says so, apart from the lines read."""
    address = table.address("ann")
    for signoff in SIGNOFFS:
        for gap in ("\n\n", "\n"):
            body = f"PLAY NAPOLEON{gap}{signoff}\n"
            row = send(smtpd, "ann@example.com", address, message(to=address, body=body))
            assert (row.status, row.outcome) == ("rejected", "order_refused"), (body, row.error)
            answer = last_answer()
            assert "NAPOLEON is not in your hand" in answer, (body, answer)
            assert "were read as the order" not in answer, (body, answer)  # one line read
            for line in signoff.split("\n"):
                assert f"  | {line.strip()}" not in answer, (body, answer)
    assert current_text(table.seats["ann"]) is None


def test_a_refused_paragraph_above_a_sign_off_lists_only_its_own_lines(smtpd) -> None:
    """6x5's CHANGE 1 / SWITCH 9,9 TO RED above "Thanks,\\nAnn": the two lines of the
    order are listed as read, the sign-off is said to be ignored, not read."""
    seat, to, sender = _seat_to("6x5", ["hexa", "hexb"], {"change_goal": True})
    body = "CHANGE 1\nPLACE RED 9,9\n\nThanks,\nAnn\n"
    row = send(smtpd, sender, to, message(to=to, sender=sender, body=body))
    assert (row.status, row.outcome) == ("rejected", "order_refused"), row.error
    answer = last_answer(sender)
    assert _lines_read(answer) == ["CHANGE 1", "PLACE RED 9,9"], answer
    assert "These 2 lines of your message were read as the order" in answer, answer
    assert "taken for a sign-off" in answer and "    Thanks,\n    Ann" in answer, answer
    # A word a line above a sign-off: the lines read are the order's words alone.
    body = "PLACE\nBLUE\n1,0\n\nThanks,\nAnn\n"
    row = send(smtpd, sender, to, message(to=to, sender=sender, body=body))
    assert (row.status, row.outcome) == ("rejected", "order_refused"), row.error
    answer = last_answer(sender)
    assert "write the order on one line: PLACE BLUE 1,0" in answer, answer
    assert _lines_read(answer) == ["PLACE", "BLUE", "1,0"], answer
    assert "taken for a sign-off" in answer, answer
    assert current_text(seat) is None


def test_a_bare_name_below_words_a_line_is_a_sign_off_when_the_lines_above_make_the_order(smtpd) -> None:
    """PLACE / BLUE / 1,0 / hexa (the player's name, no parting word, no blank line) was
    answered "as one line, PLACE BLUE 1,0 hexa would be refused too": the name was read as
    a word of the order. The player's own name on the last line is a sign-off when the
    lines above it make a legal order; any other last word keeps the whole reading."""
    seat, to, sender = _seat_to("6x5", ["hexa", "hexb"])
    name = seat.name
    seat.user.first_name, seat.user.last_name = "Hexa", "Smith"
    seat.user.save(update_fields=["first_name", "last_name"])
    # Also the player's full name, and a name after a dash on the last line, whatever the name (it answered "PLACE
    # needs a colour", reading BLUE, 1,0 and the name as the sign-off).
    signatures = (name, name.upper(), f"{name.capitalize()}.", "Hexa Smith", f"-- {name.capitalize()}",
                  "\u2014 Ann", "--Ann")
    for signed in signatures:
        body = f"PLACE\nBLUE\n1,0\n{signed}\n"
        row = send(smtpd, sender, to, message(to=to, sender=sender, body=body))
        assert (row.status, row.outcome) == ("rejected", "order_refused"), (body, row.error)
        answer = last_answer(sender)
        assert "write the order on one line: PLACE BLUE 1,0\n" in answer, (body, answer)
        assert _lines_read(answer) == ["PLACE", "BLUE", "1,0"], (body, answer)
        assert "taken for a sign-off" in answer, (body, answer)
    # A 6x5 coordinate with a minus sign is no dash: "-1,0" stays a word of the order.
    body = "PLACE\nBLUE\n-1,0\n"
    row = send(smtpd, sender, to, message(to=to, sender=sender, body=body))
    answer = last_answer(sender)
    assert "write the order on one line: PLACE BLUE -1,0" in answer, answer
    body = "PLACE\nBLUE\n1,0\nzork\n"  # not the player's name: still a word of the order
    row = send(smtpd, sender, to, message(to=to, sender=sender, body=body))
    answer = last_answer(sender)
    assert "(as one line, PLACE BLUE 1,0 zork would be refused too: " in answer, answer
    assert _lines_read(answer) == ["PLACE", "BLUE", "1,0", "zork"], answer
    assert current_text(seat) is None


def test_a_4x_dice_hit_a_word_a_line_during_the_allocation_gets_both_reasons(smtpd) -> None:
    """HIT / ray / 1 / SHIP while orb allocates its dice was answered "you are allocating
    your dice now" about the first line alone, with "ray", "1" and "SHIP" shown as a
    sign-off: the one-word-per-line reading needed a verb legal now, as 4X Dice had no
    order language to ask. HIT ray 1 SHIP is a 4X Dice order (not legal now), so the
    answer says the line and why it would be refused too, and lists the four lines read."""
    from games.services.seats import seat_reply_address
    from tests.mail.test_other_games_by_email import seated

    game, seats = seated("4x-dice", ["orb", "ray"], options={"dice": 3})
    assert Prompt.objects.get(game=game, number=1).phase == "allocate"
    to, sender = seat_reply_address(seat=seats["orb"]), "orb@example.com"
    for body in ("HIT\nray\n1\nSHIP\n", "HIT\nray\n1\nSHIP\n\nThanks,\nOrb\n"):
        row = send(smtpd, sender, to, message(to=to, sender=sender, body=body))
        assert (row.status, row.outcome) == ("rejected", "order_refused"), (body, row.error)
        answer = last_answer(sender)
        assert "The words of your order are on 4 lines" in answer, (body, answer)
        assert "(as one line, HIT ray 1 SHIP would be refused too: you are allocating your dice now" in answer, (
            body, answer)
        assert _lines_read(answer) == ["HIT", "ray", "1", "SHIP"], (body, answer)
        assert ("taken for a sign-off" in answer) == ("Thanks" in body), (body, answer)
    # Words that make no 4X Dice order: no line is offered.
    row = send(smtpd, sender, to, message(to=to, sender=sender, body="HIT\nray\nhard\n"))
    assert (row.status, row.outcome) == ("rejected", "order_refused")
    assert "write the order on one line" not in last_answer(sender)
    assert current_text(seats["orb"]) is None


def test_a_two_word_nickname_below_words_a_line_is_a_sign_off(smtpd) -> None:
    """PLACE / BLUE / 1,0 / Big Al (a nickname, not the account's name) was answered
    "PLACE needs a colour", reading BLUE, 1,0 and Big Al as a sign-off; 4X Dice's
    ALLOCATE / EXPLORE / EXPAND / EXTRACT / Big Al "you are allocating your dice now...".
    A last line of a few words that is no order of the game and makes none with the lines
    above, below lines that make a legal order, is a sign-off: the answer says the line to
    send, the lines read are the order's, and the name is said to be taken for a
    sign-off. Nothing is stored."""
    seat, to, sender = _seat_to("6x5", ["hexa", "hexb"])
    seat.user.first_name, seat.user.last_name = "Hexa", "Smith"
    seat.user.save(update_fields=["first_name", "last_name"])
    for nickname in ("Big Al", "Hexa Jones", "J. R. Ewing"):
        body = f"PLACE\nBLUE\n1,0\n{nickname}\n"
        row = send(smtpd, sender, to, message(to=to, sender=sender, body=body))
        assert (row.status, row.outcome) == ("rejected", "order_refused"), (body, row.error)
        answer = last_answer(sender)
        assert "PLACE needs a colour" not in answer, (body, answer)
        assert "write the order on one line: PLACE BLUE 1,0\n" in answer, (body, answer)
        assert _lines_read(answer) == ["PLACE", "BLUE", "1,0"], (body, answer)
        assert "taken for a sign-off" in answer and f"    {nickname}" in answer, (body, answer)
    # Lines above that make no legal order: the name is not guessed away ("PLACE BLUE" is
    # refused as the reading of the whole).
    row = send(smtpd, sender, to, message(to=to, sender=sender, body="PLACE\nBLUE\nBig Al\n"))
    assert (row.status, row.outcome) == ("rejected", "order_refused")
    assert "write the order on one line: PLACE BLUE\n" not in last_answer(sender)
    assert current_text(seat) is None

    from games.services.seats import seat_reply_address
    from tests.mail.test_other_games_by_email import seated

    game, seats = seated("4x-dice", ["orb", "ray"], options={"dice": 3})
    to, sender = seat_reply_address(seat=seats["orb"]), "orb@example.com"
    body = "ALLOCATE\nEXPLORE\nEXPAND\nEXTRACT\nBig Al\n"
    row = send(smtpd, sender, to, message(to=to, sender=sender, body=body))
    assert (row.status, row.outcome) == ("rejected", "order_refused"), row.error
    answer = last_answer(sender)
    assert "write the order on one line: ALLOCATE EXPLORE EXPAND EXTRACT\n" in answer, answer
    assert _lines_read(answer) == ["ALLOCATE", "EXPLORE", "EXPAND", "EXTRACT"], answer
    assert "taken for a sign-off" in answer and "    Big Al" in answer, answer
    assert current_text(seats["orb"]) is None


def test_a_5x_nickname_below_words_a_line_is_a_sign_off_but_an_order_is_not(table, smtpd) -> None:
    """PLAY / EXPLORE / Big Al was answered "PLAY needs a card" (Big Al taken with EXPLORE
    as the sign-off). Now the one line to send. A last line that is itself a 5X order
    (PLAY EXPAND) is no sign-off: two orders, refused as before."""
    address = table.address("ann")
    row = send(smtpd, "ann@example.com", address, message(to=address, body="PLAY\nEXPLORE\nBig Al\n"))
    assert (row.status, row.outcome) == ("rejected", "order_refused"), row.error
    answer = last_answer()
    assert "write the order on one line: PLAY EXPLORE\n" in answer, answer
    assert _lines_read(answer) == ["PLAY", "EXPLORE"], answer
    assert "taken for a sign-off" in answer and "    Big Al" in answer, answer
    row = send(smtpd, "ann@example.com", address, message(to=address, body="PLAY\nEXPLORE\nPLAY EXPAND\n"))
    assert (row.status, row.outcome) == ("rejected", "order_refused"), row.error
    answer = last_answer()
    assert "taken for a sign-off" not in answer, answer
    assert "write the order on one line" not in answer, answer
    assert current_text(table.seats["ann"]) is None


def test_what_reads_as_a_name_below_words_a_line(table) -> None:
    """The rule behind the nickname sign-off, on 5X: a few words of letters that the
    rules read neither as an order nor as part of one with the lines above."""
    from games.mail.decisions import _names_someone

    seat = table.seats["ann"]
    assert _names_someone(seat, "PLAY\nEXPLORE\nBig Al", "Big Al")
    assert _names_someone(seat, "PLAY\nEXPLORE\nJean-Luc O'Neil", "Jean-Luc O'Neil")
    assert not _names_someone(seat, "PLAY\nEXPLORE\nAl", "Al")  # one word: maybe the order's
    assert not _names_someone(seat, "PLAY\nEXPLORE\nRoom 101", "Room 101")  # not letters
    assert not _names_someone(seat, "PLAY\nEXPLORE\nA B C D", "A B C D")  # too many words
    assert not _names_someone(seat, "PLAY\nEXPLORE\nPLAY EXPAND", "PLAY EXPAND")  # an order
    # Joined to the lines above, the last line ends a 5X order: part of it.
    assert not _names_someone(seat, "TAKE\nNAPOLEON\nFROM bob", "FROM bob")
    assert not _names_someone(seat, "PLAY\nQin\nShi Huang", "Shi Huang")
