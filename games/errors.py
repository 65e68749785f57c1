"""The application errors of the games room.

Every error a service raises on purpose is an :class:`ApplicationError`: its
``message`` is safe to show to the acting player (it never carries another seat's
hidden information) and its ``code`` is a short machine-readable string. Anything
else that escapes a service is a bug: the caller logs it and shows a generic message.
"""

from __future__ import annotations

import re
from datetime import datetime

from games.notes import BIDI_CONTROLS

# A message may quote what a player sent (a refused order's words): a direction override
# in it would turn the rest of the line round wherever it is shown (API, page, email).
_BIDI_RE = re.compile(f"[{BIDI_CONTROLS}]")


def without_bidi(text: str) -> str:
    """``text`` without bidi controls (a message that may quote a client's words)."""
    return _BIDI_RE.sub("", text)


class ApplicationError(Exception):
    """Base class: a user-facing ``message`` and a machine ``code``."""

    default_code = "error"

    def __init__(self, message: str, *, code: str | None = None, field: str | None = None) -> None:
        message = without_bidi(str(message))
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code
        # The input the message is about, when it is one (a form shows it under that field).
        self.field = field

    def __str__(self) -> str:
        return self.message


class OrderRefused(ApplicationError):
    """An illegal or unparseable order; the message is the engine's reason."""

    default_code = "order_refused"


class NotPending(ApplicationError):
    """The seat is not asked for an order now, or the prompt is closed."""

    default_code = "not_your_turn"


class DeadlinePassed(NotPending):
    """The prompt's deadline (plus grace) is over: its missing orders are being filled."""

    default_code = "deadline_passed"


class GameStateError(ApplicationError):
    """The game's status does not allow the action (finished, not started, paused, full...)."""

    default_code = "conflict"


class PermissionDenied(ApplicationError):
    """Not your seat, not the organizer, wrong invitation."""

    default_code = "forbidden"


class NoSeat(PermissionDenied):
    """The caller holds no seat in the game - never did, or it was handed to another
    player (``selectors.no_seat_reason`` says which) - so may not order, resign or leave
    in it, whatever the game's state: a code of its own, not the organizer's ``forbidden``."""

    default_code = "no_seat"


class NotFound(ApplicationError):
    """No such game, seat or prompt (or not visible to the caller)."""

    default_code = "not_found"


class ValidationError(ApplicationError):
    """Bad input to a service (bad option, bad number of seats, bad deadline policy)."""

    default_code = "invalid"


class KeyReused(ApplicationError):
    """An idempotency key sent again with another request than the one it was first
    sent with (the IETF Idempotency-Key draft's 422)."""

    default_code = "idempotency_key_reused"


class GameBusy(GameStateError):
    """The game is locked by another action for too long; try again in a moment."""

    default_code = "busy"


class PingsCapped(ApplicationError):
    """A player's webhook was sent as many test pings as an hour allows."""

    default_code = "pings_capped"


class MessagesCapped(ApplicationError):
    """Table talk: as many messages at one table as a minute (or a day) allows.
    ``retry_at``: when the next one may be written."""

    default_code = "messages_capped"

    def __init__(self, message: str, *, retry_at: datetime | None = None) -> None:
        super().__init__(message)
        self.retry_at = retry_at


class HandoverRefused(ApplicationError):
    """A seat handover the game's seats or history refuse, whatever the request says: the
    player offered holds a seat there (``SeatHeld``), was replaced there before, is the
    organizer, or is offered another of its seats. Each has its own ``code``
    (``games.services.handover``); a conflict with the game, not bad input."""

    default_code = "conflict"


class SeatHeld(HandoverRefused):
    """The player a seat is offered or handed to holds a seat in that game already."""

    default_code = "seat_held"


class OffersCapped(ApplicationError):
    """A seat offer refused for now: the day's caps on offers are reached, or the player
    declined a seat in the game less than a day ago. ``retry_at``: when the next offer
    may be made."""

    default_code = "offers_capped"

    def __init__(self, message: str, *, retry_at: datetime | None = None, code: str | None = None) -> None:
        super().__init__(message, code=code)
        self.retry_at = retry_at
