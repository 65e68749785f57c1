"""Two players a table: a Swiss pairing by score brackets, repaired by exact matching.

1. Greedy, bracket by bracket from the top (a bracket is one score group plus the
   players floating down from above): the leaders play each other, as the contract's
   rule 4 says: the highest-placed unpaired player meets the next one in standings order
   who is neither an earlier opponent nor a forbidden partner (1st v 2nd, 3rd v 4th,
   ...), except that among the next few such players (all on the same points) one whose
   seat preference complements the player's is preferred (rule 5: one wants seat 1, the
   other seat 2). With no seat history (round 1) the leaders always meet. When that
   leaves more than one player of the bracket unpaired, a bracket of up to
   ``BRACKET_EXACT`` players is re-paired exactly (most pairs without repeats; then the
   floaters from above first, the lowest-placed left to float, the seats, partners as
   close in the standings as possible). Whoever is left floats down to the next
   bracket. This never makes a repeat. (Not the Dutch system's fold, 1st v (k+1)th of a
   score group of 2k: the contract asks for the leaders to meet.)
2. If players are left unpaired at the bottom, a window around them (their neighbours in
   the standings and the bottom of the field, whole pairs only) is re-paired with an
   exact maximum-weight perfect matching (networkx), whose integer weights put repeat
   meetings first, then the squared point difference, then seat-preference clashes,
   then the squared distance in the standings. The window doubles until the result has no
   repeat or covers everybody, so the result has the fewest repeats possible (up to
   ``EXACT_LIMIT`` players in the window: beyond, a perfect matching with repeats is
   accepted; this only happens when repeats are needed among more than a few hundred
   players).
3. Rule 4 check: the greedy commits bracket by bracket, so a forbidden pair or an earlier
   meeting met by a floater can push players farther from their score than needed. Unless
   the result has no repeat and point gaps no bigger than pairing in plain standings order
   (then nothing can be closer), a field of up to ``EXACT_FULL`` players is re-paired with
   the exact matching of step 2, which is kept when it has fewer repeats or a smaller sum
   of squared point differences.

:mod:`.seats` then gives seat 1 of each pair to the player who has had it less.
"""

from __future__ import annotations

from .model import Field

EXACT_LIMIT = 400
EXACT_FULL = 100  # fields up to this size are checked against the exact optimum (rule 4)
LOOKAHEAD = 3
BRACKET_EXACT = 80  # brackets up to this size are re-paired exactly when the greedy fails


class Infeasible(Exception):
    """The forbidden pairs leave no way to pair these players."""


def _seat_pref(seats: tuple[int, ...]) -> int:
    """+1 wants seat 1, -1 wants seat 2, 0 indifferent."""
    first = seats[0] if seats else 0
    second = seats[1] if len(seats) > 1 else 0
    return (first < second) - (first > second)


def _greedy(f: Field) -> tuple[list[tuple[int, int]], list[int]]:
    n = f.n
    pref = [_seat_pref(s) for s in f.seats]
    pairs: list[tuple[int, int]] = []
    carried: list[int] = []
    pos = 0
    while pos < n:
        end = pos
        while end < n and f.points[end] == f.points[pos]:
            end += 1
        bracket = carried + list(range(pos, end))
        pos = end
        used: set[int] = set()
        for k, p in enumerate(bracket):
            if p in used:
                continue
            q = _choose(f, p, bracket, k + 1, used, pref)
            if q is not None:
                used.add(p)
                used.add(q)
                pairs.append((p, q))
        left = [x for x in bracket if x not in used]
        if len(left) > 1 and len(bracket) <= BRACKET_EXACT:
            better = _bracket_exact(f, bracket, set(carried), pref)
            if better is not None and 2 * len(better) > len(bracket) - len(left):
                in_bracket = set(bracket)
                pairs = [pr for pr in pairs if pr[0] not in in_bracket]
                pairs.extend(better)
                paired = {x for pr in better for x in pr}
                left = [x for x in bracket if x not in paired]
        carried = left
    return pairs, carried


def _bracket_exact(
    f: Field, bracket: list[int], floaters: set[int], pref: list[int]
) -> list[tuple[int, int]] | None:
    """Most pairs inside one bracket without repeats (the greedy left too many out).

    Among the largest pairings: pair the players who floated down from above first, then
    the higher-placed (so the lowest float on), then complementary seat preferences,
    then partners as close in the bracket's order as possible (least sum of squared
    distances). Each weight outweighs every sum of the ones below it.
    """
    import networkx as nx

    m = len(bracket)
    near_w = 1
    seat_w = near_w * (m * m * m + 1)  # squared distances add up to less than m^3 / 2
    place_w = seat_w * (m + 1)  # seat clashes add up to at most m/2
    float_w = place_w * (2 * m * m + 1)  # the place terms add up to at most 2m^2
    g = nx.Graph()
    for i in range(m):
        a = bracket[i]
        for j in range(i + 1, m):
            b = bracket[j]
            if not f.allowed(a, b) or f.meetings(a, b):
                continue
            w = (2 * m - i - j) * place_w
            w += float_w * ((a in floaters) + (b in floaters))
            w += (m * m - (j - i) ** 2) * near_w
            w += 0 if pref[a] != 0 and pref[a] == pref[b] else seat_w
            g.add_edge(i, j, weight=w)
    matching = nx.max_weight_matching(g, maxcardinality=True)
    if not matching:
        return None
    out = []
    for i, j in matching:
        a, b = bracket[min(i, j)], bracket[max(i, j)]
        out.append((a, b))
    return out


