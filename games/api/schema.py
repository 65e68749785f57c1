"""drf-spectacular hooks."""

from __future__ import annotations

from typing import Any


def slashed_only(endpoints: list[tuple[Any, ...]], **kwargs: Any) -> list[tuple[Any, ...]]:
    """Preprocessing hook: each API route is listed once, in its documented form with a
    trailing slash (``games.api.urls.route`` also serves it without)."""
    return [e for e in endpoints if e[0].endswith("/")]
