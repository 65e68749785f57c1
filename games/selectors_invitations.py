"""Reads of the invitations to forming games by name (``games.services.invitations``)."""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef

from games.models import Game, GameInvitation, Seat


def invitations_waiting(*, user: Any) -> list[GameInvitation]:
    """The invitations ``user`` has not answered: forming games they were invited to,
    neither declined nor joined, newest first (with the game and who invited)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return []
    seated = Seat.objects.filter(game=OuterRef("game"), user=user).exclude(
        status=Seat.Status.REPLACED
    )
    return list(
        GameInvitation.objects.filter(
            user=user,
            declined_at__isnull=True,
            withdrawn_at__isnull=True,
            game__status=Game.Status.FORMING,
        )
        .exclude(Exists(seated))
        .select_related("game", "invited_by")
        .order_by("-created_at", "-id")[:50]
    )


def invitation_taken_back(*, game_id: int, user: Any) -> bool:
    """Whether the organizer of game ``game_id`` took back ``user``'s invitation to it (and
    has not invited them again): its invitation link is not theirs to be given."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return GameInvitation.objects.filter(
        game_id=game_id, user=user, withdrawn_at__isnull=False
    ).exists()


def game_invitations(*, game: Game) -> list[dict[str, Any]]:
    """Who was invited to ``game`` by name, in the order invited: ``name``, ``state``
    (joined, declined, taken back or waiting) and ``at`` (when invited)."""
    seated = set(
        Seat.objects.filter(game=game)
        .exclude(status=Seat.Status.REPLACED)
        .values_list("user_id", flat=True)
    )
    return [
        {
            "name": inv.user.username,
            "state": "joined"
            if inv.user_id in seated
            else "declined"
            if inv.declined_at
            else "taken back"
            if inv.withdrawn_at
            else "waiting",
            "at": inv.created_at,
        }
        for inv in GameInvitation.objects.filter(game=game).select_related("user").order_by("id")
    ]
