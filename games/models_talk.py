"""Table talk: the messages a game's players (and its organizer) write to each other on
its talk page, read by whoever may see the game (imported by ``games.models``). Not part
of the game's log: the rules never read it. Rules live in ``games.services.talk``."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class GameMessage(models.Model):
    """One message at a game's table. ``client_key``: the form's own key (or an API
    client's Idempotency-Key), so a form sent twice stores one message. A removed message
    keeps its row (who removed it, and when) but its text is no longer shown or exported
    to others."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="messages_talk")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="table_talk"
    )
    # The author's seat when they wrote it ("" for an organizer without a seat).
    seat_name = models.CharField(max_length=64, blank=True)
    text = models.TextField()
    client_key = models.CharField(max_length=80, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    removed_at = models.DateTimeField(null=True, blank=True)
    removed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["game", "id"]
        indexes = [models.Index(fields=["game", "id"], name="games_talk_game_id")]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "author", "client_key"],
                condition=~models.Q(client_key=""),
                name="games_talk_once",
            )
        ]

    def __str__(self) -> str:
        return f"message {self.pk} at game {self.game_id}"


class TalkRead(models.Model):
    """How far a signed-in reader has read a game's table talk: the newest message id its
    talk page showed them (on any device), so that the game page and the games list say
    "new" for what came after, wherever they read it."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    last_id = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="games_talk_read_once")
        ]

    def __str__(self) -> str:
        return f"{self.user} read game {self.game_id}'s talk to {self.last_id}"
