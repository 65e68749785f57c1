"""Admin list of inbound mail: status and outcome at a glance, a retry action. The raw
message (it holds the seat's secret address) is not shown."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Q

from engine.words import counted
from games.admin import DeletableWhenDone, game_filter
from games.mail.models import InboundMail


@admin.register(InboundMail)
class InboundMailAdmin(DeletableWhenDone):
    list_display = (
        "id",
        "created_at",
        "status",
        "outcome",
        "source",
        "recipient",
        "seat",
        "size",
        "attempts",
        "dkim",
    )
    list_filter = ("status", "outcome", "source", game_filter("seat__game"))
    # Who sent it and which message it is; never its text (the raw message is not shown).
    search_fields = ("sender", "message_id", "outcome")
    exclude = ("raw", "recipient_digest", "error")
    # A refusal's words can quote the seat's hand ("you were not dealt QIN; you can pass:
    # BOUDICCA or ISABELLA") or the order it meant to send (a secrecy audit): shown only
    # once the game is over, as the admin's other pages show sealed orders.
    readonly_fields = [
        *(
            f.name
            for f in InboundMail._meta.fields
            if f.name not in ("raw", "recipient_digest", "error")
        ),
        "error_shown",
    ]
    actions = ["retry"]
    waiting_words = "still to be read (it may hold an order)"

    def done(self) -> Q:  # noqa: D102 - as the retention sweep reads it
        from games.services.retention import inbound_done

        return inbound_done()

    @admin.display(description="error")
    def error_shown(self, obj: InboundMail) -> str:
        if not obj.error:
            return ""
        if obj.outcome in ("receipt", "auto_reply") and "Subject:" in obj.error:
            # "read receipt or notice (Subject: Read: Re: [5X game 1] PASS ISABELLA)", an
            # out-of-office's "Subject: Automatic reply: Re: [5X game 1] PASS ISABELLA":
            # the receipt or automatic reply to an answer quotes its subject, the player's
            # own, which may be a sealed order (never shown here, as the outbox's answers:
            # a secrecy audit).
            head = obj.error.split("Subject:", 1)[0].rstrip(" (") or "an automatic reply, by its subject"
            return f"{head} (its subject is not shown: it may quote an order)"
        if obj.status == InboundMail.Status.REJECTED and obj.seat_id is not None:
            game = obj.seat.game
            if game.status not in (game.Status.FINISHED, game.Status.ABANDONED):
                return (
                    f"(refused: {obj.outcome or 'no code'}; the words the player got are "
                    "shown once the game is over: they can quote the seat's hand or order)"
                )
        return obj.error

    def has_add_permission(self, request: Any) -> bool:
        return False

    @admin.action(description="Process again (failed or received messages only)")
    def retry(self, request: Any, queryset: Any) -> None:
        from games.mail.processing import enqueue_processing

        count = 0
        for row in queryset.filter(status__in=["failed", "received"]):
            enqueue_processing(row.pk)
            count += 1
        self.message_user(request, f"{counted(count, 'message')} queued for processing.")
