"""A player's "your turn" webhook: setting it (``webhook_save``, its secret made or
made again, ``webhook_remove``), queueing its events (``webhooks_order_needed`` when a
prompt opens and asks one of the player's seats for an order, ``webhook_seat_handed_over``
when a seat that owes an order for the open prompt changes hands, ``webhook_ping`` for the
page's test button) and sending them (``webhook_delivery_send``, run by a Celery task
enqueued on commit, and by the beat's sweep for retries and lost tasks).

A delivery is a row, as an email is (``WebhookDelivery``): queued -> sent, or retrying
after a network error, a 5xx or a 429 (``RETRY_DELAYS``, five attempts over about an
hour) -> failed after any other answer (a 4xx, a redirect: never followed) or the last
attempt. ``settings.WEBHOOKS_DISABLE_AFTER`` failed deliveries in a row switch the webhook
off and email the player once. The body says which game and prompt wait for which seat,
never a card of the hand or an order: a player may point it at a chat channel. The
network side (which addresses may be called) is ``games.services.webhook_http``.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import logging
import re
import secrets
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from fivex_site.links import public_url
from games.errors import NotFound, PingsCapped, ValidationError
from games.models import Game, Prompt, SealedOrder, Seat
from games.models_webhooks import PlayerWebhook, WebhookDelivery
from games.presentation import ruleset_name
from games.services import webhook_http
from games.services.queueing import enqueue_on_commit

logger = logging.getLogger(__name__)

EVENT_ORDER_NEEDED = "order_needed"
EVENT_PING = "ping"
USER_AGENT = "FiveX-Webhook"
SECRET_PREFIX = "whsec_"
# Seconds before the 2nd, 3rd, 4th and 5th attempt: about an hour in all.
RETRY_DELAYS = (60, 5 * 60, 15 * 60, 40 * 60)
MAX_ATTEMPTS = len(RETRY_DELAYS) + 1
# Test pings a player may send an hour: the button makes the site POST to any public URL.
PINGS_PER_HOUR = 5
# How long a claimed delivery is left to the worker sending it (a POST takes at most
# webhook_http.TOTAL_SECONDS): past it, the sweep hands it out again (a worker died).
LEASE_SECONDS = 120
# Deliveries older than this are deleted by the sweep (the page shows the last ones).
KEEP_DAYS = 30
SWEEP_MAX = 500
Outcome = tuple[str, float]  # the delivery's new status (or "skipped"), retry in seconds


def _new_secret() -> str:
    return SECRET_PREFIX + secrets.token_hex(32)


def webhook_save(*, user: Any, url: str) -> str | None:
    """Set the player's webhook to ``url`` (checked by ``webhook_http.url_check``: https,
    a public address; ValidationError with the reason, nothing changed). A new webhook
    gets a signing secret, returned (shown once); changing the URL keeps the secret
    (None returned). Saving also switches a webhook turned off by failures back on."""
    url = url.strip() if isinstance(url, str) else url
    webhook_http.url_check(url)
    with transaction.atomic():
        hook = PlayerWebhook.objects.select_for_update().filter(user=user).first()
        if hook is None:
            secret = _new_secret()
            PlayerWebhook.objects.create(user=user, url=url, secret=secret)
            return secret
        hook.url, hook.active, hook.failures_in_row, hook.disabled_at = url, True, 0, None
        hook.save(update_fields=["url", "active", "failures_in_row", "disabled_at", "updated"])
    return None


def webhook_secret_regenerate(*, user: Any) -> str:
    """A new signing secret for the player's webhook (the old one stops signing at once),
    returned to be shown once. NotFound when the player has no webhook."""
    secret = _new_secret()
    if not PlayerWebhook.objects.filter(user=user).update(secret=secret, updated=timezone.now()):
        raise NotFound("You have no webhook: set its URL first.")
    return secret


def webhook_remove(*, user: Any) -> bool:
    """Delete the player's webhook and its deliveries (those waiting are never sent).
    Returns whether there was one. Closing the account calls it."""
    deleted, _ = PlayerWebhook.objects.filter(user=user).delete()
    return bool(deleted)


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def order_needed_payload(*, game: Game, prompt: Prompt, seat: Seat) -> dict[str, Any]:
    """The body of an ``order_needed`` event (without ``sent_at``): which game and prompt
    wait for which seat, and where to answer; nothing of the hand or of any order."""
    return {
        "event": EVENT_ORDER_NEEDED,
        "game": game.pk,
        "game_name": game.title,
        "ruleset": game.ruleset,
        "prompt": prompt.number,
        "seat": seat.name,
        "deadline": _iso(prompt.deadline),
        "url": public_url(f"/games/{game.pk}/"),
        "api": public_url(f"/api/games/{game.pk}/"),
    }


def webhooks_order_needed(*, game: Game, prompt: Prompt, seats: list[Seat]) -> int:
    """Queue an ``order_needed`` event for each of ``seats`` (the seats the new prompt asks
    for an order: playing, pending, no forced order) whose player has an active webhook
    and an active account; sent once the transaction commits. A seat read with
    ``webhook_on`` (the resolution's own read says whether its player has an active
    webhook) spares the query when none has. Returns how many were queued."""
    if not seats or all(getattr(s, "webhook_on", None) is False for s in seats):
        return 0
    hooks = {
        h.user_id: h
        for h in PlayerWebhook.objects.filter(
            user_id__in={s.user_id for s in seats}, active=True, user__is_active=True
        )
    }
    rows = [
        WebhookDelivery(
            webhook=hooks[seat.user_id],
            event=EVENT_ORDER_NEEDED,
            key=f"{EVENT_ORDER_NEEDED}:{prompt.pk}:{seat.pk}",
            payload=order_needed_payload(game=game, prompt=prompt, seat=seat),
        )
        for seat in seats
        if seat.user_id in hooks
    ]
    if not rows:
        return 0
    WebhookDelivery.objects.bulk_create(rows, ignore_conflicts=True)
    ids = WebhookDelivery.objects.filter(key__in=[r.key for r in rows]).values_list("pk", flat=True)
    _enqueue(list(ids))
    return len(rows)


def webhook_seat_handed_over(*, game: Game, prompt: Prompt, seat: Seat) -> int:
    """Queue the ``order_needed`` event of the open ``prompt`` for ``seat``, just handed
    to a new player (``handover.seat_replace``: an offer accepted, or staff's handover)
    when the seat owes an order for it: asked (pending), not a forced seat, no current
    order (the old player's was withdrawn). The prompt opened before the new player held
    the seat, so its own events went to nobody. Sent once the transaction commits, once
    per prompt and seat row; returns how many were queued (0 or 1)."""
    if seat.status != Seat.Status.ACTIVE or prompt.status != Prompt.Status.OPEN:
        return 0
    if seat.name not in (prompt.pending or []) or seat.name in (prompt.forced or []):
        return 0
    if SealedOrder.objects.filter(prompt=prompt, seat_name=seat.name, is_current=True).exists():
        return 0
    return webhooks_order_needed(game=game, prompt=prompt, seats=[seat])


def webhook_ping(*, user: Any, now: datetime | None = None) -> WebhookDelivery:
    """Queue a ``ping`` event to the player's webhook (the page's "Send a test"), even one
    switched off. NotFound without a webhook; PingsCapped past ``PINGS_PER_HOUR``."""
    now = now or timezone.now()
    hook = PlayerWebhook.objects.filter(user=user).first()
    if hook is None:
        raise NotFound("You have no webhook: set its URL first.")
    recent = WebhookDelivery.objects.filter(
        webhook=hook, event=EVENT_PING, created_at__gte=now - timedelta(hours=1)
    ).count()
    # Also counted by player, outside the webhook's rows: removing the webhook deletes
    # them, and remove, save, ping again sent as many pings as one liked.
    stamps = _pings_of(user, now)
    if max(recent, len(stamps)) >= PINGS_PER_HOUR:
        raise PingsCapped(
            f"You sent {PINGS_PER_HOUR} test pings in the last hour, as many as an hour "
            "allows: try again later."
        )
    delivery = WebhookDelivery.objects.create(
        webhook=hook, event=EVENT_PING, payload={"event": EVENT_PING}
    )
    _pings_note(user, [*stamps, now.timestamp()])
    _enqueue([delivery.pk])
    return delivery


def _pings_key(user: Any) -> str:
    return f"fivex:webhook-pings:{user.pk}"


def _pings_of(user: Any, now: datetime) -> list[float]:
    """When the player sent test pings in the hour before ``now`` (the cache's count: with
    the cache away, none; the webhook's own rows still count)."""
    from django.core.cache import cache

    try:
        stamps = cache.get(_pings_key(user)) or []
    except Exception:  # noqa: BLE001 - a cache outage must not stop the page
        return []
    return [t for t in stamps if t > now.timestamp() - 3600]


def _pings_note(user: Any, stamps: list[float]) -> None:
    from django.core.cache import cache

    try:
        cache.set(_pings_key(user), stamps, timeout=3600)
    except Exception:  # noqa: BLE001 - as above
        logger.warning("webhook pings of user %s not counted: the cache is away", user.pk)


def _enqueue(ids: list[int]) -> None:
    from games.tasks import send_webhook

    for pk in ids:
        enqueue_on_commit(send_webhook, pk)


def signature(*, secret: str, body: bytes) -> str:
    """``X-FiveX-Signature``: ``sha256=`` and the hex HMAC-SHA256 of the raw body."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


# Chat services whose incoming webhooks take a message of their own shape, not the event:
# the URL's host (and, for Discord, its path) says which. Discord answers 400 "Cannot send
# an empty message" to a body without ``content``, Slack 400 "no_text" without ``text``.
_CHAT_HOSTS = {
    "discord.com": "discord", "discordapp.com": "discord", "ptb.discord.com": "discord",
    "canary.discord.com": "discord", "hooks.slack.com": "slack",
}  # fmt: skip


def chat_service(url: str) -> str:
    """``discord`` or ``slack`` when ``url`` is one of their incoming webhooks, else ""."""
    parts = urlsplit(url)
    service = _CHAT_HOSTS.get((parts.hostname or "").lower().rstrip("."), "")
    if service == "discord" and not parts.path.startswith("/api/webhooks/"):
        return ""
    return service


def chat_text(payload: dict[str, Any], quote: Callable[[str], str] = str) -> str:
    """An event as a chat message: which game waits for which seat's order, by when, and
    the link (nothing more than the event says: never a card or an order). ``quote``
    writes the names players chose (the game's, the seat's) as the chat shows text as is."""
    if payload.get("event") != EVENT_ORDER_NEEDED:
        return (
            "FiveX: a test call. This channel is told when one of your games waits for your order."
        )
    deadline = payload.get("deadline")
    when = (
        f", by {str(deadline).replace('T', ' ').replace('Z', ' UTC')}"
        if deadline
        else " (the game is paused: no deadline runs)"
    )
    return (
        f"Your order is wanted in {quote(str(payload.get('game_name')))} "
        f"({ruleset_name(str(payload.get('ruleset')))}): decision {payload.get('prompt')}, "
        f"seat {quote(str(payload.get('seat')))}{when}. {payload.get('url')}"
    )


# Discord's markdown: a game's name "[Your order](https://...)" would be a masked link,
# "<t:0>" a timestamp, "*x*" bold; a backslash before each shows it as typed.
_DISCORD_MARKUP = re.compile(r"([\\*_~`|\[\]()<>])")


def _discord_escaped(text: str) -> str:
    """``text`` as Discord shows it as typed (no link, mention or formatting)."""
    return _DISCORD_MARKUP.sub(r"\\\1", text)


def _slack_escaped(text: str) -> str:
    """Slack's three control characters, as its formatting guide escapes them."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _request(
    delivery: WebhookDelivery, secret: str, now: datetime, url: str = ""
) -> tuple[bytes, dict[str, str]]:
    """The body (the payload and ``sent_at``, the signed timestamp; for a Discord or
    Slack webhook, the message those take: ``chat_service``) and its headers."""
    service = chat_service(url)
    if service == "discord":
        # No mention pings anybody (a game's name may say @everyone).
        message: dict[str, Any] = {
            "content": chat_text(delivery.payload, _discord_escaped)[:2000],
            "allowed_mentions": {"parse": []},
        }  # fmt: skip
    elif service == "slack":
        message = {"text": _slack_escaped(chat_text(delivery.payload))}
    else:
        message = {**delivery.payload, "sent_at": _iso(now)}
    body = json.dumps(message, separators=(",", ":")).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-FiveX-Event": delivery.event,
        "X-FiveX-Delivery": str(delivery.delivery_id),
        "X-FiveX-Signature": signature(secret=secret, body=body),
    }
    return body, headers


