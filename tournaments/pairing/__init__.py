"""Pairing of one tournament round: pure Python, no Django (``python -m tournaments.pairing``).

The contract is ``/work/shared/spec/tournaments.md``. Choices made where it is silent:

- Standings order: points descending, then rating descending, then id ascending.
- Table sizes: see :mod:`.sizes` (most tables of the most preferred size, then of the
  next, ...; byes only when no split exists, as few as possible). The preference yields
  to rules 1-3: another split is taken when it keeps forbidden pairs apart where the
  preferred one cannot, gives the byes to more deserving players, or needs fewer repeat
  meetings; rules 4 and 5 choose within a split. The first ``SPLITS_MAX`` splits are
  paired in full (every split, while the best has a repeat meeting, in fields of up to
  ``ALL_SPLITS_PLAYERS``); beyond, while the best has a repeat meeting, any split that
  seats everyone with none, as a quick search (:mod:`.fresh`, step-bounded) tells. When
  that search proves that no split before some split can seat the players with the most
  deserving byes and no repeat meeting, and that one can, it is the split at once.
- Byes: candidates ordered by fewest earlier byes, then lowest in the standings (fewest
  points, then lowest rating; between players tied on all three, the choice with the
  fewest repeat meetings, then the closest points at the tables, then the id that sorts
  last; up to ``TIED_BYE_TRIES`` other choices are tried, and the quick search looks for
  tied players whose byes leave no repeat meeting). If the forbidden pairs make the rest
  impossible to seat, the next candidate(s) in that order are tried (choices that would
  seat a player with fewer allowed partners than the smallest table needs are passed
  over at a glance; of the others at most ``max(10, 2000 // active)`` are tried in
  full). When none of those works, the quick search decides: the most deserving byes
  with which a seating exists; never more byes than the sizes need while one exists;
  else the fewest more byes that keep the forbidden pairs apart (a player forbidden with
  everyone else sits out rather than nobody playing). The input is rejected ("no way to
  seat ...") when nobody can be seated (at once when no table of the smallest size is
  possible at all), or when the search runs out of steps (very dense forbidden lists).
  The quick search handles up to ``fresh.MAX_DEPTH`` tables and byes; beyond, the full
  pairing alone decides.
- Optimality of rule 4: proved (exact matching / exhaustive search) up to 100 players two
  a table; at bigger tables by a branch and bound from the local search's layout that
  looks at up to 50,000 tables (a few seconds: the site pairs a round while the
  organizer waits), for fields of up to 24 players (it finishes, and so proves the
  minimum, for every field of up to 16 players we generated); beyond, the best layout
  found.
- Two players a table: :mod:`.two`; three or more (or mixed sizes): :mod:`.tables`;
  seat order: :mod:`.seats`.
- Output: tables top first (ordered by their highest-placed player), each in seat
  order; byes in the order they were chosen.
- The seed only drives the randomised parts of the search for bigger tables (tabu ties,
  annealing of the point spread); every loop is bounded by a step count, not the clock.
- Priorities: forbidden pairs and table sizes are hard; then byes; then fewest repeats
  (an earlier meeting counts once per meeting); then the preferred split of sizes; then
  points close together (two a table: fewest and smallest score gaps; bigger tables: sum
  over pairs at a table of the squared point gap); then seats; ties in the end by
  standings order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from itertools import combinations, islice, product

from engine.words import counted

from . import two
from .fresh import OutOfSteps, Steps, fresh_layout
from .model import (
    Field,
    PairingError,
    PairingRequest,
    PairingResult,
    Player,
    build_field,
    parse_request,
    standings_key,
)
from .seats import seat_order
from .sizes import plan, splits
from .tables import Infeasible as TablesInfeasible
from .tables import pair_tables

__all__ = [
    "PairingError",
    "PairingRequest",
    "PairingResult",
    "Player",
    "pair",
    "pair_json",
    "parse_request",
]

# How many choices of bye players to try when forbidden pairs get in the way (each try
# is a full pairing, so big fields try fewer).
BYE_WORK = 2_000
# How many choices of bye players to look at, at most (most are ruled out at a glance).
BYE_CHOICES = 200_000


def _bye_order(active: list[Player]) -> list[Player]:
    """Bye candidates, first = most deserving of the bye."""
    ranked = sorted(active, key=standings_key)
    place = {p.id: i for i, p in enumerate(ranked)}
    return sorted(active, key=lambda p: (p.byes, -place[p.id]))


def _seat_round(request: PairingRequest, seated: list[Player], sizes: list[int]) -> PairingResult:
    seated = sorted(seated, key=standings_key)
    f = build_field(request, seated)
    groups: list[list[int]]
    if all(s == 2 for s in sizes):
        groups = [list(pr) for pr in two.pair_two(f)]
    else:
        groups = pair_tables(f, sizes, request.seed)
    return _seated(f, groups)


def _seated(f: Field, groups: list[list[int]]) -> PairingResult:
    """The tables of these groups (indexes into ``f``): top table first, in seat order."""
    groups = sorted(groups, key=min)
    tables = []
    for t, g in enumerate(groups):
        ordered = seat_order(sorted(g), f.seats, t)
        tables.append(tuple(f.ids[i] for i in ordered))
    return PairingResult(tables=tuple(tables))


def _fresh_result(
    request: PairingRequest, active: list[Player], layout: tuple[list[list[int]], list[int]]
) -> PairingResult:
    """The result of a layout found by :func:`.fresh.fresh_layout` (indexes into
    ``active``): used when the full pairing of its split did not find one."""
    tables, byes = layout
    out = {active[i].id for i in byes}
    seated = sorted((p for p in active if p.id not in out), key=standings_key)
    f = build_field(request, seated)
    where = {p.id: i for i, p in enumerate(seated)}
    groups = [[where[active[i].id] for i in table] for table in tables]
    bye_ids = tuple(active[i].id for i in byes)
    return replace(_seated(f, groups), byes=bye_ids)


def _from_layout(
    request: PairingRequest,
    active: list[Player],
    sizes: list[int],
    layout: tuple[list[list[int]], list[int]],
) -> PairingResult:
    """A pairing with the byes of a layout the quick search found: the split's full
    pairing of the others (rules 4 and 5 choose; ``request`` with the earlier meetings
    as forbidden pairs when the layout has none), or the layout itself when that search
    does not find one."""
    bye_ids = tuple(active[i].id for i in layout[1])
    out = set(bye_ids)
    try:
        seated = _seat_round(request, [p for p in active if p.id not in out], sizes)
    except (two.Infeasible, TablesInfeasible):
        return _fresh_result(request, active, layout)
    return replace(seated, byes=bye_ids)


# How many splits of the players into table sizes are paired in full, at most (each is a
# full pairing): the preferred one, then the next ones when it breaks rule 1, 2 or 3.
SPLITS_MAX = 6
# Beyond them (SPLITS_ANY splits at most), a split is looked at only while none keeps the
# forbidden pairs apart, or for a layout with no repeat meeting while the best has one:
# :mod:`.fresh` tells at a glance whether the split has one (FRESH_STEPS steps for all the
# splits together), and only a split that has one is paired in full, with the earlier
# meetings as forbidden pairs.
SPLITS_ANY = 200
FRESH_STEPS = 300_000
# One split's share of them when the search looks for any split with no repeat meeting:
# proving that a split has none can take long, and the one that has may come later.
SPLIT_STEPS = 20_000
# In fields this small every split is paired in full while the best has a repeat meeting
# ("as few repeat meetings as possible" when none is impossible: the quick search knows
# only whether a split can have none; a few seconds at most).
ALL_SPLITS_PLAYERS = 12
# In fields this small the full pairing's search is exhaustive; in bigger ones, with
# byes to choose, each choice it tries could run its whole budget (seconds): the layout
# the quick search found is taken as it is.
STRICT_PLAYERS = 16


def pair(request: PairingRequest) -> PairingResult:
    """Pair one round: tables in seat order (top table first) and the byes.

    The preferred split into table sizes (:mod:`.sizes`) is kept unless another split
    does better on the contract's rules 1-3, which come first: one that keeps the
    forbidden pairs apart when it cannot, one whose byes go to more deserving players, or
    one with fewer repeat meetings. Rules 4 and 5 (points, seats) only choose within a
    split. Raises :class:`PairingError` when nobody can be seated, when the forbidden
    pairs leave no table of the smallest size (found at a glance), or when they leave no
    way to seat the players with the fewest byes the sizes allow.
    """
    active = [p for p in request.players if not p.withdrawn]
    if not active:
        raise PairingError("no way to seat anyone: there are no active players")
    layout = plan(len(active), request.table_sizes)
    if layout is None:
        raise PairingError(
            f"no way to seat anyone: {counted(len(active), 'active player')} cannot fill a table "
            f"of {min(request.table_sizes)}"
        )
    n_byes, _preferred = layout
    smallest = min(request.table_sizes)
    if request.forbidden and not _table_possible(request, active, smallest):
        raise PairingError(
            f"no way to seat anyone: the forbidden pairs leave no {smallest} players who may "
            "all share a table"
        )
    candidates = _bye_order(active)
    rank = _deserving_rank(candidates)
    steps = Steps(FRESH_STEPS)
    proven_none = False
    if request.forbidden:
        # Forbidden pairs may leave no seating with these byes at all: found out at a
        # glance, rather than by a full pairing of every choice of byes (seconds).
        try:
            proven_none = _any_seating(request, active, n_byes, steps) is None
        except OutOfSteps:
            pass
    found = None if proven_none else _pair_with_byes(request, active, candidates, rank, n_byes)
    if found is None:
        found = _by_search(request, active, candidates, rank, n_byes, steps,
                           more_only=proven_none)  # fmt: skip
    return found


def _any_seating(
    request: PairingRequest, active: list[Player], count: int, steps: Steps
) -> tuple[list[int], tuple[list[list[int]], list[int]]] | None:
    """A split and a layout seating the active players but ``count`` with no forbidden
    pair at a table (anyone on a bye), the most preferred split first; None when there
    is provably none. Raises OutOfSteps."""
    may_meet = _may_meet(request, active)
    for sizes in splits(len(active) - count, request.table_sizes, SPLITS_ANY):
        layout = fresh_layout(may_meet, sizes, count, steps)
        if layout is not None:
            return sizes, layout
    return None


def _by_search(
    request: PairingRequest,
    active: list[Player],
    candidates: list[Player],
    rank: dict[str, int],
    n_byes: int,
    steps: Steps,
    *,
    more_only: bool,
) -> PairingResult:
    """When the full pairing found no seating with the byes the sizes need (its tries of
    bye choices are bounded): the quick search (:mod:`.fresh`) decides. With these byes
    if any seating exists (never more byes than needed); else the fewest more byes that
    keep the forbidden pairs apart (rule 1 is hard, rule 2 asks for as few byes as
    possible: a player forbidden with everyone else sits out rather than nobody playing).
    Rule 2 then chooses who: the most deserving bye players with whom a seating exists.
    Raises PairingError when nobody can be seated, or when the search runs out of steps."""
    try:
        for count in range(n_byes, len(active) - min(request.table_sizes) + 1):
            if count == n_byes and more_only:
                continue
            anyone = _any_seating(request, active, count, steps)
            if anyone is None:
                continue  # provably no seating with this many byes
            try:
                options = [_deserving_seating(request, active, candidates, count, steps)]
            except OutOfSteps:  # a seating exists: the full pairing's, or the one found
                options = []
            if count > n_byes:
                options.append(_pair_with_byes(request, active, candidates, rank, count))
            found = [o for o in options if o is not None]
            if not found:
                return _from_layout(request, active, *anyone)
            # The more deserving byes (the full pairing tries few choices), then fewer
            # repeat meetings; the search's on a tie.
            return min(found, key=lambda o: (sorted(rank[b] for b in o.byes),
                                             _repeats(request, o.tables)))  # fmt: skip
    except OutOfSteps:
        raise PairingError(
            "no way to seat the players was found in time: the forbidden pairs are too many "
            "to keep apart by search; withdraw a player or drop a pair"
        ) from None
    raise PairingError("no way to seat the players: the forbidden pairs cannot all be kept apart")


def _deserving_seating(
    request: PairingRequest, active: list[Player], candidates: list[Player], count: int,
    steps: Steps,
) -> PairingResult | None:
    """The most deserving ``count`` bye players (places in the bye order, tied players
    alike) with whom the others can be seated keeping the forbidden pairs apart: decided
    group by group of tied players in bye order, as many of each as a seating allows
    (a search each), then with no repeat meeting if that can be, in the most preferred
    split that allows it. None when nobody can be seated so. Raises OutOfSteps."""
    groups = _tie_groups(candidates)
    group_of = {candidates[i].id: g for g, members in enumerate(groups) for i in members}
    forbid = _may_meet(request, active)
    all_splits = splits(len(active) - count, request.table_sizes, SPLITS_ANY)

    def seatable(profile: list[int]) -> bool:
        """Whether the groups so far can give exactly ``profile`` byes, the later ones
        (pooled) the rest."""
        pooled = len(profile)
        of_active = [min(group_of[p.id], pooled) for p in active]
        quota = [*profile, count - sum(profile)]
        return any(fresh_layout(forbid, sizes, count, steps, (of_active, quota)) is not None
                   for sizes in all_splits)  # fmt: skip

    profile: list[int] = []
    for members in groups:
        left = count - sum(profile)
        for take in range(min(left, len(members)), -1, -1):
            if seatable([*profile, take]):
                profile.append(take)
                break
        else:
            return None  # no seating at all with this many byes
    of_active = [group_of[p.id] for p in active]
    strict = _no_repeats(request, active)
    for seating_request, may_meet in ((strict, _may_meet(strict, active)), (request, forbid)):
        for sizes in all_splits:
            layout = fresh_layout(may_meet, sizes, count, steps, (of_active, profile))
            if layout is not None:
                return _from_layout(seating_request, active, sizes, layout)
    return None


# The clique search of ``_table_possible`` gives up (and answers "possible") after this
# many steps.
TABLE_CHECK_STEPS = 200_000


def _table_possible(request: PairingRequest, active: list[Player], size: int) -> bool:
    """Whether some ``size`` active players may all share a table (no forbidden pair among
    them): a clique of ``size`` in the graph of allowed pairs. Two clubs whose members may
    not meet, at tables of 3, have none; the full search took minutes to find that out."""
    ids = [p.id for p in active]
    barred: dict[str, set[str]] = {p: set() for p in ids}
    for a, b in request.forbidden:
        if a in barred and b in barred:
            barred[a].add(b)
            barred[b].add(a)
    allowed = {p: set(ids) - barred[p] - {p} for p in ids}
    steps = [TABLE_CHECK_STEPS]

    def extend(size_left: int, candidates: list[str]) -> bool:
        if size_left == 0:
            return True
        for i, v in enumerate(candidates):
            steps[0] -= 1
            if steps[0] <= 0:
                return True  # too long to tell: let the full search decide
            if len(candidates) - i < size_left:
                return False
            if extend(size_left - 1, [w for w in candidates[i + 1 :] if w in allowed[v]]):
                return True
        return False

    return extend(size, sorted(ids, key=lambda p: -len(allowed[p])))


def _pair_with_byes(
    request: PairingRequest,
    active: list[Player],
    candidates: list[Player],
    rank: dict[str, int],
    n_byes: int,
) -> PairingResult | None:
    """The best pairing with ``n_byes`` byes over the splits of the rest (rules 1-3,
    then the preferred split), or None when the forbidden pairs rule out every one."""
    ideal = tuple(sorted(rank[p.id] for p in candidates[:n_byes]))  # the most deserving
    best: tuple[tuple[tuple[int, ...], int, int], PairingResult] | None = None
    all_splits = splits(len(active) - n_byes, request.table_sizes, SPLITS_ANY)
    strict = _no_repeats(request, active)
    may_meet = _may_meet(strict, active)
    steps = Steps(FRESH_STEPS)  # for both quick searches together
    # split -> a layout with the most deserving byes and no repeat meeting, or None when
    # provably there is none (as far as the quick search looked).
    known: dict[int, tuple[list[list[int]], list[int]] | None] = {}
    ahead = _fresh_split(request, strict, active, candidates, n_byes, all_splits, may_meet,
                         steps.part(FRESH_STEPS // 3), known)  # fmt: skip
    if ahead is not None:
        return ahead
    every_split = len(active) <= ALL_SPLITS_PLAYERS
    for split_rank, sizes in enumerate(all_splits):
        if best is None or split_rank < SPLITS_MAX or (every_split and best[0][1] > 0):
            found = _pair_split(request, active, candidates, n_byes, sizes)
            layout = known.get(split_rank)
            if layout is not None and (
                found is None
                or _repeats(request, found.tables)
                or tuple(sorted(rank[b] for b in found.byes)) != ideal
            ):
                # The full pairing's tries of bye choices and its search stop somewhere;
                # the quick search's layout has the most deserving byes and no repeat.
                found = _from_layout(strict, active, sizes, layout)
        elif best[0][1] == 0:
            break  # past the first few, only to keep forbidden pairs apart or avoid repeats
        else:
            # "When no repeat is needed, none happens": a less preferred split counts only
            # if it seats everyone with no repeat meeting, so ask just that: first at a
            # glance, then in full (the earlier meetings as forbidden pairs).
            layout = known.get(split_rank)
            if layout is None and (n_byes or split_rank not in known):
                try:  # any byes will do here (the key below weighs them)
                    layout = fresh_layout(may_meet, sizes, n_byes, steps.part(SPLIT_STEPS))
                except OutOfSteps:
                    if steps.left <= 0:
                        break
                    continue  # this split's share ran out: the next may tell at once
            if layout is None:
                continue
            found = None
            if n_byes == 0 or len(active) <= STRICT_PLAYERS:
                found = _pair_split(strict, active, candidates, n_byes, sizes)
            if found is None:
                found = _from_layout(strict, active, sizes, layout)
        if found is None:
            continue
        result = found
        key = (tuple(sorted(rank[b] for b in result.byes)), _repeats(request, result.tables),
               split_rank)  # fmt: skip
        if best is None or key < best[0]:
            best = (key, result)
        # Nothing can beat the most deserving byes with no repeat meeting: the splits
        # after it are less preferred.
        if key[0] == ideal and key[1] == 0:
            break
    if best is not None and best[0][1] and n_byes:
        # Byes as deserving as the best's (other players of the same places) may let
        # everyone else sit with no repeat meeting: the full pairing tries only a few.
        groups = _tie_groups(candidates)
        group_of = {candidates[i].id: g for g, members in enumerate(groups) for i in members}
        quota = [0] * len(groups)
        for b in best[1].byes:
            quota[group_of[b]] += 1
        of_active = [group_of[p.id] for p in active]
        for split_rank, sizes in enumerate(all_splits):
            try:
                layout = fresh_layout(may_meet, sizes, n_byes, steps, (of_active, quota))
            except OutOfSteps:
                break
            if layout is not None:
                result = _from_layout(strict, active, sizes, layout)
                key = (tuple(sorted(rank[b] for b in result.byes)),
                       _repeats(request, result.tables), split_rank)  # fmt: skip
                if key < best[0]:
                    best = (key, result)
                break
    return best[1] if best is not None else None


def _fresh_split(
    request: PairingRequest,
    strict: PairingRequest,
    active: list[Player],
    candidates: list[Player],
    n_byes: int,
    all_splits: list[list[int]],
    may_meet: list[int],
    steps: Steps,
    known: dict[int, object],
) -> PairingResult | None:
    """Rule 3 before the preferred split: when the preferred split provably cannot seat
    the players with the most deserving byes and no repeat meeting, but a later one can
    (each earlier one provably cannot), that split's pairing: nothing can beat it, and
    pairing the splits before it in full only to find repeats took seconds each. None
    when the preferred split may do (the usual case, left to the full pairing), or when
    the quick search cannot tell. Each split's answer goes into ``known``."""
    if all(m == (1 << len(active)) - 1 & ~(1 << i) for i, m in enumerate(may_meet)):
        return None  # nobody has met, nothing is forbidden: the preferred split will do
    keys: dict[tuple[int, float, float], int] = {}
    for p in candidates:
        keys.setdefault(_tie_key(p), len(keys))
    quota = [0] * len(keys)
    for p in candidates[:n_byes]:
        quota[keys[_tie_key(p)]] += 1
    bye_groups = ([keys[_tie_key(p)] for p in active], quota)
    for split_rank, sizes in enumerate(all_splits):
        try:
            layout = fresh_layout(may_meet, sizes, n_byes, steps, bye_groups)
        except OutOfSteps:
            return None
        known[split_rank] = layout
        if layout is None:
            continue
        if split_rank == 0:
            return None
        bye_ids = {active[i].id for i in layout[1]}
        if n_byes == 0 or len(active) <= STRICT_PLAYERS:
            found = _pair_split(strict, active, candidates, n_byes, sizes)
            if found is not None and sorted(_ranks_of(candidates, found.byes)) == sorted(
                _ranks_of(candidates, bye_ids)
            ):
                return found
        return _from_layout(strict, active, sizes, layout)
    return None


