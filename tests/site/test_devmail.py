"""The development email backend prints each message readably, and the embedded broker's
start-up no longer warns about its missing host name."""

from __future__ import annotations

import io
import logging

import pytest
from django.core.mail import EmailMultiAlternatives

from fivex_site.broker import NoHostnameNoise
from fivex_site.devmail import EmailBackend

LINK = (
    "http://127.0.0.1:8000/accounts/confirm-email/"
    "Mg:1xWXGS:0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnop/"
)


def _printed(*messages: EmailMultiAlternatives) -> str:
    stream = io.StringIO()
    assert EmailBackend(stream=stream).send_messages(list(messages)) == len(messages)
    return stream.getvalue()


def test_a_message_is_printed_decoded_with_its_link_whole() -> None:
    msg = EmailMultiAlternatives(
        subject="[FiveX] Confirm your address — Größe",
        body=f"Hello Zoë —\n\nTo confirm, open {LINK}\n",
        from_email="FiveX <fivex@localhost>",
        to=["Zoë <zoe@example.com>"],
        reply_to=["orders+abc@orders.example.org"],
        headers={"Message-ID": "<p3.g7@orders.example.org>", "In-Reply-To": "<x@example.com>"},
    )
    msg.attach_alternative("<p>Hello</p>", "text/html")
    msg.attach("record.json", b"{}", "application/json")
    out = _printed(msg)
    # The raw MIME would hold "=E2=80=94" and a link cut by a soft line break ("=\n").
    assert "=E2" not in out and "=\n" not in out
    assert f"To confirm, open {LINK}" in out.splitlines()
    assert "Subject: [FiveX] Confirm your address — Größe" in out.splitlines()
    assert "To: Zoë <zoe@example.com>" in out.splitlines()
    assert "Reply-To: orders+abc@orders.example.org" in out.splitlines()
    assert "Attachments: record.json" in out.splitlines()
    # What a reply by hand must quote to answer this very message.
    assert "Message-ID: <p3.g7@orders.example.org>" in out.splitlines()
    assert "In-Reply-To: <x@example.com>" in out.splitlines()
    assert "<p>Hello</p>" not in out


def test_each_message_is_one_write(monkeypatch: pytest.MonkeyPatch) -> None:
    # The Celery worker logs each write to stdout as one record: one email, one record.
    writes: list[str] = []

    class Stream(io.StringIO):
        def write(self, s: str) -> int:
            writes.append(s)
            return len(s)

    messages = [
        EmailMultiAlternatives(subject=f"Turn {i}", body="line 1\nline 2\n", to=["a@example.com"])
        for i in range(2)
    ]
    assert EmailBackend(stream=Stream()).send_messages(messages) == 2
    assert len(writes) == 2
    assert "Subject: Turn 0" in writes[0] and "line 2" in writes[0]


def _record(message: str) -> logging.LogRecord:
    return logging.LogRecord("kombu.connection", logging.WARNING, __file__, 1, message, None, None)


def test_no_hostname_warning_dropped_only_for_the_embedded_broker(settings) -> None:
    # The filter follows the broker the settings chose (tests/site/test_settings.py checks
    # it with CELERY_BROKER_URL unset, empty and set in a fresh interpreter).
    noise = _record("No hostname was supplied. Reverting to default 'localhost'")
    other = _record("Connection refused")
    settings.CELERY_BROKER_URL = "filesystem://"
    assert NoHostnameNoise().filter(noise) is False
    assert NoHostnameNoise().filter(other) is True
    settings.CELERY_BROKER_URL = "redis://"
    assert NoHostnameNoise().filter(noise) is True


def test_the_filter_is_installed_on_kombus_logger() -> None:
    logger = logging.getLogger("kombu.connection")
    assert any(isinstance(f, NoHostnameNoise) for f in logger.filters)
