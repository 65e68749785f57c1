"""Helpers for the 5X engine tests: play a script in-process and read the table."""

from __future__ import annotations

from typing import Any

import engine
from engine.runner import run_script

FIVEX = engine.get("5x")
ACTIONS = ["EXPLOIT", "EXTERMINATE", "EXPAND", "EXPLORE", "EXCAVATE"]


def run(
    players: list[str],
    orders: list[dict[str, str]],
    *,
    options: dict[str, Any] | None = None,
    deal: dict[str, list[str]] | None = None,
    seed: int = 1,
) -> tuple[int, dict[str, Any]]:
    """Play a script through the runner; return ``(exit code, printed object)``."""
    script: dict[str, Any] = {"game": "5x", "players": players, "seed": seed,
                              "options": options or {}, "orders": orders}
    if deal is not None:
        script["setup"] = {"deal": deal}
    return run_script(script)


def ok(*args: Any, **kwargs: Any) -> dict[str, Any]:
    """``run`` that must succeed (exit 0); returns the printed object."""
    code, out = run(*args, **kwargs)
    assert code == 0, out
    return out


def resources(out: dict[str, Any]) -> dict[str, int]:
    """Every seat's resources."""
    return {name: p["resources"] for name, p in out["players"].items()}


def state_after(
    players: list[str],
    orders: list[dict[str, str]],
    *,
    options: dict[str, Any] | None = None,
    deal: dict[str, list[str]] | None = None,
    seed: int = 1,
) -> dict[str, Any]:
    """The engine state after applying ``orders`` (each step must be accepted)."""
    state = FIVEX.new_game(players=players, options=options or {}, seed=seed,
                           setup={"deal": deal} if deal else None)
    for step in orders:
        state, _events = FIVEX.submit_step(state, step)
    return state


# A standard 3-seat deal: after the passes below, ann holds A1+C2... (see each test).
def deal3(ann: list[str], bob: list[str], cat: list[str]) -> dict[str, list[str]]:
    """A deal for ann, bob and cat."""
    return {"ann": ann, "bob": bob, "cat": cat}