def _ranks_of(candidates: list[Player], ids: object) -> list[int]:
    """The bye-order ranks of these players (tied players share one)."""
    rank = _deserving_rank(candidates)
    return [rank[i] for i in ids]


def _no_repeats(request: PairingRequest, active: list[Player]) -> PairingRequest:
    """``request`` with every earlier meeting between active players as a forbidden pair:
    a pairing of it has no repeat meeting."""
    ids = {p.id for p in active}
    met = {
        tuple(sorted((p.id, o)))
        for p in active
        for o in p.opponents
        if o in ids and o != p.id
    }
    return replace(request, forbidden=tuple(sorted(set(request.forbidden) | met)))


def _may_meet(request: PairingRequest, active: list[Player]) -> list[int]:
    """For each active player (by index), the bitmask of those it may share a table with
    (no forbidden pair between them)."""
    index = {p.id: i for i, p in enumerate(active)}
    everyone = (1 << len(active)) - 1
    masks = [everyone & ~(1 << i) for i in range(len(active))]
    for a, b in request.forbidden:
        i, j = index.get(a), index.get(b)
        if i is not None and j is not None:
            masks[i] &= ~(1 << j)
            masks[j] &= ~(1 << i)
    return masks


def _deserving_rank(candidates: list[Player]) -> dict[str, int]:
    """Each candidate's place in the bye order, players tied on byes, points and rating
    sharing the first place of their group (rule 2 does not choose between them)."""
    rank: dict[str, int] = {}
    first: dict[tuple[int, float, float], int] = {}
    for i, p in enumerate(candidates):
        rank[p.id] = first.setdefault(_tie_key(p), i)
    return rank


