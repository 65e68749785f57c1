"""A player's "your turn" webhook: a real HTTP server on 127.0.0.1 receives the signed
POST when a prompt opens that asks the player's seat for an order (not a forced seat, a
seat not asked, another player's), with nothing of the hand in it; deliveries retry on a
5xx, not on a 4xx, never follow a redirect; private addresses are refused when the URL is
saved and again when it is called; the test ping; a closed or deactivated account gets
nothing."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from collections.abc import Iterator
from datetime import UTC, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from games.errors import PingsCapped, ValidationError
from games.models import Game, OutboxMessage, PlayerWebhook, Prompt, WebhookDelivery
from games.selectors import current_state, engine_view
from games.services import games as game_services
from games.services import webhooks
from tests.games.web_support import (
    DEAL,
    DRAFT,
    NAMES,
    eager_celery,
    make_user,
    submit_orders,
    token_client,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]


class Receiver:
    """A local HTTP server that records each request and answers as told (200 unless
    ``answers`` holds a status, or a (status, headers) pair, for the next request)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.answers: list[Any] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def _record(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                receiver.requests.append(
                    {"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body}
                )
                answer = receiver.answers.pop(0) if receiver.answers else 200
                status, headers = answer if isinstance(answer, tuple) else (answer, {})
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            do_POST = do_GET = _record

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def posts(self, path: str | None = None) -> list[dict[str, Any]]:
        return [r for r in self.requests if path is None or r["path"] == path]


@pytest.fixture
def receiver(settings) -> Iterator[Receiver]:
    settings.WEBHOOKS_ALLOW_HTTP_LOCALHOST = True  # the development exception
    server = Receiver()
    yield server
    server.server.shutdown()
    server.server.server_close()


def _verified(request: dict[str, Any], secret: str) -> dict[str, Any]:
    """The body, once its signature is checked as the README tells receivers to."""
    expected = "sha256=" + hmac.new(secret.encode(), request["body"], hashlib.sha256).hexdigest()
    assert hmac.compare_digest(request["headers"]["X-FiveX-Signature"], expected)
    return json.loads(request["body"])


def _game(capture, users: dict[str, Any]) -> Game:
    """The forced-orders 5X game (tests/games/test_forced_orders.py): ann, bob, cat."""
    game = game_services.game_create(
        organizer=users["ann"], ruleset="5x", seats_count=3, name="Hooked", setup={"deal": DEAL}
    )
    with capture(execute=True):
        for name in NAMES:
            game_services.game_join(game=game, user=users[name])
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    return game


def test_a_prompt_asking_the_seat_posts_a_signed_event_without_the_hand(
    receiver, django_capture_on_commit_callbacks
) -> None:
    capture = django_capture_on_commit_callbacks
    users = {n: make_user(n) for n in (*NAMES, "dan")}
    secrets = {n: webhooks.webhook_save(user=users[n], url=receiver.url(f"/{n}")) for n in ("ann", "bob", "dan")}
    game = _game(capture, users)  # cat has no webhook; dan plays elsewhere

    # The start opens prompt 1 (the draft) for every seat: ann and bob are called.
    assert sorted(r["path"] for r in receiver.requests) == ["/ann", "/bob"]
    state = current_state(game=game)
    for name in ("ann", "bob"):
        [request] = receiver.posts(f"/{name}")
        body = _verified(request, secrets[name])
        prompt = Prompt.objects.get(game=game, number=1)
        assert set(body) == {"event", "game", "game_name", "ruleset", "prompt", "seat", "deadline", "url", "api", "sent_at"}
        assert (body["event"], body["game"], body["game_name"], body["ruleset"], body["prompt"], body["seat"]) == (
            "order_needed", game.pk, game.title, "5x", 1, name,
        )  # fmt: skip
        assert body["deadline"] == prompt.deadline.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        assert body["url"].endswith(f"/games/{game.pk}/") and body["api"].endswith(f"/api/games/{game.pk}/")
        headers = request["headers"]
        assert headers["Content-Type"] == "application/json"
        assert headers["User-Agent"] == "FiveX-Webhook"
        assert headers["X-FiveX-Event"] == "order_needed"
        delivery = WebhookDelivery.objects.get(webhook__user=users[name])
        assert headers["X-FiveX-Delivery"] == str(delivery.delivery_id)
        assert (delivery.status, delivery.response_code) == ("sent", 200)
        # Guards against the hand leaking to a chat channel: no card the seat holds.
        view = engine_view(game=game, state=state, seat_name=name)
        hand = [*view["hand"], *view["dealt"]]
        assert view["hand"] and sorted(view["dealt"]) == sorted(DEAL[name])
        assert not [card for card in hand if card.encode() in request["body"]]

    # Orders coming in open no prompt: nobody is called until the last one resolves it.
    submit_orders(game, capture, {"ann": DRAFT["ann"], "bob": DRAFT["bob"]})
    assert len(receiver.requests) == 2
    submit_orders(game, capture, {"cat": DRAFT["cat"]})
    assert sorted(r["path"] for r in receiver.requests[2:]) == ["/ann", "/bob"]  # prompt 2
    assert {json.loads(r["body"])["prompt"] for r in receiver.requests[2:]} == {2}

    # Prompt 3 (the bid) asks ann and bob, but ann's only legal bid is entered for her
    # (forced) and cat is not asked: only bob is called.
    submit_orders(game, capture, {"ann": "PLAY CLEOPATRA", "bob": "PLAY EXPAND", "cat": "PLAY EXPLORE"})
    bid = Prompt.objects.get(game=game, number=3)
    assert (sorted(bid.pending), bid.forced) == (["ann", "bob"], ["ann"])
    [third] = receiver.requests[4:]
    assert third["path"] == "/bob" and _verified(third, secrets["bob"])["prompt"] == 3
    assert not receiver.posts("/dan")  # another player's webhook: not one call


def test_a_5xx_is_tried_again_later_and_then_sent(receiver) -> None:
    user = make_user("ann")
    secret = webhooks.webhook_save(user=user, url=receiver.url())
    receiver.answers = [500]
    delivery = webhooks.webhook_ping(user=user)  # queued (its task runs on commit: not here)
    now = timezone.now()
    assert webhooks.webhook_delivery_send(delivery_id=delivery.pk, now=now) == ("retrying", 60)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.response_code) == ("retrying", 1, 500)
    assert delivery.next_attempt_at == now + timedelta(seconds=60)
    # Not due yet: nothing is sent.
    assert webhooks.webhook_delivery_send(delivery_id=delivery.pk, now=now + timedelta(seconds=30))[0] == "skipped"
    assert len(receiver.requests) == 1
    later = now + timedelta(seconds=61)
    assert webhooks.webhook_delivery_send(delivery_id=delivery.pk, now=later) == ("sent", 0)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.response_code) == ("sent", 2, 200)
    first, second = receiver.requests
    # The same delivery id (the receiver's dedupe), a fresh signed timestamp.
    assert first["headers"]["X-FiveX-Delivery"] == second["headers"]["X-FiveX-Delivery"]
    assert _verified(second, secret)["event"] == "ping"
    assert json.loads(first["body"])["sent_at"] != json.loads(second["body"])["sent_at"]


