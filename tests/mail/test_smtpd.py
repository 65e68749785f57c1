"""A real SMTP session with the order server (aiosmtpd, in-process and as the
``runsmtpd`` command): RCPT checks, storage before 250, processing, the reply in a sink."""

from __future__ import annotations

import os
import smtplib
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import OperationalError

from games.mail.models import InboundMail
from games.mail.tasks import process_inbound_mail
from games.models import OutboxMessage, SealedOrder
from games.services.outbox_sending import outbox_send
from tests.conftest import _free_port, database_url_for_worker
from tests.mail.conftest import eml

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]


def test_unknown_recipients_are_refused_at_rcpt(table, smtpd) -> None:
    token = table.seats["ann"].mail_token
    with smtplib.SMTP(*smtpd) as smtp:
        smtp.ehlo()
        assert smtp.mail("ann@example.com")[0] == 250
        code, text = smtp.rcpt("orders+ffffffffffffffffffffffff@orders.example")
        assert code == 550 and b"unknown or expired" in text
        code, text = smtp.rcpt(f"orders+{token}@elsewhere.example")
        assert code == 550 and b"not an orders address" in text
        assert smtp.rcpt("postmaster@orders.example")[0] == 550
        assert smtp.rcpt(f"orders+{token}@orders.example")[0] == 250
    assert InboundMail.objects.count() == 0


def test_all_recipients_refused_means_nothing_is_stored(table, smtpd) -> None:
    raw = eml("plain.eml", to="x@orders.example")
    with smtplib.SMTP(*smtpd) as smtp, pytest.raises(smtplib.SMTPRecipientsRefused):
        smtp.sendmail("ann@example.com", ["orders+nope@orders.example"], raw)
    assert InboundMail.objects.count() == 0


def test_valid_order_is_stored_processed_and_confirmed(table, smtpd, smtp_sink) -> None:
    address = table.address("ann")
    raw = eml("plain.eml", to=address, msgid="<smtp-1@example.com>")
    with smtplib.SMTP(*smtpd) as smtp:
        refused = smtp.sendmail("ann@example.com", [address], raw)
    assert refused == {}
    # stored before the server said 250; processing is queued
    row = InboundMail.objects.get()
    assert (row.source, row.status, row.seat_id) == ("smtp", "received", table.seats["ann"].pk)
    assert row.envelope_sender == "ann@example.com"
    assert bytes(row.raw).replace(b"\r\n", b"\n").rstrip() == raw.replace(b"\r\n", b"\n").rstrip()

    # run the queued task here (the worker's job; the end-to-end test uses a real worker)
    assert process_inbound_mail.apply(args=[row.pk]).get() == "processed"
    order = SealedOrder.objects.get(seat=table.seats["ann"], is_current=True)
    assert (order.text, order.source) == ("PLAY EXPLOIT", "email")
    reply = OutboxMessage.objects.get(kind="mail_reply")
    assert outbox_send(message_id=reply.pk)[0] == "sent"

    [received] = [m for m in smtp_sink.wait_for(1) if "ann@example.com" in m.rcpt_tos]
    message = received.message
    assert message["Reply-To"] == address
    assert message["In-Reply-To"] == "<smtp-1@example.com>"
    assert message["Auto-Submitted"] == "auto-replied"
    body = message.get_body(("plain",)).get_content()
    assert f"Receipt (SHA-256 commitment): {order.commitment}" in body
    assert "    PLAY EXPLOIT" in body


def test_null_sender_bounce_is_stored_and_ignored(table, smtpd) -> None:
    address = table.address("ann")
    with smtplib.SMTP(*smtpd) as smtp:
        smtp.sendmail("<>", [address], eml("bounce.eml", to=address))
    row = InboundMail.objects.get()
    assert row.envelope_sender == "<>"
    assert process_inbound_mail.apply(args=[row.pk]).get() == "ignored"
    assert OutboxMessage.objects.filter(kind="mail_reply").count() == 0


