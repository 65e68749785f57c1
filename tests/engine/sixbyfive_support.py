"""Helpers for the 6x5 tests: build games with fixed goals and craft tables directly
(a state is plain JSON, so a test may set the board and reserve it needs)."""

from __future__ import annotations

from typing import Any

import engine
from engine.base import Event, State

R = engine.get("6x5")

LINE = [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]]
"""The straight line (canonical form: 0,0 0,1 0,2 0,3 0,4)."""
ZIGZAG = [[0, 0], [0, 1], [1, 1], [1, 2], [2, 2]]
HOOK = [[0, 0], [1, 0], [2, 0], [3, 0], [3, 1]]
"""A line of four with a bump beside one end: chiral (no mirror symmetry)."""
HOOK_MIRROR = [[0, 0], [1, 0], [2, 0], [3, 0], [4, -1]]
"""HOOK reflected across its own axis ((q, r) -> (q + r, -r))."""


def new(
    players: tuple[str, ...] = ("ann", "bob"),
    options: dict[str, Any] | None = None,
    goals: dict[str, list[list[list[int]]]] | None = None,
    first: str | None = "ann",
    seed: int = 1,
) -> State:
    """A new game, ann first, with ann on the line and bob on the zigzag by default."""
    if goals is None:
        goals = {"ann": [LINE], "bob": [ZIGZAG]}
    setup: dict[str, Any] = {"goals": goals}
    if first is not None:
        setup["first"] = first
    return R.new_game(players=list(players), options=options or {}, seed=seed, setup=setup)


def play(state: State, *orders: str) -> tuple[State, list[Event]]:
    """Play orders in turn (each by the pending seat); return the state and all events."""
    events: list[Event] = []
    for text in orders:
        seat = R.pending(state)[0]
        state, evs = R.submit_step(state, {seat: text})
        events += evs
    return state, events


def craft(state: State, board: dict[str, str], reserve: dict[str, int] | None = None) -> State:
    """Put tiles on the board (the black tile included, as ``K``) and set the reserve."""
    state["board"] = dict(board)
    if reserve is not None:
        state["reserve"] = dict(reserve)
    return state
