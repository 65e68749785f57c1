"""Replies as particular mail programs write them (from an audit of real clients' habits):
Outlook's suppress header, Apple Mail's text after a picture, Thunderbird's flowed text,
attributions in other languages, long References, letters from another alphabet."""

from __future__ import annotations

import pytest

from games.mail.body import body_text, unflow
from games.mail.headers import parse_bytes, thread_ids
from games.mail.processing import process_message
from games.models import SealedOrder
from tests.mail.test_hostile_mail import answers, current, message, strict_table  # noqa: F401 - a fixture

pytestmark = pytest.mark.django_db


def test_outlooks_suppress_header_on_a_persons_reply_is_an_order(table) -> None:
    """X-Auto-Response-Suppress asks the receiver not to answer automatically; Outlook sets
    it on mail people write. Such an order was dropped, unanswered."""
    address = table.address("ann")
    raw = message(to=address, headers=("X-Auto-Response-Suppress: All",))
    row = process_message(raw, address)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current(table.seats["ann"]).text == "PLAY EXPLORE"
    [answer] = answers()
    assert "PLAY EXPLORE" in answer.body


APPLE_PICTURE = (
    "--Apple\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\n\r\n"
    "--Apple\r\nContent-Type: image/jpeg; name=IMG_1.jpeg\r\n"
    "Content-Disposition: inline; filename=IMG_1.jpeg\r\nContent-Transfer-Encoding: base64\r\n\r\n"
    "/9j/4AAQ\r\n"
    "--Apple\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\n"
    "PLAY EXPLORE\r\n\r\nSent from my iPhone\r\n"
    "--Apple--\r\n"
)


def test_text_after_an_inline_picture_is_the_body(table) -> None:
    """Apple Mail writes the text after a pasted picture as a text part of its own, the
    first one blank: it was answered "attachments but no text"."""
    address = table.address("ann")
    raw = message(
        to=address, body=APPLE_PICTURE, content_type="multipart/mixed; boundary=Apple"
    )
    row = process_message(raw, address)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current(table.seats["ann"]).text == "PLAY EXPLORE"


def test_text_parts_either_side_of_a_picture_are_read_in_order() -> None:
    body = APPLE_PICTURE.replace(
        "us-ascii\r\n\r\n\r\n--Apple", "us-ascii\r\n\r\n# my note, before the picture\r\n--Apple", 1
    )
    raw = message(to="x@y", body=body, content_type="multipart/mixed; boundary=Apple")
    text, attachments = body_text(parse_bytes(raw))
    assert text.split() == "# my note, before the picture PLAY EXPLORE Sent from my iPhone".split()
    assert attachments  # the picture is still reported


def test_unflow_joins_soft_breaks_and_drops_delsp_spaces() -> None:
    # RFC 3676: a trailing space continues the line; stuffing after '>' goes.
    assert unflow("PLAY EXPLORE # bob exploited twice, so \nexpanding is best\n") == (
        "PLAY EXPLORE # bob exploited twice, so expanding is best\n"
    )
    assert unflow("PLAY EXP \nLORE", delsp=True) == "PLAY EXPLORE"
    assert unflow("> quoted \n> on\nmine") == "> quoted on\nmine"
    assert unflow("-- \nAnn") == "-- \nAnn"  # the signature separator stays on its own line
    # ... even under a soft line: it ends that paragraph (RFC 3676 4.3), or the signature
    # would be read as the order.
    assert unflow("PLAY EXPLORE \n-- \nAnn Smith") == "PLAY EXPLORE \n-- \nAnn Smith"
    assert unflow("a \n> b") == "a \n> b"  # a quote depth change ends the paragraph


def test_a_flowed_reply_is_read_as_written(table) -> None:
    address = table.address("ann")
    raw = message(
        to=address,
        body="PLAY EXP \r\nLORE # a long private note that  \r\nwraps\r\n",  # delsp: one space is the wrap's
        content_type="text/plain; charset=utf-8; format=flowed; delsp=yes",
    )
    text, _ = body_text(parse_bytes(raw))
    assert text.splitlines()[0] == "PLAY EXPLORE # a long private note that wraps"
    row = process_message(raw, address)
    assert row.outcome == "order_accepted"
    assert current(table.seats["ann"]).text == "PLAY EXPLORE"
    assert "wraps" not in answers()[0].body  # no line of the note taken for a sign-off


@pytest.mark.parametrize(
    "attribution",
    [
        # Gmail for Android in German and Hungarian: the verb in the middle, a time at the end
        "FiveX <fivex@localhost> schrieb am Fr., 27. Nov. 2026, 09:00:",
        "FiveX <fivex@localhost> ezt írta (időpont: 2026. nov. 27., P, 9:00):",
        "* FiveX <fivex@localhost> [2026-11-27 09:00]:",  # a mutt attribution of one's own
    ],
)
def test_a_bottom_posted_order_under_an_attribution_with_an_address(table, attribution) -> None:
    address = table.address("ann")
    body = f"{attribution}\r\n> Your order, please.\r\n> PLAY EXPAND\r\n\r\nPLAY EXPLORE\r\n"
    row = process_message(message(to=address, body=body), address)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current(table.seats["ann"]).text == "PLAY EXPLORE"
    assert "schrieb" not in answers()[0].body and "mutt" not in answers()[0].body


