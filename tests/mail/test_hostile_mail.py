"""Hostile and odd mail from the QA attack on the gateway (/tmp/qa/email.md): spoofed
display names, raw 8-bit headers, headers the stdlib cannot parse, messages built to
burn CPU, punctuation on commands, auto-reply variants, duplicates, echoed sender text,
corrections after a blank line, mixed charsets. Every message goes through a real entry
point (``process_message``, the ``ingest_email`` pipe command or the SMTP server)."""

from __future__ import annotations

import smtplib
import time

import pytest

from games.mail.body import html_to_text
from games.mail.headers import parse_bytes, sender_address
from games.mail.models import InboundMail
from games.mail.processing import process_message
from games.mail.tasks import process_inbound_mail
from games.models import OutboxMessage, SealedOrder
from tests.mail.conftest import make_table
from tests.mail.test_entrypoints import run_ingest

# The receiving server's own verdict for a sender at the player's provider (example.com):
# what it writes for mallory@example.com, who really sent the message.
PROVIDER_PASS = (
    "mx.orders.example; dkim=pass header.d=example.com; "
    "spf=pass smtp.mailfrom=mallory@example.com; dmarc=pass header.from=example.com"
)


def message(
    *,
    to: str,
    sender: bytes | str = b"Ann <ann@example.com>",
    subject: bytes | str = b"Re: League 7",
    body: bytes | str = b"PLAY EXPLORE\r\n",
    msgid: bytes | str | None = None,
    headers: tuple[bytes | str, ...] = (),
    content_type: bytes | str = b"text/plain; charset=utf-8",
) -> bytes:
    """A message as a mail program sends it (CRLF line ends), from raw header bytes."""

    def b(value: bytes | str) -> bytes:
        return value if isinstance(value, bytes) else value.encode()

    msgid = msgid if msgid is not None else f"<{time.monotonic_ns()}@example.com>"
    lines = [
        b"From: " + b(sender),
        b"To: " + b(to),
        b"Subject: " + b(subject),
        b"Message-ID: " + b(msgid),
        b"MIME-Version: 1.0",
        *(b(h) for h in headers),
        b"Content-Type: " + b(content_type),
    ]
    return b"\r\n".join(lines) + b"\r\n\r\n" + b(body).replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def answers(to: str = "ann@example.com") -> list[OutboxMessage]:
    return list(OutboxMessage.objects.filter(kind="mail_reply", to=to).order_by("id"))


def current(seat) -> SealedOrder | None:
    return SealedOrder.objects.filter(seat=seat, is_current=True).first()


# ------------------------------------------------- 1. encoded display names are not senders


SPOOFS = [
    b"=?utf-8?q?ann=40example=2Ecom?= <mallory@example.com>",
    # base64 word "ann@example.com, \xc3\xa9" (a comma: two mailboxes once decoded)
    b"=?utf-8?b?YW5uQGV4YW1wbGUuY29tLCDDqQ==?= <mallory@example.com>",
]


@pytest.fixture
def strict_table(db, orders_settings):
    orders_settings.MAIL_AUTHSERV_ID = "mx.orders.example"
    return make_table(require_sender_match=True, name="Strict Game")


@pytest.mark.parametrize("sender", SPOOFS)
def test_an_encoded_display_name_does_not_pass_the_strict_sender_check(
    strict_table, monkeypatch, sender: bytes
) -> None:
    address = strict_table.address("ann")
    raw = message(
        to=address, sender=sender, headers=(f"Authentication-Results: {PROVIDER_PASS}",)
    )
    assert run_ingest(monkeypatch, raw, address) == 0
    row = InboundMail.objects.get()
    assert row.sender == "mallory@example.com"
    assert (row.status, row.outcome) == ("rejected", "sender_mismatch")
    assert SealedOrder.objects.count() == 0
    [warning] = answers()
    assert "came from mallory@example.com, which is not your account address" in warning.body


@pytest.mark.parametrize(
    "sender",
    [
        b"ann@example.com <mallory@example.com>",  # an address as a bare display name
        b"ann@example.com, mallory@example.com",  # two mailboxes
    ],
)
def test_a_from_with_defects_or_several_mailboxes_never_matches(
    strict_table, sender: bytes
) -> None:
    address = strict_table.address("ann")
    raw = message(
        to=address,
        sender=sender,
        headers=("Authentication-Results: mx.orders.example; dkim=pass header.d=example.com",),
    )
    row = process_message(raw, address)
    assert (row.status, row.outcome) == ("rejected", "sender_mismatch")
    assert SealedOrder.objects.count() == 0
    [warning] = answers()
    assert "came from an unclear sender (its From: line names several addresses" in warning.body


def test_an_unclear_from_gets_the_foreign_sender_note(table) -> None:
    address = table.address("ann")
    row = process_message(message(to=address, sender=b"ann@example.com <mallory@example.com>"), address)
    assert row.outcome == "order_accepted"
    assert "Note: this message came from an unclear sender" in answers()[0].body


def test_a_full_stop_in_the_display_name_is_still_the_player(strict_table) -> None:
    address = strict_table.address("ann")
    raw = message(
        to=address,
        sender=b"A. Smith <ann@example.com>",
        headers=("Authentication-Results: mx.orders.example; dkim=pass header.d=example.com",),
    )
    assert process_message(raw, address).outcome == "order_accepted"


