"""Table talk by email, through the SMTP gateway: a reply whose first line is ``TALK:``
(or ``TALK`` alone, or ``TALK`` in capitals and the words) is written at the game's table
as the seat's player, answered with where; nothing of it is an order or a command; the
table's rules refuse it as on the page; delivered twice, written once."""

from __future__ import annotations

import pytest

from games.models import GameMessage, OutboxMessage, SealedOrder
from tests.mail.test_hand_built_messages import send
from tests.mail.test_hostile_mail import message

pytestmark = pytest.mark.django_db(transaction=True)


def last_answer(to: str = "ann@example.com") -> str:
    return " ".join(
        OutboxMessage.objects.filter(to=to, kind="mail_reply").order_by("-id").first().body.split()
    )


def test_a_talk_reply_is_written_at_the_table(table, smtpd) -> None:
    address = table.address("ann")
    body = "TALK: Hello all,\r\nshall we play fast?\r\nPLAY EXPAND\r\n\r\n-- \r\nAnn\r\n"
    row = send(smtpd, "ann@example.com", address, message(to=address, body=body))
    assert (row.status, row.outcome) == ("processed", "talk_posted"), row.error
    [said] = GameMessage.objects.filter(game=table.game)
    assert said.author == table.seats["ann"].user and said.seat_name == "ann"
    assert said.text == "Hello all,\nshall we play fast?\nPLAY EXPAND"  # the signature cut
    assert not SealedOrder.objects.filter(seat=table.seats["ann"], source="email").exists()
    answer = last_answer()
    assert "TALK: your message is at the table" in answer
    assert f"/games/{table.game.pk}/talk/" in answer


@pytest.mark.parametrize(
    "body, text",
    [
        ("talk: hi there\r\n", "hi there"),
        ("TALK\r\nOn two lines\r\nthis time\r\n", "On two lines\nthis time"),
        ("TALK Good luck everyone\r\n", "Good luck everyone"),
    ],
)
def test_the_ways_to_write_it(table, smtpd, body, text) -> None:
    address = table.address("ann")
    row = send(smtpd, "ann@example.com", address, message(to=address, body=body))
    assert row.outcome == "talk_posted", row.error
    assert GameMessage.objects.get(game=table.game).text == text


def test_talk_soon_is_no_talk_and_an_order_with_it_is_an_order(table, smtpd) -> None:
    # "Talk soon" below an order is a sign-off, not a message for the table.
    address = table.address("ann")
    row = send(smtpd, "ann@example.com", address,
               message(to=address, body="PLAY EXPLORE\r\n\r\nTalk soon,\r\nAnn\r\n"))
    assert row.outcome == "order_accepted", row.error
    assert not GameMessage.objects.exists()


def test_refused_as_on_the_page_and_written_once(table, smtpd) -> None:
    from games.models import Game

    address = table.address("ann")
    empty = send(smtpd, "ann@example.com", address, message(to=address, body="TALK:\r\n"))
    assert (empty.status, empty.outcome) == ("rejected", "talk_refused")
    assert "Nothing was written at the table" in last_answer()
    # Delivered twice (the same message): written once.
    twice = message(to=address, body="TALK: once\r\n", msgid="<talk-once@example.com>")
    send(smtpd, "ann@example.com", address, twice)
    send(smtpd, "ann@example.com", address, twice)
    assert list(GameMessage.objects.values_list("text", flat=True)) == ["once"]
    # A table closed to the players: refused, said why.
    Game.objects.filter(pk=table.game.pk).update(talk_open=False)
    closed = send(smtpd, "ann@example.com", address, message(to=address, body="TALK: hello?\r\n"))
    assert closed.outcome == "talk_refused"
    assert "closed" in last_answer().lower()
    assert GameMessage.objects.count() == 1


def test_a_resigned_player_still_talks_by_email_but_orders_nothing(table, smtpd) -> None:
    # The README's word: a resigned player writes at the table, by email too.
    from games.services.games import seat_resign

    seat_resign(seat=table.seats["ann"])
    address = table.address("ann")
    row = send(smtpd, "ann@example.com", address, message(to=address, body="TALK: gg all\r\n"))
    assert row.outcome == "talk_posted", row.error
    assert list(GameMessage.objects.values_list("text", flat=True)) == ["gg all"]
    order = send(smtpd, "ann@example.com", address, message(to=address, body="PLAY EXPLORE\r\n"))
    assert order.outcome == "seat_inactive"