def test_a_5xx_every_time_gives_up_after_about_an_hour(receiver) -> None:
    user = make_user("ann")
    webhooks.webhook_save(user=user, url=receiver.url())
    receiver.answers = [503] * 10
    delivery = webhooks.webhook_ping(user=user)
    now = timezone.now()
    for _ in range(webhooks.MAX_ATTEMPTS):
        status, delay = webhooks.webhook_delivery_send(delivery_id=delivery.pk, now=now)
        now += timedelta(seconds=delay)
    assert status == "failed"
    assert len(receiver.requests) == webhooks.MAX_ATTEMPTS
    assert timedelta(minutes=50) < now - delivery.created_at < timedelta(minutes=75)


def test_a_4xx_is_not_tried_again(receiver) -> None:
    user = make_user("ann")
    webhooks.webhook_save(user=user, url=receiver.url())
    receiver.answers = [400]
    delivery = webhooks.webhook_ping(user=user)
    now = timezone.now()
    assert webhooks.webhook_delivery_send(delivery_id=delivery.pk, now=now) == ("failed", 0)
    assert webhooks.webhook_delivery_send(delivery_id=delivery.pk, now=now + timedelta(hours=2))[0] == "skipped"
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_error) == ("failed", 1, "HTTP 400")
    assert len(receiver.requests) == 1
    assert PlayerWebhook.objects.get(user=user).failures_in_row == 1


def test_a_redirect_is_not_followed(receiver) -> None:
    # Guards against a public URL redirecting the site's request to an inner address.
    user = make_user("ann")
    webhooks.webhook_save(user=user, url=receiver.url())
    receiver.answers = [(302, {"Location": "http://169.254.169.254/latest/meta-data/"})]
    delivery = webhooks.webhook_ping(user=user)
    assert webhooks.webhook_delivery_send(delivery_id=delivery.pk)[0] == "failed"
    delivery.refresh_from_db()
    assert "redirect" in delivery.last_error and delivery.response_code == 302
    assert [r["method"] for r in receiver.requests] == ["POST"]