@pytest.mark.parametrize(
    "header",
    [
        ["差出人: FiveX <fivex@localhost>", "送信日時: 2026年11月27日 9:00", "宛先: Ann", "件名: League 7"],
        ["发件人: FiveX <fivex@localhost>", "发送时间: 2026年11月27日 9:00", "收件人: Ann", "主题: League 7"],
        ["보낸 사람: FiveX <fivex@localhost>", "보낸 날짜: 2026년 11월 27일", "받는 사람: Ann", "제목: League 7"],
    ],
)
def test_outlooks_quote_header_in_japanese_chinese_and_korean(table, header) -> None:
    address = table.address("ann")
    quoted = "\r\n".join([*header, "", "Your order, please.", "PLAY EXPAND", "PASS GANDHI", "Legal: ..."])
    body = f"PLAY EXPLORE\r\n\r\n{quoted}\r\n"
    row = process_message(message(to=address, body=body), address)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current(table.seats["ann"]).text == "PLAY EXPLORE"


def test_a_long_references_keeps_whole_ids_the_root_and_the_newest() -> None:
    ids = [f"<id{n:04d}.{'x' * 50}@example.com>" for n in range(80)]
    kept = thread_ids(" ".join(ids)).split()
    assert kept[0] == ids[0] and kept[1:] == ids[-19:]
    assert thread_ids("<a@b> junk <c@d>") == "<a@b> <c@d>"
    assert thread_ids("a@b <c@d>") == "<a@b> <c@d>"  # a bare id (brackets left out) is kept
    long_id = f"<{'y' * 400}@example.com>"
    assert thread_ids(f"<a@b> {long_id}") == f"<a@b> {long_id}"


def test_an_answer_to_a_long_thread_references_the_root_and_the_parent(table) -> None:
    address = table.address("ann")
    ids = [f"<id{n:04d}.{'x' * 50}@example.com>" for n in range(80)]
    raw = message(to=address, msgid="<parent@example.com>", headers=("References: " + " ".join(ids),))
    process_message(raw, address)
    refs = answers()[0].headers["References"].split()
    assert refs[0] == ids[0] and refs[-1] == "<parent@example.com>" and refs[-2] == ids[-1]
    assert len(refs) == 20 and all(r.startswith("<") and r.endswith(">") for r in refs)


def test_letters_of_another_alphabet_are_named_in_the_refusal(table) -> None:
    """'PLAY ЕXPLORE' with a Cyrillic Е reads as a legal order; the refusal says why not."""
    address = table.address("ann")
    row = process_message(message(to=address, body="PLAY \u0415XPLORE\r\n"), address)
    assert row.status == "rejected"
    assert SealedOrder.objects.filter(seat=table.seats["ann"]).count() == 0
    body = answers()[0].body
    assert "the letters A to Z" in body and "U+0415" in body and "Cyrillic Capital Letter Ie" in body


def test_a_refusal_of_several_lines_shows_the_lines_read(table) -> None:
    """A signature whose first word is an order verb was read as three orders; the answer
    said "not 3", and the player had written one. It now shows the lines it read."""
    address = table.address("ann")
    body = "PLAY EXPLORE\r\n\r\nAnn Smith\r\nPlay more games at example.com\r\n"
    row = process_message(message(to=address, body=body), address)
    assert row.status == "rejected"
    answer = answers()[0].body
    assert "These 3 lines of your message were read as the order" in answer
    assert "  | PLAY EXPLORE\n  | Ann Smith\n  | Play more games at example.com\n" in answer
    assert "start other lines with # to keep them as notes" in answer
    assert SealedOrder.objects.filter(seat=table.seats["ann"]).count() == 0


def test_a_one_line_refusal_does_not_list_lines(table) -> None:
    address = table.address("ann")
    row = process_message(message(to=address, body="PLAY NAPOLEON\r\n"), address)
    assert row.status == "rejected"
    [answer] = answers()
    assert "NOT accepted" in answer.body and "NAPOLEON" in answer.body  # a refusal, with its reason
    assert "were read as the order" not in answer.body


def test_a_flowed_reply_with_a_signature_is_the_order(table) -> None:
    address = table.address("ann")
    raw = message(
        to=address,
        body="PLAY EXPLORE \r\n-- \r\nAnn Smith\r\nPlay more at example.com\r\n",
        content_type="text/plain; charset=utf-8; format=flowed",
    )
    assert process_message(raw, address).outcome == "order_accepted"
    assert current(table.seats["ann"]).text == "PLAY EXPLORE"


def test_the_text_of_two_alternatives_is_read_once() -> None:
    """An alternative of a plain text and a mixed part holding the same text and a
    picture: the two branches are one message twice, not two parts of one."""
    body = (
        "--ALT\r\nContent-Type: text/plain\r\n\r\nPLAY EXPLORE\r\n"
        "--ALT\r\nContent-Type: multipart/mixed; boundary=MIX\r\n\r\n"
        "--MIX\r\nContent-Type: text/plain\r\n\r\nPLAY EXPLORE\r\n"
        "--MIX\r\nContent-Type: image/png\r\nContent-Disposition: inline\r\n\r\nxx\r\n"
        "--MIX--\r\n--ALT--\r\n"
    )
    raw = message(to="x@y", body=body, content_type="multipart/alternative; boundary=ALT")
    text, _ = body_text(parse_bytes(raw))
    assert text.split() == ["PLAY", "EXPLORE"]


def test_the_foreign_letters_hint_reads_order_lines_not_notes() -> None:
    from games.services.orders import _foreign_letters_hint

    hint = _foreign_letters_hint("# заметка\nPLAY \u0415XPLORE")
    assert "U+0415" in hint and "U+0437" not in hint  # the note's letters are not named
    assert "Fullwidth Latin Capital Letter P" in _foreign_letters_hint("\uff30LAY EXPLORE")
    assert _foreign_letters_hint("PLAY NAPOLEON # Наполеон") == ""
