"""Admin pages of the players' webhooks and their deliveries (registered by
``games.admin``): read-only, as the site writes them (a player sets a webhook on their
account page or over the API). The signing secret is never shown: not in a list, a detail
page or a search, and no lookup reaches it (``ListedFiltersOnly``)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin

from games.admin import ReadOnlyAdmin
from games.models_webhooks import PlayerWebhook, WebhookDelivery


@admin.register(PlayerWebhook)
class PlayerWebhookAdmin(ReadOnlyAdmin):
    """A player's webhook: where it points, whether it is on, how many deliveries in a row
    failed. The secret signs every delivery: anyone who reads it can forge them."""

    list_display = ("user", "url", "active", "failures_in_row", "disabled_at", "updated")
    list_filter = ("active",)
    list_select_related = ("user",)
    search_fields = ("user__username", "url")
    ordering = ("-id",)
    fields = ("user", "url", "active", "failures_in_row", "disabled_at", "created", "updated")
    readonly_fields = fields

    def get_queryset(self, request: Any) -> Any:
        return super().get_queryset(request).defer("secret")


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyAdmin):
    """One event POSTed (or to be) to a webhook: its status, attempts and what the
    receiver answered (the first 200 characters)."""

    list_display = (
        "id", "player", "event", "status", "attempts", "response_code", "response_excerpt",
        "last_error", "created_at", "next_attempt_at", "sent_at",
    )  # fmt: skip
    list_filter = ("status", "event")
    list_select_related = ("webhook__user",)
    search_fields = ("webhook__user__username", "webhook__url")
    ordering = ("-id",)
    fields = (
        "player", "url", "event", "delivery_id", "key", "payload", "status", "attempts",
        "response_code", "response_excerpt", "last_error", "created_at", "next_attempt_at",
        "sent_at",
    )  # fmt: skip
    readonly_fields = fields

    def get_queryset(self, request: Any) -> Any:
        return super().get_queryset(request).select_related("webhook__user").defer("webhook__secret")

    @admin.display(description="player", ordering="webhook__user__username")
    def player(self, obj: WebhookDelivery) -> str:
        return str(obj.webhook.user)

    @admin.display(description="URL")
    def url(self, obj: WebhookDelivery) -> str:
        return obj.webhook.url
