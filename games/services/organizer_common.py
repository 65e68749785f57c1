"""What the organizer tools share (``games.services.organizer``, and the seat handing of
``games.services.handover``): who may use them (``_check_organizer``), who acted, as the
log entry and the players' notice say it (``acting``, ``who_acted``), the reason typed as
a notice gives it, the open prompt they act on, the day caps on what emails players, and
a cheap unique suffix for the notices' keys (``log_count``).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from games.errors import GameStateError, PermissionDenied
from games.models import Game, Prompt


def _check_organizer(game: Game, by: Any, *, changes: bool = True) -> None:
    """The game's organizer, or staff (site administrators stand in for any organizer);
    for a tool that ``changes`` the game (every tool but the reminders), not an organizer
    who plays in a tournament's game (``selectors.may_change_game``)."""
    from games.selectors import PLAYS_AT_THE_TABLE, may_change_game, may_organize

    if not may_organize(game=game, user=by):
        raise PermissionDenied("Only the organizer of this game can do that.")
    if changes and not may_change_game(game=game, user=by):
        raise PermissionDenied(PLAYS_AT_THE_TABLE)


def locked_forming(*, game: Game, by: Any, refusal: str) -> Game:
    """``game`` locked (the caller holds a transaction), checked as ``by``'s to change and
    still forming; else GameStateError(``refusal``) or PermissionDenied."""
    from games.services.locking import lock_game

    game = lock_game(game_id=game.pk)
    _check_organizer(game, by)
    if game.status != Game.Status.FORMING:
        raise GameStateError(refusal)
    return game


def _open_prompt(game: Game) -> Prompt:
    from games.services.resolution import open_prompt_locked

    prompt = open_prompt_locked(game=game)
    if prompt is None:
        raise GameStateError("No prompt is open.")
    return prompt


def _clean_reason(reason: str) -> str:
    return (reason or "").strip()[:500]


def acting(*, game: Game, by: Any) -> dict[str, str]:
    """Who did an organizer action, for its log entry: ``{"by": name, "as": "organizer"
    | "staff"}`` (site administrators may act in any game, one they play in too, and are
    not the organizer). Entries written before carry neither key: the organizer's."""
    role = "organizer" if getattr(by, "pk", None) == game.organizer_id else "staff"
    return {"by": str(by), "as": role}


def who_acted(*, game: Game, by: Any) -> str:
    """Who did an organizer action, as a players' notice says it: "the organizer" (its
    wording from the start), or "a site administrator (name)"."""
    if acting(game=game, by=by)["as"] == "staff":
        return f"a site administrator ({by})"
    return "the organizer"


def _reason_said(reason: str, *, staff: bool = False) -> str:
    """The reason typed as the players' notice gives it (one line), or ""."""
    why = " ".join(_clean_reason(reason).split()).rstrip(".")
    whose = "The site administrator's" if staff else "The organizer's"
    return f" {whose} reason: {why}." if why else ""


def _day_cap_reached(times: list, cap: int):  # noqa: ANN202 - a datetime or None
    """When a capped action (``times``: the last day's, oldest first) may be done again:
    once the oldest counted is a day old; None while under ``cap``."""
    if len(times) < cap:
        return None
    return times[len(times) - cap] + timedelta(days=1)


def log_count(game: Game) -> int:
    """How many log entries the game has (a cheap unique suffix for notice keys)."""
    return game.log.count()
