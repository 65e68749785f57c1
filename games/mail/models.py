"""The inbound mail journal: every message that reaches an entry point is stored first."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class InboundMail(models.Model):
    """One inbound message, stored (raw) before any processing so a crash never loses an
    order. ``status`` moves received -> processed | rejected | ignored, or -> failed (a
    system error; retried) -> processed | rejected | ignored."""

    class Status(models.TextChoices):
        RECEIVED = "received", "received"
        PROCESSED = "processed", "processed"
        REJECTED = "rejected", "rejected"
        FAILED = "failed", "failed"
        IGNORED = "ignored", "ignored"

    class Source(models.TextChoices):
        SMTP = "smtp", "SMTP server"
        PIPE = "pipe", "MTA pipe"
        WEBHOOK = "webhook", "ESP webhook"
        OTHER = "other", "other"

    raw = models.BinaryField(
        help_text="The message as received; only its header section when it was oversize."
    )
    size = models.PositiveIntegerField(default=0, help_text="Full size in bytes.")
    truncated = models.BooleanField(default=False)
    message_id = models.CharField(max_length=998, blank=True)
    recipient = models.CharField(
        max_length=320, blank=True, help_text="Envelope recipient, redacted (the token is secret)."
    )
    recipient_digest = models.CharField(max_length=64, blank=True)
    sender = models.CharField(max_length=320, blank=True, help_text="Address in From:.")
    envelope_sender = models.CharField(
        max_length=320, blank=True, help_text='MAIL FROM: "<>" is the null sender, "" unknown.'
    )
    seat = models.ForeignKey(
        "games.Seat", null=True, blank=True, on_delete=models.SET_NULL, related_name="inbound_mail"
    )
    # The account whose verified address sent it (From: or MAIL FROM), decided when it
    # was stored: the account's data download lists it by this, never by an address that
    # may have changed hands since.
    sender_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="inbound_mail_sent", db_index=False,  # mail_inbound_sender_user, built concurrently
    )
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.OTHER)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RECEIVED)
    outcome = models.CharField(max_length=32, blank=True, help_text="Machine code of the result.")
    error = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    dkim = models.CharField(max_length=32, blank=True, help_text="DKIM result, when reported.")
    created_at = models.DateTimeField(auto_now_add=True)
    processed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # The same message delivered twice to the same address is processed once.
            models.UniqueConstraint(
                fields=["message_id", "recipient_digest"], name="mail_inbound_once"
            ),
        ]
        indexes = [
            models.Index(fields=["status", "created_at"], name="mail_inbound_status"),
            # The account's data download and closing read the messages it sent by it.
            models.Index(fields=["sender_user"], name="mail_inbound_sender_user"),
        ]

    def __str__(self) -> str:
        return f"InboundMail #{self.pk} {self.status} to {self.recipient}"
