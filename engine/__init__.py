"""FiveX rules engines: pure Python, no Django, no I/O, no clock.

``engine.get("5x")`` returns a ruleset (see ``engine.base.Ruleset``);
``engine.rulesets()`` lists every registered one. ``python -m engine`` is the runner.
"""

from __future__ import annotations

import importlib
import importlib.util

from engine.base import (
    EngineError,
    Event,
    IllegalOrder,
    Option,
    Ruleset,
    ScriptError,
    State,
    StepRejected,
    dumps,
    events_for,
)

# id -> "module:Class". A new game is one module and one line here.
_REGISTRY: dict[str, str] = {
    "5x": "engine.fivex:FiveX",
    "6x5": "engine.sixbyfive:SixByFive",
    "4x-dice": "engine.fourxdice:FourXDice",
}
_LOADED: dict[str, Ruleset] = {}


class UnknownGame(ScriptError):
    """No ruleset has that id."""


def get(game_id: str) -> Ruleset:
    """Return the ruleset registered under ``game_id``; raise UnknownGame if none."""
    ruleset = _LOADED.get(game_id) if isinstance(game_id, str) else None
    if ruleset is not None:
        return ruleset
    target = _REGISTRY.get(game_id) if isinstance(game_id, str) else None
    if target is None:
        known = ", ".join(ids())
        raise UnknownGame(f"unknown game {game_id!r} (games: {known})")
    module_name, _, class_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise UnknownGame(f"game {game_id!r} is not installed") from None
    ruleset = getattr(module, class_name)()
    _LOADED[game_id] = ruleset
    return ruleset


def ids() -> list[str]:
    """The ids of every available ruleset, in registration order."""
    out = []
    for game_id, target in _REGISTRY.items():
        if importlib.util.find_spec(target.partition(":")[0]) is not None:
            out.append(game_id)
    return out


def rulesets() -> list[Ruleset]:
    """Every available ruleset, in registration order."""
    return [get(game_id) for game_id in ids()]


__all__ = [
    "EngineError",
    "Event",
    "IllegalOrder",
    "Option",
    "Ruleset",
    "ScriptError",
    "State",
    "StepRejected",
    "UnknownGame",
    "dumps",
    "events_for",
    "get",
    "ids",
    "rulesets",
]
