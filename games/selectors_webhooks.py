"""Reads of the players' webhooks (written by games.services.webhooks)."""

from __future__ import annotations

from typing import Any

from games.models_webhooks import PlayerWebhook, WebhookDelivery

RECENT_DELIVERIES = 10


def webhook_of(*, user: Any) -> PlayerWebhook | None:
    """The player's webhook, None when it has none."""
    return PlayerWebhook.objects.filter(user=user).first()


def deliveries_recent(*, webhook: PlayerWebhook, limit: int = RECENT_DELIVERIES) -> list[WebhookDelivery]:
    """The webhook's last ``limit`` deliveries, newest first."""
    return list(WebhookDelivery.objects.filter(webhook=webhook).order_by("-created_at", "-id")[:limit])
