"""Hand-written SQL for the read the API serves most: a seat's own view of its game
(``GET /api/games/{id}/``), polled by every client before each order.

``seat_view_for_user`` returns exactly what ``selectors.game_and_seat_for_user`` followed
by ``selectors.seat_view`` return (tests compare the two over whole games), from two SQL
statements instead of six ORM queries: the game with its seats, then the two newest
prompts with the open one's current orders. The engine's part of the view and the legal
orders are computed once per (open prompt, seat) and kept in a small per-process cache:
a prompt's snapshot never changes while it is open, so neither do they.
"""

from __future__ import annotations

import functools
from typing import Any

from django.db import connection

from engine.base import events_for
from games.errors import NotFound
from games.models import Game, Prompt, SealedOrder, Seat
from games.selectors import open_prompt_state, part_of
from games.sql import db_datetime, db_json


def _game_and_seats(game_id: int) -> list[tuple[Any, ...]]:
    game_t, seat_t = Game._meta.db_table, Seat._meta.db_table
    sql = (
        "SELECT g.id, g.public_id, g.name, g.ruleset, g.status, g.seed_commitment, g.ranking,"
        " g.warnings, s.id, s.user_id, s.name, s.position, s.status, g.part_of_label,"
        " g.part_of_path"
        f" FROM {game_t} g LEFT JOIN {seat_t} s ON s.game_id = g.id"
        " WHERE g.id = %s ORDER BY s.position, s.joined_at, s.id"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [game_id])
        return cursor.fetchall()


def _prompts_and_orders(game_id: int) -> list[tuple[Any, ...]]:
    """The two newest prompts (newest first), the open one joined with its current
    orders (one row per order, at least one row per prompt)."""
    prompt_t, order_t = Prompt._meta.db_table, SealedOrder._meta.db_table
    sql = (
        "SELECT p.id, p.number, p.round, p.phase, p.pending, p.deadline, p.status, p.events,"
        " o.seat_name, o.text, o.commitment, o.source, o.submitted_at"
        f" FROM {prompt_t} p LEFT JOIN {order_t} o"
        " ON o.prompt_id = p.id AND o.is_current AND p.status = %s"
        f" WHERE p.id IN (SELECT p2.id FROM {prompt_t} p2 WHERE p2.game_id = %s"
        " ORDER BY p2.number DESC LIMIT 2)"
        " ORDER BY p.number DESC, o.submitted_at, o.id"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [Prompt.Status.OPEN.value, game_id])
        return cursor.fetchall()


@functools.lru_cache(maxsize=4096)
def _engine_part(
    game_id: int, ruleset: str, commitment: str, prompt_id: int, number: int, seat: str,
    asked: bool,
) -> tuple[dict[str, Any], list[str]]:
    """The engine's view for ``seat`` and, if the prompt asks it (``asked``, fixed for
    the prompt), its legal orders while prompt ``number`` is open (cached per process:
    the snapshot of an open prompt never changes; callers copy before changing). The
    key holds the game's seed commitment, so a reused row id never meets another
    game's entry."""
    from games.services.game_options import ruleset_get

    state = open_prompt_state(game_id, commitment, prompt_id, number)
    rules = ruleset_get(ruleset)
    legal = list(rules.legal_orders(state, seat)) if asked and state else []
    return dict(rules.view(state, seat)), legal


def seat_view_for_user(*, game_id: Any, user_id: int) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """``(game, view)`` for the user's seat in an active or paused game: ``game`` holds
    the id, name, ruleset and status, ``view`` is ``selectors.seat_view`` of the seat.
    None when the hand-written path does not apply (the user holds no seat, the game is
    forming or over, or no prompt is open): callers then use the ORM selectors.
    Raises NotFound for an unknown game."""
    try:
        pk = int(game_id)
    except (TypeError, ValueError):
        raise NotFound("No such game.") from None
    rows = _game_and_seats(pk)
    if not rows:
        raise NotFound("No such game.")
    gid, public_id, name, ruleset, status, commitment, ranking, warnings = rows[0][:8]
    if status not in (Game.Status.ACTIVE, Game.Status.PAUSED):
        return None
    mine = next(
        (r for r in rows if r[9] == user_id and r[12] != Seat.Status.REPLACED), None
    )
    if mine is None:
        return None
    prompts = _prompts_and_orders(pk)
    if not prompts or prompts[0][6] != Prompt.Status.OPEN:
        return None
    open_id, number, round_, phase, pending, deadline = prompts[0][:6]
    orders = [r for r in prompts if r[0] == open_id and r[8] is not None]
    last = next(
        (r for r in prompts if r[0] != open_id and r[6] == Prompt.Status.RESOLVED), None
    )
    seat_name, seat_status = mine[10], mine[12]
    pending = db_json(pending)
    engine_view, legal = _engine_part(
        gid, ruleset, commitment, open_id, number, seat_name, seat_name in pending
    )
    deadline = db_datetime(deadline)
    order = next((r for r in orders if r[8] == seat_name), None)
    out = dict(engine_view)
    out.update(
        {
            "game": {
                "id": gid,
                "public_id": public_id,
                "name": name,
                "ruleset": ruleset,
                "status": status,
                "seed_commitment": commitment or None,
                "seats": [
                    {"name": r[10], "position": r[11], "status": r[12]}
                    for r in rows
                    if r[8] is not None and r[12] != Seat.Status.REPLACED
                ],
                "ranking": db_json(ranking),
                "warnings": list(db_json(warnings) or []),
            },
            "seat": {"name": seat_name, "position": mine[11], "status": seat_status},
            "prompt": {
                "number": number,
                "round": round_,
                "phase": phase,
                "deadline": deadline.isoformat() if deadline else None,
                "pending": list(pending),
                "ready": sorted(r[8] for r in orders),
            },
            "my_order": (
                {
                    "text": order[9],
                    "commitment": order[10],
                    "source": order[11],
                    "submitted_at": db_datetime(order[12]).isoformat(),
                }
                if order is not None
                else None
            ),
            "legal_orders": (
                list(legal)
                if status == Game.Status.ACTIVE
                and seat_status == Seat.Status.ACTIVE
                and seat_name in pending
                else []
            ),
            "events": [
                {"kind": e.get("kind"), "text": e.get("text")}
                for e in events_for(db_json(last[7]) if last else [], seat_name)
            ],
        }
    )
    # a game going on: no result yet (the game is over: the ORM path answers)
    game_info = {"id": gid, "name": name, "ruleset": ruleset, "status": status,
                 "ranking": None, "end_reason": "", "finished_at": None,
                 "part_of": part_of(label=rows[0][13], path=rows[0][14])}  # fmt: skip
    return game_info, out
