"""Tables of three to six players (or mixed sizes): construction plus local search.

1. Construction: the tables (most preferred size first) are filled in standings order,
   so the leaders share the top table, the next players the second table, and so on.
2. Local search: while a table holds a forbidden pair or a repeat meeting, try swapping
   each such player with every player of the other tables (nearest tables first) and
   apply the best strictly improving swap. The cost is lexicographic, packed into one
   integer: forbidden pairs, then repeat meetings (once per earlier meeting), then the
   sum over pairs at a table of the squared point difference.
3. If conflicts remain, a tabu search on the conflicts alone (:mod:`.repair`, ties broken
   by ``random.Random(seed)``, so still deterministic), then the descent again and a
   polish of the point spread by improving swaps between neighbouring tables.
4. For at most ``EXACT_MAX`` players, if repeats or forbidden pairs still remain, every
   partition into the planned sizes is enumerated, which proves the minimum.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterator
from itertools import combinations

from .model import Field
from .repair import tabu_repair

EXACT_MAX = 12


class Infeasible(Exception):
    """The forbidden pairs leave no way to seat these players at these tables."""


class _Search:
    def __init__(self, f: Field, sizes: list[int]) -> None:
        self.f = f
        self.n = f.n
        self.points = f.points
        self.met = f.met
        self.forbidden = f.forbidden
        spread = max(f.points) - min(f.points) if f.n else 0
        pair_max = spread * spread
        pairs_total = sum(s * (s - 1) // 2 for s in sizes)
        self.repeat_w = pair_max * pairs_total + 1
        max_meet = max(f.met.values(), default=0)
        self.forbid_w = self.repeat_w * (max_meet * pairs_total + 1)
        self.tables: list[list[int]] = []
        self.where: list[int] = [0] * f.n
        start = 0
        for t, s in enumerate(sizes):
            members = list(range(start, start + s))
            self.tables.append(members)
            for p in members:
                self.where[p] = t
            start += s

    def pc(self, a: int, b: int) -> int:
        """Cost of ``a`` and ``b`` sharing a table (forbidden, repeats, point gap)."""
        n = self.n
        k = a * n + b if a < b else b * n + a
        pts = self.points
        d = pts[a] - pts[b]
        c = d * d
        m = self.met.get(k)
        if m:
            c += m * self.repeat_w
        if k in self.forbidden:
            c += self.forbid_w
        return c

    def cost_in(self, p: int, members: list[int], skip: int) -> int:
        return sum(self.pc(p, x) for x in members if x != skip and x != p)

    def conflicted(self, p: int) -> bool:
        return any(self.pc(p, x) >= self.repeat_w for x in self.tables[self.where[p]] if x != p)

    def table_cost(self, t: int) -> int:
        m = self.tables[t]
        return sum(self.pc(m[i], m[j]) for i in range(len(m)) for j in range(i + 1, len(m)))

    def total(self) -> int:
        return sum(self.table_cost(t) for t in range(len(self.tables)))

    def delta(self, a: int, b: int) -> int:
        ta, tb = self.tables[self.where[a]], self.tables[self.where[b]]
        return (
            self.cost_in(b, ta, a)
            - self.cost_in(a, ta, a)
            + self.cost_in(a, tb, b)
            - self.cost_in(b, tb, b)
        )

    def swap(self, a: int, b: int) -> None:
        ta, tb = self.where[a], self.where[b]
        ma, mb = self.tables[ta], self.tables[tb]
        ma[ma.index(a)] = b
        mb[mb.index(b)] = a
        self.where[a], self.where[b] = tb, ta

    def _nearby(self, t: int) -> Iterator[int]:
        n = len(self.tables)
        for r in range(1, n):
            if t - r >= 0:
                yield t - r
            if t + r < n:
                yield t + r
            if t - r < 0 and t + r >= n:
                return

    def improve_player(self, a: int) -> bool:
        """Apply the best improving swap for ``a``; nearby tables first, all if needed."""
        pc = self.pc
        ta = self.where[a]
        home = [x for x in self.tables[ta] if x != a]
        a_home = sum(pc(a, x) for x in home)
        best_d, best_b = 0, -1
        scanned = 0
        for u in self._nearby(ta):
            members = self.tables[u]
            to_a = [pc(a, x) for x in members]
            a_there = sum(to_a)
            for i, b in enumerate(members):
                b_old = sum(pc(b, x) for x in members if x != b)
                b_new = sum(pc(b, x) for x in home)
                d = (a_there - to_a[i]) - a_home + b_new - b_old
                if d < best_d:
                    best_d, best_b = d, b
            scanned += 1
            # A swap that removes a conflict found close by is good enough; only look
            # farther (more point spread) while nothing removes a conflict.
            if scanned >= 4 and best_d <= -self.repeat_w:
                break
        if best_b < 0:
            return False
        self.swap(a, best_b)
        return True

    def descend(self, dirty: set[int] | None = None) -> None:
        """Improve until no conflicting player has an improving swap.

        Tables touched by a swap are looked at again at once; when that settles, one more
        pass over every table with a conflict confirms (or resumes) the descent.
        """
        if dirty is None:
            dirty = {self.where[p] for p in self.conflicts()}
        todo = set(dirty)
        heap = sorted(todo)  # lowest table first: a sorted list is a valid heap
        swapped = False
        while True:
            while heap:
                t = heapq.heappop(heap)
                if t not in todo:
                    continue
                todo.discard(t)
                for a in list(self.tables[t]):
                    if self.where[a] == t and self.conflicted(a) and self.improve_player(a):
                        for u in (t, self.where[a]):
                            if u not in todo:
                                todo.add(u)
                                heapq.heappush(heap, u)
                        swapped = True
                        break
            if not swapped:
                return
            swapped = False
            todo = {self.where[p] for p in self.conflicts()}
            heap = sorted(todo)

    def conflicts(self) -> list[int]:
        """Players sharing their table with an earlier opponent or a forbidden partner."""
        n, where = self.n, self.where
        out: set[int] = set()
        for keys in (self.met, self.forbidden):
            for k in keys:
                a, b = divmod(k, n)
                if where[a] == where[b]:
                    out.add(a)
                    out.add(b)
        return sorted(out)

    def polish(self, passes: int = 10) -> None:
        """Lower the point spread by improving swaps between neighbouring tables.

        Any swap that lowers the total cost cannot add a conflict (conflicts outweigh
        every possible point difference), so this never undoes the repair.
        """
        for _ in range(passes):
            changed = False
            for t in range(len(self.tables)):
                for a in list(self.tables[t]):
                    if self.where[a] != t:
                        continue
                    best_d, best_b = 0, -1
                    for u in range(max(0, t - 2), min(len(self.tables), t + 3)):
                        if u == t:
                            continue
                        for b in self.tables[u]:
                            d = self.delta(a, b)
                            if d < best_d:
                                best_d, best_b = d, b
                    if best_b >= 0:
                        self.swap(a, best_b)
                        changed = True
            if not changed:
                return

    def _restore(self, tables: list[list[int]]) -> None:
        self.tables = [list(m) for m in tables]
        for t, m in enumerate(self.tables):
            for p in m:
                self.where[p] = t


def _exact(search: _Search, sizes: list[int]) -> list[list[int]]:
    """Enumerate every partition of the field into ``sizes`` and return the cheapest."""
    best_cost = search.total()
    best = [list(m) for m in search.tables]
    groups: list[list[int]] = []

    def rec(free: tuple[int, ...], sizes_left: tuple[int, ...], cost: int) -> None:
        nonlocal best_cost, best
        if not free:
            if cost < best_cost:
                best_cost, best = cost, [list(g) for g in groups]
            return
        first, rest = free[0], free[1:]
        for s in sorted(set(sizes_left), reverse=True):
            left = list(sizes_left)
            left.remove(s)
            for combo in combinations(rest, s - 1):
                group = [first, *combo]
                add = sum(
                    search.pc(group[i], group[j])
                    for i in range(len(group))
                    for j in range(i + 1, len(group))
                )
                if cost + add >= best_cost:
                    continue
                groups.append(group)
                taken = set(combo)
                rec(tuple(x for x in rest if x not in taken), tuple(left), cost + add)
                groups.pop()

    rec(tuple(range(search.f.n)), tuple(sizes), 0)
    return best


def pair_tables(f: Field, sizes: list[int], seed: int) -> list[list[int]]:
    """Seat the field (standings order) at tables of the given sizes; each table sorted."""
    search = _Search(f, sizes)
    search.descend()
    if search.conflicts():
        search._restore(tabu_repair(f, search.tables, random.Random(seed)))
        search.descend()
        search.polish()
    if f.n <= EXACT_MAX and search.conflicts():
        search._restore(_exact(search, sizes))
    for m in search.tables:
        for i in range(len(m)):
            for j in range(i + 1, len(m)):
                if not f.allowed(m[i], m[j]):
                    raise Infeasible("the forbidden pairs leave no way to seat these players")
    return [sorted(m) for m in search.tables]
