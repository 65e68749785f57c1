"""Replies answer a prompt: every email that asks a seat for an order has a Message-ID
naming the game and the prompt, so an order sent in reply to the email of a prompt that
has closed since is refused (as a stale web form is), not put on the next prompt."""

from __future__ import annotations

import re
from email.utils import make_msgid

import pytest

from games.mail.processing import process_message
from games.models import OutboxMessage, Prompt, SealedOrder
from games.services import notifications
from games.services.orders import order_submit
from games.services.outbox import prompt_answered
from games.services.outbox_sending import outbox_send
from games.services.resolution import prompt_resolve

pytestmark = pytest.mark.django_db


def answer(*, to: str, body: str, in_reply_to: str | None) -> bytes:
    head = (
        f"From: Ann <ann@example.com>\r\nTo: {to}\r\nSubject: Re: your move\r\n"
        f"Message-ID: {make_msgid(domain='example.com')}\r\n"
    )
    if in_reply_to:
        head += f"In-Reply-To: {in_reply_to}\r\nReferences: {in_reply_to}\r\n"
    return (head + "Content-Type: text/plain; charset=utf-8\r\n\r\n" + body + "\r\n").encode()


def newest(to: str, kind: str) -> OutboxMessage:
    return OutboxMessage.objects.filter(to=to, kind=kind).order_by("-id").first()


def close_prompt_one(table) -> None:
    """Everyone orders for prompt 1 (by the web), which resolves; prompt 2 opens."""
    for name, seat in table.seats.items():
        order_submit(seat=seat, text="PLAY EXPLOIT" if name != "bob" else "PLAY EXPAND", source="web")
    assert prompt_resolve(game_id=table.game.pk, prompt_number=1) is True
    assert Prompt.objects.get(game=table.game, number=2).status == "open"


def test_the_emails_asking_for_an_order_name_their_prompt(table, mailoutbox) -> None:
    game = table.game
    started = newest("ann@example.com", "game_started")
    assert prompt_answered(in_reply_to=started.headers["Message-ID"], game_id=game.pk) == 1
    # Another game's id does not match; junk matches nothing.
    assert prompt_answered(in_reply_to=started.headers["Message-ID"], game_id=game.pk + 1) is None
    assert prompt_answered(in_reply_to="<abc@example.com>", game_id=game.pk) is None
    assert prompt_answered(in_reply_to="", game_id=game.pk) is None
    # The Message-ID is the one the email goes out with.
    outbox_send(message_id=started.pk)
    [sent] = [m for m in mailoutbox if m.to == ["ann@example.com"]]
    assert sent.message()["Message-ID"] == started.headers["Message-ID"]
    close_prompt_one(table)
    resolved = newest("ann@example.com", "prompt_resolved")
    assert prompt_answered(in_reply_to=resolved.headers["Message-ID"], game_id=game.pk) == 2
    notifications.notify_reminder(
        game=game, prompt=Prompt.objects.get(game=game, number=2), seat=table.seats["ann"]
    )
    reminder = newest("ann@example.com", "reminder")
    assert prompt_answered(in_reply_to=reminder.headers["Message-ID"], game_id=game.pk) == 2


def test_a_reply_to_a_closed_prompts_email_is_refused_and_stores_nothing(table) -> None:
    game, ann, address = table.game, table.seats["ann"], table.address("ann")
    started_id = newest("ann@example.com", "game_started").headers["Message-ID"]
    close_prompt_one(table)
    before = SealedOrder.objects.filter(prompt__game=game, prompt__number=2).count()
    # A late answer to the game-started email (prompt 1), PLAY EXPAND legal on prompt 2 too.
    row = process_message(answer(to=address, body="PLAY EXPAND", in_reply_to=started_id), address)
    assert (row.status, row.outcome) == ("rejected", "prompt_closed")
    assert SealedOrder.objects.filter(prompt__game=game, prompt__number=2).count() == before
    refusal = newest("ann@example.com", "mail_reply")
    # In the words of the subjects too (an email-only player knew prompts by them).
    assert re.search(
        r"Decision 1 is not open any more: decision 2 is open now \(round \d+, [a-z-]+\)\. Nothing was stored\.",
        " ".join(refusal.body.split()),
    ), refusal.body
    assert "PLAY EXPAND" in refusal.body  # the legal orders now
    # The refusal asks again, for prompt 2: a reply to it is taken.
    assert prompt_answered(in_reply_to=refusal.headers["Message-ID"], game_id=game.pk) == 2
    row = process_message(
        answer(to=address, body="PLAY EXPAND", in_reply_to=refusal.headers["Message-ID"]), address
    )
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    order = SealedOrder.objects.get(seat=ann, is_current=True, prompt__number=2)
    assert order.text == "PLAY EXPAND" and order.source == "email"


def test_a_reply_naming_the_open_prompt_or_none_is_taken(table, mailoutbox) -> None:
    game, address = table.game, table.address("ann")
    started_id = newest("ann@example.com", "game_started").headers["Message-ID"]
    row = process_message(answer(to=address, body="PLAY EXPLORE", in_reply_to=started_id), address)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    confirmation = newest("ann@example.com", "mail_reply")
    # A confirmation names no prompt: the newest email is often the confirmation of the
    # order that closed a prompt, and a reply to it orders for the next one.
    assert prompt_answered(in_reply_to=confirmation.headers["Message-ID"], game_id=game.pk) is None
    outbox_send(message_id=confirmation.pk)
    confirmation_id = mailoutbox[-1].message()["Message-ID"]
    assert prompt_answered(in_reply_to=confirmation_id, game_id=game.pk) is None
    close_prompt_one(table)
    for in_reply_to in (None, "<someone-else@example.com>", confirmation_id):
        row = process_message(answer(to=address, body="PLAY EXPAND", in_reply_to=in_reply_to), address)
        assert (row.status, row.outcome) == ("processed", "order_accepted"), in_reply_to
    on_two = SealedOrder.objects.filter(seat=table.seats["ann"], prompt__number=2)
    assert on_two.count() == 1 and on_two.get().source == "email"  # the same text: kept
    assert not SealedOrder.objects.filter(prompt__game=game, prompt__number__gt=2).exists()


def test_without_in_reply_to_the_last_reference_is_the_parent(table) -> None:
    """Some programs write only References: its last id is the message answered (RFC 5322
    3.6.4). An answer to prompt 1's email after it closed was put on prompt 2."""
    game, address = table.game, table.address("ann")
    started_id = newest("ann@example.com", "game_started").headers["Message-ID"]
    close_prompt_one(table)

    def only_references(refs: str) -> bytes:
        raw = answer(to=address, body="PLAY EXPAND", in_reply_to=None).decode()
        return raw.replace("Content-Type:", f"References: {refs}\r\nContent-Type:", 1).encode()

    row = process_message(only_references(f"<fivex.{game.pk}.thread@x.example> {started_id}"), address)
    assert (row.status, row.outcome) == ("rejected", "prompt_closed")
    assert not SealedOrder.objects.filter(prompt__game=game, prompt__number=2, source="email").exists()
    # The thread's first id alone (an older email in the chain) does not decide: the parent does.
    row = process_message(only_references(f"{started_id} <a-confirmation@example.com>"), address)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
