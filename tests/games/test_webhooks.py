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
                    {
                        "method": self.command,
                        "path": self.path,
                        "headers": dict(self.headers),
                        "body": body,
                    }
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
    secrets = {
        n: webhooks.webhook_save(user=users[n], url=receiver.url(f"/{n}"))
        for n in ("ann", "bob", "dan")
    }
    game = _game(capture, users)  # cat has no webhook; dan plays elsewhere

    # The start opens prompt 1 (the draft) for every seat: ann and bob are called.
    assert sorted(r["path"] for r in receiver.requests) == ["/ann", "/bob"]
    state = current_state(game=game)
    for name in ("ann", "bob"):
        [request] = receiver.posts(f"/{name}")
        body = _verified(request, secrets[name])
        prompt = Prompt.objects.get(game=game, number=1)
        assert set(body) == {
            "event",
            "game",
            "game_name",
            "ruleset",
            "prompt",
            "seat",
            "deadline",
            "url",
            "api",
            "sent_at",
        }
        assert (body["event"], body["game"], body["game_name"], body["ruleset"], body["prompt"], body["seat"]) == (
            "order_needed", game.pk, game.title, "5x", 1, name,
        )  # fmt: skip
        assert body["deadline"] == prompt.deadline.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        assert body["url"].endswith(f"/games/{game.pk}/") and body["api"].endswith(
            f"/api/games/{game.pk}/"
        )
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
    submit_orders(
        game, capture, {"ann": "PLAY CLEOPATRA", "bob": "PLAY EXPAND", "cat": "PLAY EXPLORE"}
    )
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
    assert (
        webhooks.webhook_delivery_send(delivery_id=delivery.pk, now=now + timedelta(seconds=30))[0]
        == "skipped"
    )
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
    assert (
        webhooks.webhook_delivery_send(delivery_id=delivery.pk, now=now + timedelta(hours=2))[0]
        == "skipped"
    )
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
    assert (
        refused.status_code == 400
        and "webhooks only call public addresses" in refused.content.decode()
    )
    assert not PlayerWebhook.objects.exists()
    answer = client.post(reverse("games:webhook"), {"action": "save", "url": receiver.url()})
    hook = PlayerWebhook.objects.get(user=user)
    # A redirect to the page, which shows the secret once (a reload changes nothing).
    assert answer.status_code == 303 and hook.secret not in answer.content.decode()
    assert hook.secret in client.get(page).content.decode()
    assert hook.secret not in client.get(page).content.decode()  # shown once
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(reverse("games:webhook"), {"action": "ping"}).status_code == 302
    [request] = receiver.requests
    assert _verified(request, hook.secret) == {
        "event": "ping",
        "sent_at": json.loads(request["body"])["sent_at"],
    }
    assert request["headers"]["X-FiveX-Event"] == "ping"
    text = client.get(page).content.decode()
    assert 'id="webhook-deliveries"' in text and "<td>ping</td>" in text and "<td>200</td>" in text
    # A new secret: shown once, the old one signs no more.
    answer = client.post(reverse("games:webhook"), {"action": "regenerate"})
    hook.refresh_from_db()
    assert answer.status_code == 303
    assert hook.secret in client.get(page).content.decode()
    assert hook.secret not in client.get(page).content.decode()
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
    assert not WebhookDelivery.objects.filter(
        webhook__user=users["bob"], event="order_needed"
    ).exists()
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
    WebhookDelivery.objects.filter(pk=due.pk).update(
        status="retrying", next_attempt_at=now - timedelta(seconds=1)
    )
    WebhookDelivery.objects.filter(pk=later.pk).update(
        status="retrying", next_attempt_at=now + timedelta(minutes=5)
    )
    WebhookDelivery.objects.filter(pk=old.pk).update(
        status="sent", created_at=now - timedelta(days=31)
    )
    assert webhooks.webhooks_due(now=now) == sorted([lost.pk, due.pk])
    assert not WebhookDelivery.objects.filter(pk=old.pk).exists()
    assert WebhookDelivery.objects.filter(pk=fresh.pk).exists()


