"""Seat order at one table: keep every player's seat counts as even as possible.

Rule (documented choice): among all orders of the table's players, take the one that
minimises, in this order,

1. the sum over players of how often each already sat in the seat given now (so each
   player tends to get the seat they have had least);
2. the sum of the squares of those counts (spread the repeats);
3. a fixed preference that alternates from table to table: on the 1st, 3rd, 5th...
   table the players keep standings order (the higher-placed gets the lower seat
   number); on the 2nd, 4th... table the order is reversed.

For two players this is the familiar colour rule: the player who has had seat 1
(moving first) less often relative to seat 2 gets seat 1; with equal balance, the one
with fewer seat-1 games; with equal histories the first mover alternates from board to
board (the leader of board 1 moves first, of board 2 second, and so on). The input holds
seat counts, not their order, so a rule like "never the same colour three times in a
row" cannot be applied; among partners on the same points the pairing prefers one
whose seat preference complements (see :mod:`.two`), which keeps most players within one
(in simulated 6-round tournaments of 8-20 players, a player's counts end at most 2 apart in
all but about one run in sixteen).
"""

from __future__ import annotations

from functools import cache


def _count(seats: tuple[int, ...], k: int) -> int:
    return seats[k] if k < len(seats) else 0


@cache
def _best_order(counts: tuple[tuple[int, ...], ...], reverse: bool) -> tuple[int, ...]:
    """Best permutation: result[seat] = index into ``counts`` of the player in that seat.

    The first permutation, in the lexicographic order of ``base`` (standings order, or
    reversed), with the least ``(total, squares)``: a dynamic programme over the sets of
    players already seated (seat by seat from seat 1), 2^k states instead of k! orders.
    """
    n = len(counts)
    base = tuple(range(n - 1, -1, -1)) if reverse else tuple(range(n))
    full = (1 << n) - 1

    @cache
    def rest(mask: int) -> tuple[int, int, tuple[int, ...]]:
        """Least (total, squares, positions in ``base``) seating everyone not in ``mask``
        from seat ``popcount(mask)`` on."""
        if mask == full:
            return (0, 0, ())
        seat = mask.bit_count()
        best: tuple[int, int, tuple[int, ...]] | None = None
        for pos, who in enumerate(base):
            if mask >> who & 1:
                continue
            c = _count(counts[who], seat)
            total, squares, seq = rest(mask | 1 << who)
            key = (total + c, squares + c * c, (pos, *seq))
            if best is None or key < best:
                best = key
        assert best is not None
        return best

    return tuple(base[pos] for pos in rest(0)[2])


def seat_order(players: list[int], seats: list[tuple[int, ...]], table_no: int) -> list[int]:
    """Order ``players`` (standings order, field indices) into seats 1..k.

    ``seats[i]`` is player ``i``'s seat history; ``table_no`` counts tables from 0 in the
    output order and drives the alternation of rule 3.
    """
    k = len(players)
    counts = tuple(tuple(_count(seats[p], s) for s in range(k)) for p in players)
    order = _best_order(counts, table_no % 2 == 1)
    return [players[i] for i in order]
