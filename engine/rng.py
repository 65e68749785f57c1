"""A tiny deterministic RNG whose whole state is one integer.

The engine never touches the global ``random`` module: every ruleset keeps the RNG
state inside its game state (a JSON integer), so a game replays byte for byte on any
machine. The generator is SplitMix64, which is fast, well-studied and trivially
serialisable.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

_MASK = (1 << 64) - 1


def seed_state(seed: int) -> int:
    """Return the initial RNG state for an integer seed (any size, any sign)."""
    return seed & _MASK


def next_u64(state: int) -> tuple[int, int]:
    """Return ``(value, new_state)``: one 64-bit output of SplitMix64."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31), state


def randbelow(state: int, n: int) -> tuple[int, int]:
    """Return ``(k, new_state)`` with ``0 <= k < n``, without modulo bias."""
    if n <= 0:
        raise ValueError("n must be positive")
    limit = (1 << 64) - ((1 << 64) % n)
    while True:
        value, state = next_u64(state)
        if value < limit:
            return value % n, state


def shuffled(state: int, items: Sequence[Any]) -> tuple[list[Any], int]:
    """Return ``(a shuffled copy of items, new_state)`` (Fisher–Yates)."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j, state = randbelow(state, i + 1)
        out[i], out[j] = out[j], out[i]
    return out, state
