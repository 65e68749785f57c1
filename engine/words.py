"""Small text helpers every layer may use (pure standard library: ``engine`` is the one
package the apps all import, see ARCHITECTURE.md)."""

from __future__ import annotations

from decimal import Decimal


def counted(n: float | Decimal, word: str, plural: str | None = None) -> str:
    """``n`` and the noun in the number it takes: ``counted(1, "prompt")`` is
    ``"1 prompt"``, ``counted(2, "prompt")`` ``"2 prompts"``, ``counted(0, "prompt")``
    ``"0 prompts"``. ``plural`` names an irregular plural (``counted(2, "entry",
    "entries")``); otherwise an "s" is added to the last word. A number that is not an
    int (a float, a Decimal) is written as ``{:g}`` does (``1.5 points``, ``1 point`` for
    1.0)."""
    number = str(n) if isinstance(n, int) else f"{float(n):g}"
    if n == 1:
        return f"{number} {word}"
    return f"{number} {plural if plural is not None else word + 's'}"
