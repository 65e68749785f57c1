"""HTML-only replies (Thunderbird's or a webmail's HTML compose with no text part): the
signature separator and note lines are what they are in a text part. The HTML was turned
into Markdown, which escaped "-- " as "\\-- " (the signature was read as part of the order)
and took a "# note" line for a heading and dropped its "#" (the note was read as order)."""

from __future__ import annotations

import pytest

from games.mail.processing import process_message
from tests.mail.test_hostile_mail import answers, current, message

pytestmark = pytest.mark.django_db


def _html_reply(table, html: str):
    address = table.address("ann")
    raw = message(to=address, body=html, content_type="text/html; charset=utf-8")
    return process_message(raw, address)


@pytest.mark.parametrize(
    "signature",
    [
        # Thunderbird's HTML signature block
        '<div class="moz-signature">-- <br>Ann Smith<br>Play fair, play often</div>',
        # Gmail's signature prefix
        '<span class="gmail_signature_prefix">-- </span><br>'
        '<div class="gmail_signature">Ann Smith<br>Play fair, play often</div>',
    ],
)
def test_an_html_signature_below_its_separator_is_not_read(table, signature: str) -> None:
    row = _html_reply(table, f"<html><body><div>PLAY EXPAND</div><br>{signature}</body></html>")
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current(table.seats["ann"]).text == "PLAY EXPAND"
    [answer] = answers()
    assert "Ann Smith" not in answer.body  # dropped as a signature, not shown as a sign-off


def test_an_html_note_line_is_a_note(table) -> None:
    row = _html_reply(
        table, "<html><body><div>PLAY EXPAND</div><div># next round I PLAY EXPLORE</div></body></html>"
    )
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current(table.seats["ann"]).text == "PLAY EXPAND"


def test_an_order_in_an_html_heading_is_still_an_order(table) -> None:
    row = _html_reply(table, "<html><body><h3>PLAY EXPAND</h3><p>\\o/ # cheers</p></body></html>")
    assert row.outcome == "order_accepted"
    assert current(table.seats["ann"]).text == "PLAY EXPAND"


@pytest.mark.django_db(transaction=True)
def test_an_html_only_reply_with_a_signature_over_smtp(table, smtpd) -> None:
    """The same through the SMTP gateway and the worker's task, as a mail server sends it."""
    import smtplib

    from games.mail.models import InboundMail
    from games.mail.tasks import process_inbound_mail

    address = table.address("ann")
    raw = message(
        to=address,
        body='<div>PLAY EXPAND</div><div class="moz-signature">-- <br>Ann<br>Play fair</div>',
        content_type="text/html; charset=utf-8",
    )
    with smtplib.SMTP(*smtpd) as smtp:
        assert smtp.sendmail("ann@example.com", [address], raw) == {}
    row = InboundMail.objects.get()
    assert process_inbound_mail.apply(args=[row.pk]).get() == "processed"
    assert current(table.seats["ann"]).text == "PLAY EXPAND"


@pytest.mark.parametrize(
    "html",
    [
        "<html><body><ul><li>PLAY EXPAND</li></ul></body></html>",  # a bulleted order
        "<html><body><ol><li>PLAY EXPAND</li></ol></body></html>",  # a numbered one
        "<html><body><p>Here you go:</p><ul><li>PLAY EXPAND</li></ul><p>Ann</p></body></html>",
    ],
)
def test_an_order_in_an_html_list_item_is_read_without_its_marker(table, html: str) -> None:
    row = _html_reply(table, html)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current(table.seats["ann"]).text == "PLAY EXPAND"