def _clean(text: str, limit: int) -> str:
    """``text`` as the row keeps it: printable characters only (a NUL from a receiver's
    answer made PostgreSQL refuse the row, which then stayed queued, sent every minute)."""
    return "".join(ch if ch.isprintable() else " " for ch in text)[:limit]


def webhook_delivery_send(*, delivery_id: int, now: datetime | None = None) -> Outcome:
    """Try to send one delivery. Returns ``(status, retry_in_seconds)``: the row's new
    status, or ``"skipped"`` when it is final, not due yet, being sent by another worker
    or gone (its webhook removed). Safe to run twice.

    Three steps, so that no transaction or row lock is held while a receiver answers (a
    slow one held its row, and the sweep's second task for it waited on the lock, until
    every mail worker did): the row is claimed (an attempt counted, and a lease of
    ``LEASE_SECONDS`` in ``next_attempt_at`` that keeps the sweep and other tasks away),
    the POST is made with no transaction open (``webhook_http.post``: bounded in time),
    then its outcome is written. A worker that dies meanwhile leaves the row to the sweep
    once the lease is over."""
    now = now or timezone.now()
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update(of=("self",), skip_locked=True)
            .select_related("webhook", "webhook__user")
            .filter(pk=delivery_id)
            .first()
        )
        if delivery is None or delivery.status in (
            WebhookDelivery.Status.SENT,
            WebhookDelivery.Status.FAILED,
        ):
            return "skipped", 0
        if delivery.next_attempt_at is not None and delivery.next_attempt_at > now:
            return "skipped", (delivery.next_attempt_at - now).total_seconds()
        hook = delivery.webhook
        if not hook.user.is_active or (not hook.active and delivery.event != EVENT_PING):
            # Not the receiver's failure: not counted against the webhook.
            delivery.status = WebhookDelivery.Status.FAILED
            delivery.last_error = (
                "not sent: the account is deactivated" if not hook.user.is_active
                else "not sent: the webhook was switched off"
            )  # fmt: skip
            delivery.next_attempt_at = None
            delivery.save()
            return delivery.status, 0
        delivery.attempts += 1
        delivery.next_attempt_at = now + timedelta(seconds=LEASE_SECONDS)
        delivery.save(update_fields=["attempts", "next_attempt_at"])
        url, secret = hook.url, hook.secret

    body, headers = _request(delivery, secret, now, url)
    retry, error, answer = False, "", None
    try:
        answer = webhook_http.post(
            url=url, body=body, headers=headers, timeout=settings.WEBHOOKS_TIMEOUT
        )
    except webhook_http.ResolveLater as exc:  # the DNS may answer later: as a network error
        retry, error = True, f"network error: {exc}"
    except ValidationError as exc:  # the URL or its addresses refused now (no retry)
        error = f"refused: {exc}"
    except (OSError, http.client.HTTPException) as exc:
        retry, error = True, f"network error: {type(exc).__name__}: {exc}"
    except Exception as exc:  # noqa: BLE001 - anything else fails this delivery, once
        logger.warning("webhook delivery %s: %s", delivery_id, type(exc).__name__, exc_info=True)
        error = f"not sent: {type(exc).__name__}"
    return _outcome(delivery_id=delivery_id, now=now, answer=answer, retry=retry, error=error)


