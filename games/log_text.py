"""The game log's entries said in a sentence (the log page, above each entry's recorded
fields): ``log_summary``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from games.presentation import (
    and_list,
    duration_words,
    hours_length,
    local_time,
    one_line,
    options_text,
    prompt_stage,
    ranking_words,
    ruleset_name,
)
from games.rules_text import FORCED_NOTES

_SOURCE_WORDS = {"web": "on the web", "api": "through the API", "email": "by email"}
_DEFAULT_REASONS = {
    "deadline": "no order before the deadline",
    "resigned": "the seat has resigned",
    "refused": "the engine refused the stored order",
}


def _names(value: Any) -> str:
    return ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)


def _when(value: Any) -> str:
    """A moment of a payload (ISO 8601) in the reader's time zone, or as it is."""
    try:
        return local_time(datetime.fromisoformat(str(value)))
    except (TypeError, ValueError):
        return str(value)


def _because(payload: dict[str, Any]) -> str:
    reason = str(payload.get("reason") or "").strip()
    return f" ({reason})" if reason else ""


def _actor(payload: dict[str, Any], *, start: bool = True) -> str:
    """Who did an organizer action, as the log's summary says it: "The organizer (ann)",
    "A site administrator (root)"; "The organizer" for an entry written before the log
    said who (``start``: at the start of a sentence)."""
    by = payload.get("by")
    if payload.get("as") == "staff":
        said = f"a site administrator ({by})"
    else:
        said = f"the organizer ({by})" if by else "the organizer"
    return said[:1].upper() + said[1:] if start else said


_OFFER_LAPSED = {
    "superseded": "{actor} offered the seat to another player",
    "seat_taken": "{actor} handed the seat to another player",
    "player_seated": "the player offered it took another seat",
    "expired": "nobody answered it in the time allowed",
    "game_ended": "{actor} ended the game",
    "game_over": "the game is over",
}


def _created(ruleset: str, p: dict[str, Any], organizer: str) -> str:
    """The game_created entry for a player: who made the game, what it is, its options
    and its deadlines in words (it read "A 3-seat game of 5X was created (public); each
    prompt's deadline is 48 hours after it opens", the options in the details alone)."""
    game_id = str(p.get("ruleset") or ruleset)
    name = one_line(p.get("name") or "")
    what = [f"“{name}”"] if name else []
    what.append(f"{ruleset_name(game_id)} for {p.get('seats')} players")
    what.append("private" if p.get("private") else "public")
    options = options_text(ruleset=game_id, options=p.get("options"))
    # "org created the game “Log”: 5X for 3 players, public, ..."
    titled = f"the game {what.pop(0)}" if name else "the game"
    said = f"{organizer} created {titled}" if organizer else f"{titled[:1].upper()}{titled[1:]} was created"
    said += ": " + ", ".join(what)
    if options:
        said += f", with {and_list(options.split(', '))}"
    hours = p.get("deadline_hours")
    if not hours:
        return said + ". No deadlines: the game waits for every order."
    try:
        said += f". Players have {duration_words(float(hours) * 3600)} for each order"
    except (TypeError, ValueError):
        return said + "."
    grace = p.get("grace_minutes") or 0
    if grace:
        said += f", and {grace} minute{'s' if grace != 1 else ''}' grace"
    quiet = p.get("quiet_hours")
    if isinstance(quiet, list) and len(quiet) == 2 and None not in quiet:
        start, end = quiet
        zone = p.get("quiet_hours_time_zone") or "UTC"
        said += (
            f"; a deadline falling between {start:02d}:00 and {end:02d}:00 ({zone}) moves to"
            f" {end:02d}:00"
        )
    away = p.get("away_days") or 0
    if away:
        said += (
            f"; a deadline waits up to {away} day{'s' if away != 1 else ''} in all for a player"
            " who is away"
        )
    return said + "."


