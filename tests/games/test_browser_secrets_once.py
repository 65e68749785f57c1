"""A new API token and a new webhook secret in real headless Chromium: shown exactly once,
after the form's POST has been redirected (303) to the page, so that a reload shows the
page without it and makes nothing new (an audit: the page was the POST's answer and warned
"Reloading this page would make yet another token (and stop this one)"). The secret is in
no cacheable answer, and never in clear in the session table."""

from __future__ import annotations

import hashlib

import pytest
from django.contrib.sessions.models import Session

from games.models import ApiToken
from games.models_webhooks import PlayerWebhook
from tests.games.test_browser import log_in
from tests.games.web_support import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _record_documents(page) -> list:
    """Every top-level document response the page gets, with its body read at once."""
    seen: list = []

    def keep(response) -> None:
        if response.request.resource_type == "document":
            try:
                body = response.text()
            except Exception:  # noqa: BLE001 - a redirect has no body to read
                body = ""
            seen.append((response.request.method, response.status, response.headers, body))

    page.on("response", keep)
    return seen


def _sessions_hold(secret: str) -> bool:
    return any(secret in str(s.get_decoded()) for s in Session.objects.all())


def test_a_new_token_is_shown_once_and_a_reload_makes_no_other(browser_page, live_server):
    # Guards against a reload re-sending the POST that makes a token (stopping the one shown).
    user = make_user("tia")
    page = browser_page
    log_in(page, live_server.url, "tia")
    page.goto(f"{live_server.url}/account/api-tokens/")
    documents = _record_documents(page)
    page.get_by_role("button", name="Create a token").click()
    page.wait_for_load_state()
    assert page.url == f"{live_server.url}/account/api-tokens/"
    key = page.locator("#new-token").inner_text().strip()
    token = ApiToken.objects.get(user=user)
    assert token.digest == hashlib.sha256(key.encode()).hexdigest()
    # The POST was answered by a redirect; the page that shows the key is a GET, never cached.
    posts = [d for d in documents if d[0] == "POST"]
    assert [d[1] for d in posts] == [303]
    showing = [d for d in documents if key in d[3]]
    assert [(d[0], d[1]) for d in showing] == [("GET", 200)]
    assert "no-store" in showing[0][2]["cache-control"]
    assert not _sessions_hold(key)

    page.reload()
    page.wait_for_load_state()
    assert page.locator("#new-token").count() == 0
    assert key not in page.content()
    assert ApiToken.objects.get(user=user).digest == token.digest  # no other token made
    page.go_back()
    page.wait_for_load_state()
    assert key not in page.content()
    assert ApiToken.objects.count() == 1


def test_a_new_webhook_secret_is_shown_once_and_a_reload_changes_nothing(
    browser_page, live_server, settings
):
    settings.WEBHOOKS_ALLOW_HTTP_LOCALHOST = True  # the development exception
    user = make_user("uma")
    page = browser_page
    log_in(page, live_server.url, "uma")
    page.goto(f"{live_server.url}/account/api-tokens/")
    documents = _record_documents(page)
    page.fill('input[name="url"]', "http://127.0.0.1:9/hook")
    page.get_by_role("button", name="Set the webhook").click()
    page.wait_for_load_state()
    secret = page.locator("#new-webhook-secret").inner_text().strip()
    assert secret == PlayerWebhook.objects.get(user=user).secret
    assert [d[1] for d in documents if d[0] == "POST"] == [303]
    showing = [d for d in documents if secret in d[3]]
    assert [(d[0], d[1]) for d in showing] == [("GET", 200)]
    assert "no-store" in showing[0][2]["cache-control"]
    assert not _sessions_hold(secret)
    page.reload()
    page.wait_for_load_state()
    assert page.locator("#new-webhook-secret").count() == 0
    assert PlayerWebhook.objects.get(user=user).secret == secret