def _pair_split(
    request: PairingRequest,
    active: list[Player],
    candidates: list[Player],
    n_byes: int,
    sizes: list[int],
) -> PairingResult | None:
    """The pairing at these table sizes: the most deserving byes that let the forbidden
    pairs be kept apart (between tied players, the fewest repeats, then the closest
    points); None when no choice of byes does."""
    attempts = max(10, BYE_WORK // len(active))
    for chosen in islice(_bye_choices(request, candidates, n_byes, min(sizes)), BYE_CHOICES):
        byes = [candidates[i] for i in chosen]
        bye_ids = {p.id for p in byes}
        seated = [p for p in active if p.id not in bye_ids]
        try:
            result = _seat_round(request, seated, sizes)
        except (two.Infeasible, TablesInfeasible):
            attempts -= 1
            if attempts <= 0:
                break
            continue
        if byes and (_repeats(request, result.tables) or _spread(request, result.tables)):
            result, byes = _best_among_tied_byes(request, active, sizes, candidates, chosen,
                                                 result, byes)  # fmt: skip
        return PairingResult(tables=result.tables, byes=tuple(p.id for p in byes))
    return None


# How many other choices of bye players, tied with the first on byes, points and rating,
# are tried when the first one leads to repeat meetings or to points apart at a table
# (each try is a full pairing, so big fields try fewer).
TIED_BYE_TRIES = 20


def _tie_key(p: Player) -> tuple[int, float, float]:
    return (p.byes, p.points, p.rating)


def _repeats(request: PairingRequest, tables: tuple[tuple[str, ...], ...]) -> int:
    """Repeat meetings of a layout, once per earlier meeting (rule 3). A meeting listed
    on one side only counts (the larger of the two counts, as ``build_field`` reads)."""
    opponents = {p.id: p.opponents for p in request.players}
    return sum(
        max(opponents[a].count(b), opponents[b].count(a))
        for table in tables
        for a, b in combinations(table, 2)
    )


def _spread(request: PairingRequest, tables: tuple[tuple[str, ...], ...]) -> float:
    points = {p.id: p.points for p in request.players}
    return sum((points[a] - points[b]) ** 2 for t in tables for a, b in combinations(t, 2))


def _best_among_tied_byes(
    request: PairingRequest,
    active: list[Player],
    sizes: list[int],
    candidates: list[Player],
    chosen: tuple[int, ...],
    result: PairingResult,
    byes: list[Player],
) -> tuple[PairingResult, list[Player]]:
    """Rule 2 names who gets a bye by fewest byes, then points, then rating; between
    players tied on all three it does not choose, so rules 3 and 4 do: of the choices
    that swap a bye player for one tied with it, the one with the fewest repeat meetings,
    then the closest points at the tables (the first in the bye order among equals)."""
    groups: dict[tuple[int, float, float], list[int]] = {}
    for i, p in enumerate(candidates):
        groups.setdefault(_tie_key(p), []).append(i)
    needed: dict[tuple[int, float, float], int] = {}
    for i in chosen:
        needed[_tie_key(candidates[i])] = needed.get(_tie_key(candidates[i]), 0) + 1
    if all(len(groups[k]) == n for k, n in needed.items()):
        return result, byes  # nobody is tied with a bye player
    pools = [list(combinations(groups[k], n)) for k, n in sorted(needed.items())]
    best = (_repeats(request, result.tables), _spread(request, result.tables))
    tried = 0
    limit = min(TIED_BYE_TRIES, max(3, BYE_WORK // (10 * len(active))))
    for parts in product(*pools):
        option = tuple(sorted(i for part in parts for i in part))
        if option == tuple(sorted(chosen)):
            continue
        if tried >= limit:
            break
        tried += 1
        other = [candidates[i] for i in option]
        other_ids = {p.id for p in other}
        try:
            seated = _seat_round(request, [p for p in active if p.id not in other_ids], sizes)
        except (two.Infeasible, TablesInfeasible):
            continue
        cost = (_repeats(request, seated.tables), _spread(request, seated.tables))
        if cost < best:
            best, result, byes = cost, seated, other
            if cost == (0, 0):
                break
    return result, byes


def _bye_choices(
    request: PairingRequest, candidates: list[Player], n_byes: int, smallest: int
) -> Iterator[tuple[int, ...]]:
    """Choices of ``n_byes`` bye players (indexes into ``candidates``), most deserving
    first, leaving out at once the choices that seat a player with fewer allowed partners
    than the smallest table needs (a player forbidden with nearly everyone must be among
    the byes, however far down the order that choice comes)."""
    index = {p.id: i for i, p in enumerate(candidates)}
    barred: dict[int, set[int]] = {}
    for a, b in request.forbidden:
        if a in index and b in index:
            barred.setdefault(index[a], set()).add(index[b])
            barred.setdefault(index[b], set()).add(index[a])
    partners_needed = smallest - 1
    seated_count = len(candidates) - n_byes
    for chosen in _by_deserving(candidates, n_byes):
        out = set(chosen)
        if all(
            seated_count - 1 - len(others - out) >= partners_needed
            for x, others in barred.items()
            if x not in out
        ):
            yield chosen


def _by_deserving(candidates: list[Player], n_byes: int) -> Iterator[tuple[int, ...]]:
    """Every choice of ``n_byes`` candidates (sorted indexes), the most deserving first:
    in the order of their places in the bye order, players tied on byes, points and
    rating counting as one place (rule 2 does not choose between them). Plain index order
    put byes (0, 5) before (3, 4) when 0-4 are tied: a second bye for the player at 5
    while two of the tied players could take it. Lazy: big fields are cut off early."""
    groups = _tie_groups(candidates)

    def choices(picks: list[tuple[int, int]]) -> Iterator[tuple[int, ...]]:
        """The choices of ``picks`` one at a time (``itertools.product`` would build
        every combination first: billions in a big field tied in round 1)."""
        if not picks:
            yield ()
            return
        (g, n), rest = picks[0], picks[1:]
        for head in combinations(groups[g], n):
            for tail in choices(rest):
                yield head + tail

    for picks in _pick_counts(groups, 0, n_byes):
        for chosen in choices(picks):
            yield tuple(sorted(chosen))


def _tie_groups(candidates: list[Player]) -> list[list[int]]:
    """The candidates (indexes, in bye order) in groups of players tied on byes, points
    and rating (adjacent in that order): rule 2 does not choose within a group."""
    groups: list[list[int]] = []
    for i, p in enumerate(candidates):
        if groups and _tie_key(candidates[groups[-1][0]]) == _tie_key(p):
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def _pick_counts(groups: list[list[int]], start: int, left: int) -> Iterator[list[tuple[int, int]]]:
    """(group, how many of it) lists taking ``left`` players from groups ``start`` on, in
    lexicographic order of the groups taken (so of their places): the most deserving
    byes first."""
    if left == 0:
        yield []
        return
    for g in range(start, len(groups)):
        for take in range(min(left, len(groups[g])), 0, -1):
            for rest in _pick_counts(groups, g + 1, left - take):
                yield [(g, take), *rest]


def pair_json(data: object) -> dict[str, object]:
    """Parse the contract's input object, pair, and return the output object."""
    return pair(parse_request(data)).to_json()