def test_an_encoded_display_name_gets_the_foreign_sender_note(table, monkeypatch) -> None:
    address = table.address("ann")
    assert run_ingest(monkeypatch, message(to=address, sender=SPOOFS[0]), address) == 0
    row = InboundMail.objects.get()
    assert (row.outcome, row.sender) == ("order_accepted", "mallory@example.com")
    assert current(table.seats["ann"]).text == "PLAY EXPLORE"
    [confirmation] = answers()
    assert "Note: this message came from mallory@example.com, which is not your" in (
        confirmation.body
    )


def test_the_account_address_with_an_encoded_display_name_is_the_player(strict_table) -> None:
    address = strict_table.address("ann")
    raw = message(
        to=address,
        sender=b"=?utf-8?q?Ann_M=C3=BCller?= <ann@example.com>",
        headers=("Authentication-Results: mx.orders.example; dkim=pass header.d=example.com",),
    )
    row = process_message(raw, address)
    assert row.outcome == "order_accepted"
    [answer] = answers()
    assert current(strict_table.seats["ann"]).commitment in answer.body  # the confirmation
    assert "Note: this message came from" not in answer.body


def test_sender_address_reads_the_structured_header() -> None:
    def read(value: bytes) -> tuple[str, bool]:
        return sender_address(parse_bytes(b"From: " + value + b"\r\n\r\nx"))

    assert read(SPOOFS[0]) == ("mallory@example.com", True)
    assert read(b"Ann <ann@example.com>") == ("ann@example.com", True)
    assert read(b"ann@example.com <mallory@example.com>")[1] is False
    assert read(b"a@example.com, b@example.com") == ("a@example.com", False)
    assert read(b"") == ("", False)


# ---------------------------------------------------------------- 2. raw 8-bit headers


def test_a_raw_utf8_subject_with_an_order_is_stored_and_sealed(table, monkeypatch) -> None:
    address = table.address("bob")
    raw = message(
        to=address,
        sender=b"Bob <bob@example.com>",
        subject="Re: [League 7] Größe ✓ Ответ".encode(),
        body=b"PLAY EXCAVATE\r\n",
    )
    assert run_ingest(monkeypatch, raw, address) == 0
    row = InboundMail.objects.get()
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current(table.seats["bob"]).text == "PLAY EXCAVATE"
    [confirmation] = answers("bob@example.com")
    assert confirmation.subject == "Re: [League 7] Größe ✓ Ответ"


def test_a_raw_latin1_subject_is_read_as_latin1(table, monkeypatch) -> None:
    address = table.address("bob")
    raw = message(to=address, sender=b"Bob <bob@example.com>", subject=b"Re: Gr\xf6\xdfe")
    assert run_ingest(monkeypatch, raw, address) == 0
    assert InboundMail.objects.get().outcome == "order_accepted"
    assert answers("bob@example.com")[0].subject == "Re: [League 7] Größe"


@pytest.mark.parametrize(
    ("sender", "msgid", "stored_sender", "stored_msgid"),
    [
        (
            "Bob <bøb@exämple.com>".encode(),
            "<größe-1@exämple.com>".encode(),
            "bøb@exämple.com",
            "<größe-1@exämple.com>",
        ),
        (b"Bob <b\xf8b@example.com>", b"<gr\xf6\xdfe-2@example.com>", "bøb@example.com", "<größe-2@example.com>"),
    ],
)
def test_a_raw_8bit_from_and_message_id_are_stored(
    table, monkeypatch, sender, msgid, stored_sender, stored_msgid
) -> None:
    address = table.address("bob")
    raw = message(to=address, sender=sender, msgid=msgid, subject="Größe".encode())
    assert run_ingest(monkeypatch, raw, address) == 0
    row = InboundMail.objects.get()
    assert (row.sender, row.message_id) == (stored_sender, stored_msgid)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    # the foreign sender is named as written: a plain (international) address
    assert f"came from {stored_sender}" in answers("bob@example.com")[0].body


def test_a_system_error_on_an_8bit_message_still_tells_the_player(
    table, monkeypatch, settings
) -> None:
    import games.services.orders

    settings.MAIL_MAX_ATTEMPTS = 2
    address = table.address("bob")
    raw = message(to=address, sender=b"Bob <b\xf8b@example.com>", subject=b"Gr\xc3\xb6\xc3\x9fe")
    row = process_message(raw, address, defer=True)

    def broken(**kwargs):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(games.services.orders, "order_submit", broken)
    assert process_inbound_mail.apply(args=[row.pk]).get() == "failed"
    row.refresh_from_db()
    assert (row.status, row.outcome) == ("failed", "gave_up")
    [notice] = answers("bob@example.com")
    assert notice.subject == "Re: [League 7] Größe"
    assert "could not be processed because of an internal error" in notice.body


