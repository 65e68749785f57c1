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


def options_within_site_limits(*, ruleset_id: str, options: Mapping[str, Any]) -> None:
    """Raise ValidationError if a (normalized) option is above the site's bound for it
    (``SITE_OPTION_LIMITS``); games and tournaments both check it."""
    for (rid, name), (largest, why) in SITE_OPTION_LIMITS.items():
        value = options.get(name) if rid == ruleset_id else None
        if isinstance(value, int) and value > largest:
            raise ValidationError(f"{name} is {value}; at most {largest}: {why}.")


def game_options_check(
    *, ruleset: str, options: Mapping[str, Any] | None, seats_count: int
) -> tuple[Ruleset, dict[str, Any], list[str]]:
    """Validate a ruleset id, its options and a seat count without creating anything.

    Returns ``(ruleset, normalized options, warnings)``; raises ValidationError."""
    rules = ruleset_get(ruleset)
    try:
        normalized = rules.normalize_options(options or {})
    except ScriptError as exc:
        raise ValidationError(str(exc)) from None
    options_within_site_limits(ruleset_id=rules.id, options=normalized)
    if (
        not isinstance(seats_count, int)
        or isinstance(seats_count, bool)
        or not rules.min_players <= seats_count <= rules.max_players
    ):
        raise ValidationError(
            f"{rules.name} is for {rules.min_players} to {rules.max_players} players.",
            field="seats_count",
        )
    return (
        rules,
        normalized,
        creation_warnings(ruleset=rules, options=normalized, seats_count=seats_count),
    )
