"""Pure parsing: bodies, quotes, signatures, commands, auto-replies, redaction."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from games.mail.addresses import redact_address, split_orders_address, token_from_address
from games.mail.body import looks_garbled
from games.mail.headers import auto_reply_reason, header_section, parse_bytes
from games.mail.parsing import parse_message, split_commands
from games.mail.quotes import strip_reply
from tests.mail.conftest import eml, random_bytes_message

TO = "orders+0123456789abcdef01234567@orders.example"

# fixture -> the order text the gateway must hand to order_submit (hand-read from the file)
EXPECTED_ORDERS = {
    "plain.eml": "PLAY EXPLOIT",
    "multipart_alternative.eml": "play   expand",
    "html_only.eml": "PLAY EXPLORE",
    "quoted_printable.eml": "PLAY EXCAVATE",
    "base64.eml": "PLAY EXTERMINATE",
    "iso_8859_1.eml": "PLAY EXPLOIT",
    "broken_charset.eml": "PLAY EXPLORE",
    "reply_quoted_report.eml": "PLAY EXPAND",
    "reply_localized.eml": "play explore",
    "reply_outlook.eml": "PLAY EXCAVATE",
    "outlook_html.eml": "PLAY EXPLORE",
    "illegal_order.eml": "PLAY NAPOLEON",
}


@pytest.mark.parametrize("name,order", sorted(EXPECTED_ORDERS.items()))
def test_fixture_yields_exactly_the_order(name: str, order: str) -> None:
    parsed = parse_message(eml(name, to=TO))
    assert parsed.order_text == order
    assert parsed.commands == []
    assert not parsed.is_auto
    assert not parsed.garbled


def test_sender_subject_and_dkim_are_read() -> None:
    parsed = parse_message(eml("plain.eml", to=TO, sender="ann@example.net", msgid="<m1@x>"))
    assert parsed.sender == "ann@example.net"
    assert parsed.message_id == "<m1@x>"
    assert parsed.dkim == "pass"
    assert parsed.references == "<fivex-round1-ann@fivex.example>"


def test_encoded_words_are_decoded() -> None:
    parsed = parse_message(eml("quoted_printable.eml", to=TO))
    assert parsed.subject == "Re: [FiveX] Ligue 7 — tour 1"


@pytest.mark.parametrize(
    "name,reason_part",
    [
        ("auto_reply.eml", "Auto-Submitted"),
        ("auto_reply_vacation.eml", "Precedence"),
        ("bounce.eml", "bounce"),
    ],
)
def test_auto_replies_and_bounces_are_recognised(name: str, reason_part: str) -> None:
    assert reason_part in parse_message(eml(name, to=TO)).auto_reason


def test_null_envelope_sender_is_a_bounce_even_without_headers() -> None:
    raw = eml("plain.eml", to=TO).replace(b"Return-Path: <ann@example.com>\n", b"")
    assert parse_message(raw).auto_reason == ""
    assert "bounce" in parse_message(raw, envelope_sender="").auto_reason


@pytest.mark.parametrize(
    "header",
    [
        "Auto-Submitted: auto-generated",
        "Precedence: junk",
        "Precedence: list",
        "X-Autoreply: yes",
        "List-Id: <players.lists.example>",
        "From: MAILER-DAEMON@mx.example.net",
    ],
)
def test_each_auto_header_alone_suppresses_answers(header: str) -> None:
    raw = f"{header}\nSubject: x\n\nPLAY EXPLOIT\n".encode()
    assert auto_reply_reason(parse_bytes(raw)) != ""


def test_auto_submitted_no_is_a_person() -> None:
    raw = b"Auto-Submitted: no\nFrom: a@example.com\n\nPLAY EXPLOIT\n"
    assert auto_reply_reason(parse_bytes(raw)) == ""


def test_attachment_only_has_no_text() -> None:
    parsed = parse_message(eml("attachment_only.eml", to=TO))
    assert parsed.has_attachments and not parsed.has_text
    assert parsed.order_text == ""


def test_empty_reply_has_no_order() -> None:
    parsed = parse_message(eml("empty.eml", to=TO))
    assert parsed.order_text == "" and parsed.commands == []


def test_commands_are_separated_from_the_order() -> None:
    parsed = parse_message(eml("commands.eml", to=TO))
    assert parsed.commands == ["HELP", "STATUS", "SHOW"]
    assert parsed.order_text == ""
    commands, rest = split_commands("SHOW\nPLAY EXPLOIT\nshow\n")
    assert commands == ["SHOW"] and rest == "PLAY EXPLOIT"
    commands, rest = split_commands("quiet\nPLAY EXPLOIT\n  All \nall the best\n")
    assert commands == ["QUIET", "ALL"] and rest == "PLAY EXPLOIT\nall the best"


def test_random_bytes_are_garbled_not_a_crash() -> None:
    parsed = parse_message(random_bytes_message())
    assert parsed.garbled
    assert parsed.order_text == ""


def test_looks_garbled_accepts_accented_text() -> None:
    assert not looks_garbled("PLAY EXPLOIT — déjà vu, naïve café, Zoë\n" * 20)
    assert looks_garbled("\x00\x01\x02\ufffd\ufffd abc")


def test_looks_garbled_does_not_count_format_characters() -> None:
    # Regression (bad-input audit): format characters (Cf) are text, not noise: two RLMs
    # around a short order, or a flag emoji's tag characters, made a message "garbled".
    assert not looks_garbled("\u200fPLAY EXPAND\u200f\r\n")
    assert not looks_garbled("PLAY EXPAND \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f\n")
    assert looks_garbled("PLAY\x01\x02\x03\x04 EXPAND\n")


@pytest.mark.parametrize(
    "text,expected",
    [
        ("PLAY EXPLOIT\n-- \nAnn\nPLAY EXPAND", "PLAY EXPLOIT"),
        ("PLAY EXPLOIT\n\n> PLAY EXPAND\n> old", "PLAY EXPLOIT"),
        ("BID 2\n\nAm 21.11.2026 um 10:00 schrieb FiveX <f@x>:\nPLAY EXPAND", "BID 2"),
        ("BID 2\nEl sáb, 21 nov 2026 a las 10:00, FiveX (<f@x>) escribió:\nBID 9", "BID 2"),
        ("BID 2\nIl giorno sab 21 nov 2026, FiveX <f@x> ha scritto:\nBID 9", "BID 2"),
        ("BID 2\nOp za 21 nov. 2026 om 10:00 schreef FiveX <f@x>:\nBID 9", "BID 2"),
        ("BID 2\n-----Ursprüngliche Nachricht-----\nBID 9", "BID 2"),
        ("BID 2\n________________________________\nFrom: FiveX\nSent: today\nBID 9", "BID 2"),
        ("BID 2\nFrom: FiveX <f@x>\nSent: Saturday\nTo: me\nBID 9", "BID 2"),
        ("TAKE EXPAND\n#### Write your order above this line ####\nPLAY X", "TAKE EXPAND"),
        ("\n\n  PASS GANDHI  \n\nSent from my iPhone\n", "  PASS GANDHI"),
        ("PASS GANDHI\nSent via the Samsung Galaxy S23, an AT&T 5G smartphone", "PASS GANDHI"),
        ("PASS GANDHI\n\nSent with Proton Mail secure email.", "PASS GANDHI"),
        # a lead-in on the order's line is no signature
        ("Sent from the office: PASS GANDHI\nSent from my HUAWEI", "Sent from the office: PASS GANDHI"),
        # bottom posting: the answer below the quoted report
        ("On Sat, 21 Nov 2026, FiveX <f@x> wrote:\n> PLAY EXPLOIT\n\nBID 3\n-- \nA", "BID 3"),
        ("On Sat, 21 Nov 2026 at 10:00, FiveX\n<o@x> wrote:\n\n> Round 1\nBID 3", "BID 3"),
        # top posting with a quote, then the player's signature
        ("BID 3\n\nOn Sat, FiveX <f@x> wrote:\n> BID 1\n>\n\n-- \nBID 2", "BID 3"),
        # bottom posting under a gateway answer: its marker line comes quoted (regression:
        # the order below it was dropped)
        ("On Sat, FiveX <f@x> wrote:\n> #### Write your order above this line ####\n>\n"
         "> Your message did not contain an order.\n\nplay caesar\n", "play caesar"),
        ("> #### Write your order above this line ####\n> Legal orders now:\nPLAY EXPAND",
         "PLAY EXPAND"),
    ],
)
def test_strip_reply_keeps_only_the_new_text(text: str, expected: str) -> None:
    assert strip_reply(text) == expected


def test_header_section_stops_at_the_blank_line() -> None:
    raw = b"Subject: a\r\nFrom: b@c\r\n\r\nbody" + b"x" * 1000
    assert header_section(raw) == b"Subject: a\r\nFrom: b@c\r\n\r\n"
    assert len(header_section(b"y" * 200_000)) == 64 * 1024


def test_redact_address_never_shows_a_whole_token() -> None:
    assert redact_address("orders+abcdef123456@orders.example") == "o***+abcd…@orders.example"
    assert redact_address("<ann.smith@example.com>") == "a***@example.com"
    assert redact_address("") == "<>"
    assert "abcdef123456" not in redact_address("ORDERS+abcdef123456@x")


def test_split_orders_address(settings) -> None:
    settings.ORDERS_DOMAIN = "orders.example"
    settings.ORDERS_ADDRESS_PREFIX = "orders"
    assert token_from_address("<Orders+abc123@ORDERS.example>") == "abc123"
    assert split_orders_address("orders+abc@other.example") is None  # wrong domain
    assert split_orders_address("judge+abc@orders.example") is None  # wrong prefix
    assert split_orders_address("orders@orders.example") is None  # no token
    assert split_orders_address("orders+a'b@orders.example") is None  # not a token


def test_parsing_works_in_a_fresh_interpreter() -> None:
    # Regression: parsing used email.parser without importing it; the tests passed only
    # because another module had imported it first.
    code = (
        "from games.mail.parsing import parse_message;"
        "assert parse_message(b'Subject: x\\n\\nPLAY EXPLOIT\\n').order_text == 'PLAY EXPLOIT'"
    )
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60, cwd=root)
    assert result.returncode == 0, result.stderr.decode()


def test_an_order_as_the_engine_read_it_is_written_in_words() -> None:
    from games.order_presentation import parsed_summary as _parsed_summary

    assert _parsed_summary({"kind": "allocate", "areas": ["EXPLORE", "EXPAND"]}) == (
        "kind: allocate; areas: EXPLORE EXPAND"
    )
    assert _parsed_summary(
        {"kind": "hit", "hits": [{"seat": "bob", "die": 2, "what": "SHIP"}, {"seat": "cat", "die": 1, "what": "ASTEROID"}]}
    ) == "kind: hit; hits: seat bob die 2 what SHIP, seat cat die 1 what ASTEROID"
    assert _parsed_summary({"kind": "place", "colour": "BLUE", "hex": "-1,0", "change": None}) == (
        "kind: place; colour: BLUE; hex: -1,0"
    )
    assert _parsed_summary({}) == "" and _parsed_summary(None) == ""


def test_away_is_a_command_with_a_day_and_back_one_without() -> None:
    from games.mail.parsing import split_commands

    commands, rest = split_commands("AWAY 2030-01-15\naway until 2030-01-16.\nBack!\nPLAY EXPLOIT\nAway soon")
    assert commands == ["AWAY 2030-01-15", "AWAY 2030-01-16", "BACK"]
    assert rest == "PLAY EXPLOIT\nAway soon"  # not a day: not the command