def test_storage_failure_answers_451_so_the_sender_retries(table, smtpd, monkeypatch) -> None:
    import games.mail.processing

    def broken(*args, **kwargs):
        raise OperationalError("database is away")

    monkeypatch.setattr(games.mail.processing, "process_message", broken)
    address = table.address("ann")
    with smtplib.SMTP(*smtpd) as smtp, pytest.raises(smtplib.SMTPDataError) as err:
        smtp.sendmail("ann@example.com", [address], eml("plain.eml", to=address))
    assert err.value.smtp_code == 451


def test_runsmtpd_command_serves_smtp(table, orders_settings, private_celery_env) -> None:
    port = _free_port()
    env = {
        **os.environ,
        **private_celery_env,
        "DATABASE_URL": database_url_for_worker(),
        "DJANGO_SETTINGS_MODULE": "fivex_site.settings",
        "ORDERS_DOMAIN": "orders.example",
        "ORDERS_ADDRESS_PREFIX": "orders",
        "PYTHONUNBUFFERED": "1",
    }
    command = [sys.executable, "manage.py", "runsmtpd", "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        lines = [process.stdout.readline() for _ in range(1)]
        while b"listening on 127.0.0.1:" not in lines[-1] and len(lines) < 50 and lines[-1]:
            lines.append(process.stdout.readline())
        assert b"listening on 127.0.0.1:" in lines[-1], lines
        address = table.address("bob")
        for _ in range(50):
            try:
                smtp = smtplib.SMTP("127.0.0.1", port)
                break
            except OSError:
                time.sleep(0.1)
        with smtp:
            smtp.ehlo()
            smtp.mail("bob@example.com")
            assert smtp.rcpt("orders+0000@orders.example")[0] == 550
            smtp.rset()
            smtp.sendmail("bob@example.com", [address], eml("plain.eml", to=address))
        row = InboundMail.objects.get()
        assert (row.seat_id, row.source) == (table.seats["bob"].pk, "smtp")
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert process.returncode == 0


def test_smtp_session_logs_never_show_a_token(table, smtpd, caplog) -> None:
    import logging

    caplog.set_level(logging.DEBUG)
    address = table.address("cy")
    token = table.seats["cy"].mail_token
    with smtplib.SMTP(*smtpd) as smtp:
        smtp.sendmail("cy@example.com", [address], eml("plain.eml", to=address))
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "o***+" in text
    assert token not in text


def test_one_message_to_two_seat_addresses_is_stored_once_per_seat(table, smtpd) -> None:
    # the duplicate check is per (Message-ID, address): a Cc to another seat is its own delivery
    ann, bob = table.address("ann"), table.address("bob")
    raw = eml("plain.eml", to=f"{ann}, {bob}", msgid="<cc@example.com>")
    with smtplib.SMTP(*smtpd) as smtp:
        assert smtp.sendmail("ann@example.com", [ann, bob], raw) == {}
        smtp.sendmail("ann@example.com", [ann], raw)  # a resend: already stored
    rows = InboundMail.objects.order_by("id")
    assert [r.seat_id for r in rows] == [table.seats["ann"].pk, table.seats["bob"].pk]
    assert {r.message_id for r in rows} == {"<cc@example.com>"}


def test_a_message_with_a_very_long_line_is_accepted(table, smtpd) -> None:
    """An HTML line of a few kB (some mail clients send them) is not a permanent 500; a
    line over 1 MiB is taken too, and (over MAIL_MAX_BYTES here) kept as oversize."""
    address = table.address("ann")

    def message(n: int, line: str) -> bytes:
        return (
            f"From: ann@example.com\r\nTo: {address}\r\nSubject: order\r\n"
            f"Message-ID: <long-{n}@example.com>\r\nContent-Type: text/plain\r\n\r\n"
            f"PLAY EXPAND\r\n\r\n{line}\r\n"
        ).encode()

    html_line = "<p>" + "x" * 5600 + "</p>"
    huge_line = "<p>" + "y" * 1_100_000 + "</p>"
    with smtplib.SMTP(*smtpd) as smtp:
        assert smtp.sendmail("ann@example.com", [address], message(1, html_line)) == {}
        assert smtp.sendmail("ann@example.com", [address], message(2, huge_line)) == {}
    first, second = InboundMail.objects.order_by("pk")
    assert html_line.encode() in bytes(first.raw) and not first.truncated
    assert second.truncated and second.size > 1_100_000