class _Odd(BaseHTTPRequestHandler):
    """A receiver answering as its server's ``mode`` says: trickling its status line a
    byte at a time (``slow``), or with a NUL in its body (``nul``)."""

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.server.mode == "slow":
            for byte in b"HTTP/1.1 200 OK\r\n" * 50:
                try:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                except OSError:
                    return
                threading.Event().wait(0.05)
            return
        self.send_response(200)
        self.send_header("Content-Length", "5")
        self.end_headers()
        self.wfile.write(b"ok\x00ok")

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def odd(settings) -> Iterator[ThreadingHTTPServer]:
    settings.WEBHOOKS_ALLOW_HTTP_LOCALHOST = True
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Odd)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def test_a_receiver_trickling_its_answer_is_cut_off_at_the_total_limit(odd, monkeypatch) -> None:
    # Regression: the timeout bounded each read only; a byte every 50 ms held the worker
    # for as long as the receiver liked.
    import time

    from games.services import webhook_http

    odd.mode = "slow"
    monkeypatch.setattr(webhook_http, "TOTAL_SECONDS", 1)
    user = make_user("ann")
    webhooks.webhook_save(user=user, url=f"http://127.0.0.1:{odd.server_address[1]}/hook")
    delivery = webhooks.webhook_ping(user=user)
    started = time.monotonic()
    assert webhooks.webhook_delivery_send(delivery_id=delivery.pk)[0] == "retrying"
    assert time.monotonic() - started < 3
    delivery.refresh_from_db()
    assert delivery.last_error.startswith("network error: TimeoutError")


def test_a_nul_in_the_answer_is_kept_cleaned_not_sent_again_and_again(odd) -> None:
    # Regression: PostgreSQL refused the row with the NUL, the attempt rolled back, and
    # the sweep sent the delivery again every minute.
    odd.mode = "nul"
    user = make_user("ann")
    webhooks.webhook_save(user=user, url=f"http://127.0.0.1:{odd.server_address[1]}/hook")
    delivery = webhooks.webhook_ping(user=user)
    assert webhooks.webhook_delivery_send(delivery_id=delivery.pk) == ("sent", 0)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.response_excerpt) == ("sent", 1, "ok ok")


def test_a_path_beyond_ascii_is_sent_percent_encoded(receiver) -> None:
    # Regression: saved as typed, then every attempt failed in http.client (and, not
    # recorded, was sent again every minute).
    user = make_user("ann")
    webhooks.webhook_save(user=user, url=receiver.url("/hé?x=ü&y=%C3%A9"))
    assert (
        webhooks.webhook_delivery_send(delivery_id=webhooks.webhook_ping(user=user).pk)[0] == "sent"
    )
    assert receiver.posts()[0]["path"] == "/h%C3%A9?x=%C3%BC&y=%C3%A9"


def test_a_claimed_delivery_is_left_to_its_worker_until_its_lease_is_over(receiver) -> None:
    # Regression: the sweep handed a delivery being sent to a second task every minute,
    # which waited on its row lock (as every mail worker could, one by one).
    user = make_user("ann")
    webhooks.webhook_save(user=user, url=receiver.url())
    now = timezone.now()
    delivery = webhooks.webhook_ping(user=user, now=now)
    lease = now + timedelta(seconds=webhooks.LEASE_SECONDS)
    # As the claim leaves it while its POST is under way: one attempt, a lease.
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        created_at=now - timedelta(minutes=2), attempts=1, next_attempt_at=lease
    )
    assert webhooks.webhooks_due(now=now) == []
    assert webhooks.webhook_delivery_send(delivery_id=delivery.pk, now=now)[0] == "skipped"
    assert receiver.requests == []
    # Its worker died: once the lease is over, the sweep hands it out again.
    assert webhooks.webhooks_due(now=lease + timedelta(seconds=1)) == [delivery.pk]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_no_row_lock_is_held_while_the_receiver_answers(settings) -> None:
    # Regression: the POST ran inside the transaction that locked its row.
    import psycopg
    from django.db import connection

    settings.WEBHOOKS_ALLOW_HTTP_LOCALHOST = True
    seen: list[str] = []
    params = connection.get_connection_params()
    dsn = {k: params[k] for k in ("host", "port", "user", "dbname") if params.get(k)}

    class Probe(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with psycopg.connect(**dsn, autocommit=True) as other:
                other.execute("SET lock_timeout = '500ms'")
                try:
                    other.execute("SELECT 1 FROM games_webhookdelivery FOR UPDATE NOWAIT")
                    seen.append("free")
                except psycopg.errors.LockNotAvailable:
                    seen.append("locked")
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Probe)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        user = make_user("ann")
        webhooks.webhook_save(user=user, url=f"http://127.0.0.1:{server.server_address[1]}/hook")
        delivery = webhooks.webhook_ping(user=user)  # sent on commit (eager Celery)
        delivery.refresh_from_db()
        assert delivery.status == "sent"
    finally:
        server.shutdown()
        server.server_close()
    assert seen == ["free"]