@pytest.mark.django_db(transaction=True)
def test_smtputf8_mail_with_raw_utf8_headers_is_stored_and_sealed(table, smtpd) -> None:
    address = table.address("bob")
    raw = message(
        to=address,
        sender="Bøb <bøb@exämple.com>".encode(),
        subject="Re: [League 7] Ответ ✓".encode(),
        msgid="<ответ@exämple.com>".encode(),
        body=b"PLAY EXCAVATE\r\n",
    )
    with smtplib.SMTP(*smtpd) as smtp:
        smtp.ehlo()
        assert smtp.has_extn("smtputf8")
        refused = smtp.sendmail("bøb@exämple.com", [address], raw, mail_options=["SMTPUTF8"])
    assert refused == {}
    row = InboundMail.objects.get()
    assert (row.sender, row.message_id, row.envelope_sender) == (
        "bøb@exämple.com",
        "<ответ@exämple.com>",
        "bøb@exämple.com",
    )
    assert process_inbound_mail.apply(args=[row.pk]).get() == "processed"
    assert current(table.seats["bob"]).text == "PLAY EXCAVATE"
    assert answers("bob@example.com")[0].subject == "Re: [League 7] Ответ ✓"


# ------------------------------------------------------ 3. headers the stdlib cannot parse


def nested_multiparts(to: str, depth: int = 1000) -> bytes:
    parts = [f"From: ann@example.com\r\nTo: {to}\r\nSubject: deep\r\nMessage-ID: <deep@x>\r\n"]
    parts.append('Content-Type: multipart/mixed; boundary="b0"\r\n\r\n')
    for i in range(1, depth):
        parts.append(f'--b{i - 1}\r\nContent-Type: multipart/mixed; boundary="b{i}"\r\n\r\n')
    parts.append(f"--b{depth - 1}\r\nContent-Type: text/plain\r\n\r\nPLAY EXPLORE\r\n")
    return "".join(parts).encode()


def test_a_content_type_with_2000_parentheses_is_stored_and_answered(table, monkeypatch) -> None:
    address = table.address("ann")
    raw = message(to=address, content_type=b"text/plain" + b"(" * 2000)
    assert run_ingest(monkeypatch, raw, address) == 0
    row = InboundMail.objects.get()
    assert (row.status, row.outcome) == ("rejected", "garbled")
    assert "could not be read as text" in answers()[0].body


def test_a_content_type_with_2000_parentheses_to_an_unknown_address_bounces(
    table, monkeypatch
) -> None:
    forged = "orders+ffffffffffffffffffffffff@orders.example"
    raw = message(to=forged, content_type=b"text/plain" + b"(" * 2000)
    assert run_ingest(monkeypatch, raw, forged) == 67


def test_a_thousand_nested_multiparts_are_answered_not_retried(table, monkeypatch) -> None:
    address = table.address("ann")
    assert run_ingest(monkeypatch, nested_multiparts(address), address) == 0
    row = InboundMail.objects.get()
    # more parts than are read (MAIL_MAX_PARTS): answered unread
    assert (row.status, row.outcome, row.attempts) == ("rejected", "too_large", 1)
    assert "Your message has more than 200 parts" in answers()[0].body


def test_a_thousand_nested_multiparts_under_a_higher_part_limit_are_garbled(
    table, monkeypatch, settings
) -> None:
    settings.MAIL_MAX_PARTS = 100_000  # read: the parser's own limit answers
    address = table.address("ann")
    assert run_ingest(monkeypatch, nested_multiparts(address), address) == 0
    row = InboundMail.objects.get()
    assert (row.status, row.outcome, row.attempts) == ("rejected", "garbled", 1)
    assert "could not be read as text" in answers()[0].body


@pytest.mark.django_db(transaction=True)
def test_unparseable_headers_over_smtp_are_stored_and_answered(table, smtpd) -> None:
    address = table.address("ann")
    with smtplib.SMTP(*smtpd) as smtp:
        smtp.sendmail(
            "ann@example.com", [address], message(to=address, content_type="text/plain" + "(" * 2000)
        )
    row = InboundMail.objects.get()
    assert process_inbound_mail.apply(args=[row.pk]).get() == "rejected"
    row.refresh_from_db()
    assert (row.outcome, row.attempts) == ("garbled", 1)


# ------------------------------------------------------------------ 4. bounded work


def timed(fn):
    """``fn()`` and the CPU seconds this process spent on it: a quadratic reading shows
    as minutes of CPU, while the wall clock also counts the other test processes and
    services sharing the machine (a loaded CI machine read 10.7 s for 2.5 s of work)."""
    start = time.process_time()
    result = fn()
    return result, time.process_time() - start


def test_forty_thousand_unclosed_blockquotes_are_read_quickly(table) -> None:
    address = table.address("ann")
    html = "<html><body><p>PLAY EXPLORE</p>" + "<blockquote>x<br>y" * 40_000
    raw = message(to=address, content_type="text/html; charset=utf-8", body=html)
    assert 600_000 < len(raw) < 1024 * 1024  # under MAIL_MAX_BYTES: it is read
    row, seconds = timed(lambda: process_message(raw, address))
    assert seconds < 5, seconds
    assert row.outcome == "order_accepted"
    assert current(table.seats["ann"]).text == "PLAY EXPLORE"


def test_deeply_nested_lists_are_read_quickly() -> None:
    text, seconds = timed(lambda: html_to_text("<p>PLAY EXPAND</p>" + "<ul><li>x" * 20_000))
    assert seconds < 5, seconds
    assert text.strip().startswith("PLAY EXPAND")
    assert len(text) < 2_000_000


def test_thirty_thousand_attribution_lines_are_read_quickly(table) -> None:
    address = table.address("ann")
    body = "PLAY EXPLORE\n\n" + "On Mon, X <a@b> wrote:\n> q\n" * 30_000
    raw = message(to=address, body=body)
    assert len(raw) < 1024 * 1024
    row, seconds = timed(lambda: process_message(raw, address))
    assert seconds < 5, seconds
    assert row.outcome == "order_accepted"
    assert current(table.seats["ann"]).text == "PLAY EXPLORE"


