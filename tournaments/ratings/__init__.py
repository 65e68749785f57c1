"""Multiplayer Elo ratings: pure Python, no Django (``python -m tournaments.ratings``).

The contract is ``/work/shared/spec/tournaments.md``. Every pair at a table is a virtual
duel; ``Δi = K / (n - 1) × Σj (S - E)`` with the rating difference capped at ±400 and all
changes of a game computed from the ratings before that game.

Documented choices:

- K: 10 once the player's rating has reached 2400 (after any earlier game, or from the
  start when the initial rating is 2400 or more), permanently, as in FIDE; otherwise 40
  for the player's first 30 rated games and 20 from the 31st game on. The 2400 rule
  takes precedence over the 30-game rule.
- Precision: ratings are kept at full float precision; only printed values are rounded
  (ratings and the ledger's ratings to one decimal; the expected score ``Σ E`` is printed
  unrounded, as the contract rounds only ratings). A replay of the same games therefore
  gives identical ratings. Rounding is the one done by hand (:func:`round_rating`): a
  half goes up, away from zero (2401.25 prints 2401.3), and the decimal the float stands
  for is rounded, not its binary neighbour (1500.35 prints 1500.4).
- A game needs at least two players, no empty group, no player twice, and a unique id.
  Unknown fields are ignored.
"""

from __future__ import annotations

import decimal
import math
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "LedgerRow",
    "RatingError",
    "RatingResult",
    "k_factor",
    "parse_games",
    "rate",
    "round_rating",
]

CAP = 400.0
REACHED = 2400.0
NEW_PLAYER_GAMES = 30


# Enough digits for any finite float written out in full, plus the decimals kept.
_EXACT = decimal.Context(prec=400)


def round_rating(value: float, decimals: int = 1) -> float:
    """``value`` to one decimal (or ``decimals``) as rounded by hand: halves up, away from
    zero (2401.25 -> 2401.3, where ``round`` rounds half to even: 2401.2). The float's
    shortest decimal form (``repr``) is what is rounded, after dropping noise past the ninth
    decimal, so 1500.35 (stored as 1500.34999...) gives 1500.4 (``round``: 1500.3). The
    pages' ``floatformat`` rounds the same way."""
    written = decimal.Decimal(repr(float(value)))
    exact = written.quantize(decimal.Decimal("1e-9"), context=_EXACT)
    places = decimal.Decimal(1).scaleb(-decimals)
    return float(exact.quantize(places, decimal.ROUND_HALF_UP, _EXACT))


class RatingError(ValueError):
    """Bad input; the command line exits 2 with this message."""


@dataclass(frozen=True)
class LedgerRow:
    """One player's rating change in one game."""

    game: str
    player: str
    rating_before: float
    expected: float  # Σ E over the other players at the table
    actual: float  # Σ S over the other players at the table
    k: int
    rating_after: float

    def to_json(self) -> dict[str, Any]:
        """Printed form: ratings to one decimal (:func:`round_rating`), the expected score
        unrounded."""
        return {
            "game": self.game,
            "player": self.player,
            "rating_before": round_rating(self.rating_before),
            "expected": self.expected,
            "actual": self.actual,
            "k": self.k,
            "rating_after": round_rating(self.rating_after),
        }


@dataclass
class RatingResult:
    """Ratings after all games (full precision), games counted, and the ledger."""

    ratings: dict[str, float] = field(default_factory=dict)
    games: dict[str, int] = field(default_factory=dict)
    ledger: list[LedgerRow] = field(default_factory=list)
    reached_2400: set[str] = field(default_factory=set)  # players on K = 10 for good

    def to_json(self) -> dict[str, Any]:
        """The contract's output object (values rounded for printing only)."""
        return {
            "ratings": {p: round_rating(r) for p, r in self.ratings.items()},
            "games": dict(self.games),
            "ledger": [row.to_json() for row in self.ledger],
        }


def expected(r_i: float, r_j: float) -> float:
    """Expected score of a player rated ``r_i`` against ``r_j`` (difference capped at 400)."""
    diff = max(-CAP, min(CAP, r_j - r_i))
    return 1.0 / (1.0 + 10.0 ** (diff / 400.0))