def test_pings_stay_capped_when_the_webhook_is_removed_and_set_again(receiver) -> None:
    # Regression: removing the webhook deleted the pings it counted.
    user = make_user("ann")
    webhooks.webhook_save(user=user, url=receiver.url())
    for _ in range(webhooks.PINGS_PER_HOUR):
        webhooks.webhook_ping(user=user)
    webhooks.webhook_remove(user=user)
    webhooks.webhook_save(user=user, url=receiver.url())
    with pytest.raises(PingsCapped):
        webhooks.webhook_ping(user=user)


@pytest.mark.parametrize(
    "url",
    [
        "https://[::127.0.0.1]/",  # IPv4-compatible
        "https://[::ffff:0:7f00:1]/",  # IPv4-translated
        "https://[64:ff9b:1::a9fe:a9fe]/",  # local-use NAT64, the metadata address inside
        "https://[5f00::1]/",
        "https://93.184.215.14:25/",  # a public address, a mail server's port
        "https://93.184.215.14:22/",
    ],
)
def test_addresses_and_ports_a_webhook_never_calls(settings, url) -> None:
    # Regression: Python before 3.12.4 takes these IPv6 ranges for global; low ports
    # other than 443 let a webhook talk to other servers.
    settings.WEBHOOKS_ALLOW_HTTP_LOCALHOST = False
    with pytest.raises(ValidationError):
        webhooks.webhook_save(user=make_user("ann"), url=url)
    assert not PlayerWebhook.objects.exists()


def test_webhook_changes_and_pings_over_the_api_are_throttled(receiver, settings) -> None:
    # Regression: PUT, DELETE and ping had no limit (each save looks a host up).
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "webhook": "2/min"},
    }
    api = token_client(make_user("ann"))
    assert api.put("/api/webhook/", {"url": receiver.url()}, format="json").status_code == 201
    assert api.delete("/api/webhook/").status_code == 204
    refused = api.put("/api/webhook/", {"url": receiver.url()}, format="json")
    assert refused.status_code == 429 and refused.json()["error"] == "throttled"
    assert not PlayerWebhook.objects.exists()
    assert api.get("/api/webhook/").status_code == 404  # reads are not counted


@pytest.fixture
def slow_resolver(monkeypatch) -> Iterator[threading.Event]:
    """The OS resolver made to hang on ``slow.test`` until the test ends (the event is
    set); other names resolve as ever (the local servers' own connections need it). The
    name stands for 127.0.0.1 once it answers."""
    import socket

    real = socket.getaddrinfo
    release = threading.Event()

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "slow.test":
            release.wait(30)
            return real("127.0.0.1", *args, **kwargs)
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield release
    release.set()


def test_a_lookup_that_hangs_is_refused_at_save_within_the_time_bound(
    receiver, slow_resolver, monkeypatch, settings
) -> None:
    # Regression: socket.getaddrinfo had no timeout; a resolver that never answered held
    # the web request saving the URL for as long as it liked.
    import time

    from games.services import webhook_http

    monkeypatch.setattr(webhook_http, "RESOLVE_SECONDS", 0.5)
    settings.WEBHOOKS_ALLOW_HTTP_LOCALHOST = False
    user = make_user("ann")
    started = time.monotonic()
    with pytest.raises(ValidationError, match=r"slow\.test did not resolve within 0\.5 seconds"):
        webhooks.webhook_save(user=user, url="https://slow.test/hook")
    assert time.monotonic() - started < 2
    assert not PlayerWebhook.objects.exists()
    # The page says so too, and saves nothing.
    client = __import__("django.test", fromlist=["Client"]).Client()
    client.force_login(user)
    answer = client.post(
        reverse("games:webhook"), {"action": "save", "url": "https://slow.test/hook"}
    )
    assert (
        answer.status_code == 400
        and "did not resolve within 0.5 seconds" in answer.content.decode()
    )
    assert not PlayerWebhook.objects.exists()
    # ... and the API (400, the reason under fields.url).
    refused = token_client(user).put(
        "/api/webhook/", {"url": "https://slow.test/hook"}, format="json"
    )
    assert refused.status_code == 400
    assert refused.json()["fields"]["url"] == [
        "The host name slow.test did not resolve within 0.5 seconds."
    ]
    assert not PlayerWebhook.objects.exists()


