"""Typed input/output of the pairing and the parsing of the JSON contract.

Documented readings of the contract (see also ``tournaments/pairing/__init__.py``):

- Only ``id`` is required for a player; ``points``, ``rating`` and ``byes`` default to 0,
  ``opponents`` and ``seats`` to empty lists, ``withdrawn`` to false.
- ``opponents`` may name withdrawn players (they played earlier rounds) but not unknown ids
  nor the player itself. The number of earlier meetings of a pair is the larger of the two
  counts (the input is normally symmetric: each side lists the other once per meeting).
- A ``forbidden`` pair must name two different known players; pairs naming a withdrawn
  player are accepted and have no effect.
- ``points`` lie between -10^12 and 10^12 (``MAX_POINTS``): the search squares their
  differences, which overflowed beyond about 1e154 (a traceback); a rating only has to
  fit a float.
- Unknown fields are ignored (room for names, clubs...); a table size listed twice counts
  once, at its first place.
- ``seed`` is optional (default 0); it only drives the random restarts of the local search
  for tables of three or more, never the ordinary choices.
- Table sizes run from 2 to ``MAX_TABLE`` (12): the contract sets no bound, a table needs
  two players, and the seat order of a table is an exact search over its 2^k seatings.
  Big tables cost the search more: 25 equally rated players take about a minute and a
  half to pair at tables of 8 and two minutes at 12 (half a minute at 6) on a 2-core
  machine; the site's tournaments seat at most 6, as its games do.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

MAX_TABLE = 12


class PairingError(ValueError):
    """Bad input or an impossible pairing; the command line exits 2 with this message."""


@dataclass(frozen=True)
class Player:
    """One registered player as seen by the pairing."""

    id: str
    points: float = 0.0
    rating: float = 0.0
    opponents: tuple[str, ...] = ()
    byes: int = 0
    seats: tuple[int, ...] = ()
    withdrawn: bool = False


@dataclass(frozen=True)
class PairingRequest:
    """Everything the pairing of one round needs."""

    table_sizes: tuple[int, ...]
    players: tuple[Player, ...]
    forbidden: tuple[tuple[str, str], ...] = ()
    seed: int = 0


@dataclass(frozen=True)
class PairingResult:
    """Tables (players in seat order, top table first) and the players given a bye."""

    tables: tuple[tuple[str, ...], ...]
    byes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The contract's output object."""
        return {"tables": [list(t) for t in self.tables], "byes": list(self.byes)}


# The largest points (either sign) the pairing computes with: their squared differences
# must stay finite floats (1e200 points against -1e200 overflowed, a traceback).
MAX_POINTS = 10**12


