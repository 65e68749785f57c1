"""Shared helpers of the tournament services: the audit log, locking and errors."""

from __future__ import annotations

from typing import Any

from django.db import connection

from games.errors import ApplicationError
from tournaments.models import Tournament, TournamentLog


class TournamentError(ApplicationError):
    """A tournament action that cannot be done now; the message says why."""

    default_code = "conflict"


def is_league_administrator(user: Any) -> bool:
    """Staff, or a user given the "can add registration" permission in the admin: may
    enter other players and rate tournaments in the league's shared rating pools."""
    return bool(
        user is not None
        and getattr(user, "is_authenticated", False)
        and (user.is_staff or user.has_perm("tournaments.add_registration"))
    )


#: The rating pool column's size.
OWN_POOL_MAX = 64


def own_rating_pool(*, organizer: Any, pool: str) -> str:
    """The rating pool a tournament of ``organizer`` is rated in when it asks for
    ``pool``: the pool itself for a league administrator; otherwise a pool of the
    organizer's own (``ann:5x``: usernames hold no colon; ``#42:5x`` for a name too long
    to fit), so that a tournament anyone can create, with players anyone can sign up,
    cannot move the league's ratings."""
    if is_league_administrator(organizer):
        return pool
    own = f"{organizer.username}:{pool}"
    if len(own) > OWN_POOL_MAX:
        # Never cut: a cut name could lose its colon (and pass for a league pool) or be
        # shared by two users whose names start alike. "#<user id>" is nobody's name
        # (usernames hold no "#") and no league pool's (their names are plain words).
        own = f"#{organizer.pk}:{pool}"
    return own


def lock_tournament(*, tournament_id: int) -> Tournament:
    """Lock the tournament's row for the rest of the transaction and return it fresh."""
    if not connection.in_atomic_block:
        raise RuntimeError("lock_tournament must run inside transaction.atomic()")
    try:
        return Tournament.objects.select_for_update().get(pk=tournament_id)
    except Tournament.DoesNotExist:
        from games.errors import NotFound

        raise NotFound("No such tournament.") from None


def log_add(*, tournament: Tournament, kind: str, actor: Any = None, payload: dict[str, Any]) -> TournamentLog:
    """Append an entry to the tournament's audit log (caller holds the row lock)."""
    last = TournamentLog.objects.filter(tournament=tournament).order_by("-seq").first()
    return TournamentLog.objects.create(
        tournament=tournament,
        seq=1 if last is None else last.seq + 1,
        kind=kind,
        actor=actor if getattr(actor, "pk", None) else None,
        payload=payload,
    )


def require_organizer(*, tournament: Tournament, user: Any) -> None:
    """Raise PermissionDenied unless ``user`` organizes the tournament (or is staff)."""
    from games.errors import PermissionDenied
    from tournaments.selectors import may_manage

    if not may_manage(tournament=tournament, user=user):
        raise PermissionDenied("Only the tournament's organizer can do that.")
