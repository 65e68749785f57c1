"""Error reports to the admins (an operations audit): a bug while an order was handled
mailed the order's text, ``#`` notes included, to ADMINS in clear (POST fields and the
traceback's local variables), twice, sent from inside the failing request; every 503 of
an outage (``/healthz`` probed every few seconds) mailed them too. Now: queued in the
outbox, no POST value and no local variable in it, and no mail for a 503."""

from __future__ import annotations

import pytest
from django.core import mail
from django.db import OperationalError
from django.test import Client

from games.models import OutboxMessage
from tests.games.core_support import start_fixed

pytestmark = pytest.mark.django_db

SECRET = "PLAY EXPLORE # bluffing bob"


@pytest.fixture
def admins(settings):
    settings.ADMINS = ["ops@example.org"]
    settings.DEBUG = False


def _order_page_fails_with(monkeypatch, error: Exception):
    game, seats = start_fixed(["ann", "bob", "cat"])
    client = Client(raise_request_exception=False)
    client.force_login(seats["ann"].user)
    order_text = SECRET  # a local variable of this frame, as in the service that failed

    def failing(*args, **kwargs):
        secret_here = order_text  # noqa: F841 - what a report would show of this frame
        raise error

    monkeypatch.setattr("games.views.actions.order_services.order_submit", failing)
    return client.post(f"/games/{game.pk}/order/", {"text": SECRET, "prompt": 1})


def test_a_bug_is_reported_through_the_outbox_without_the_order(admins, monkeypatch):
    answer = _order_page_fails_with(monkeypatch, RuntimeError("a bug"))
    assert answer.status_code == 500
    assert mail.outbox == []  # nothing sent from the request
    [report] = OutboxMessage.objects.filter(kind="admin_error")
    assert report.to == "ops@example.org"
    assert "RuntimeError" in report.body and "a bug" in report.body
    assert "/order/" in report.subject + report.body
    assert "bluffing" not in report.body and "PLAY EXPLORE" not in report.body
    assert "********" in report.body  # the values are there, hidden
    # Sent by a worker, from SERVER_EMAIL as Django's own reports are.
    from games.services.outbox_sending import outbox_send

    settings_server = "errors@example.org"
    from django.test import override_settings

    with override_settings(SERVER_EMAIL=settings_server):
        assert outbox_send(message_id=report.pk)[0] == "sent"
    [sent] = mail.outbox
    assert sent.from_email == settings_server and sent.to == ["ops@example.org"]


def test_an_outage_503_mails_nobody(admins, monkeypatch):
    answer = _order_page_fails_with(
        monkeypatch, OperationalError("connection to server at 127.0.0.1, port 5432 failed")
    )
    assert answer.status_code == 503
    assert not OutboxMessage.objects.filter(kind="admin_error").exists()
    assert mail.outbox == []


def test_a_report_carries_no_setting_token_query_or_cookie(admins, settings, monkeypatch):
    """A code review: the report's Settings section carried the broker's URL with its
    password (Django hides only names like KEY or PASS), and the query string, the
    cookies and a path's token (an invitation's) were shown in clear."""
    from django.test import override_settings

    game, seats = start_fixed(["ann", "bob", "cat"])
    token = "Zq3kV9xYwP2mN8rT4bL6cH1dF5gJ7sA0"  # an invitation's token, in the path

    def bug(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr("games.views.actions.load_game", bug)
    client = Client(raise_request_exception=False)
    client.force_login(seats["ann"].user)
    client.cookies["secret_cookie"] = "cookie-value-XYZ"
    with override_settings(CELERY_BROKER_URL="redis://:brokerS3cret@redis.internal:6379/0"):
        answer = client.get(f"/games/{game.pk}/invite/{token}/?next=secret-query-ABC")
    assert answer.status_code == 500
    [report] = OutboxMessage.objects.filter(kind="admin_error")
    text = report.subject + "\n" + report.body
    for secret in ("brokerS3cret", token, "secret-query-ABC", "cookie-value-XYZ",
                   settings.SECRET_KEY, "sessionid="):  # fmt: skip
        assert secret not in text, secret
    assert f"/games/{game.pk}/invite/********/" in text  # where it failed, still said
    assert "RuntimeError" in text and "INSTALLED_APPS" in text
    # Queued without a task (a silent broker must not hold the failing request): the
    # outbox's minute sweep sends it.
    assert report.status == "queued"
