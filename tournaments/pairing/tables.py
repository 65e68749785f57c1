"""Tables of three to twelve players (or mixed sizes): construction plus local search.

0. Size order: the planned tables are stacked, top first, in the order of sizes that keeps
   points closest when seated in plain standings order (:func:`_size_order`).
1. Construction, top-down: each table takes the best-placed free player, then the next
   free players in standings order who have not met anyone already at the table (nor
   are forbidden with them); a table that cannot fill that way takes the next free
   players anyway. So the leaders share the top table, and players skip down only as
   far as needed to avoid a repeat.
2. Descent: while a table holds a forbidden pair or a repeat meeting, try swapping each
   such player with the players of the other tables (nearest tables first) and apply
   the best strictly improving swap. The cost is lexicographic, packed into one
   integer: forbidden pairs, then repeat meetings (once per earlier meeting), then the
   sum over pairs at a table of the squared point difference (rule 4).
3. If conflicts remain, a tabu search on the conflicts alone (:mod:`.repair`), then the
   descent again.
4. Point spread: improving swaps between neighbouring tables, a short simulated
   annealing (swaps between tables at most three apart, never keeping an added
   conflict: the best state is restored at the end), and the improving swaps again.
5. For at most ``EXACT_PLAYERS`` players, unless the layout already has no conflict and
   the point spread of plain standings order, a branch and bound over every partition
   into the planned sizes, with that layout's cost as the first bound, looks at up to
   ``EXACT_BUDGET`` tables: when it finishes (every field of up to 16 players we
   generated; 0.1 s typical, under 1 s) it proves the minimum (repeats, then point
   spread); otherwise it keeps the best layout it found.

Randomness (tabu ties, annealing) comes only from ``random.Random(seed)``, and every
loop is bounded by a count of steps, never by the clock: same input, same output.
"""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Iterator
from itertools import combinations, product

from .model import Field
from .repair import tabu_repair

EXACT_BUDGET = 50_000  # tables looked at by the exact search, at most (~5 s in pure Python)
EXACT_PLAYERS = 24  # bigger fields keep the local search's layout
ANNEAL_PER_PLAYER = 100  # annealing steps per player, at most ANNEAL_MAX in all
ANNEAL_MAX = 10_000
ORDER_STATES = 100_000  # beyond this many states, tables keep the planned size order


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
        self._construct(sizes)

    def _construct(self, sizes: list[int]) -> None:
        """Fill tables top-down: each takes the best-placed free player, then the next
        free players in standings order who have neither met nor are forbidden with
        anyone already there; a table that cannot fill that way takes the next ones."""
        n = self.n
        free = [True] * n
        head = 0
        for t, size in enumerate(sizes):
            while not free[head]:
                head += 1
            members = [head]
            free[head] = False
            x = head + 1
            while len(members) < size and x < n:
                if free[x] and all(self.pc(x, y) < self.repeat_w for y in members):
                    members.append(x)
                    free[x] = False
                x += 1
            x = head
            while len(members) < size:
                if free[x]:
                    members.append(x)
                    free[x] = False
                x += 1
            self.tables.append(members)
            for p in members:
                self.where[p] = t

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

    def polish(self, radius: int = 4) -> None:
        """Lower the point spread by improving swaps between neighbouring tables.

        Any swap that lowers the total cost cannot add a conflict (conflicts outweigh
        every possible point difference), so this never undoes the repair. After a first
        pass over every table, only tables near a change are looked at again.
        """
        n_tables = len(self.tables)
        pts = self.points
        todo = set(range(n_tables))
        while todo:
            changed: set[int] = set()
            for t in sorted(todo):
                if len({pts[x] for x in self.tables[t]}) < 2:
                    continue  # a table of equal points cannot gain from a swap
                for a in list(self.tables[t]):
                    if self.where[a] != t:
                        continue
                    best_d, best_b = 0, -1
                    for u in range(max(0, t - radius), min(n_tables, t + radius + 1)):
                        if u == t:
                            continue
                        for b in self.tables[u]:
                            if pts[b] == pts[a]:
                                continue  # same points: nothing to gain
                            d = self.delta(a, b)
                            if d < best_d:
                                best_d, best_b = d, b
                    if best_b >= 0:
                        changed.add(t)
                        changed.add(self.where[best_b])
                        self.swap(a, best_b)
            todo = {
                u for t in changed for u in range(max(0, t - radius), min(n_tables, t + radius + 1))
            }

    def anneal(self, rng: random.Random) -> None:
        """Seeded simulated annealing on the point spread, swaps between nearby tables.

        Moves that add a repeat or a forbidden pair are never taken (their cost dwarfs
        the temperature), so only the point spread changes. The best state is kept.
        """
        n_tables = len(self.tables)
        if n_tables < 2:
            return
        steps = min(ANNEAL_PER_PLAYER * self.n, ANNEAL_MAX)
        t_hi, t_lo = 5000.0, 50.0  # points are in hundredths: one point apart costs 10000
        cool = (t_lo / t_hi) ** (1.0 / max(1, steps))
        temp = t_hi
        current = 0
        best = 0
        since_best: list[tuple[int, int]] = []  # swaps to undo to get back to the best
        for _ in range(steps):
            temp *= cool
            ta = rng.randrange(n_tables)
            tb = ta + rng.choice((-3, -2, -1, 1, 2, 3))
            if not 0 <= tb < n_tables:
                continue
            a = rng.choice(self.tables[ta])
            b = rng.choice(self.tables[tb])
            d = self.delta(a, b)
            if d >= self.repeat_w:
                continue
            if d <= 0 or rng.random() < math.exp(-d / temp):
                self.swap(a, b)
                current += d
                if current < best:
                    best = current
                    since_best.clear()
                else:
                    since_best.append((a, b))
        for a, b in reversed(since_best):
            self.swap(a, b)

    def _restore(self, tables: list[list[int]]) -> None:
        self.tables = [list(m) for m in tables]
        for t, m in enumerate(self.tables):
            for p in m:
                self.where[p] = t


