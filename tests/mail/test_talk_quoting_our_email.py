"""A TALK reply above an unquoted copy of the game's own email (some mail programs paste
the message replied to without ``>``): the copy holds the seat's hand and its legal
orders, and the talk page shows every word to the table. Only the player's words above
the copy are written there, as an order above such a copy is read alone
(``heuristics._before_our_email``)."""

from __future__ import annotations

import pytest

from games.mail.processing import process_message
from games.models import GameMessage, OutboxMessage
from tests.mail.test_hostile_mail import message

pytestmark = pytest.mark.django_db


def test_a_talk_reply_above_an_unquoted_copy_of_the_turn_email_posts_only_the_players_words(table) -> None:
    turn = OutboxMessage.objects.filter(seat=table.seats["ann"], kind="game_started").first()
    assert turn is not None
    hand = next(line for line in turn.body.splitlines() if line.startswith("Your hand"))
    assert "EXPLORE" in hand  # the seat's own cards, in its own email
    # The copy's head, down to the hand (a whole turn email is over the table's 1000
    # characters a message: refused whole, nothing leaked).
    lines = turn.body.splitlines()
    pasted = "\r\n".join(lines[: lines.index(hand) + 1]) + "\r\n"
    assert len(pasted) < 900
    address = table.address("ann")
    body = f"TALK: Good luck all,\r\nsee you next round\r\n\r\n{pasted}"
    row = process_message(message(to=address, body=body), address)
    assert (row.status, row.outcome) == ("processed", "talk_posted"), row.error
    said = GameMessage.objects.get(game=table.game).text
    assert said == "Good luck all,\nsee you next round"
    assert hand not in said and "Legal orders" not in said


def test_a_talk_reply_above_a_pasted_daily_summary_keeps_its_addresses_off_the_table(table) -> None:
    """The summary names no one game first; it lists the seat's reply address (the
    credential its orders are sent to) and what the seat alone was told."""
    address = table.address("ann")
    body = (
        "TALK: back tomorrow\r\n\r\n"
        "Your daily summary of 29 Nov 2026: 1 game waits for your order.\r\n"
        "== League 7 (your seat: ann) ==\r\n"
        f"Send your order to {address} (this seat's own address; each game has its own).\r\n"
    )
    row = process_message(message(to=address, body=body), address)
    assert row.outcome == "talk_posted", row.error
    assert GameMessage.objects.get(game=table.game).text == "back tomorrow"


def test_a_talk_message_naming_the_game_first_is_kept_whole(table) -> None:
    """The game's name at the start of the player's own words ("League 7: gg") is theirs,
    not the first line of a copy."""
    address = table.address("ann")
    body = "TALK: League 7: well played, all\r\nand thanks\r\n"
    row = process_message(message(to=address, body=body), address)
    assert row.outcome == "talk_posted", row.error
    assert GameMessage.objects.get(game=table.game).text == "League 7: well played, all\nand thanks"


@pytest.mark.parametrize("between", ["\r\n", "\r\n\r\n"], ids=["next-line", "blank-line"])
def test_a_talk_command_alone_above_a_pasted_turn_email_posts_none_of_it(table, between) -> None:
    """"TALK:" with nothing after it on its line, the client's unquoted copy below: the
    copy's own first line ("League 7 — ...") is not the player's, and the seat's hand
    under it never reaches the table."""
    turn = OutboxMessage.objects.filter(seat=table.seats["ann"], kind="game_started").first()
    assert turn is not None
    lines = turn.body.splitlines()
    hand = next(line for line in lines if line.startswith("Your hand"))
    assert "EXPLORE" in hand
    pasted = "\r\n".join(lines[: lines.index(hand) + 1]) + "\r\n"
    address = table.address("ann")
    row = process_message(message(to=address, body=f"TALK:{between}{pasted}"), address)
    assert (row.status, row.outcome) == ("rejected", "talk_refused"), row.error
    assert not GameMessage.objects.filter(game=table.game).exists()
    answer = OutboxMessage.objects.filter(to="ann@example.com", kind="mail_reply").last()
    assert answer is not None
    assert "only a copy of one of our emails" in answer.body
    assert hand not in answer.body


def test_a_talk_command_alone_above_a_pasted_daily_summary_posts_none_of_it(table) -> None:
    address = table.address("ann")
    body = (
        "TALK:\r\n"
        "Your daily summary of 29 Nov 2026: 1 game waits for your order.\r\n"
        "== League 7 (your seat: ann) ==\r\n"
        f"Send your order to {address} (this seat's own address; each game has its own).\r\n"
    )
    row = process_message(message(to=address, body=body), address)
    assert row.outcome == "talk_refused", row.error
    assert not GameMessage.objects.filter(game=table.game).exists()


def test_a_talk_command_alone_above_a_pasted_notice_posts_none_of_it(table) -> None:
    """A notice starts "<game title>: ", as a player's own words may ("League 7: gg",
    kept above); its copy goes on with the seat's name and what the seat sees."""
    address = table.address("ann")
    body = (
        "TALK:\r\n"
        "League 7: the game is paused by the organizer.\r\n\r\n"
        "Your seat: ann\r\n"
        "Your hand: EXPLOIT, EXTERMINATE, EXPAND, EXPLORE, EXCAVATE\r\n"
    )
    row = process_message(message(to=address, body=body), address)
    assert row.outcome == "talk_refused", row.error
    assert not GameMessage.objects.filter(game=table.game).exists()


@pytest.mark.parametrize("title", ["Friday… League", "Cup ½ final", "Ｌｅａｇｕｅ 7"])
def test_a_copy_is_found_under_a_title_the_mail_reading_normalizes(table, title) -> None:
    """The message is read in NFKC form ("…" is "...", "½" is "1⁄2"); the game's title,
    as our emails write it, is not: the copy's head was never found and the copy (the
    seat's hand) went to the table whole."""
    from games.models import Game

    Game.objects.filter(pk=table.game.pk).update(name=title)
    table.game.refresh_from_db()
    address = table.address("ann")
    body = (
        "TALK: good luck\r\n\r\n"
        f"{title} — The game has started. Seating: ann, cy, bob\r\n"
        "Your seat: ann\r\n"
        "Your hand: EXPLOIT, EXTERMINATE, EXPAND, EXPLORE, EXCAVATE\r\n"
    )
    row = process_message(message(to=address, body=body), address)
    assert row.outcome == "talk_posted", row.error
    assert GameMessage.objects.get(game=table.game).text == "good luck"
