"""A body labelled with a legacy charset that its mail program really writes as the
charset's Windows superset (as every browser reads them, WHATWG Encoding): GB2312 text
with GBK-only characters (a Chinese name), Shift_JIS with Windows' circled digits. The
strict codec failed and the bytes were read as cp1252: the order was taken, but the
sign-off the answer quotes back was mojibake ("Ð»Ð»£¬ÕÅ†´")."""

from __future__ import annotations

import unicodedata

import pytest

from games.mail.processing import process_message
from tests.mail.test_hostile_mail import answers, current, message

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("label", "codec", "signoff"),
    [
        ("gb2312", "gbk", "\u8c22\u8c22\uff0c\u5f20\u5586"),  # 谢谢，张喆 (喆: GBK only)
        ("shift_jis", "cp932", "\u2460\u3088\u308d\u3057\u304f"),  # ①よろしく (①: cp932)
        ("euc-kr", "cp949", "\uac10\uc0ac\ud569\ub2c8\ub2e4 \ub620"),  # 감사합니다 똠 (똠: cp949 only)
    ],
)
def test_a_legacy_label_is_read_as_its_windows_superset(table, label, codec, signoff) -> None:
    body = f"PLAY EXPAND\r\n\r\n{signoff}\r\n".encode(codec)
    with pytest.raises(UnicodeDecodeError):
        body.decode(label)  # the strict codec cannot read it
    address = table.address("ann")
    row = process_message(
        message(
            to=address,
            body=body,
            content_type=f"text/plain; charset={label}",
            headers=("Content-Transfer-Encoding: 8bit",),
        ),
        address,
    )
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current(table.seats["ann"]).text == "PLAY EXPAND"
    [answer] = answers()
    # As the gateway reads all text (NFKC: full-width "，" is ",", "①" is "1").
    assert unicodedata.normalize("NFKC", signoff) in answer.body


@pytest.mark.parametrize("label", ["iso-8859-1", "us-ascii"])
def test_a_latin1_label_on_windows_text_is_read_as_cp1252(table, label) -> None:
    """Windows' curly quotes (bytes 0x93/0x94) in a body labelled ISO-8859-1 (or ASCII)
    came out as C1 control characters: the quotes around the order, which the gateway
    reads past, were not seen as quotes and the order was refused."""
    address = table.address("ann")
    raw = message(
        to=address,
        body=b"\x93PLAY EXPAND\x94\r\n\r\nThanks \x96 Ann\r\n",
        content_type=f"text/plain; charset={label}",
        headers=("Content-Transfer-Encoding: 8bit",),
    )
    row = process_message(raw, address)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current(table.seats["ann"]).text == "PLAY EXPAND"
    [answer] = answers()
    assert "Thanks \u2013 Ann" in answer.body


def test_windows_quotes_in_an_iso_8859_1_encoded_subject_read_as_quotes(table) -> None:
    """The same in a Subject's encoded word: the curly quotes came out as C1 controls, so
    an order in the subject (read as the body's is, quotes and all) was not recognised and
    the player was told only that the message held no order."""
    address = table.address("ann")
    raw = message(to=address, subject="=?iso-8859-1?Q?Re:_=93PLAY_EXPAND=94?=", body="\r\n")
    row = process_message(raw, address)
    assert (row.status, row.outcome) == ("rejected", "order_in_subject")
    [answer] = answers()
    assert answer.subject.endswith("\u201cPLAY EXPAND\u201d")  # quoted back as written