def test_a_content_type_with_twenty_thousand_parameters_is_read_quickly(table) -> None:
    address = table.address("ann")
    raw = message(to=address, content_type="text/plain; charset=utf-8" + "; a=b" * 20_000)
    row, seconds = timed(lambda: process_message(raw, address))
    assert seconds < 5, seconds
    assert row.outcome == "order_accepted"


def test_a_processing_over_the_time_limit_is_given_up_at_once(table, monkeypatch) -> None:
    """Celery's soft time limit raises SoftTimeLimitExceeded inside the task: the
    message is not retried (it would take as long again) and the player is told."""
    from celery.exceptions import SoftTimeLimitExceeded

    import games.mail.processing

    address = table.address("ann")
    row = process_message(message(to=address), address, defer=True)
    real = games.mail.processing.parse_message
    calls = []

    def slow(raw, **kwargs):
        if not kwargs.get("headers_only"):
            calls.append(1)
            raise SoftTimeLimitExceeded()
        return real(raw, **kwargs)

    monkeypatch.setattr(games.mail.processing, "parse_message", slow)
    assert process_inbound_mail.apply(args=[row.pk]).get() == "failed"
    assert len(calls) == 1
    row.refresh_from_db()
    assert (row.status, row.outcome) == ("failed", "gave_up")
    [notice] = answers()
    assert "could not be processed because of an internal error" in notice.body
    assert SealedOrder.objects.count() == 0


@pytest.mark.parametrize("where", ["html", "auto_reply"])
def test_a_time_limit_swallowed_inside_the_parser_still_ends_the_processing(
    table, monkeypatch, settings, where: str
) -> None:
    """The soft limit is an exception raised wherever the work is. Raised inside the HTML
    conversion or the auto-reply check, the parser's own handlers caught it and went on:
    a false "could not be read" answer, or an auto-reply sealed as an order. The clock is
    checked once the decision is made: over the budget, it is all rolled back and the
    message given up, the player told of an internal error."""
    import time

    from celery.exceptions import SoftTimeLimitExceeded

    import games.mail.body
    import games.mail.parsing

    settings.MAIL_TASK_SOFT_TIME_LIMIT = 1.3
    address = table.address("ann")
    if where == "html":
        raw = message(to=address, body=b"<p>PLAY EXPLORE</p>", content_type=b"text/html")
        target, name = games.mail.body._VisibleText, "handle"
    else:
        raw = message(to=address, headers=(b"Auto-Submitted: auto-replied",))
        target, name = games.mail.parsing, "auto_reply_reason"

    def limit_fires(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        time.sleep(0.5)  # the budget minus its 1 s of slack is used up here
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(target, name, limit_fires)
    row = process_message(raw, address, defer=True)
    assert process_inbound_mail.apply(args=[row.pk]).get() == "failed"
    row.refresh_from_db()
    assert (row.status, row.outcome) == ("failed", "gave_up")
    [notice] = answers()
    assert "could not be processed because of an internal error" in notice.body
    assert "could not be read" not in notice.body
    assert SealedOrder.objects.count() == 0


# -------------------------------------------------------------- 5. command punctuation


@pytest.mark.parametrize("line", ["HELP.", "Help?", "help!", "Status ?", "SHOW..."])
def test_commands_with_ending_punctuation_are_commands(table, line: str) -> None:
    address = table.address("ann")
    row = process_message(message(to=address, body=f"{line}\r\n"), address)
    assert (row.status, row.outcome) == ("processed", "commands")
    word = line.strip(" .?!").upper()
    assert f"{word}:" in answers()[0].body
    assert current(table.seats["ann"]) is None


# ------------------------------------------------------------------- 6. auto-replies


def test_auto_submitted_no_with_a_comment_is_a_person(table) -> None:
    address = table.address("ann")
    raw = message(to=address, headers=("Auto-Submitted: no (written by a human)",))
    row = process_message(raw, address)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current(table.seats["ann"]).text == "PLAY EXPLORE"


@pytest.mark.parametrize(
    ("header", "subject"),
    [
        ("X-Loop: ann@example.com", "Re: League 7"),
        ("X-MS-Exchange-Inbox-Rules-Loop: ann@example.com", "Re: League 7"),
        ("X-MS-Exchange-Generated-Message-Source: Mailbox Rules Agent", "Re: League 7"),
        ("X-Mailer: Mutt", "Out of Office: Re: League 7"),
        ("X-Mailer: Mutt", "Automatic reply: League 7"),
        ("X-Mailer: Mutt", "AutoReply: League 7"),
        ("X-Mailer: Mutt", "Auto-Reply: League 7"),
        ("X-Mailer: Mutt", "Abwesenheitsnotiz: League 7"),
        # Outlook's own subjects in other languages, with no header to go by
        ("X-Mailer: Outlook", "Réponse automatique : Re: League 7"),
        ("X-Mailer: Outlook", "Respuesta automática: Re: League 7"),
        ("X-Mailer: Outlook", "Risposta automatica: Re: League 7"),
        ("X-Mailer: Outlook", "Automatisch antwoord: Re: League 7"),
        ("X-Mailer: Outlook", "Autosvar: Re: League 7"),
        ("X-Mailer: Outlook", "Auto Response: Re: League 7"),
        ("X-Mailer: Outlook", "自動応答: Re: League 7"),
    ],
)
def test_more_auto_replies_are_ignored_without_an_answer(table, header, subject) -> None:
    address = table.address("ann")
    raw = message(to=address, headers=(header,), subject=subject, body="I am away until Monday.")
    row = process_message(raw, address)
    assert (row.status, row.outcome) == ("ignored", "auto_reply")
    assert answers() == []


# ----------------------------------------------------------------- 7. duplicates


def test_a_trailing_dot_on_the_recipient_domain_is_the_same_delivery(table) -> None:
    address = table.address("ann")
    raw = message(to=address, msgid="<dup-dot@example.com>", body="SHOW\r\n")
    first = process_message(raw, address)
    again = process_message(raw, address + ".")
    assert again.pk == first.pk
    assert InboundMail.objects.count() == 1
    assert len(answers()) == 1


# --------------------------------------------------------- 8. sender text in our mail


PHISH = b'"Your account is locked, visit http://evil.example/login now"@evil.example'


def test_a_sentence_as_local_part_is_not_echoed_in_the_foreign_note(table) -> None:
    address = table.address("ann")
    row = process_message(message(to=address, sender=PHISH), address)
    assert row.outcome == "order_accepted"
    [confirmation] = answers()
    assert "http://evil.example/login" not in confirmation.body
    assert "account is locked" not in confirmation.body
    assert "this message came from an address at evil.example, which is not" in confirmation.body


def test_a_sentence_as_local_part_is_not_echoed_in_the_strict_refusal(strict_table) -> None:
    address = strict_table.address("ann")
    row = process_message(message(to=address, sender=PHISH), address)
    assert row.outcome == "sender_mismatch"
    [warning] = answers()
    assert "http://evil.example/login" not in warning.body
    assert "came from an address at evil.example, which is not" in warning.body


# ------------------------------------------------------- 9. unknown recipients are not kept


def test_ingest_email_stores_nothing_for_an_unknown_recipient(table, monkeypatch) -> None:
    forged = "orders+ffffffffffffffffffffffff@orders.example"
    assert run_ingest(monkeypatch, message(to=forged), forged) == 67
    assert run_ingest(monkeypatch, message(to="x@orders.example"), "x@orders.example") == 67
    assert InboundMail.objects.count() == 0


def test_ingest_email_reads_the_whole_message_before_refusing_it(table, monkeypatch) -> None:
    # An MTA still writing into a pipe that closed may report its own write error instead
    # of the exit status: the message is read to its end (and dropped) first.
    import io
    import sys

    from django.core.management import call_command

    forged = "orders+ffffffffffffffffffffffff@orders.example"
    raw = message(to=forged, body=b"x" * 300_000 + b"\r\n")
    stream = io.BytesIO(raw)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(stream))
    with pytest.raises(SystemExit) as exited:
        call_command("ingest_email", forged, stdout=io.StringIO(), stderr=io.StringIO())
    assert exited.value.code == 67
    assert stream.tell() == len(raw)
    assert InboundMail.objects.count() == 0


