"""The webhook part of the account's API tokens page (``games:api_tokens``): set or
remove the URL, make a new signing secret (shown once), send a test ping. Each of these
counts against the player's ``API_WEBHOOK_RATE``, the budget the API's webhook calls count
against too (one budget per player, whichever way the changes come)."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from games.api.webhook_views import WebhookThrottle
from games.errors import ApplicationError
from games.selectors_webhooks import deliveries_recent, webhook_of
from games.services import webhooks

logger = logging.getLogger(__name__)

def webhook_context(*, user: Any) -> dict[str, Any]:
    """What the API tokens page shows of the player's webhook: the webhook (or None),
    its last deliveries, and how many failures in a row switch it off."""
    hook = webhook_of(user=user)
    return {
        "webhook": hook,
        "deliveries": deliveries_recent(webhook=hook) if hook is not None else [],
        "webhook_disable_after": settings.WEBHOOKS_DISABLE_AFTER,
    }


def _page(request: HttpRequest, *, status: int = 200, **extra: Any) -> HttpResponse:
    from games.models import ApiToken

    context = {
        "token": ApiToken.objects.filter(user=request.user).first(),
        "new_key": None,
        **webhook_context(user=request.user),
        **extra,
    }
    return render(request, "games/api_tokens.html", context, status=status)


def _show_once(request: HttpRequest, secret: str, said: str) -> HttpResponse:
    """A redirect (303) to the page, which shows the new secret once
    (``games.views.once``): a reload shows the page without it and changes nothing."""
    from django.urls import reverse

    from games.views import once

    path = reverse("games:api_tokens")
    return once.stash(request, name="webhook_secret", secret=secret, path=path, said=said)


ACTIONS = ("save", "regenerate", "remove", "ping")
_PERIODS = {1: "a second", 60: "a minute", 3600: "an hour", 86400: "a day"}


def _over_budget(request: HttpRequest) -> str | None:
    """Count this change against the player's webhook budget (``API_WEBHOOK_RATE``, the
    API's ``WebhookThrottle``: the same counter in the cache); the message to show when it
    is spent, else None."""
    throttle = WebhookThrottle()
    try:
        if throttle.allow_request(request, None):
            return None
    except Exception:  # noqa: BLE001 - a cache outage must not stop the page (nor count)
        logger.warning("webhook changes of user %s not counted: the cache is away", request.user.pk)
        return None
    minutes = max(1, -(-int(throttle.wait() or 0) // 60))
    return (
        f"You changed your webhook or sent test pings as often as allowed "
        f"({throttle.num_requests} {_PERIODS.get(throttle.duration, f'per {throttle.duration} s')}, "
        "on this page and over the API together): nothing was changed. Try again in "
        f"{minutes} minute{'s' if minutes != 1 else ''}."
    )


@never_cache  # a new secret is on the page once: no cache keeps it
@login_required
@require_POST
def webhook_action(request: HttpRequest) -> HttpResponse:
    """POST action=save (``url``; a new webhook's secret is shown once), regenerate (a
    new secret, shown once), remove, or ping (a test delivery)."""
    action = request.POST.get("action")
    user = request.user
    if action in ACTIONS and (spent := _over_budget(request)) is not None:
        return _page(
            request, status=429, webhook_error=spent, webhook_url_refused=action == "save",
            typed_url=str(request.POST.get("url", ""))[:1000],
        )  # fmt: skip
    try:
        if action == "save":
            url = str(request.POST.get("url", ""))[:1000]
            secret = webhooks.webhook_save(user=user, url=url)
            if secret is not None:
                return _show_once(request, secret, "Your webhook is set. Copy its signing secret now.")
            messages.success(request, "Your webhook's URL was saved.")
        elif action == "regenerate":
            secret = webhooks.webhook_secret_regenerate(user=user)
            return _show_once(request, secret, "A new signing secret was made. Copy it now.")
        elif action == "remove":
            if webhooks.webhook_remove(user=user):
                messages.success(request, "Your webhook was removed.")
            else:
                messages.info(request, "You had no webhook.")
        elif action == "ping":
            webhooks.webhook_ping(user=user)
            messages.success(request, "A test ping was queued: its delivery shows below in a moment.")
        else:
            messages.error(request, "Unknown action.")
    except ApplicationError as exc:
        # The form keeps what was typed; nothing was changed. A refused URL marks its
        # field (aria-invalid, described by the error); site.js puts the focus on it.
        return _page(
            request, status=400, webhook_error=exc.message, webhook_url_refused=action == "save",
            typed_url=str(request.POST.get("url", ""))[:1000],
        )  # fmt: skip
    return redirect("games:api_tokens")