def _exact(search: _Search, sizes: list[int], budget: int) -> tuple[list[list[int]], bool]:
    """Branch and bound over the partitions of the field into ``sizes``, from the search's
    layout as the bound: the cheapest layout found within ``budget`` tables looked at, and
    whether the search finished (which proves it the minimum)."""
    best_cost = search.total()
    best = [list(m) for m in search.tables]
    groups: list[list[int]] = []
    left_budget = budget

    class _OutOfBudget(Exception):
        pass

    def rec(free: tuple[int, ...], sizes_left: tuple[int, ...], cost: int) -> None:
        nonlocal best_cost, best, left_budget
        if not free:
            if cost < best_cost:
                best_cost, best = cost, [list(g) for g in groups]
            return
        first, rest = free[0], free[1:]
        for s in sorted(set(sizes_left), reverse=True):
            left = list(sizes_left)
            left.remove(s)
            for combo in combinations(rest, s - 1):
                left_budget -= 1
                if left_budget < 0:
                    raise _OutOfBudget
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

    try:
        rec(tuple(range(search.f.n)), tuple(sizes), 0)
    except _OutOfBudget:
        return best, False
    return best, True


def _spread_floor(f: Field, sizes: list[int]) -> int:
    """Point cost of seating in plain standings order (the floor when nobody has met)."""
    cost = 0
    start = 0
    pts = f.points
    for size in sizes:
        chunk = pts[start : start + size]
        cost += sum((x - y) ** 2 for x, y in combinations(chunk, 2))
        start += size
    return cost


def _size_order(f: Field, sizes: list[int]) -> list[int]:
    """The order of the planned table sizes, top table first, whose tables taken in plain
    standings order keep points closest (rule 4: 4, 4, 2 | 1, 1, 0, 0 rather than
    4, 4, 2, 1 | 1, 0, 0); among equals, the more preferred size nearer the top.
    An exact dynamic programme over how many tables of each size are above."""
    kinds = list(dict.fromkeys(sizes))
    counts = [sizes.count(s) for s in kinds]
    if len(kinds) < 2 or math.prod(c + 1 for c in counts) > ORDER_STATES:
        return sizes
    s1, s2 = [0], [0]
    for x in f.points:
        s1.append(s1[-1] + x)
        s2.append(s2[-1] + x * x)

    def chunk(pos: int, size: int) -> int:  # sum of squared gaps over pairs of the chunk
        total = s1[pos + size] - s1[pos]
        return size * (s2[pos + size] - s2[pos]) - total * total

    full = tuple(counts)
    best: dict[tuple[int, ...], tuple[int, int]] = {full: (0, -1)}  # -> (cost below, kind)
    states = sorted(product(*(range(c + 1) for c in counts)), key=sum, reverse=True)
    for used in states[1:]:
        pos = sum(u * s for u, s in zip(used, kinds, strict=True))
        choice: tuple[int, int] | None = None
        for k, s in enumerate(kinds):
            if used[k] < counts[k]:
                below = best[(*used[:k], used[k] + 1, *used[k + 1 :])][0]
                if choice is None or chunk(pos, s) + below < choice[0]:
                    choice = (chunk(pos, s) + below, k)
        assert choice is not None
        best[used] = choice
    order: list[int] = []
    used = tuple(0 for _ in kinds)
    while used != full:
        k = best[used][1]
        order.append(kinds[k])
        used = (*used[:k], used[k] + 1, *used[k + 1 :])
    return order


def pair_tables(f: Field, sizes: list[int], seed: int) -> list[list[int]]:
    """Seat the field (standings order) at tables of the given sizes; each table sorted."""
    sizes = _size_order(f, sizes)
    search = _Search(f, sizes)
    search.descend()
    if search.conflicts():
        search._restore(tabu_repair(f, search.tables, random.Random(seed)))
        search.descend()
    if search.total() % search.repeat_w > _spread_floor(f, sizes):
        # Only when repeats pushed players away from their score neighbours: otherwise
        # there is nothing to gain, and annealing would only shuffle equal points.
        search.polish()
        search.anneal(random.Random(seed))
        search.polish()
    if f.n <= EXACT_PLAYERS and search.total() > _spread_floor(f, sizes):
        search._restore(_exact(search, sizes, EXACT_BUDGET)[0])
    for m in search.tables:
        for i in range(len(m)):
            for j in range(i + 1, len(m)):
                if not f.allowed(m[i], m[j]):
                    raise Infeasible("the forbidden pairs leave no way to seat these players")
    return [sorted(m) for m in search.tables]