def _outcome(
    *, delivery_id: int, now: datetime, answer: webhook_http.Answer | None, retry: bool, error: str
) -> Outcome:
    """Write what one attempt gave (the claim's lease ends here)."""
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update(of=("self",))
            .select_related("webhook")
            .filter(pk=delivery_id)
            .first()
        )
        if delivery is None:  # the webhook was removed meanwhile
            return "skipped", 0
        hook = delivery.webhook
        if answer is not None:
            delivery.response_code = answer.status
            delivery.response_excerpt = _clean(answer.excerpt, 200)
            if 200 <= answer.status < 300:
                delivery.status, delivery.sent_at, delivery.last_error = (
                    WebhookDelivery.Status.SENT,
                    now,
                    "",
                )
                delivery.next_attempt_at = None
                delivery.save()
                if delivery.event != EVENT_PING or hook.failures_in_row:
                    PlayerWebhook.objects.filter(pk=hook.pk).update(failures_in_row=0)
                return delivery.status, 0
            retry = answer.status == 429 or answer.status >= 500
            error = f"HTTP {answer.status}" + (
                " (a redirect: not followed)" if 300 <= answer.status < 400 else ""
            )
        delivery.last_error = _clean(error, 300)
        if retry and delivery.attempts < MAX_ATTEMPTS:
            delay = RETRY_DELAYS[delivery.attempts - 1]
            delivery.status = WebhookDelivery.Status.RETRYING
            delivery.next_attempt_at = now + timedelta(seconds=delay)
            delivery.save()
            return delivery.status, delay
        delivery.status, delivery.next_attempt_at = WebhookDelivery.Status.FAILED, None
        delivery.save()
        _count_failure(hook, now)
        return delivery.status, 0