def test_a_lookup_that_hangs_at_send_is_a_network_error_tried_again(
    receiver, slow_resolver, monkeypatch
) -> None:
    # Regression: a hanging lookup held a mail worker past the POST's 30 s budget.
    import time

    from games.services import webhook_http

    user = make_user("ann")
    webhooks.webhook_save(user=user, url=receiver.url())
    PlayerWebhook.objects.filter(user=user).update(
        url=receiver.url().replace("127.0.0.1", "slow.test")
    )
    monkeypatch.setattr(webhook_http, "RESOLVE_SECONDS", 0.5)
    monkeypatch.setattr(webhook_http, "LOCAL_HOSTS", webhook_http.LOCAL_HOSTS | {"slow.test"})
    delivery = webhooks.webhook_ping(user=user)
    started = time.monotonic()
    assert webhooks.webhook_delivery_send(delivery_id=delivery.pk) == ("retrying", 60)
    assert time.monotonic() - started < 2
    delivery.refresh_from_db()
    assert (
        delivery.last_error
        == "network error: The host name slow.test did not resolve within 0.5 seconds."
    )
    assert receiver.requests == []
    # The resolver answers again: the next attempt goes through.
    slow_resolver.set()
    later = timezone.now() + timedelta(seconds=61)
    assert webhooks.webhook_delivery_send(delivery_id=delivery.pk, now=later) == ("sent", 0)


def test_hanging_lookups_leave_a_bounded_number_of_threads(slow_resolver, monkeypatch) -> None:
    # Guards against stuck lookups piling up threads: past the cap, a lookup waits for a
    # free slot within its own time bound, then fails, starting no thread.
    import time

    from games.services import webhook_http

    monkeypatch.setattr(webhook_http, "RESOLVE_SECONDS", 0.2)

    def lookups() -> int:
        return sum(t.name.startswith("webhook-lookup-") for t in threading.enumerate())

    assert lookups() == 0
    for _ in range(webhook_http.MAX_LOOKUPS + 5):
        started = time.monotonic()
        with pytest.raises(webhook_http.ResolveTimeout, match="did not resolve within 0.2 seconds"):
            webhook_http.url_check("https://slow.test/hook")
        assert time.monotonic() - started < 1
    assert lookups() == webhook_http.MAX_LOOKUPS
    slow_resolver.set()
    deadline = time.monotonic() + 5
    while lookups() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert lookups() == 0  # each thread ends once its lookup does, its slot freed


def _webhook_rate(settings, rate: str) -> None:
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "webhook": rate},
    }


def test_the_page_and_the_api_share_one_budget_of_webhook_changes(
    receiver, settings, client
) -> None:
    # Regression: the page's save, new secret, remove and ping had no limit, while the API's
    # had API_WEBHOOK_RATE: the page was the way around it.
    _webhook_rate(settings, "3/min")
    user = make_user("ann")
    api = token_client(user)
    client.force_login(user)
    assert api.put("/api/webhook/", {"url": receiver.url()}, format="json").status_code == 201
    assert client.post(reverse("games:webhook"), {"action": "regenerate"}).status_code == 303
    assert client.post(reverse("games:webhook"), {"action": "ping"}).status_code == 302
    hook = PlayerWebhook.objects.get(user=user)
    # Spent (one by the API, two by the page): the page refuses, saying so, and changes nothing.
    for action in ("save", "regenerate", "remove", "ping"):
        refused = client.post(
            reverse("games:webhook"), {"action": action, "url": receiver.url("/other")}
        )
        assert refused.status_code == 429
        text = refused.content.decode()
        assert (
            'id="webhook-error"' in text
            and "3 a minute, on this page and over the API together" in text
        )
        assert "nothing was changed" in text
    assert PlayerWebhook.objects.get(user=user).__dict__ | {"_state": None} == hook.__dict__ | {
        "_state": None
    }
    assert WebhookDelivery.objects.filter(webhook=hook).count() == 1
    # ... and so does the API.
    assert api.delete("/api/webhook/").status_code == 429
    assert PlayerWebhook.objects.filter(user=user).exists()