@pytest.mark.parametrize(
    "url",
    [
        "http://10.0.0.1/",
        "https://10.0.0.1/",
        "https://169.254.169.254/latest/meta-data/",
        "https://localhost/hook",  # a name resolving to 127.0.0.1
        "http://127.0.0.1:8618/hook",
        "https://[::1]/",
        "https://[::ffff:127.0.0.1]/",  # IPv4-mapped loopback
        "https://192.168.1.10/",
        "https://100.64.0.1/",
        "https://224.0.0.1/",
        "https://0.0.0.0/",
    ],
)
def test_private_addresses_are_refused_when_saved(settings, url) -> None:
    settings.WEBHOOKS_ALLOW_HTTP_LOCALHOST = False
    user = make_user("ann")
    with pytest.raises(ValidationError):
        webhooks.webhook_save(user=user, url=url)
    assert not PlayerWebhook.objects.exists()


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("ftp://example.org/", "must start with https://"),
        ("http://example.org/", "must start with https://"),  # the exception is for localhost only
        ("https://user:pw@example.org/", "user name or password"),
        ("https://example.org/#x", "fragment"),
        ("https://", "names no host"),
        ("https://10.1.2.3/", "private, loopback"),
        ("https://no-such-host.invalid/", "does not resolve"),
    ],
)
def test_other_bad_urls_say_why(receiver, url, words) -> None:
    user = make_user("ann")
    with pytest.raises(ValidationError, match=words):
        webhooks.webhook_save(user=user, url=url)
    assert not PlayerWebhook.objects.exists()


def test_the_address_is_checked_again_when_called(receiver, settings) -> None:
    # Guards against a URL accepted once (DNS rebinding, a setting changed) being called
    # at an address the site does not call.
    user = make_user("ann")
    webhooks.webhook_save(user=user, url=receiver.url())
    settings.WEBHOOKS_ALLOW_HTTP_LOCALHOST = False
    delivery = webhooks.webhook_ping(user=user)
    assert webhooks.webhook_delivery_send(delivery_id=delivery.pk)[0] == "failed"
    delivery.refresh_from_db()
    assert delivery.last_error.startswith("refused:")
    assert receiver.requests == []


def test_the_page_sets_the_webhook_shows_the_secret_once_and_pings(
    receiver, client, django_capture_on_commit_callbacks
) -> None:
    user = make_user("ann")
    client.force_login(user)
    page = reverse("games:api_tokens")
    refused = client.post(reverse("games:webhook"), {"action": "save", "url": "https://10.0.0.1/"})
    assert refused.status_code == 400 and "webhooks only call public addresses" in refused.content.decode()
    assert not PlayerWebhook.objects.exists()
    answer = client.post(reverse("games:webhook"), {"action": "save", "url": receiver.url()})
    hook = PlayerWebhook.objects.get(user=user)
    assert answer.status_code == 200 and hook.secret in answer.content.decode()
    assert hook.secret not in client.get(page).content.decode()  # shown once
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(reverse("games:webhook"), {"action": "ping"}).status_code == 302
    [request] = receiver.requests
    assert _verified(request, hook.secret) == {"event": "ping", "sent_at": json.loads(request["body"])["sent_at"]}
    assert request["headers"]["X-FiveX-Event"] == "ping"
    text = client.get(page).content.decode()
    assert 'id="webhook-deliveries"' in text and "<td>ping</td>" in text and "<td>200</td>" in text
    # A new secret: shown once, the old one signs no more.
    answer = client.post(reverse("games:webhook"), {"action": "regenerate"})
    hook.refresh_from_db()
    assert hook.secret in answer.content.decode() and hook.secret not in client.get(page).content.decode()
    client.post(reverse("games:webhook"), {"action": "remove"})
    assert not PlayerWebhook.objects.exists()