def _choose(
    f: Field, p: int, pool: list[int], start: int, used: set[int], pref: list[int]
) -> int | None:
    """First allowed unmet partner of ``p`` in ``pool[start:]`` on the points of the first
    one, preferring among the next ``LOOKAHEAD`` of those a complementary seat."""
    first: int | None = None
    seen = 0
    for i in range(start, len(pool)):
        q = pool[i]
        if q in used or q == p or not f.allowed(p, q) or f.meetings(p, q):
            continue
        if first is None:
            first = q
        elif f.points[q] != f.points[first]:
            break
        if pref[p] == 0 or pref[q] != pref[p]:
            return q
        seen += 1
        if seen > LOOKAHEAD:
            break
    return first


def _exact(f: Field, players: list[int]) -> list[tuple[int, int]] | None:
    """Optimal perfect matching of ``players``, or None if the forbidden pairs prevent one."""
    import networkx as nx  # only needed for repairs; keeps the command line quick to start

    pref = [_seat_pref(f.seats[p]) for p in players]
    m = len(players)
    # Lexicographic weights: each outweighs every sum of the terms below it over a
    # perfect matching (m/2 pairs): squared distance in the standings (below f.n^2
    # each), seat clashes (1 each), squared point difference (below max_d2 + 1 each).
    near_w = 1
    clash_w = near_w * (f.n * f.n * (m // 2 + 1) + 1)
    points_w = clash_w * (m // 2 + 1)
    lo, hi = min(f.points[p] for p in players), max(f.points[p] for p in players)
    max_d2 = (hi - lo) ** 2
    repeat_w = points_w * (max_d2 + 1) * (m // 2 + 1) + 1
    big = repeat_w * (max((f.meetings(a, b) for a in players for b in players), default=0) + 2)
    g = nx.Graph()
    g.add_nodes_from(range(m))
    for i in range(m):
        a = players[i]
        for j in range(i + 1, m):
            b = players[j]
            if not f.allowed(a, b):
                continue
            d = f.points[a] - f.points[b]
            clash = 1 if pref[i] != 0 and pref[i] == pref[j] else 0
            cost = f.meetings(a, b) * repeat_w + d * d * points_w + (a - b) ** 2 * near_w
            cost += clash * clash_w
            g.add_edge(i, j, weight=big - cost)
    matching = nx.max_weight_matching(g, maxcardinality=True)
    if 2 * len(matching) != m:
        return None
    out = []
    for i, j in matching:
        a, b = players[i], players[j]
        out.append((a, b) if a < b else (b, a))
    return out


def _cost(f: Field, pairs: list[tuple[int, int]]) -> tuple[int, int]:
    """(repeat meetings, sum of squared point differences) of a pairing."""
    repeats = sum(f.meetings(a, b) for a, b in pairs)
    return repeats, sum((f.points[a] - f.points[b]) ** 2 for a, b in pairs)


def _closest(f: Field, pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Step 3: the exact optimum instead of ``pairs`` when it is strictly better."""
    pts = f.points
    floor = sum((pts[i] - pts[i + 1]) ** 2 for i in range(0, f.n - 1, 2))
    cost = _cost(f, pairs)
    if cost <= (0, floor) or f.n > EXACT_FULL:
        return pairs
    exact = _exact(f, list(range(f.n)))
    if exact is not None and _cost(f, exact) < cost:
        return sorted(exact)
    return pairs


def pair_two(f: Field) -> list[tuple[int, int]]:
    """Pair an even number of players (field indices); each pair is (higher, lower)."""
    n = f.n
    if n == 0:
        return []
    return _closest(f, _pair_two(f))


def _pair_two(f: Field) -> list[tuple[int, int]]:
    n = f.n
    pairs, left = _greedy(f)
    if not left:
        return sorted(pairs)
    partner: dict[int, tuple[int, int]] = {}
    for pr in pairs:
        partner[pr[0]] = pr
        partner[pr[1]] = pr
    width = 16
    while True:
        chosen: set[int] = set(left)
        for x in left:
            chosen.update(range(max(0, x - width), min(n, x + width + 1)))
        chosen.update(range(max(0, n - 2 * width), n))
        window: set[int] = set()
        for x in chosen:
            window.update(partner.get(x, (x,)))
        everybody = len(window) >= n
        result = _exact(f, sorted(window))
        if result is not None:
            repeats = sum(f.meetings(a, b) for a, b in result)
            if repeats == 0 or everybody or len(window) > EXACT_LIMIT:
                kept = [pr for pr in pairs if pr[0] not in window]
                return sorted(kept + result)
        elif everybody:
            raise Infeasible("the forbidden pairs leave no way to pair these players")
        width *= 2
