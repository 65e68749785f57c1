"""Players invited to a forming game by name (imported by ``games.models``): its organizer
names them, each is emailed the game's link (a private game's invitation link), sees the
invitation on the games page and may decline it. A rematch invites the old game's players
the same way. Rules live in ``games.services.invitations``."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class GameInvitation(models.Model):
    """One player invited to one game (once: inviting again changes nothing)."""

    # No index of its own: the unique constraint's index starts with it.
    game = models.ForeignKey(
        "games.Game", on_delete=models.CASCADE, related_name="invitations", db_index=False
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="game_invitations"
    )
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    declined_at = models.DateTimeField(null=True, blank=True)
    # Taken back by the organizer (a wrong name, a seat given to another): no longer shown
    # to the player; kept, as the day's count of invitations reads the rows made.
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["game", "id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="games_invitation_once")
        ]

    def __str__(self) -> str:
        return f"{self.user} invited to game {self.game_id}"
