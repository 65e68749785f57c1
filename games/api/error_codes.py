"""Every code the API answers as ``error`` in ``{"error": code, "message": ...}``, with
its usual HTTP status and what it means: the one registry of them.

The schema's ``ErrorCodeEnum`` (the ``Error`` body's ``error``) is built from it, so a
client generated from the schema knows every code the server may answer. A code raised
anywhere in ``games/`` or ``tournaments/`` (an ``ApplicationError``'s ``default_code`` or
``code=...``, the exception handler's own, DRF's as the handler maps them) and not listed
here fails ``tests/games/test_api_error_codes.py``: register it here first.
"""

from __future__ import annotations

from typing import NamedTuple


class ErrorCode(NamedTuple):
    """One code: the status it comes with (the usual one: the message says more) and its
    meaning for a client's author."""

    code: str
    status: int
    meaning: str


ERROR_CODES: tuple[ErrorCode, ...] = (
    ErrorCode("invalid", 400, "a field or query parameter was refused: `fields` says why, each"),
    ErrorCode("parse_error", 400, "the body cannot be read (not JSON, a key twice, not UTF-8)"),
    ErrorCode("bad_request", 400, "a request refused before it is read (too many form fields, "
              "a Host header naming a site this server does not serve)"),
    ErrorCode("error", 400, "a refusal with no more specific code (the message says why)"),
    ErrorCode("not_authenticated", 401, "no token and no session: the endpoint needs an account"),
    ErrorCode("authentication_failed", 401, "the token is unknown, or its account inactive"),
    ErrorCode("forbidden", 403, "not yours to do: not the game's organizer (or a site "
              "administrator's tool), a wrong invitation, a session's post without its CSRF "
              "token"),
    ErrorCode("no_seat", 403, "you hold no seat in this game (never, or it was handed to "
              "another player: the message says which, and when): you cannot order, resign "
              "or leave in it, whatever its state"),
    ErrorCode("not_found", 404, "no such game, tournament, rating pool or endpoint (or one you "
              "may not see)"),
    ErrorCode("method_not_allowed", 405, "the endpoint does not take this HTTP method"),
    ErrorCode("not_acceptable", 406, "an answer other than JSON was asked for (`?format=`)"),
    ErrorCode("prompt_closed", 409, "the prompt the order (or an organizer's extension) "
              "named is no longer the open one; nothing was stored"),
    ErrorCode("not_your_turn", 409, "your seat is not asked for an order now"),
    ErrorCode("deadline_passed", 409, "the prompt's deadline (and grace) is over: its missing "
              "orders are being filled"),
    ErrorCode("resigned", 409, "the seat resigned: it orders no more, and cannot resign again"),
    ErrorCode("not_started", 409, "the game has not started yet"),
    ErrorCode("game_finished", 409, "the game is over"),
    ErrorCode("busy", 409, "another action holds the game: try again in a moment"),
    ErrorCode("conflict", 409, "the game's (or the tournament's) state forbids it: a "
              "tournament's result with its round not started, its game still being played "
              "or the tournament closed, say; the message says why"),
    ErrorCode("extensions_capped", 409, "an organizer's extension: this deadline was extended "
              "as often as allowed"),
    ErrorCode("already_extended", 409, "an organizer's extension: the deadline was extended "
              "since the `extensions` you sent (a retry); nothing more was changed"),
    ErrorCode("pauses_capped", 409, "an organizer's pause: the game was paused as often as a "
              "day allows; extend the deadline instead"),
    ErrorCode("nobody_to_remind", 409, "an organizer's reminder: every order is in, or the "
              "missing ones were reminded already"),
    ErrorCode("no_email", 409, "an organizer's reminder: the players to remind have no email "
              "address"),
    ErrorCode("offer_closed", 409, "a seat offer no longer stands: answered (accepting twice "
              "meets it), withdrawn, lapsed, or its game is over; nothing was changed"),
    ErrorCode("seat_held", 409, "a seat handover: the player offered (or handed) the seat "
              "holds a seat in this game already; nothing was changed"),
    ErrorCode("player_replaced", 409, "a seat offer: the player offered was replaced in this "
              "game before, and a replaced player does not come back (a site administrator "
              "may hand them a seat); nothing was changed"),
    ErrorCode("player_is_organizer", 409, "a seat offer: the player offered is the game's "
              "organizer, who may not take a seat of its players (a site administrator may "
              "hand it to them); nothing was changed"),
    ErrorCode("offered_another_seat", 409, "a seat offer: the player offered has another seat "
              "of this game offered to them, still waiting: withdraw that offer first; "
              "nothing was changed"),
    ErrorCode("already_done", 409, "a tournament: done already (an entry withdrawn, a "
              "player registered, a table's result entered, a round paired so or re-paired "
              "since the pairing sent, the tournament closed); nothing was changed"),
    ErrorCode("withdrawn_since_pairing", 409, "a tournament's round start: a player it places "
              "withdrew since it was paired; re-pair it first; nothing was started"),
    ErrorCode("pairing_warnings", 409, "a tournament's pairing by hand has warnings (the "
              "message lists them): send force true to pair so anyway; nothing was saved"),
    ErrorCode("invitations_capped", 409, "inviting players by name: the game's invitations "
              "(or the organizer's of the day) are used up (each emails someone); nobody was "
              "invited: share its link instead"),
    ErrorCode("too_large", 413, "the request body is over the size limit"),
    ErrorCode("unsupported_media_type", 415, "the body is neither JSON nor form-encoded (no "
              "endpoint takes files)"),
    ErrorCode("order_refused", 422, "the order itself is refused; the message says what is "
              "allowed"),
    ErrorCode("idempotency_key_reused", 422, "the Idempotency-Key came first with another "
              "request; nothing was created"),
    ErrorCode("pings_capped", 429, "a webhook's test ping: as many were sent this hour as an "
              "hour allows; try again later"),
    ErrorCode("offers_capped", 429, "a seat offer: the day's caps are reached (offers of "
              "the game, to one player in it, to one player from any game), or the player "
              "declined a seat in this game less than a day ago; Retry-After says when the "
              "next offer may be made; nothing was changed"),
    ErrorCode("messages_capped", 429, "table talk: as many messages at this table as a minute "
              "(or a day) allows were written; nothing was sent"),
    ErrorCode("throttled", 429, "over the rate limit: try again after Retry-After seconds"),
    ErrorCode("server_error", 500, "a bug, logged on the server: not the request's fault"),
    ErrorCode("unavailable", 503, "the database is unreachable for a moment: try again after "
              "Retry-After seconds"),
)  # fmt: skip

#: The codes as choices, ``(code, "<status>: <meaning>")``: the ``error`` field's, and
#: ``SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"]["ErrorCodeEnum"]`` (the same list, so the
#: enum keeps its name).
ERROR_CODE_CHOICES: tuple[tuple[str, str], ...] = tuple(
    (entry.code, f"{entry.status}: {entry.meaning}") for entry in ERROR_CODES
)
