"""Is there a layout with no repeat meeting at a given split of table sizes?

Rule 3 of the contract: "When no repeat is needed, none happens." The full pairing of a
split (:mod:`.tables`) is costly, so only the most preferred splits are paired in full;
this search answers, for each of the others, whether the players can be seated there so
that nobody shares a table with an earlier opponent (or a forbidden partner): the active
players are split into cliques of the split's sizes in the graph of pairs who may meet,
plus up to ``byes`` players on a bye. A depth-first search that seats the most
constrained player first (its possible partners are fewest), bounded by a step count.

Returns a layout (tables and byes as player indexes), ``None`` when there is provably
none, or raises :class:`OutOfSteps` when the step budget ran out first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

# Tables plus byes the search seats at most (it recurses once for each, a table's members
# a few levels more): 3,100 players at tables of 2 and 3 hit Python's recursion limit.
MAX_DEPTH = 100


class OutOfSteps(Exception):
    """The search ran out of steps before it could answer."""


class Steps:
    """A step budget shared by several searches; ``part`` gives one search a share of it
    (its own cap, counted in the whole too)."""

    def __init__(self, count: int, whole: Steps | None = None) -> None:
        self.left = count
        self.whole = whole

    def take(self) -> None:
        self.left -= 1
        if self.whole is not None:
            self.whole.take()
        if self.left < 0:
            raise OutOfSteps

    def part(self, count: int) -> Steps:
        """A budget of at most ``count`` of these steps (running out of it raises
        OutOfSteps while this one may have steps left)."""
        return Steps(min(count, max(self.left, 0)), whole=self)


def fresh_layout(
    may_meet: list[int],
    sizes: list[int],
    byes: int,
    steps: Steps,
    bye_groups: tuple[list[int], list[int]] | None = None,
) -> tuple[list[list[int]], list[int]] | None:
    """Tables of exactly ``sizes`` (and ``byes`` players left out) seating players
    ``0 .. len(may_meet) - 1``, where ``may_meet[i]`` is the bitmask of the players ``i``
    may share a table with; None when there is none. ``bye_groups``: (each player's group,
    how many byes each group takes), when it matters who sits out. Raises OutOfSteps."""
    n = len(may_meet)
    if sum(sizes) + byes != n:
        return None
    if len(sizes) + byes > MAX_DEPTH:
        raise OutOfSteps  # one level of recursion a table or bye: beyond, not looked at
    group, quota = bye_groups if bye_groups is not None else ([0] * n, [byes])
    quota = list(quota)
    left = Counter(sizes)
    tables: list[list[int]] = []
    out: list[int] = []

    def cliques(candidates: int, need: int) -> Iterator[list[int]]:
        """Sets of ``need`` players from ``candidates`` who may all meet (as lists)."""
        if need == 0:
            yield []
            return
        while candidates:
            low = candidates & -candidates
            u = low.bit_length() - 1
            candidates ^= low
            if (candidates & may_meet[u]).bit_count() < need - 1:
                continue
            steps.take()
            for rest in cliques(candidates & may_meet[u], need - 1):
                yield [u, *rest]

    def search(unseated: int, byes_left: int) -> bool:
        if not unseated:
            return True
        if not any(left.values()):  # every table is set: the rest sit out, if they may
            rest = [u for u in range(n) if unseated >> u & 1]
            taken = Counter(group[u] for u in rest)
            if any(taken[g] > quota[g] for g in taken):
                return False
            out.extend(rest)
            return True
        smallest = min(s for s, c in left.items() if c)
        # The most constrained player: the fewest partners still unseated.
        best, best_count, forced = -1, n + 1, 0
        rest = unseated
        while rest:
            low = rest & -rest
            u = low.bit_length() - 1
            rest ^= low
            count = (may_meet[u] & unseated).bit_count()
            if count < smallest - 1:
                if not quota[group[u]]:
                    return False  # can only sit out, and may not
                forced += 1
            if count < best_count:
                best, best_count = u, count
        if forced > byes_left:
            return False
        steps.take()
        v = best
        partners = may_meet[v] & unseated
        for size in sorted(s for s, c in left.items() if c):
            if best_count < size - 1:
                break
            left[size] -= 1
            for mates in cliques(partners, size - 1):
                seated = (1 << v) | sum(1 << u for u in mates)
                tables.append([v, *mates])
                if search(unseated & ~seated, byes_left):
                    return True
                tables.pop()
            left[size] += 1
        if byes_left and quota[group[v]]:
            out.append(v)
            quota[group[v]] -= 1
            if search(unseated & ~(1 << v), byes_left - 1):
                return True
            quota[group[v]] += 1
            out.pop()
        return False

    if search((1 << n) - 1, byes):
        return tables, out
    return None