def _unset(value: Any) -> bool:
    """A setting not set: none, empty, zero (not False: a yes/no is said either way), or
    a pair of nones (quiet hours)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, list | tuple) and value:
        return all(v is None for v in value)
    return value is None or value == 0 or value in ("", [], {}, ())


def log_details(*, kind: str, payload: Any) -> Any:
    """A log entry's recorded fields as the log page lists them under its sentence: the
    game's creation without the settings it did not set (quiet hours as two empty boxes,
    "Warnings none", "Grace minutes 0"; the sentence says there are none). The entry
    itself, its hash and the export keep every field."""
    if kind != "game_created" or not isinstance(payload, dict):
        return payload
    return {key: value for key, value in payload.items() if not _unset(value)}


def log_summary(*, ruleset: str, kind: str, payload: Any, organizer: str = "") -> str:
    """A log entry in one sentence, above its details on the log page; from the payload
    as the reader may see it. "" for ``orders_revealed`` (its kind says it, its details
    list the orders, the page's head says why others' are commitments) and for a kind it
    does not know (the details say it all). ``organizer``: who made the game, for its
    first entry (its payload does not say)."""
    p = payload if isinstance(payload, dict) else {}
    seat, number = p.get("seat"), p.get("prompt")
    source = _SOURCE_WORDS.get(str(p.get("source")), "")
    if kind == "game_created":
        return _created(ruleset, p, organizer)
    if kind == "seat_joined":
        return f"{seat} took a seat."
    if kind == "seat_left":
        return f"{seat} left before the start."
    if kind == "game_started":
        how = (
            "as the organizer fixed it" if p.get("seating_fixed") else "drawn with the game's seed"
        )
        return (
            f"The game started. Seating: {_names(p.get('seating') or [])} ({how}). The seed"
            " and the set-up stay sealed by their commitments until the game ends."
        )
    if kind == "order_received":
        return f"{seat} sealed an order for decision {number} {source}.".replace(" .", ".")
    if kind == "order_replaced":
        return f"{seat} replaced their order for decision {number} {source}.".replace(" .", ".")
    if kind == "nmr_applied":
        why = _DEFAULT_REASONS.get(str(p.get("reason")), "")
        return f"{seat}'s default order was entered for decision {number}" + (
            f" ({why})." if why else "."
        )
    if kind == "order_forced":
        note = FORCED_NOTES.get(ruleset)
        if note:
            return f"{seat}'s order for decision {number} was entered for it: {note}."
        return f"{seat}'s only legal order for decision {number} was entered for it."
    if kind == "prompt_resolved":
        following = p.get("next")
        if isinstance(following, dict):
            stage = prompt_stage(
                ruleset=ruleset,
                round_number=following.get("round"),
                phase=str(following.get("phase")),
            )
            return (
                f"Decision {number} was resolved; decision {following.get('prompt')} ({stage}) opened."
            )
        return f"Decision {number} was resolved; it ended the game."
    if kind == "game_finished":
        places = ranking_words(p.get("ranking") if isinstance(p.get("ranking"), list) else [])
        return (
            "The game is over"
            + (f": {places}" if places else "")
            + (". The seed and every order are revealed.")
        )
    if kind == "game_ended":
        return f"{_actor(p)} ended the game{_because(p)}; it has no ranking."
    if kind == "game_walkover":
        return (
            f"Every player but {p.get('winner')} resigned: {p.get('winner')} wins. The seed and the set-up are "
            "revealed; orders sealed for the decision that was open stay sealed."
        )
    if kind == "deadline_extended":
        return f"{_actor(p)} extended decision {number}'s deadline by {hours_length(p.get('hours'))}{_because(p)}."
    if kind == "deadline_held":
        away = p.get("away") if isinstance(p.get("away"), dict) else {}
        who = and_list(list(away)) or "a player"
        return (
            f"Decision {number}'s deadline waits for {who}, away: it moved to "
            f"{_when(p.get('deadline'))} (the game waits up to {p.get('away_days')} days a player)."
        )
    if kind == "talk_changed":
        return f"{_actor(p)} {'opened' if p.get('open') else 'closed'} table talk to the players."
    if kind == "game_paused":
        return f"{_actor(p)} paused the game at decision {number}{_because(p)}."
    if kind == "game_resumed":
        return f"{_actor(p)} resumed the game" + (f" at decision {number}" if number else "") + "."
    if kind == "seat_replaced":
        if "to" not in p:  # written before the log named the holders
            return f"Seat {seat} was handed to another player."
        if "offer" in p:
            return (
                f"Seat {seat} was handed from {p.get('from')} to {p.get('to')}, who accepted "
                f"{_actor(p, start=False)}'s offer."
            )
        return f"{_actor(p)} handed seat {seat} from {p.get('from')} to {p.get('to')}."
    if kind == "seat_offered":
        return f"{_actor(p)} offered seat {seat} to a player; nothing changes unless they accept."
    if kind == "seat_offer_withdrawn":
        lapsed = _OFFER_LAPSED.get(str(p.get("why")))
        if lapsed is None:
            return f"{_actor(p)} withdrew the offer of seat {seat}."
        return f"The offer of seat {seat} lapsed: {lapsed.format(actor=_actor(p, start=False))}."
    if kind == "seat_offer_declined":
        return f"The player offered seat {seat} declined it."
    if kind == "seat_resigned":
        return f"{seat} resigned; default orders are entered for the seat from now on."
    if kind == "reminder_sent":
        seats = p.get("seats") if isinstance(p.get("seats"), list) else []
        return f"{_actor(p)} reminded {and_list(seats)} to send an order for decision {number}."
    if kind == "privacy_changed":
        return f"{_actor(p)} made the game {'private' if p.get('private') else 'public'}."
    return ""
