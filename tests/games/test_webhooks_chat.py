"""A webhook pointing at a Discord or Slack channel gets the message those services take
(Discord: ``content``, no mention pinging anyone; Slack: ``text``, escaped), still signed,
still without a card or an order; any other URL gets the event as before. The chat hosts
resolve to a real local receiver in these tests only (``socket.getaddrinfo``)."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from games.models_webhooks import WebhookDelivery
from games.services import games as game_services
from games.services import webhook_http, webhooks
from tests.games.test_webhooks import DEAL, NAMES, Receiver, make_user
from tests.games.web_support import eager_celery  # noqa: F401

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]

CHAT_HOSTS = {"discord.com", "hooks.slack.com", "hooks.example.org"}


@pytest.fixture
def chat(settings, monkeypatch) -> Iterator[Receiver]:
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        return real("127.0.0.1" if host in CHAT_HOSTS else host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    settings.WEBHOOKS_ALLOW_HTTP_LOCALHOST = True
    monkeypatch.setattr(webhook_http, "LOCAL_HOSTS", webhook_http.LOCAL_HOSTS | CHAT_HOSTS)
    server = Receiver()
    yield server
    server.server.shutdown()
    server.server.server_close()


def at(receiver: Receiver, host: str, path: str) -> str:
    return f"http://{host}:{receiver.server.server_address[1]}{path}"


def signed(request: dict[str, Any], secret: str) -> dict[str, Any]:
    expected = "sha256=" + hmac.new(secret.encode(), request["body"], hashlib.sha256).hexdigest()
    assert hmac.compare_digest(request["headers"]["X-FiveX-Signature"], expected)
    return json.loads(request["body"])


def test_discord_and_slack_get_a_message_and_others_the_event(
    chat, django_capture_on_commit_callbacks
):
    users = {n: make_user(n) for n in NAMES}
    secrets = {
        "ann": webhooks.webhook_save(
            user=users["ann"], url=at(chat, "discord.com", "/api/webhooks/1/tok")
        ),
        "bob": webhooks.webhook_save(
            user=users["bob"], url=at(chat, "hooks.slack.com", "/services/T/B/X")
        ),
        "cat": webhooks.webhook_save(user=users["cat"], url=at(chat, "hooks.example.org", "/hook")),
    }
    game = game_services.game_create(
        organizer=users["ann"], ruleset="5x", seats_count=3, name="<Friday> & @everyone",
        setup={"deal": DEAL},
    )  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):  # the start: the draft asks all
        for name in NAMES:
            game_services.game_join(game=game, user=users[name])
    by_path = {r["path"]: r for r in chat.requests}

    discord = signed(by_path["/api/webhooks/1/tok"], secrets["ann"])
    assert set(discord) == {"content", "allowed_mentions"} and discord["allowed_mentions"] == {
        "parse": []
    }
    assert discord["content"].startswith(
        r"Your order is wanted in \<Friday\> & @everyone (5X): decision 1, seat ann, by "
    )
    assert discord["content"].endswith(f"/games/{game.pk}/") and " UTC. " in discord["content"]

    slack = signed(by_path["/services/T/B/X"], secrets["bob"])
    assert set(slack) == {"text"}
    assert slack["text"].startswith(
        "Your order is wanted in &lt;Friday&gt; &amp; @everyone (5X): decision 1, seat bob"
    )

    event = signed(by_path["/hook"], secrets["cat"])
    assert event["event"] == "order_needed" and event["seat"] == "cat" and "sent_at" in event

    # Nothing of the hands in the chat messages either.
    for request in chat.requests:
        for card in ("CLEOPATRA", "CAESAR", "QIN", "DIDO", "NAPOLEON", "ERIK", "Cleopatra", "Dido"):
            assert card.encode() not in request["body"]


def test_a_chat_channel_gets_the_test_ping_as_a_message(chat, django_capture_on_commit_callbacks):
    user = make_user("ann")
    secret = webhooks.webhook_save(user=user, url=at(chat, "discord.com", "/api/webhooks/9/t"))
    with django_capture_on_commit_callbacks(execute=True):
        webhooks.webhook_ping(user=user)
    [request] = chat.requests
    assert signed(request, secret)["content"].startswith("FiveX: a test call.")


@pytest.mark.parametrize(
    "url, service",
    [
        ("https://discord.com/api/webhooks/1/x", "discord"),
        ("https://discordapp.com/api/webhooks/1/x", "discord"),
        ("https://Discord.com./api/webhooks/1/x", "discord"),
        ("https://discord.com/channels/1/2", ""),  # not a webhook's address
        ("https://hooks.slack.com/services/T/B/X", "slack"),
        ("https://slack.com.evil.example/services/T", ""),
        ("https://example.org/api/webhooks/1/x", ""),
    ],
)
def test_which_urls_are_chat_webhooks(url, service):
    assert webhooks.chat_service(url) == service


def test_a_game_name_is_no_link_nor_formatting_in_discord():
    # Guards against an organizer's game name turning into a masked link in a player's
    # Discord channel ("[Your order](https://evil.example)" shows only "Your order").
    payload = {
        "event": webhooks.EVENT_ORDER_NEEDED, "game_name": "[Your order](https://evil.example) *now*",
        "ruleset": "5x", "prompt": 3, "seat": "ann_b", "deadline": None,
        "url": "https://fivex.example/games/7/",
    }  # fmt: skip

    delivery = WebhookDelivery(event=payload["event"], payload=payload)
    body, _ = webhooks._request(delivery, "secret", None, "https://discord.com/api/webhooks/1/x")
    content = json.loads(body)["content"]
    assert content.startswith(
        r"Your order is wanted in \[Your order\]\(https://evil.example\) \*now\* (5X): "
        r"decision 3, seat ann\_b (the game is paused"
    ), content
    assert content.endswith(" https://fivex.example/games/7/")  # the site's own link, as is
