"""An order written in the Subject, with only a greeting or a sign-off in the body: the
body was refused with its own words ("ANN is not an order", "CHEERS is not an order"),
never saying where the order was, so the player could not tell what went wrong. The
subject is still never taken as the order (nothing is guessed)."""

from __future__ import annotations

import pytest

from games.mail.processing import process_message
from tests.mail.test_hostile_mail import answers, current, message

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "body",
    ["Ann\r\n", "Thanks,\r\nAnn\r\n", "Cheers\r\n\r\n-- \r\nAnn Smith\r\n"],
)
def test_a_refused_body_under_an_order_in_the_subject_says_so(table, body: str) -> None:
    address = table.address("ann")
    row = process_message(
        message(to=address, subject="Re: [League 7] Play expand", body=body), address
    )
    assert row.status == "rejected"
    assert current(table.seats["ann"]) is None  # the subject is not taken
    [answer] = answers()
    text = " ".join(answer.body.split())
    assert "NOT accepted" in text
    assert "subject reads as an order (PLAY EXPAND)" in text
    assert "write the order in the body" in text


def test_a_refused_body_under_an_ordinary_subject_has_no_such_note(table) -> None:
    address = table.address("ann")
    row = process_message(message(to=address, subject="Re: League 7", body="Ann\r\n"), address)
    assert row.status == "rejected"
    [answer] = answers()
    assert "NOT accepted" in answer.body  # refused, with its reason...
    assert "subject reads as" not in answer.body  # ...and no note about the subject


def test_an_order_only_inside_a_forwarded_message_is_answered_with_why(table) -> None:
    """A player forwarding the order they had sent elsewhere (Gmail's forward) got "did
    not contain an order (quoted text and signatures are ignored)": nothing said that a
    forwarded message is not read either, nor where to write the order."""
    address = table.address("ann")
    body = (
        "\r\n---------- Forwarded message ---------\r\nFrom: Ann <ann@example.com>\r\n"
        "Date: Sat, 28 Nov 2026 at 09:00\r\nSubject: my order\r\nTo: <bob@example.com>\r\n\r\n"
        "PLAY EXPAND\r\n"
    )
    row = process_message(message(to=address, subject="Fwd: my order", body=body), address)
    assert (row.status, row.outcome) == ("rejected", "empty")
    assert current(table.seats["ann"]) is None
    [answer] = answers()
    text = " ".join(answer.body.split())
    assert "forwarded messages" in text
    assert "write the order at the top" in text


@pytest.mark.parametrize("subject", ["STATUS", "Re: [League 7] help?"])
def test_a_command_only_in_the_subject_is_answered_with_where_to_write_it(table, subject) -> None:
    """"STATUS" as the Subject of an empty message was answered "did not contain an order
    or a command": true of the body only, and the player could not tell why."""
    address = table.address("ann")
    row = process_message(message(to=address, subject=subject, body="\r\n"), address)
    assert row.status == "rejected"
    [answer] = answers()
    text = " ".join(answer.body.split())
    assert "subject reads as the command" in text
    assert "write it in the body" in text


@pytest.mark.parametrize("title", ["Friday… League", "Ｌｅａｇｕｅ 7"])
def test_an_order_in_the_subject_is_found_under_a_title_the_mail_reading_normalizes(table, title) -> None:
    """The Subject is read in NFKC form ("…" is "..."); the game's bracketed title was
    looked for as written, so it stayed in front of the order and the note was lost."""
    from games.models import Game

    Game.objects.filter(pk=table.game.pk).update(name=title)
    address = table.address("ann")
    row = process_message(message(to=address, subject=f"Re: [{title}] Play expand", body="Ann\r\n"), address)
    assert row.status == "rejected"
    assert current(table.seats["ann"]) is None
    [answer] = answers()
    assert "subject reads as an order (PLAY EXPAND)" in " ".join(answer.body.split())
