"""The other entry points: the MTA pipe command and the ESP inbound webhook (anymail)."""

from __future__ import annotations

import base64
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from games.mail.models import InboundMail
from games.mail.processing import process_stored
from games.models import OutboxMessage, SealedOrder
from tests.conftest import database_url_for_worker
from tests.mail.conftest import eml

ROOT = Path(__file__).resolve().parents[2]


def run_ingest(monkeypatch, raw: bytes, *args: str) -> int:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    try:
        call_command("ingest_email", *args, stdout=io.StringIO(), stderr=io.StringIO())
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


@pytest.mark.django_db
def test_ingest_email_takes_the_recipient_argument(table, monkeypatch) -> None:
    address = table.address("ann")
    assert run_ingest(monkeypatch, eml("plain.eml", to=address), address) == 0
    row = InboundMail.objects.get()
    assert (row.source, row.status, row.outcome) == ("pipe", "processed", "order_accepted")
    assert SealedOrder.objects.filter(seat=table.seats["ann"], is_current=True).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("variable", ["ORIGINAL_RECIPIENT", "RECIPIENT"])
def test_ingest_email_reads_the_mta_environment(table, monkeypatch, variable) -> None:
    monkeypatch.delenv("ORIGINAL_RECIPIENT", raising=False)
    monkeypatch.delenv("RECIPIENT", raising=False)
    address = table.address("bob")
    monkeypatch.setenv(variable, address)
    monkeypatch.setenv("SENDER", "bob@example.com")
    assert run_ingest(monkeypatch, eml("plain.eml", to=address, sender="bob@example.com")) == 0
    row = InboundMail.objects.get()
    assert (row.seat_id, row.envelope_sender) == (table.seats["bob"].pk, "bob@example.com")


@pytest.mark.django_db
def test_ingest_email_unknown_recipient_exits_67_so_the_mta_bounces(table, monkeypatch) -> None:
    forged = "orders+ffffffffffffffffffffffff@orders.example"
    assert run_ingest(monkeypatch, eml("plain.eml", to=forged), forged) == 67
    assert SealedOrder.objects.count() == 0


@pytest.mark.django_db
def test_ingest_email_without_recipient_is_a_usage_error(table, monkeypatch) -> None:
    monkeypatch.delenv("ORIGINAL_RECIPIENT", raising=False)
    monkeypatch.delenv("RECIPIENT", raising=False)
    assert run_ingest(monkeypatch, b"Subject: x\n\nPLAY EXPLOIT\n") == 64
    assert InboundMail.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_ingest_email_as_a_real_pipe(table, private_celery_env) -> None:
    address = table.address("cy")
    # A developer's embedded broker folder (what `make run` consumes) gets nothing.
    developer_queue = ROOT / "var" / "celery" / "queue"
    before = sorted(developer_queue.glob("*")) if developer_queue.exists() else []
    env = {
        **os.environ,
        **private_celery_env,
        "DATABASE_URL": database_url_for_worker(),
        "DJANGO_SETTINGS_MODULE": "fivex_site.settings",
        "ORDERS_DOMAIN": "orders.example",
        "ORIGINAL_RECIPIENT": address,
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "ingest_email"],
        cwd=ROOT,
        env=env,
        input=eml("base64.eml", to=address, sender="cy@example.com"),
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr.decode()
    order = SealedOrder.objects.get(seat=table.seats["cy"], is_current=True)
    assert order.parsed == {"play": "EXTERMINATE"}
    assert table.seats["cy"].mail_token.encode() not in result.stdout + result.stderr
    after = sorted(developer_queue.glob("*")) if developer_queue.exists() else []
    assert after == before


def _postmark(client, payload: dict, auth: str = "hook:secret"):
    return client.post(
        "/anymail/postmark/inbound/",
        data=json.dumps(payload),
        content_type="application/json",
        HTTP_AUTHORIZATION="Basic " + base64.b64encode(auth.encode()).decode(),
    )


@pytest.mark.django_db
def test_webhook_stores_and_queues_then_processing_accepts(
    table, client, settings, django_capture_on_commit_callbacks
) -> None:
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:secret"}
    address = table.address("ann")
    raw = eml("multipart_alternative.eml", to=address, msgid="<hook-1@example.com>")
    payload = {
        "OriginalRecipient": address,
        "Headers": [{"Name": "Return-Path", "Value": "<ann@example.com>"}],
        "RawEmail": raw.decode(),
        "MessageID": "7f0e5b3c-0000-0000-0000-000000000001",
    }
    with django_capture_on_commit_callbacks() as callbacks:
        response = _postmark(client, payload)
    assert response.status_code == 200
    row = InboundMail.objects.get()
    assert (row.source, row.status, row.message_id) == (
        "webhook",
        "received",
        "<hook-1@example.com>",
    )
    assert row.envelope_sender == "ann@example.com"
    assert len(callbacks) == 1  # processing is queued on commit

    process_stored(row.pk)
    order = SealedOrder.objects.get(seat=table.seats["ann"], is_current=True)
    assert order.parsed == {"play": "EXPAND"}
    assert OutboxMessage.objects.filter(kind="mail_reply", to="ann@example.com").count() == 1

    # the ESP retrying the same delivery does not create a second row
    assert _postmark(client, payload).status_code == 200
    assert InboundMail.objects.count() == 1


@pytest.mark.django_db
def test_webhook_refuses_a_wrong_secret(table, client, settings) -> None:
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:secret"}
    address = table.address("ann")
    payload = {"OriginalRecipient": address, "RawEmail": eml("plain.eml", to=address).decode()}
    response = _postmark(client, payload, auth="hook:guess")
    assert response.status_code in (400, 401, 403)
    assert InboundMail.objects.count() == 0


def test_production_without_a_webhook_secret_mounts_no_webhook(settings) -> None:
    """Without ANYMAIL_WEBHOOK_SECRET anyone could post mail in: in production the
    webhook is not there at all (404) until the secret is set."""
    from fivex_site.urls import webhook_urls

    settings.IS_PRODUCTION = True
    settings.ANYMAIL = {"WEBHOOK_SECRET": ""}
    assert webhook_urls() == []
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:secret"}
    assert [p.pattern.describe() for p in webhook_urls()] == ["'anymail/'"]
    settings.IS_PRODUCTION = False
    settings.ANYMAIL = {"WEBHOOK_SECRET": ""}
    assert len(webhook_urls()) == 1  # development: open, with anymail's warning


@pytest.mark.django_db
def test_an_unreadable_webhook_post_is_a_400_and_stores_nothing(client, settings) -> None:
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:secret"}
    auth = "Basic " + base64.b64encode(b"hook:secret").decode()
    for body in (b"", b"{not json", b"[]"):
        answer = client.post(
            "/anymail/postmark/inbound/", data=body, content_type="application/json",
            HTTP_AUTHORIZATION=auth,
        )
        assert answer.status_code == 400, (body, answer.status_code)
    assert InboundMail.objects.count() == 0