def test_changes_on_the_page_count_against_the_api_budget(receiver, settings, client) -> None:
    _webhook_rate(settings, "2/min")
    user = make_user("bob")
    client.force_login(user)
    assert (
        client.post(reverse("games:webhook"), {"action": "save", "url": receiver.url()}).status_code
        == 303
    )
    assert client.post(reverse("games:webhook"), {"action": "remove"}).status_code == 302
    refused = token_client(user).put("/api/webhook/", {"url": receiver.url()}, format="json")
    assert (refused.status_code, refused.json()["error"]) == (429, "throttled")
    assert not PlayerWebhook.objects.exists()
    # Another player's budget is their own.
    other = make_user("cat")
    assert (
        token_client(other).put("/api/webhook/", {"url": receiver.url()}, format="json").status_code
        == 201
    )


def _order(game: Game, capture, orders: dict[str, str]) -> None:
    """Each active seat's order (a handed-over seat's name has a replaced row too)."""
    from games.services.orders import order_submit

    for name, text in orders.items():
        with capture(execute=True):
            order_submit(seat=game.seats.get(name=name, status="active"), text=text, source="web")


def test_a_seat_handed_over_while_it_owes_an_order_calls_the_new_players_webhook(
    receiver, django_capture_on_commit_callbacks
) -> None:
    # Regression: the new player of a seat handed over mid-prompt got the handover email
    # only; the webhook was called when a prompt opened, and this one was open already.
    from django.contrib.auth import get_user_model

    from games.services import handover

    capture = django_capture_on_commit_callbacks
    users = {n: make_user(n) for n in (*NAMES, "dave", "eve", "fay", "gus")}
    secrets = {
        n: webhooks.webhook_save(user=users[n], url=receiver.url(f"/{n}"))
        for n in ("dave", "eve", "fay", "gus")
    }
    staff = get_user_model().objects.create_user("boss", "boss@example.test", "pw", is_staff=True)
    game = _game(capture, users)
    state = current_state(game=game)
    assert receiver.requests == []  # nobody of the game has a webhook
    draft = Prompt.objects.get(game=game, number=1)

    # bob sealed his draft; a site administrator hands his seat to dave: bob's order is
    # withdrawn unread, the seat owes one again, dave is called for it (once).
    _order(game, capture, {"bob": DRAFT["bob"]})
    with capture(execute=True):
        handover.seat_replace(
            seat=game.seats.get(name="bob", status="active"), new_user=users["dave"], by=staff
        )
    [request] = receiver.posts("/dave")
    body = _verified(request, secrets["dave"])
    assert (body["event"], body["game"], body["prompt"], body["seat"]) == (
        "order_needed",
        game.pk,
        1,
        "bob",
    )
    assert request["headers"]["X-FiveX-Event"] == "order_needed"
    view = engine_view(game=game, state=state, seat_name="bob")
    assert not [
        card for card in [*view["hand"], *view["dealt"]] if card.encode() in request["body"]
    ]
    delivery = WebhookDelivery.objects.get(webhook__user=users["dave"])
    assert (delivery.key, delivery.status) == (
        f"order_needed:{draft.pk}:{game.seats.get(name='bob', status='active').pk}",
        "sent",
    )

    # The organizer offers cat's seat (no order yet) to eve; she accepts: she is called.
    offer = handover.seat_offer(
        seat=game.seats.get(name="cat", status="active"), new_user=users["eve"], by=users["ann"]
    )
    with capture(execute=True):
        handover.seat_offer_accept(offer=offer, by=users["eve"])
    [request] = receiver.posts("/eve")
    assert _verified(request, secrets["eve"])["seat"] == "cat"
    assert len(receiver.requests) == 2

    # On to prompt 3 (the bid): ann's only legal bid is entered for her (forced), cat is
    # not asked. Handing either seat over calls nobody: the seat owes nothing.
    _order(game, capture, DRAFT)
    _order(game, capture, {"ann": "PLAY CLEOPATRA", "bob": "PLAY EXPAND", "cat": "PLAY EXPLORE"})
    bid = Prompt.objects.get(game=game, number=3)
    assert (sorted(bid.pending), bid.forced) == (["ann", "bob"], ["ann"])
    calls = len(receiver.requests)  # dave's and eve's for prompt 2, dave's for prompt 3
    with capture(execute=True):
        handover.seat_replace(
            seat=game.seats.get(name="ann", status="active"), new_user=users["fay"], by=staff
        )
        handover.seat_replace(
            seat=game.seats.get(name="cat", status="active"), new_user=users["gus"], by=staff
        )
    assert len(receiver.requests) == calls
    assert not receiver.posts("/fay") and not receiver.posts("/gus")
    assert not WebhookDelivery.objects.filter(
        webhook__user__in=[users["fay"], users["gus"]]
    ).exists()


