"""A new game's ruleset and options: the ruleset by id, the site's bounds on options the
engine leaves open, and the warnings for allowed but discouraged choices."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import engine
from engine.base import Ruleset, ScriptError
from games.errors import ValidationError

NOT_RECOMMENDED_5X = (
    "Not recommended: the rulebook suggests playing without Great Leaders only with 3 or 4 players."
)


def ruleset_get(ruleset_id: str) -> Ruleset:
    """The engine ruleset for an id, or ValidationError naming the known ones."""
    try:
        return engine.get(ruleset_id)
    except ScriptError as exc:
        raise ValidationError(str(exc)) from None


def creation_warnings(
    *, ruleset: Ruleset, options: Mapping[str, Any], seats_count: int
) -> list[str]:
    """Warnings to show when creating a game (allowed, but discouraged by the rules)."""
    warnings = []
    if ruleset.id == "5x" and options.get("leaders") is False and seats_count >= 5:
        warnings.append(NOT_RECOMMENDED_5X)
    return warnings


# Bounds the site puts on options the engine leaves open, so that a game created here
# can end in a human lifetime: (ruleset, option) -> (largest value, why).
SITE_OPTION_LIMITS = {
    ("6x5", "max_turns"): (1000, "a game may last at most 1000 turns here"),
    ("6x5", "target"): (33, "the goal deck has 33 cards, so at most 33 points can be scored"),
}

