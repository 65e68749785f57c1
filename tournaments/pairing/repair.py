"""Tabu search that removes repeat meetings and forbidden pairs from a table layout.

Used only when the plain descent of :mod:`.tables` leaves conflicts. The moves are swaps
of a conflicting player with a player at another table; each step takes the swap that
lowers the conflict count most (or raises it least), never undoing a recent move unless
that reaches a new best (the usual tabu rule), ties broken by ``random.Random(seed)``.
Conflict counts per (player, table) are kept incrementally, so a move is priced in O(1).
The search is bounded by a count of priced moves, not by time, so it is deterministic.
"""

from __future__ import annotations

import random

from .model import Field

EVAL_BUDGET = 1_500_000
MAX_ITERATIONS = 5_000
NEAR_TABLES = 60  # for big fields, candidate partners come from this many tables each side


def tabu_repair(f: Field, tables: list[list[int]], rng: random.Random) -> list[list[int]]:
    """Return the layout with the fewest conflicts found (a new list; sizes unchanged)."""
    n = f.n
    where = [0] * n
    for t, m in enumerate(tables):
        for p in m:
            where[p] = t
    tables = [list(m) for m in tables]
    max_meet = max(f.met.values(), default=0)
    forbid_w = max_meet * n * 3 + 1
    nbr: list[dict[int, int]] = [{} for _ in range(n)]
    for k, c in f.met.items():
        a, b = divmod(k, n)
        nbr[a][b] = nbr[a].get(b, 0) + c
        nbr[b][a] = nbr[b].get(a, 0) + c
    for k in f.forbidden:
        a, b = divmod(k, n)
        nbr[a][b] = nbr[a].get(b, 0) + forbid_w
        nbr[b][a] = nbr[b].get(a, 0) + forbid_w
    conf: list[dict[int, int]] = [{} for _ in range(n)]
    for p in range(n):
        row = conf[p]
        for x, w in nbr[p].items():
            t = where[x]
            row[t] = row.get(t, 0) + w
    total = sum(conf[p].get(where[p], 0) for p in range(n)) // 2
    best_total = total
    best = [list(m) for m in tables]
    tabu: dict[tuple[int, int], int] = {}
    n_tables = len(tables)
    evals = 0
    for it in range(MAX_ITERATIONS):
        if total == 0 or evals > EVAL_BUDGET:
            break
        bad = [p for p in range(n) if conf[p].get(where[p], 0)]
        evals += n  # the scan above is work too: keeps big fields within the budget
        best_d: int | None = None
        moves: list[tuple[int, int]] = []
        for a in bad:
            ta = where[a]
            ca = conf[a].get(ta, 0)
            lo, hi = max(0, ta - NEAR_TABLES), min(n_tables, ta + NEAR_TABLES + 1)
            for tb in range(lo, hi):
                if tb == ta:
                    continue
                da = conf[a].get(tb, 0) - ca
                for b in tables[tb]:
                    evals += 1
                    w = nbr[a].get(b, 0)
                    d = da + conf[b].get(ta, 0) - conf[b].get(tb, 0) - 2 * w
                    if best_d is not None and d > best_d:
                        continue
                    if (
                        tabu.get((a, tb), -1) >= it or tabu.get((b, ta), -1) >= it
                    ) and total + d >= best_total:
                        continue
                    if best_d is None or d < best_d:
                        best_d, moves = d, [(a, b)]
                    else:
                        moves.append((a, b))
        if not moves or best_d is None:
            break
        a, b = moves[rng.randrange(len(moves))] if len(moves) > 1 else moves[0]
        ta, tb = where[a], where[b]
        tables[ta][tables[ta].index(a)] = b
        tables[tb][tables[tb].index(b)] = a
        where[a], where[b] = tb, ta
        for x, w in nbr[a].items():
            conf[x][ta] -= w
            conf[x][tb] = conf[x].get(tb, 0) + w
        for x, w in nbr[b].items():
            conf[x][tb] -= w
            conf[x][ta] = conf[x].get(ta, 0) + w
        tenure = 4 + rng.randrange(6)
        tabu[(a, ta)] = it + tenure
        tabu[(b, tb)] = it + tenure
        total += best_d
        if total < best_total:
            best_total = total
            best = [list(m) for m in tables]
    return best