def test_a_temporary_dns_failure_at_send_is_tried_again_and_refused_at_save(
    receiver, monkeypatch
) -> None:
    # Regression: the resolver's EAI_AGAIN ("temporary failure in name resolution", a DNS
    # server briefly away) failed the delivery for good, as a name that does not exist.
    import socket

    from games.services import webhook_http

    real = socket.getaddrinfo
    failing = {"on": True}

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "flaky.test":
            if failing["on"]:
                raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
            return real("127.0.0.1", *args, **kwargs)
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    user = make_user("ann")
    with pytest.raises(ValidationError, match=r"flaky\.test could not be looked up just now"):
        webhooks.webhook_save(user=user, url="https://flaky.test/hook")
    assert not PlayerWebhook.objects.exists()

    webhooks.webhook_save(user=user, url=receiver.url())
    PlayerWebhook.objects.filter(user=user).update(
        url=receiver.url().replace("127.0.0.1", "flaky.test")
    )
    monkeypatch.setattr(webhook_http, "LOCAL_HOSTS", webhook_http.LOCAL_HOSTS | {"flaky.test"})
    delivery = webhooks.webhook_ping(user=user)
    assert webhooks.webhook_delivery_send(delivery_id=delivery.pk) == ("retrying", 60)
    delivery.refresh_from_db()
    assert delivery.last_error.startswith(
        "network error: The host name flaky.test could not be looked up"
    )
    failing["on"] = False
    later = timezone.now() + timedelta(seconds=61)
    assert webhooks.webhook_delivery_send(delivery_id=delivery.pk, now=later) == ("sent", 0)
    assert len(receiver.requests) == 1
    # A name that does not exist is still refused for good (no retry).
    monkeypatch.setattr(
        socket, "getaddrinfo",
        lambda host, *a, **k: (_ for _ in ()).throw(socket.gaierror(socket.EAI_NONAME, "Name or service not known")),
    )  # fmt: skip
    with pytest.raises(ValidationError, match=r"does not resolve to an address"):
        webhooks.webhook_save(user=user, url="https://gone.test/hook")


def test_the_schema_says_a_webhook_url_is_never_blank(client) -> None:
    """An API audit (schemathesis): "url": "" was refused (400) while the schema's url
    was any string up to 500 characters."""
    import jsonschema

    api = token_client(make_user("ann"))
    url = client.get("/api/schema/", {"format": "json"}).json()["components"]["schemas"][
        "WebhookInput"]["properties"]["url"]  # fmt: skip
    assert url["minLength"] == 1
    for blank in ("", "  "):
        answer = api.put("/api/webhook/", {"url": blank}, format="json")
        assert answer.status_code == 400 and "url" in answer.json()["fields"], answer.content
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.Draft202012Validator(url).validate(blank)
    assert not PlayerWebhook.objects.exists()


def test_the_schema_says_a_webhook_url_starts_with_http_and_the_api_refuses_so() -> None:
    # Regression (schemathesis, positive_data_acceptance): the schema's `url` was any
    # non-blank text ("0", "ftp://..."), all refused: a client checking its request
    # against the schema was told it was fine.
    import re

    api = token_client(make_user("ann"))
    schema = api.get("/api/schema/", {"format": "json"}).json()
    body = schema["paths"]["/api/webhook/"]["put"]["requestBody"]["content"]["application/json"]
    name = body["schema"]["$ref"].rsplit("/", 1)[-1]
    pattern = schema["components"]["schemas"][name]["properties"]["url"]["pattern"]
    for taken in ("https://hooks.example.org/x", "HTTPS://a.example/", "http://localhost:8000/"):
        assert re.search(pattern, taken), taken
    for refused in ("0", "ftp://example.org/", "hooks.example.org", "https:/x", " "):
        assert not re.search(pattern, refused), refused
        answer = api.put("/api/webhook/", {"url": refused}, format="json")
        assert answer.status_code == 400 and list(answer.json()["fields"]) == ["url"]
    said = api.put("/api/webhook/", {"url": "ftp://example.org/"}, format="json").json()
    assert said["fields"]["url"] == ["The URL must start with https://."]
    assert not PlayerWebhook.objects.exists()
