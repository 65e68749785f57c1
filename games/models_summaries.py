"""The daily summaries of a player's games (imported by ``games.models``): one row per
player and day, written in the transaction that queues the summary's email (under a lock
of the player's settings row), so two workers (or a beat run twice) never send two for one
day. Rules live in ``games.services.summaries``."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class TurnSummary(models.Model):
    """One player's daily summary of one day (the day in the player's time zone then,
    ``time_zone``: a player who moves across the date line may have a summary of the same
    date in each zone, written a day apart; never two whose ``until`` fall on one date of
    the zone it has when the next is due)."""

    # No index of its own: the unique constraint's index starts with it.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="turn_summaries",
        db_index=False,
    )  # fmt: skip
    day = models.DateField()
    time_zone = models.CharField(max_length=64, blank=True, default="")  # "": before it was kept
    # What it covers: the prompts resolved up to ``until``; ``covered`` is, per seat id,
    # the number of the last resolved prompt told (the next summary starts after it, even
    # for a prompt whose resolution committed after this summary was written).
    until = models.DateTimeField()
    covered = models.JSONField(default=dict, blank=True)
    # The email (null: nothing to tell that day, none sent; or pruned since).
    message = models.ForeignKey(
        "games.OutboxMessage", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "day", "time_zone"], name="games_turn_summary_one_a_day"
            )
        ]

    def __str__(self) -> str:
        return f"summary of {self.day} for {self.user_id}"
