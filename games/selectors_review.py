"""A game reviewed prompt by prompt: the table as it stood while a prompt was open, the
orders given to it and what its resolution did (the review pages, ``games.views.review``).

What a reader sees follows the rest of the site: once the game is over every hand is face
up (``selectors.engine_view``), every order of a resolved prompt is public (the export
already holds them all) and so is what a seat alone was told, headed with its name; while it runs, the table is the engine's public view
(``Ruleset.view(state, None)``), the events are the public ones and no order text is
shown (some orders are never revealed by the rules: a leader passed in 5X's draft),
except to a seat's own player: they see the seat's view then (its hand as it was, its
private events) and its own order, as the game page showed them at the time. The open
prompt of a game ended early was never resolved: its orders stay sealed."""

from __future__ import annotations

from typing import Any

from engine.base import events_for
from games.models import Game, LogEntry, Prompt, SealedOrder, StateSnapshot
from games.presentation import event_text, history_heading, prompt_heading
from games.selectors import OVER, current_state, engine_view


def review_steps(*, game: Game) -> list[dict[str, Any]]:
    """The game's resolved prompts in order: ``number`` and ``heading`` (as "What
    happened" heads them: "Round 2 · play (prompt 5)")."""
    rows = (
        Prompt.objects.filter(game=game, status=Prompt.Status.RESOLVED)
        .order_by("number")
        .values_list("number", "round", "phase", "pending")
    )
    return [
        {
            "number": number,
            "heading": history_heading(
                ruleset=game.ruleset, round_number=rnd, phase=phase, number=number, pending=pending
            ),
        }
        for number, rnd, phase, pending in rows
    ]


def _state_at(game: Game, number: int) -> dict[str, Any]:
    snapshot = StateSnapshot.objects.filter(game=game, prompt_number=number).first()
    return snapshot.state if snapshot is not None else {}


def _table(game: Game, state: dict[str, Any], seat_name: str | None = None) -> dict[str, Any]:
    """The engine's view of ``state`` as the review shows it: face up once the game is
    over, the public view (or ``seat_name``'s own) while it runs."""
    if not state:
        return {}
    view = engine_view(game=game, state=state, seat_name=seat_name)
    view.pop("orders", None)  # the seat's legal orders then: nobody acts in a review
    return view


def _orders(game: Game, prompt: Prompt, seat_name: str | None = None) -> list[dict[str, Any]]:
    """The orders the resolution of ``prompt`` took (``seat_name``'s alone, if given), in
    seating order of the prompt's pending seats, each with how it came (and, for a
    default order, why)."""
    orders = SealedOrder.objects.filter(prompt=prompt, is_current=True)
    if seat_name is not None:
        orders = orders.filter(seat_name=seat_name)
    rows = {
        o.seat_name: o
        for o in orders.only("seat_name", "text", "source", "submitted_at")
    }
    reasons: dict[str, str] = {}
    if any(o.source == SealedOrder.Source.DEFAULT for o in rows.values()):
        for payload in LogEntry.objects.filter(
            game=game, kind="nmr_applied", payload__prompt=prompt.number
        ).values_list("payload", flat=True):
            reasons[str(payload.get("seat"))] = str(payload.get("reason") or "")
    names = [n for n in prompt.pending if n in rows] + sorted(
        n for n in rows if n not in prompt.pending
    )
    return [
        {
            "seat": name,
            "text": rows[name].text,
            "source": rows[name].source,
            "reason": reasons.get(name, ""),
            "submitted_at": rows[name].submitted_at,
        }
        for name in names
    ]


def review_step(*, game: Game, number: int, seat_name: str | None = None) -> dict[str, Any] | None:
    """Resolved prompt ``number`` of the game, or None (no such resolved prompt):
    ``prompt``, ``heading``, ``table`` (the engine's view of the state while it was
    open), ``not_asked`` (its seats the prompt did not ask), ``orders`` (every seat's
    once the game is over; while it runs, ``seat_name``'s own only, None without one),
    ``own`` (the seat whose view and order a game in progress shows, or None) and
    ``events`` (texts). ``seat_name``: the reader's seat in the game (the caller checks
    it is theirs); once the game is over it changes nothing."""
    prompt = Prompt.objects.filter(game=game, number=number, status=Prompt.Status.RESOLVED).first()
    if prompt is None:
        return None
    over = game.status in OVER
    own = None if over else seat_name
    board = None
    if game.ruleset == "6x5":
        # A win's text names the hexes of the goal, on the board the resolution left.
        after = _state_at(game, number + 1)
        board = _table(game, after).get("board") if after else None
    table = _table(game, _state_at(game, number), own)
    if over:
        orders: list[dict[str, Any]] | None = _orders(game, prompt)
    elif own is not None:
        orders = _orders(game, prompt, own)
    else:
        orders = None
    return {
        "prompt": prompt,
        "heading": prompt_heading(ruleset=game.ruleset, prompt=prompt),
        "table": table,
        # Seats at the table a prompt of several did not ask (5X's explorers play later);
        # not said of a game that asks one seat a prompt (a turn: 6x5, 4X Dice).
        "not_asked": [name for name in (table.get("players") or {}) if name not in prompt.pending]
        if len(prompt.pending) > 1
        else [],
        "orders": orders,
        "own": own,
        "events": [
            (_private(e) if over else "") + event_text(ruleset=game.ruleset, text=e.get("text", ""), board=board)
            for e in (prompt.events or [] if over else events_for(prompt.events or [], own))
        ],
    }


def _private(event: dict[str, Any]) -> str:
    """How a game over's review heads an event only some seats were told ("ann, told
    alone: you passed ..."); "" for a public one."""
    to = event.get("to")
    if not to:
        return ""
    return f"{', '.join(str(n) for n in to)}, told alone: "


def review_end(*, game: Game) -> dict[str, Any]:
    """The table as the game ended (a game over: its final state, face up)."""
    return {"table": _table(game, current_state(game=game))}


def feed_entries(*, game: Game, limit: int = 30) -> list[dict[str, Any]]:
    """The game's latest ``limit`` resolved prompts, newest first, as its feed gives them
    (``games.views.feed``): ``number``, ``heading``, ``resolved_at`` and ``events`` (the
    public ones, in words; a seat's own are never in a feed, which nobody signs in to
    read)."""
    rows = (
        Prompt.objects.filter(game=game, status=Prompt.Status.RESOLVED)
        .order_by("-number")
        .values_list("number", "round", "phase", "pending", "events", "resolved_at")[:limit]
    )
    return [
        {
            "number": number,
            "heading": history_heading(
                ruleset=game.ruleset, round_number=rnd, phase=phase, number=number, pending=pending
            ),
            "resolved_at": resolved_at,
            "events": [
                event_text(ruleset=game.ruleset, text=e.get("text", ""))
                for e in events_for(events or [], None)
            ],
        }
        for number, rnd, phase, pending, events, resolved_at in rows
    ]