# ------------------------------------------------------- 10. a correction is ambiguous


@pytest.mark.parametrize(
    "body",
    [
        "PLAY EXPAND\n\nSorry, I meant PLAY EXPLORE",
        "PLAY EXPAND\n\nOops - play explore, please!\nAnn",
    ],
)
def test_a_correction_after_a_blank_line_is_refused_as_ambiguous(table, body: str) -> None:
    address = table.address("ann")
    process_message(message(to=address, body="PLAY EXPLOIT"), address)
    before = current(table.seats["ann"])
    row = process_message(message(to=address, body=body), address)
    assert (row.status, row.outcome) == ("rejected", "order_ambiguous")
    assert current(table.seats["ann"]).pk == before.pk  # nothing changed
    refusal = answers()[-1].body
    assert "ambiguous" in refusal
    assert "PLAY EXPAND" in refusal and "names the order PLAY EXPLORE" in refusal
    assert "stays as it was: PLAY EXPLOIT" in refusal


def test_a_sign_off_repeating_the_same_order_is_no_correction(table) -> None:
    address = table.address("ann")
    row = process_message(message(to=address, body="PLAY EXPAND\n\nso: play expand, thanks"), address)
    assert row.outcome == "order_accepted"
    assert current(table.seats["ann"]).text == "PLAY EXPAND"


def test_a_one_word_order_in_lower_case_prose_is_no_correction(table, monkeypatch) -> None:
    # 4X Dice's eXterminate prompt offers PASS: "I'll pass this round's beer to you" in a
    # sign-off is prose, not a second order (it refused the player's real hit); "PASS" as
    # an order is written as one.
    import games.selectors
    from games.mail.heuristics import _other_order_named

    monkeypatch.setattr(
        games.selectors, "legal_orders", lambda seat: ["HIT bob 1 SHIP", "HIT bob 2 SHIP", "PASS"]
    )
    seat = table.seats["ann"]
    prose = "\n\nThanks, I'll pass this round's beer to you.\nAnn"
    assert _other_order_named(seat, "HIT bob 1 SHIP", prose) is None
    assert _other_order_named(seat, "HIT bob 1 SHIP", "\n\nSorry: PASS.") == ("PASS", "Sorry: PASS.")
    # Orders of several words are corrections in any case.
    assert _other_order_named(seat, "HIT bob 1 SHIP", "\n\nno, hit bob 2 ship")[0] == "HIT bob 2 SHIP"


