"""How many tables of which size, and how many byes.

Preference (documented choice): among the splits of the active players into allowed
sizes, the one with the most tables of the most preferred size comes first; among those,
the most tables of the second preferred size, and so on. So ``[4, 3]`` seats 10 players
as 4+3+3, 12 as 4+4+4 and 13 as 4+3+3+3, while ``[3, 4]`` seats 12 as 3+3+3+3. The
contract's rules 1-3 (forbidden pairs, who gets the byes, fewest repeats) come before
this preference: the pairing (``tournaments.pairing.pair``) tries the other splits, in
this order, when the preferred one breaks one of them.

Only when no split exists are byes given, as few as possible (the smallest ``b`` such
that ``active - b`` players can be split, with at least one table).
"""

from __future__ import annotations

from functools import cache


@cache
def _splittable(n: int, sizes: tuple[int, ...]) -> bool:
    if n == 0:
        return True
    return any(s <= n and _splittable(n - s, sizes) for s in sizes)


def split(n: int, sizes: tuple[int, ...]) -> list[int] | None:
    """Table sizes (most preferred size first) seating exactly ``n`` players, or None."""
    if n <= 0:
        return None
    counts: list[int] = []
    rest = n
    for k, s in enumerate(sizes):
        others = tuple(sorted(sizes[k + 1 :]))
        for c in range(rest // s, -1, -1):
            r = rest - c * s
            if (r == 0) or (others and _splittable(r, others)):
                counts.append(c)
                rest = r
                break
        else:
            return None
    if rest != 0:
        return None
    tables: list[int] = []
    for s, c in zip(sizes, counts, strict=False):
        tables.extend([s] * c)
    return tables or None


def splits(n: int, sizes: tuple[int, ...], limit: int) -> list[list[int]]:
    """Up to ``limit`` ways to seat exactly ``n`` players at the allowed sizes, the most
    preferred first (as :func:`split` orders them: most tables of the first size, then of
    the second, ...). Each is a list of table sizes, most preferred size first."""
    out: list[list[int]] = []

    def walk(k: int, rest: int, counts: list[int]) -> None:
        if len(out) >= limit:
            return
        if k == len(sizes):
            if rest == 0 and any(counts):
                out.append([s for s, c in zip(sizes, counts, strict=True) for _ in range(c)])
            return
        others = tuple(sorted(sizes[k + 1 :]))
        for c in range(rest // sizes[k], -1, -1):
            r = rest - c * sizes[k]
            if r == 0 or (others and _splittable(r, others)):
                walk(k + 1, r, [*counts, c])

    if n > 0:
        walk(0, n, [])
    return out


def plan(n: int, sizes: tuple[int, ...]) -> tuple[int, list[int]] | None:
    """``(byes, table sizes)`` with the fewest byes, or None when nobody can be seated."""
    for b in range(n + 1):
        tables = split(n - b, sizes)
        if tables:
            return b, tables
    return None
