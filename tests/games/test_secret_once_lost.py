"""A secret shown once (``games.views.once``) whose browser half is gone by the time the
page is shown (the five-minute cookie expired, or was cleared): the page said "A new API
token was created. Copy it now." with no token on it, though the old one was already
replaced. And a double click (two POSTs, one page) said it twice (a review of cfa7494)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.games.web_support import make_user

pytestmark = pytest.mark.django_db


def _messages(page: str) -> int:
    return page.count("Copy it now") + page.count("Copy its signing secret now")


@pytest.mark.parametrize(
    ("url", "data", "cookie", "lost"),
    [
        ("games:api_tokens", {"action": "create"}, "api_token",
         "The new API token can no longer be shown"),
        ("games:webhook", {"action": "save", "url": "http://127.0.0.1:9/hook"},
         "webhook_secret",
         "The new signing secret can no longer be shown"),
        ("games:calendar", {"action": "create"}, "calendar",
         "The new calendar address can no longer be shown"),
    ],
)  # fmt: skip
def test_a_lost_browser_half_says_the_secret_cannot_be_shown(
    client, settings, url, data, cookie, lost
) -> None:
    settings.WEBHOOKS_ALLOW_HTTP_LOCALHOST = True
    client.force_login(make_user("exp"))
    answer = client.post(reverse(url), data)
    assert answer.status_code == 303
    page_url = answer["Location"]
    del client.cookies[f"fivex_once_{cookie}"]  # five minutes passed, or cleared
    page = client.get(page_url).content.decode()
    assert _messages(page) == 0
    assert lost in page
    assert "create another" in page.lower() or "make another" in page.lower()
    # Said once: a reload says nothing more.
    again = client.get(page_url).content.decode()
    assert lost not in again


@pytest.mark.parametrize(
    ("url", "data", "said"),
    [
        ("games:api_tokens", {"action": "create"}, "A new API token was created. Copy it now."),
        ("games:webhook", {"action": "regenerate"}, "A new signing secret was made. Copy it now."),
        ("games:calendar", {"action": "create"}, "Your calendar address is ready. Copy it now."),
    ],
)
def test_a_double_click_says_copy_it_now_once(client, settings, url, data, said) -> None:
    settings.WEBHOOKS_ALLOW_HTTP_LOCALHOST = True
    client.force_login(make_user("dbl"))
    if data["action"] == "regenerate":
        client.post(reverse("games:webhook"), {"action": "save", "url": "http://127.0.0.1:9/hook"})
        client.get(reverse("games:api_tokens"))
    client.post(reverse(url), data)
    answer = client.post(reverse(url), data)  # the second click, before the page came
    page = client.get(answer["Location"]).content.decode()
    assert page.count(said) == 1