def k_factor(games_played: int, reached_2400: bool) -> int:
    """K for a player's next game, given rated games so far and whether 2400 was reached."""
    if reached_2400:
        return 10
    return 40 if games_played < NEW_PLAYER_GAMES else 20


def parse_games(data: Any) -> tuple[float, list[tuple[str, list[list[str]]]]]:
    """Check the decoded JSON input; returns ``(initial, [(game id, ranking), ...])``."""
    if not isinstance(data, dict):
        raise RatingError("input must be a JSON object")
    initial = data.get("initial", 1500)
    if isinstance(initial, bool) or not isinstance(initial, int | float):
        raise RatingError("initial must be a number")
    try:
        finite = math.isfinite(initial)
    except OverflowError:  # an integer of hundreds of digits does not fit a float
        finite = False
    if not finite:
        raise RatingError("initial must be a finite number")
    raw = data.get("games")
    if not isinstance(raw, list):
        raise RatingError("games must be a list")
    games: list[tuple[str, list[list[str]]]] = []
    seen_ids: set[str] = set()
    for k, g in enumerate(raw):
        if not isinstance(g, dict):
            raise RatingError(f"games[{k}] must be an object")
        gid = g.get("id")
        if not isinstance(gid, str) or not gid:
            raise RatingError(f"games[{k}].id must be a non-empty string")
        if gid in seen_ids:
            raise RatingError(f"game id {gid!r} appears twice")
        seen_ids.add(gid)
        ranking = g.get("ranking")
        if not isinstance(ranking, list) or not ranking:
            raise RatingError(f"game {gid!r}: ranking must be a non-empty list of groups")
        seen: set[str] = set()
        for group in ranking:
            if not isinstance(group, list) or not group:
                raise RatingError(f"game {gid!r}: every ranking group must be a non-empty list")
            for p in group:
                if not isinstance(p, str) or not p:
                    raise RatingError(f"game {gid!r}: player ids must be non-empty strings")
                if p in seen:
                    raise RatingError(f"game {gid!r}: player {p!r} appears twice")
                seen.add(p)
        if len(seen) < 2:
            raise RatingError(f"game {gid!r}: a rated game needs at least two players")
        games.append((gid, [list(group) for group in ranking]))
    return float(initial), games


def rate(
    games: list[tuple[str, list[list[str]]]],
    initial: float = 1500,
    *,
    start: RatingResult | None = None,
) -> RatingResult:
    """Replay ``games`` (in the order they finished) and return ratings and the ledger.

    Each game is ``(game id, ranking)`` where the ranking lists groups of tied player ids,
    best first. New players start at ``initial``. ``start`` continues from an earlier
    result (its ratings, game counts and 2400 flags; it is not modified); the returned
    ledger then holds only the new games.
    """
    result = RatingResult()
    if start is not None:
        result.ratings = dict(start.ratings)
        result.games = dict(start.games)
        result.reached_2400 = set(start.reached_2400)
        for p, r in start.ratings.items():
            if r >= REACHED:
                result.reached_2400.add(p)
    reached = result.reached_2400
    for gid, ranking in games:
        place = {p: g for g, group in enumerate(ranking) for p in group}
        players = [p for group in ranking for p in group]
        if len(place) != len(players) or len(players) < 2:  # when called without parse_games
            raise RatingError(f"game {gid!r}: needs at least two different players")
        before = {p: result.ratings.get(p, float(initial)) for p in players}
        for p in players:
            if p not in result.ratings and before[p] >= REACHED:
                reached.add(p)
        n = len(players)
        rows = []
        for p in players:
            e_sum = 0.0
            s_sum = 0.0
            for q in players:
                if q == p:
                    continue
                e_sum += expected(before[p], before[q])
                s_sum += 1.0 if place[p] < place[q] else 0.5 if place[p] == place[q] else 0.0
            k = k_factor(result.games.get(p, 0), p in reached)
            after = before[p] + k / (n - 1) * (s_sum - e_sum)
            rows.append(LedgerRow(gid, p, before[p], e_sum, s_sum, k, after))
        for row in rows:
            result.ratings[row.player] = row.rating_after
            result.games[row.player] = result.games.get(row.player, 0) + 1
            if row.rating_after >= REACHED:
                reached.add(row.player)
            result.ledger.append(row)
    return result