def _number(value: Any, what: str, limit: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PairingError(f"{what} must be a finite number, got {value!r}")
    try:
        number = float(value)  # an integer of hundreds of digits does not fit a float
    except OverflowError:
        raise PairingError(f"{what} must be a finite number, got an integer of "
                           f"{len(str(abs(value)))} digits") from None  # fmt: skip
    if not math.isfinite(number):
        raise PairingError(f"{what} must be a finite number, got {value!r}")
    if limit is not None and abs(number) > limit:
        raise PairingError(f"{what} must be between {-limit} and {limit}, got {value!r}")
    return number


def _count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise PairingError(f"{what} must be a non-negative integer, got {value!r}")
    return value


def _player(raw: Any, index: int) -> Player:
    if not isinstance(raw, dict):
        raise PairingError(f"players[{index}] must be an object")
    pid = raw.get("id")
    if not isinstance(pid, str) or not pid:
        raise PairingError(f"players[{index}].id must be a non-empty string")
    opponents = raw.get("opponents", [])
    if not isinstance(opponents, list) or not all(isinstance(o, str) for o in opponents):
        raise PairingError(f"player {pid!r}: opponents must be a list of player ids")
    seats = raw.get("seats", [])
    if not isinstance(seats, list):
        raise PairingError(f"player {pid!r}: seats must be a list of counts")
    withdrawn = raw.get("withdrawn", False)
    if not isinstance(withdrawn, bool):
        raise PairingError(f"player {pid!r}: withdrawn must be true or false")
    return Player(
        id=pid,
        points=_number(raw.get("points", 0), f"player {pid!r}: points", MAX_POINTS),
        rating=_number(raw.get("rating", 0), f"player {pid!r}: rating"),
        opponents=tuple(opponents),
        byes=_count(raw.get("byes", 0), f"player {pid!r}: byes"),
        seats=tuple(_count(s, f"player {pid!r}: seats[{k}]") for k, s in enumerate(seats)),
        withdrawn=withdrawn,
    )


def parse_request(data: Any) -> PairingRequest:
    """Check a decoded JSON object against the contract and build a :class:`PairingRequest`.

    Raises :class:`PairingError` with a precise message on the first problem found.
    """
    if not isinstance(data, dict):
        raise PairingError("input must be a JSON object")
    sizes = data.get("table_sizes")
    if not isinstance(sizes, list) or not sizes:
        raise PairingError("table_sizes must be a non-empty list")
    for s in sizes:
        if isinstance(s, bool) or not isinstance(s, int) or not 2 <= s <= MAX_TABLE:
            raise PairingError(f"table_sizes: {s!r} is not a table size between 2 and {MAX_TABLE}")
    sizes = list(dict.fromkeys(sizes))  # a size listed twice counts once, where first listed
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise PairingError("seed must be an integer")
    raw_players = data.get("players")
    if not isinstance(raw_players, list):
        raise PairingError("players must be a list")
    players = tuple(_player(p, i) for i, p in enumerate(raw_players))
    ids = set()
    for p in players:
        if p.id in ids:
            raise PairingError(f"player id {p.id!r} appears twice")
        ids.add(p.id)
    for p in players:
        for o in p.opponents:
            if o not in ids:
                raise PairingError(f"player {p.id!r}: unknown opponent {o!r}")
            if o == p.id:
                raise PairingError(f"player {p.id!r} lists itself as an opponent")
    raw_forbidden = data.get("forbidden", [])
    if not isinstance(raw_forbidden, list):
        raise PairingError("forbidden must be a list of pairs")
    forbidden = []
    for k, pair in enumerate(raw_forbidden):
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or not all(isinstance(x, str) for x in pair)
        ):
            raise PairingError(f"forbidden[{k}] must be a pair of player ids")
        for x in pair:
            if x not in ids:
                raise PairingError(f"forbidden[{k}] names unknown player {x!r}")
        if pair[0] == pair[1]:
            raise PairingError(f"forbidden[{k}] names the same player twice")
        forbidden.append((pair[0], pair[1]))
    return PairingRequest(
        table_sizes=tuple(sizes), players=players, forbidden=tuple(forbidden), seed=seed
    )


@dataclass
class Field:
    """The active players as small integers, with everything the algorithms look up.

    Index ``i`` is the player's place in the standings (0 = leader): points descending,
    rating descending, id ascending.
    """

    ids: list[str]
    points: list[int]  # points in hundredths, for exact integer arithmetic
    byes: list[int]
    seats: list[tuple[int, ...]]
    met: dict[int, int] = field(default_factory=dict)  # key a * n + b (a < b) -> meetings
    forbidden: set[int] = field(default_factory=set)  # same keys

    @property
    def n(self) -> int:
        return len(self.ids)

    def key(self, a: int, b: int) -> int:
        return a * self.n + b if a < b else b * self.n + a

    def meetings(self, a: int, b: int) -> int:
        return self.met.get(self.key(a, b), 0)

    def allowed(self, a: int, b: int) -> bool:
        return self.key(a, b) not in self.forbidden


def standings_key(p: Player) -> tuple[float, float, str]:
    """Sort key of the standings: points, then rating (both descending), then id."""
    return (-p.points, -p.rating, p.id)


def build_field(request: PairingRequest, active: list[Player]) -> Field:
    """Index the given active players (already in standings order) for the algorithms."""
    index = {p.id: i for i, p in enumerate(active)}
    f = Field(
        ids=[p.id for p in active],
        points=[round(p.points * 100) for p in active],
        byes=[p.byes for p in active],
        seats=[p.seats for p in active],
    )
    n = len(active)
    counts: dict[int, int] = {}
    for i, p in enumerate(active):
        mine: dict[int, int] = {}
        for o in p.opponents:
            j = index.get(o)
            if j is not None:
                mine[j] = mine.get(j, 0) + 1
        for j, c in mine.items():
            k = i * n + j if i < j else j * n + i
            if c > counts.get(k, 0):
                counts[k] = c
    f.met = counts
    for a, b in request.forbidden:
        i, j = index.get(a), index.get(b)
        if i is not None and j is not None:
            f.forbidden.add(f.key(i, j))
    return f
