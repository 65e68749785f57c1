"""Play a script (``shared/spec/engine.md``) and build the runner's printed object."""

from __future__ import annotations

from typing import Any

import engine
from engine.base import Event, Ruleset, ScriptError, State, StepRejected

EXIT_OK = 0
EXIT_MALFORMED = 2
EXIT_REJECTED = 3


def start(script: dict[str, Any]) -> tuple[Ruleset, State]:
    """Check a script's header and return its ruleset and initial state.

    Raises ScriptError for anything malformed (unknown game or option, wrong player
    count, bad seed or setup)."""
    if not isinstance(script, dict):
        raise ScriptError("a script must be a JSON object")
    ruleset = engine.get(script.get("game"))
    players = script.get("players")
    ruleset.check_players(players)
    seed = script.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ScriptError("seed must be an integer")
    # Absent or null means none; anything else must be an object (checked below).
    options = {} if script.get("options") is None else script["options"]
    setup = {} if script.get("setup") is None else script["setup"]
    if not isinstance(options, dict):
        raise ScriptError("options must be an object")
    if not isinstance(setup, dict):
        raise ScriptError("setup must be an object")
    for key in setup:
        if key not in ruleset.setup_keys:
            allowed = ", ".join(ruleset.setup_keys) or "none"
            raise ScriptError(f"unknown setup key {key!r} for {ruleset.id} (setup: {allowed})")
    state = ruleset.new_game(players=list(players), options=options, seed=seed, setup=setup)
    return ruleset, state


def check_steps(steps: Any) -> list[dict[str, str]]:
    """Return the script's steps, or raise ScriptError if they are not a list of
    objects mapping seat names to order strings."""
    if steps is None:
        return []
    if not isinstance(steps, list):
        raise ScriptError("orders must be a list of steps")
    for i, step in enumerate(steps):
        if not isinstance(step, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in step.items()
        ):
            raise ScriptError(f"step {i} must be an object of seat name to order text")
    return steps


def status_of(ruleset: Ruleset, state: State) -> str:
    """``"over"`` or ``"waiting"``."""
    return "over" if ruleset.is_over(state) else "waiting"


def printed(
    ruleset: Ruleset, state: State, status: str, rejected: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The runner's printed object: ``game``, ``status``, the ruleset's report, then
    ``rejected`` when a step was refused."""
    out: dict[str, Any] = {"game": ruleset.id, "status": status}
    out.update(ruleset.report(state))
    if rejected is not None:
        out["rejected"] = rejected
    return out


def run_script(script: Any) -> tuple[int, dict[str, Any]]:
    """Play a script; return ``(exit code, printed object)``."""
    try:
        ruleset, state = start(script)
        steps = check_steps(script.get("orders"))
    except ScriptError as exc:
        out: dict[str, Any] = {"status": "error", "error": str(exc)}
        game = script.get("game") if isinstance(script, dict) else None
        if isinstance(game, str):  # the common fields start with the game, when one is named
            out = {"game": game, **out}
        return EXIT_MALFORMED, out
    for index, step in enumerate(steps):
        try:
            state, _events = ruleset.submit_step(state, step)
        except StepRejected as exc:
            rejected = {"step": index, "seat": exc.seat, "order": exc.order, "reason": exc.reason}
            return EXIT_REJECTED, printed(ruleset, state, "rejected", rejected)
    return EXIT_OK, printed(ruleset, state, status_of(ruleset, state))


def replay(script: dict[str, Any]) -> tuple[Ruleset, State, list[list[Event]]]:
    """Replay a script that must apply cleanly; return the ruleset, the final state and
    the events of each step. Raises ScriptError or StepRejected."""
    ruleset, state = start(script)
    all_events = []
    for step in check_steps(script.get("orders")):
        state, events = ruleset.submit_step(state, step)
        all_events.append(events)
    return ruleset, state, all_events