def _count_failure(hook: PlayerWebhook, now: datetime) -> None:
    """One more failed delivery in a row; at ``WEBHOOKS_DISABLE_AFTER`` the webhook goes
    off and its player is emailed, once (the page says so too)."""
    PlayerWebhook.objects.filter(pk=hook.pk).update(failures_in_row=F("failures_in_row") + 1)
    limit = settings.WEBHOOKS_DISABLE_AFTER
    switched = PlayerWebhook.objects.filter(
        pk=hook.pk, active=True, failures_in_row__gte=limit
    ).update(active=False, disabled_at=now)
    if not switched:
        return
    logger.warning(
        "webhook %s of user %s switched off after %d failures", hook.pk, hook.user_id, limit
    )
    user = hook.user
    if user.email:
        from games.services.outbox import outbox_enqueue

        outbox_enqueue(
            to=user.email,
            subject="Your FiveX webhook was switched off",
            body=(
                f"Hello {user.get_username()},\n\n"
                f"The last {limit} deliveries to your webhook failed, so FiveX stopped "
                "sending to it. See the last deliveries and turn it back on (save its URL "
                f"again) at {public_url('/account/api-tokens/')}\n"
            ),
            kind="webhook_off",
            key=f"webhook-off:{hook.pk}:{int(now.timestamp())}",
        )


def webhooks_due(*, now: datetime | None = None, limit: int = SWEEP_MAX) -> list[int]:
    """The beat's sweep: deliveries due for another attempt, and queued ones whose task
    never ran (a broker outage) after half a minute; deliveries older than ``KEEP_DAYS``
    are deleted. Returns the ids to send."""
    now = now or timezone.now()
    WebhookDelivery.objects.filter(created_at__lt=now - timedelta(days=KEEP_DAYS)).delete()
    due = WebhookDelivery.objects.filter(
        status=WebhookDelivery.Status.RETRYING, next_attempt_at__lte=now
    ).values_list("pk", flat=True)[:limit]
    # Queued for half a minute and not claimed (or its claim's lease over).
    lost = (
        WebhookDelivery.objects.filter(
            status=WebhookDelivery.Status.QUEUED, created_at__lte=now - timedelta(seconds=30)
        )
        .filter(Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now))
        .values_list("pk", flat=True)[:limit]
    )
    return sorted({*due, *lost})
