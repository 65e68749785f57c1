"""A player's personal "your turn" webhook and its deliveries (imported by
``games.models``, so they are the games room's tables).

Rules live in ``games.services.webhooks``; these hold data only."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models


class PlayerWebhook(models.Model):
    """One URL a player's "order needed" events are POSTed to. ``secret`` signs each body
    (HMAC-SHA256): HMAC needs the secret itself, so it is stored, but shown to the player
    only when it is made. ``active`` goes off after too many failed deliveries in a row
    (``failures_in_row``); saving the URL again turns it back on."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhook"
    )
    url = models.CharField(max_length=500)
    secret = models.CharField(max_length=80)
    active = models.BooleanField(default=True)
    failures_in_row = models.PositiveIntegerField(default=0)
    disabled_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"webhook of {self.user}"


class WebhookDelivery(models.Model):
    """One event to POST to a webhook; sending is a visible state change, as the outbox's:
    queued -> sent, or retrying (network error, 5xx, 429; with back-off) -> failed (any
    other answer, or out of attempts). ``payload`` is the JSON body without its
    ``sent_at`` (set at each attempt); only a short excerpt of an answer is kept."""

    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        SENT = "sent", "sent"
        FAILED = "failed", "failed"
        RETRYING = "retrying", "retrying"

    webhook = models.ForeignKey(PlayerWebhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=32)
    # X-FiveX-Delivery: the same for every attempt, so a receiver drops a repeat.
    delivery_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    # "order_needed:<prompt id>:<seat id>": an event is queued once, however often asked.
    key = models.CharField(max_length=100, null=True, blank=True, unique=True)
    payload = models.JSONField(default=dict)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    attempts = models.PositiveSmallIntegerField(default=0)
    response_code = models.PositiveSmallIntegerField(null=True, blank=True)
    response_excerpt = models.CharField(max_length=200, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="games_webhook_due")]

    def __str__(self) -> str:
        return f"{self.event} to webhook {self.webhook_id} ({self.status})"