def test_the_api_sets_reads_and_removes_the_webhook(receiver) -> None:
    user = make_user("ann")
    api = token_client(user)
    assert api.get("/api/webhook/").status_code == 404
    refused = api.put("/api/webhook/", {"url": "https://169.254.169.254/"}, format="json")
    assert refused.status_code == 400 and "url" in refused.json()["fields"]
    assert not PlayerWebhook.objects.exists()
    made = api.put("/api/webhook/", {"url": receiver.url()}, format="json")
    assert made.status_code == 201 and made.json()["secret"] == PlayerWebhook.objects.get().secret
    shown = api.get("/api/webhook/").json()
    assert "secret" not in shown and shown["url"] == receiver.url() and shown["active"] is True
    changed = api.put("/api/webhook/", {"url": receiver.url("/other")}, format="json")
    assert changed.status_code == 200 and "secret" not in changed.json()
    for _ in range(webhooks.PINGS_PER_HOUR):
        assert api.post("/api/webhook/ping/", {}, format="json").status_code == 202
    capped = api.post("/api/webhook/ping/", {}, format="json")
    assert (capped.status_code, capped.json()["error"]) == (429, "pings_capped")
    assert api.delete("/api/webhook/").status_code == 204
    assert api.delete("/api/webhook/").status_code == 404


def test_too_many_failures_in_a_row_switch_it_off_and_email_once(receiver, settings) -> None:
    settings.WEBHOOKS_DISABLE_AFTER = 2
    user = make_user("ann")
    webhooks.webhook_save(user=user, url=receiver.url())
    receiver.answers = [404, 404]
    for _ in range(2):
        webhooks.webhook_delivery_send(delivery_id=webhooks.webhook_ping(user=user).pk)
    hook = PlayerWebhook.objects.get(user=user)
    assert (hook.active, hook.failures_in_row) == (False, 2) and hook.disabled_at is not None
    assert OutboxMessage.objects.filter(kind="webhook_off", to=user.email).count() == 1
    # Saving the URL again turns it back on.
    webhooks.webhook_save(user=user, url=receiver.url())
    hook.refresh_from_db()
    assert (hook.active, hook.failures_in_row) == (True, 0)


def test_closing_the_account_removes_the_webhook(receiver) -> None:
    from fivex_site.account_close import account_close

    user = make_user("ann")
    webhooks.webhook_save(user=user, url=receiver.url())
    waiting = webhooks.webhook_ping(user=user)
    account_close(user=user)
    assert not PlayerWebhook.objects.filter(user=user).exists()
    assert webhooks.webhook_delivery_send(delivery_id=waiting.pk)[0] == "skipped"
    assert receiver.requests == []


def test_a_deactivated_account_gets_nothing(receiver, django_capture_on_commit_callbacks) -> None:
    users = {n: make_user(n) for n in NAMES}
    for name in ("ann", "bob"):
        webhooks.webhook_save(user=users[name], url=receiver.url(f"/{name}"))
    waiting = webhooks.webhook_ping(user=users["bob"])
    users["bob"].is_active = False  # deactivated by staff, the webhook left in place
    users["bob"].save(update_fields=["is_active"])
    _game(django_capture_on_commit_callbacks, users)
    assert [r["path"] for r in receiver.requests] == ["/ann"]
    assert not WebhookDelivery.objects.filter(webhook__user=users["bob"], event="order_needed").exists()
    # One queued before: not sent either.
    assert webhooks.webhook_delivery_send(delivery_id=waiting.pk)[0] == "failed"
    assert [r["path"] for r in receiver.requests] == ["/ann"]


def test_pings_are_capped_per_hour(receiver) -> None:
    user = make_user("ann")
    webhooks.webhook_save(user=user, url=receiver.url())
    for _ in range(webhooks.PINGS_PER_HOUR):
        webhooks.webhook_ping(user=user)
    with pytest.raises(PingsCapped):
        webhooks.webhook_ping(user=user)


def test_the_sweep_finds_due_retries_and_lost_tasks_and_drops_old_rows(receiver) -> None:
    # Guards against a delivery whose task the broker lost staying queued for good.
    user = make_user("ann")
    webhooks.webhook_save(user=user, url=receiver.url())
    now = timezone.now()
    lost, fresh, due, later, old = (webhooks.webhook_ping(user=user, now=now) for _ in range(5))
    WebhookDelivery.objects.filter(pk=lost.pk).update(created_at=now - timedelta(minutes=2))
    WebhookDelivery.objects.filter(pk=due.pk).update(status="retrying", next_attempt_at=now - timedelta(seconds=1))
    WebhookDelivery.objects.filter(pk=later.pk).update(status="retrying", next_attempt_at=now + timedelta(minutes=5))
    WebhookDelivery.objects.filter(pk=old.pk).update(status="sent", created_at=now - timedelta(days=31))
    assert webhooks.webhooks_due(now=now) == sorted([lost.pk, due.pk])
    assert not WebhookDelivery.objects.filter(pk=old.pk).exists()
    assert WebhookDelivery.objects.filter(pk=fresh.pk).exists()