# ------------------------------------------------------------- 11. charsets, placeholders


def test_a_utf8_body_with_a_few_latin1_bytes_is_read(table) -> None:
    address = table.address("ann")
    body = b"PLAY EXPLORE\r\n\r\nMerci \xe9\xe8 \xff\xfe\r\n"  # labelled UTF-8 (message())
    row = process_message(message(to=address, body=body), address)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current(table.seats["ann"]).text == "PLAY EXPLORE"


def test_an_html_only_placeholder_falls_back_to_the_html_part(table) -> None:
    address = table.address("ann")
    body = (
        "--ALT\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
        "This message is in HTML format. Please use an HTML mail reader.\r\n"
        "--ALT\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
        "<html><body><p>PLAY EXPLORE</p></body></html>\r\n--ALT--\r\n"
    )
    raw = message(to=address, body=body, content_type='multipart/alternative; boundary="ALT"')
    row = process_message(raw, address)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current(table.seats["ann"]).text == "PLAY EXPLORE"


def test_a_subject_of_seventy_thousand_encoded_words_is_read_quickly(table) -> None:
    address = table.address("ann")
    raw = message(to=address, subject="=?utf-8?q?a?= " * 70_000)
    assert len(raw) < 1024 * 1024
    row, seconds = timed(lambda: process_message(raw, address))
    assert seconds < 5, seconds
    assert row.outcome == "order_accepted"
    assert answers()[0].subject.startswith("Re: [League 7] aaaa")


def test_the_inbound_task_has_a_time_limit_that_leaves_time_to_answer() -> None:
    assert 0 < process_inbound_mail.soft_time_limit <= 300
    assert process_inbound_mail.time_limit > process_inbound_mail.soft_time_limit


# --------------------------------------------------- 12. PGP clear-signed mail (RFC 4880)


def clear_signed(text: str) -> str:
    """``text`` clear-signed as GnuPG writes it: armour header, dash-escaped lines, the
    signature block (its base64 is junk: it is not checked, only taken away)."""
    escaped = "\n".join("- " + line if line.startswith("-") else line for line in text.split("\n"))
    return (
        "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\n"
        f"{escaped}\n"
        "-----BEGIN PGP SIGNATURE-----\n\n"
        "iQEzBAEBCAAdFiEEq2m8xJ4tV0cQ3ZpRwW1HkLq5e0QFAmc/AAAACgkQwW1HkLq5\ne0Q=\n=abcd\n"
        "-----END PGP SIGNATURE-----\n"
    )


def test_a_pgp_clear_signed_order_is_read(table) -> None:
    address = table.address("ann")
    row = process_message(message(to=address, body=clear_signed("PLAY EXPLORE")), address)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current(table.seats["ann"]).text == "PLAY EXPLORE"
    [confirmation] = answers()
    assert "sign-off" not in confirmation.body
    assert "PGP" not in confirmation.body and "SHA256" not in confirmation.body


def test_dash_escaped_lines_of_a_clear_signed_message_are_unescaped(table) -> None:
    """"-- " (the signature separator) is "- -- " in the signed text: read as "-- ", the
    signature below it is no sign-off to quote back."""
    address = table.address("ann")
    body = clear_signed("PLAY EXPAND\n-- \nAnn Example\n---\nmobile 555 0100")
    row = process_message(message(to=address, body=body), address)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current(table.seats["ann"]).text == "PLAY EXPAND"
    [confirmation] = answers()
    assert "sign-off" not in confirmation.body
    assert "Ann Example" not in confirmation.body


def test_a_second_order_in_a_clear_signed_message_is_still_ambiguous(table) -> None:
    address = table.address("ann")
    row = process_message(message(to=address, body=clear_signed("PLAY EXPAND\nPLAY EXPLORE")), address)
    assert row.status == "rejected"
    assert current(table.seats["ann"]) is None


# ------------------------------------------- 13. more reply and forward header blocks

OUR_COPY = (
    "League 7 — The game has started. Seating: bob, ann, cy\n\n"
    "Your seat: ann\nRound 1 of 6, phase play.\n"
    "Your hand: EXPLOIT, EXTERMINATE, EXPAND, EXPLORE, EXCAVATE\n\n"
    "YOUR ORDER IS NEEDED for prompt 1 (round 1, play).\n"
    "Legal orders now:\n  PLAY EXPLOIT\n  PLAY EXTERMINATE\n  PLAY EXPAND\n  PLAY EXPLORE\n"
    "  PLAY EXCAVATE\n"
)
QUOTED_COPY = "".join(f"> {line}\n" for line in OUR_COPY.split("\n"))

