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


def test_a_form_too_big_or_with_too_many_fields_mails_nobody_and_is_a_warning(admins, caplog):
    """Regression (a bad-input audit): anyone could flood the admins' mailbox: with the
    csrftoken cookie of the login page, a 3 MB form (DATA_UPLOAD_MAX_MEMORY_SIZE) or one of
    1,001 fields sent to /accounts/login/ answered 400 and queued an "ERROR (EXTERNAL IP)"
    report each, with a traceback in the log. A client's error (django.security.*: a body
    too big, too many fields, a disallowed Host) is logged as a warning, not mailed."""
    import logging

    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    assert client.get("/accounts/login/").status_code == 200
    token = client.cookies["csrftoken"].value
    too_big = {"csrfmiddlewaretoken": token, "login": "x" * 3_000_000, "password": "pw"}
    too_many = {"csrfmiddlewaretoken": token, **{f"f{i}": "1" for i in range(1001)}}
    with caplog.at_level(logging.INFO):
        assert client.post("/accounts/login/", too_big).status_code == 400
        assert client.post("/accounts/login/", too_many).status_code == 400
        assert Client(raise_request_exception=False).get("/", HTTP_HOST="evil.example").status_code == 400
    assert not OutboxMessage.objects.filter(kind="admin_error").exists()
    security = [r for r in caplog.records if r.name.startswith("django.security.")]
    assert sorted(r.name for r in security) == [
        "django.security.DisallowedHost", "django.security.RequestDataTooBig",
        "django.security.TooManyFieldsSent"], security  # fmt: skip
    # The console (the console handler's filter) writes them as warnings, no traceback.
    from django.conf import settings

    from fivex_site.errors import ClientErrorsAsWarnings

    assert "client_errors_as_warnings" in settings.LOGGING["handlers"]["console"]["filters"]
    shown = [ClientErrorsAsWarnings().filter(r) for r in security]
    assert all(r.levelno == logging.WARNING and not r.exc_info for r in shown), shown


def _failing_page(monkeypatch):
    """A signed-in client whose order page raises the exception ``raise_it`` holds."""
    game, seats = start_fixed(["ann", "bob", "cat"])
    client = Client(raise_request_exception=False)
    client.force_login(seats["ann"].user)
    raised: list[Exception] = [RuntimeError("a bug")]

    def failing(*args, **kwargs):
        raise raised[0]

    monkeypatch.setattr("games.views.actions.order_services.order_submit", failing)

    def post(error: Exception | None = None) -> int:
        if error is not None:
            raised[0] = error
        return client.post(f"/games/{game.pk}/order/", {"text": "PLAY EXPLORE", "prompt": 1}).status_code

    return post


def test_the_same_bug_in_a_loop_is_mailed_once_a_window_then_with_a_count(admins, settings, monkeypatch):
    """Regression: every 500 queued a report, so a bug hit in a loop (a bot retrying)
    filled the outbox. The same error (logger, exception type, place) is mailed at most
    once per ADMIN_ERROR_REPEAT_MINUTES; the next report says how many were not mailed."""
    import time

    settings.ADMIN_ERROR_REPEAT_MINUTES = 1 / 60  # one second
    post = _failing_page(monkeypatch)
    for _ in range(5):
        assert post() == 500
    assert OutboxMessage.objects.filter(kind="admin_error").count() == 1
    assert post(ValueError("another bug")) == 500  # another error: its own report
    assert OutboxMessage.objects.filter(kind="admin_error").count() == 2
    time.sleep(1.2)
    assert post(RuntimeError("a bug")) == 500
    latest = OutboxMessage.objects.filter(kind="admin_error").order_by("-pk").first()
    assert "RuntimeError" in latest.body
    assert "4 more not mailed" in latest.subject, latest.subject


def test_error_reports_are_capped_per_hour_whatever_the_error(admins, settings, monkeypatch):
    """Regression: a loop through many different bugs still filled the outbox: at most
    ADMIN_ERRORS_PER_HOUR reports an hour are queued."""
    settings.ADMIN_ERRORS_PER_HOUR = 3
    post = _failing_page(monkeypatch)
    for error in (RuntimeError("a"), ValueError("b"), KeyError("c"), TypeError("d"), LookupError("e")):
        assert post(error) == 500
    assert OutboxMessage.objects.filter(kind="admin_error").count() == 3


def test_two_bugs_raising_in_the_same_library_line_are_two_reports(admins, monkeypatch):
    """Review: an error's place was its innermost frame, a library's line: every
    IntegrityError (psycopg's cursor) of any view was "the same error", so a second bug in
    another view was never mailed within the window. The project's own frames tell them
    apart (here two call sites of the standard library's JSON decoder)."""
    import json

    game, seats = start_fixed(["ann", "bob", "cat"])
    client = Client(raise_request_exception=False)
    client.force_login(seats["ann"].user)

    def first_bug(*args, **kwargs):
        json.loads("not json")

    def second_bug(*args, **kwargs):
        json.loads("not json either")

    for failing in (first_bug, second_bug, first_bug):
        monkeypatch.setattr("games.views.actions.order_services.order_submit", failing)
        assert client.post(f"/games/{game.pk}/order/", {"text": "PLAY EXPLORE", "prompt": 1}).status_code == 500
    reports = OutboxMessage.objects.filter(kind="admin_error")
    assert reports.count() == 2  # the first bug again is held back, the second is its own
    assert all("JSONDecodeError" in r.body for r in reports)


def test_the_console_filter_leaves_other_handlers_the_record_as_logged() -> None:
    """Review: the console's filter changed the record itself, so a handler after it (a
    file log an operator adds) got a client error as a WARNING without its traceback."""
    import logging
    import sys

    from fivex_site.errors import ClientErrorsAsWarnings

    seen: dict[str, list] = {"console": [], "file": []}

    class Keep(logging.Handler):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.key = name

        def emit(self, record: logging.LogRecord) -> None:
            seen[self.key].append((record.levelname, record.exc_info is not None))

    logger = logging.Logger("django.security.SuspiciousFileOperation")  # not registered
    console = Keep("console")
    console.addFilter(ClientErrorsAsWarnings())
    logger.addHandler(console)
    logger.addHandler(Keep("file"))
    try:
        raise ValueError("a path outside the media root")
    except ValueError:
        logger.error("refused", exc_info=sys.exc_info())
    assert seen["console"] == [("WARNING", False)]
    assert seen["file"] == [("ERROR", True)]
