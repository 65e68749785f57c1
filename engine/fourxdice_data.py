"""The fixed data of 4X Dice (``shared/spec/4x-dice.md``).

OUR READING: the rulebook (``shared/seeds/4x-dice-rules.md``) does not print the dice
faces. The spec fixes six faces per die, below; this table is the one place to change
if the printed dice turn out to differ. A face is ``(ships, asteroids)``; a roll draws
one of the six faces with equal chance (``rng.randbelow(state, 6)`` indexes this tuple).
"""

from __future__ import annotations

# Face number n (1..6) is FACES[n - 1]: (ships, asteroids).
FACES: tuple[tuple[int, int], ...] = (
    (1, 0),
    (2, 0),
    (0, 1),
    (0, 2),
    (1, 1),
    (2, 2),
)

# The four action areas of a player mat, in the order a turn carries them out.
AREAS: tuple[str, ...] = ("EXPLORE", "EXPAND", "EXTRACT", "EXTERMINATE")

# The four action counters, same order, as the runner prints them.
COUNTERS: tuple[str, ...] = ("explore", "expand", "extract", "exterminate")

# Every action track runs 0..19; the victory point track has no limit.
COUNTER_MAX = 19

# Final score = VP + the sum of counter × weight.
SCORE_WEIGHTS: dict[str, int] = {"explore": 1, "expand": 3, "extract": 2, "exterminate": 1}

# Dice per player (the `dice` option) and its default.
DICE_CHOICES: tuple[int, ...] = (2, 3, 4)
DICE_DEFAULT = 3

# Each eXtract pair (one ship + one asteroid) scores this many victory points.
VP_PER_PAIR = 2