HEADER_BLOCKS = {
    "danish_outlook": (
        "Fra: FiveX <fivex@localhost>\nSendt: 21. november 2026 10:00\nTil: Ann\n"
        "Emne: [League 7] The game has started\n\n" + OUR_COPY
    ),
    "norwegian_outlook_no_rule": (
        "Fra: FiveX <fivex@localhost>\nDato: lørdag 21. november 2026 kl. 10:00\n"
        "Til: Ann\nEmne: [League 7] The game has started\n\n" + OUR_COPY
    ),
    "swedish_outlook": (
        "Från: FiveX <fivex@localhost>\nSkickat: den 21 november 2026 10:00\nTill: Ann\n"
        "Ämne: [League 7] The game has started\n\n" + OUR_COPY
    ),
    "apple_forward": (
        "Begin forwarded message:\n\nFrom: FiveX <fivex@localhost>\n"
        "Subject: [League 7] The game has started\nDate: 21 November 2026 at 10:00:00 GMT\n"
        "To: Ann\n\n" + OUR_COPY
    ),
    "chinese_gmail_fullwidth_colon": (
        "FiveX <fivex@localhost> 于2026年11月21日周六 10:00写道：\n" + QUOTED_COPY
    ),
    "chinese_foxmail": "在 2026年11月26日 10:00，FiveX 写道：\n" + QUOTED_COPY,
    "russian_gmail_no_verb": "сб, 21 нояб. 2026 г. в 10:00, FiveX <fivex@localhost>:\n" + QUOTED_COPY,
    "russian_pishet": "21.11.2026 10:00, FiveX <fivex@localhost> пишет:\n" + QUOTED_COPY,
}


@pytest.mark.parametrize("block", HEADER_BLOCKS.values(), ids=HEADER_BLOCKS.keys())
def test_an_order_above_more_header_blocks_is_read_without_a_sign_off_note(
    table, block: str
) -> None:
    address = table.address("ann")
    row = process_message(message(to=address, body=f"PLAY EXPAND\n\n{block}"), address)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current(table.seats["ann"]).text == "PLAY EXPAND"
    [confirmation] = answers()
    assert "sign-off" not in confirmation.body
    assert "fivex@localhost" not in confirmation.body
    assert block.split("\n")[0].strip() not in confirmation.body


def test_a_line_ending_in_an_address_and_colon_is_no_attribution_without_a_quote(table) -> None:
    """Only a '>' quote below makes "…<address>:" an attribution: text under it is read."""
    address = table.address("ann")
    body = "Sent to FiveX <fivex@localhost>:\nPLAY EXPAND\n"
    row = process_message(message(to=address, body=body), address)
    assert row.outcome != "order_accepted"
    assert current(table.seats["ann"]) is None


# --------------------------------------------------------------- 14. hidden HTML


@pytest.mark.parametrize(
    "html",
    [
        '<p>PLAY EXPLORE</p><span style="display:none">PLAY EXPAND</span><!-- PLAY EXPLOIT -->',
        "<p>PLAY EXPLORE</p><div hidden>PLAY EXPAND</div>",
        '<div style="color: red; DISPLAY : None !important">PLAY EXPAND</div><p>PLAY EXPLORE</p>',
        '<div style="display:none"><div>PLAY EXPAND</div>PLAY EXPLOIT</div><p>PLAY EXPLORE</p>',
        "<html><head>PLAY EXPAND<meta charset=utf-8><title>PLAY EXPLOIT</title></head>"
        "<body><p>PLAY EXPLORE</p></body></html>",
        '<p>PLAY EXPLORE</p><p hidden="hidden">PLAY EXPAND<img src="x.png" hidden></p>',
    ],
)
def test_hidden_html_is_not_read(table, html: str) -> None:
    address = table.address("ann")
    raw = message(to=address, content_type="text/html; charset=utf-8", body=html)
    row = process_message(raw, address)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current(table.seats["ann"]).text == "PLAY EXPLORE"
    assert "sign-off" not in answers()[0].body


def test_an_order_only_in_hidden_html_is_not_taken(table) -> None:
    address = table.address("ann")
    html = '<div style="display:none">PLAY EXPAND</div><p>Hello</p>'
    row = process_message(message(to=address, content_type="text/html; charset=utf-8", body=html), address)
    assert row.status == "rejected"
    assert current(table.seats["ann"]) is None


def test_twenty_thousand_nested_hidden_divs_are_read_quickly(table) -> None:
    address = table.address("ann")
    html = "<p>PLAY EXPLORE</p>" + '<div style="display:none">x' * 20_000
    raw = message(to=address, content_type="text/html; charset=utf-8", body=html)
    assert len(raw) < 1024 * 1024
    row, seconds = timed(lambda: process_message(raw, address))
    assert seconds < 5, seconds
    assert row.outcome == "order_accepted"
    assert "sign-off" not in answers()[0].body


# ------------------------------------------------------- 15. an order in the Subject only


@pytest.mark.parametrize(
    "subject", ["PLAY EXPLORE", "Re: [League 7] play explore", "Fwd: RE: [League 7] Play Explore."]
)
def test_an_order_in_the_subject_with_an_empty_body_gets_a_hint(table, subject: str) -> None:
    address = table.address("ann")
    row = process_message(message(to=address, subject=subject, body=""), address)
    assert row.status == "rejected"
    assert SealedOrder.objects.count() == 0  # nothing is guessed
    [answer] = answers()
    assert "write the order in the body, not the subject" in answer.body
    assert "Legal orders now:" in answer.body


@pytest.mark.parametrize(
    ("subject", "body"),
    [
        ("Re: [League 7] The game has started", ""),
        ("Re: [League 7] PLAY NAPOLEON", ""),
        ("PLAY EXPLORE", "> PLAY EXPAND\n"),  # a quote only: empty, but the subject hint...
    ],
)
def test_no_subject_hint_without_an_order_in_the_subject(table, subject: str, body: str) -> None:
    address = table.address("ann")
    row = process_message(message(to=address, subject=subject, body=body), address)
    assert row.status == "rejected"
    assert SealedOrder.objects.count() == 0
    [answer] = answers()
    if body:  # ...applies to a body with nothing new in it as well
        assert "write the order in the body, not the subject" in answer.body
    else:
        assert "did not contain an order" in answer.body
        assert "not the subject" not in answer.body


# -------------------------------------------------- 16. commands in a game that is over


def test_status_in_a_finished_game_gives_the_final_ranking_and_the_log(table) -> None:
    from games.models import Game
    from tests.tournaments.test_tournament_services import play_to_the_end

    game = table.game
    play_to_the_end(game)
    game.refresh_from_db()
    assert game.status == "finished" and game.ranking
    address = table.address("ann")
    row = process_message(message(to=address, body="STATUS\n"), address)
    assert (row.status, row.outcome) == ("processed", "commands")
    [answer] = answers()
    assert "This game is over" in answer.body
    assert "Final ranking:" in answer.body
    ranking = answer.body.split("Final ranking:", 1)[1]
    positions = [ranking.index(name) for group in game.ranking for name in group]
    assert positions == sorted(positions)  # best first, as the game recorded it
    assert f"/games/{game.pk}/log/" in answer.body
    assert "STATUS: your view of the game" in answer.body
    assert Game.objects.get(pk=game.pk).status == "finished"


@pytest.mark.parametrize("command", ["HELP", "SHOW"])
def test_help_and_show_in_a_finished_game_point_to_the_log(table, command: str) -> None:
    from tests.tournaments.test_tournament_services import play_to_the_end

    play_to_the_end(table.game)
    address = table.address("ann")
    row = process_message(message(to=address, body=f"{command}\n"), address)
    assert (row.status, row.outcome) == ("processed", "commands")
    [answer] = answers()
    assert f"{command}:" in answer.body
    assert f"/games/{table.game.pk}/log/" in answer.body
    assert "Legal orders now" not in answer.body


def test_commands_in_an_abandoned_game_reveal_no_sealed_order(table) -> None:
    from games.services.organizer import game_end

    bob = table.seats["bob"]
    process_message(message(to=table.address("bob"), sender="bob@example.com", body="PLAY EXCAVATE"), table.address("bob"))
    sealed = current(bob)
    assert sealed.text == "PLAY EXCAVATE"
    process_message(message(to=table.address("ann"), body="PLAY EXPAND"), table.address("ann"))
    game_end(game=table.game, by=table.game.organizer, reason="")
    address = table.address("ann")
    row = process_message(message(to=address, body="STATUS\nSHOW\nHELP\n"), address)
    assert (row.status, row.outcome) == ("processed", "commands")
    answer = answers()[-1].body
    assert "This game was ended early" in answer
    assert f"/games/{table.game.pk}/" in answer
    for secret in ("PLAY EXCAVATE", "PLAY EXPAND", sealed.commitment, current(table.seats["ann"]).commitment):
        assert secret not in answer


def test_an_order_in_a_finished_game_is_still_refused(table) -> None:
    from tests.tournaments.test_tournament_services import play_to_the_end

    play_to_the_end(table.game)
    before = SealedOrder.objects.count()
    address = table.address("ann")
    row = process_message(message(to=address, body="PLAY EXPLORE\nSTATUS\n"), address)
    assert (row.status, row.outcome) == ("rejected", "game_finished")
    assert SealedOrder.objects.count() == before
    answer = answers()[-1].body
    assert "orders are no longer accepted" in answer
    assert "Final ranking:" in answer


# ------------------------------------------------------------- 17. more bounce senders


@pytest.mark.parametrize(
    "sender",
    [
        "MAILER_DAEMON@mx.example.com",
        "Mail_Daemon <MAIL_DAEMON@mx.example.com>",
        "MAILER-DAEMON <bounces@mx.example.com>",
        '"Mailer_Daemon (mx.example.com)" <double-bounce@mx.example.com>',
        "Mailer Daemon <noreply@mx.example.com>",
    ],
)
def test_more_bounce_senders_are_ignored(table, sender: str) -> None:
    address = table.address("ann")
    body = "This is the mail system at host mx.example.com.\n\nPLAY EXPAND\n"
    row = process_message(message(to=address, sender=sender, subject="Undelivered Mail", body=body), address)
    assert (row.status, row.outcome) == ("ignored", "auto_reply")
    assert answers() == []
    assert current(table.seats["ann"]) is None


def test_a_player_named_like_a_daemon_word_is_still_answered(table) -> None:
    address = table.address("ann")
    row = process_message(message(to=address, sender="Daemon Mailer-Fan <ann@example.com>"), address)
    assert row.outcome == "order_accepted"


def test_an_order_alone_after_the_end_gets_the_final_ranking(table) -> None:
    """An email-only player: an order sent after the end got one line, no ranking, no
    pointer."""
    from tests.tournaments.test_tournament_services import play_to_the_end

    play_to_the_end(table.game)
    address = table.address("ann")
    row = process_message(message(to=address, body="PLAY EXPLORE\n"), address)
    assert (row.status, row.outcome) == ("rejected", "game_finished")
    answer = answers()[-1].body
    assert "This game is over: orders are no longer accepted." in answer
    assert "Final ranking:" in answer and "(or send STATUS)." in answer
