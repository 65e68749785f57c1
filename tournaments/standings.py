"""Tournament standings with tie-breaks (pure Python, no Django).

A tournament's history is a list of rounds. In each round a player either sat at a
table (a game ranked in groups, best first) or did not play (a bye, or absent). The
points of a game come from the tournament's points per place: a group of tied players
shares the average of the points of the places it spans, so with ``[1, 0]`` a
two-player draw gives ½ each.

Tie-breaks (chosen per tournament, applied in the chosen order after points):

- ``buchholz``: for every round, the average of the opponents' (adjusted) totals at
  the table; summed over rounds. With two players a table this is the classic
  Buchholz (the sum of the opponents' scores).
- ``buchholz_cut1``: Buchholz without the player's lowest round contribution.
- ``sonneborn_berger``: for every round, the average over the opponents at the table of
  (the player's pairwise result against that opponent × the opponent's adjusted
  total): classic SB with two players a table.
- ``average_opponent``: Buchholz divided by the number of rounds that count for it.
- ``wins``: the number of games the player won outright (first place, not shared).
- ``direct_encounter``: the pairwise results scored against the other players with the
  same points, in the games where they met.

Unplayed rounds are handled the FIDE way (2009 tie-break rules, C.02 13.15): a player
who has no opponent in a round counts, for their own Buchholz and Sonneborn–Berger, as
having played a *virtual opponent* who starts the round with the player's points, takes
the complement of the player's result in that round and "draws" every later round; and
when an opponent's total enters someone's tie-break, the opponent's own unplayed rounds
count as draws. A forfeit (a ``Game`` marked ``forfeit``: a result the organizer entered
for a game not played out) is such an unplayed round for every player of its table, the
winner's as much as the loser's; its points count in the score, and its result counts
in ``wins`` and ``direct_encounter``, but not in ``played``. A game nobody played (a
``Game`` marked ``scoreless``: every seat a no-show) is a double forfeit: an unplayed
round lost by every player of its table (0 points each, FIDE's 0-0), with no result
between them. C.02 13.15, in short:
(a) unplayed games in which players are indirectly involved (an opponent's results by
forfeit) count as drawn for tie-break purposes; (b) a player without an opponent in a
round counts as having met a virtual opponent who starts the round with the player's
points and draws every later round, while for the round itself the forfeit result counts
as a normal one: Svon = SPR + (1 - SfPR) + 0.5 * (n - R), for player P who did not play
round R (n completed rounds, SPR P's score before round R, SfPR P's forfeit score in it).
FIDE's second example is a forfeit *win*: P, with 3.5 after round 5 of nine, whose
round 6 opponent does not show up, has a virtual opponent of 3.5 + (1 - 1) + 0.5 * 3 = 5.

The scale is the points per place of one table size (``scale_size``, the
tournament's preferred size): the complement of a result is taken from its first place's
points (a win), and a "draw" is worth its average place's points (½ with ``[1, 0]``), so
multiplying every points table by a constant never reorders the standings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

TIEBREAKS = (
    "buchholz",
    "buchholz_cut1",
    "sonneborn_berger",
    "average_opponent",
    "wins",
    "direct_encounter",
)
TIEBREAK_NAMES = {
    "buchholz": "Buchholz",
    "buchholz_cut1": "Buchholz cut-1",
    "sonneborn_berger": "Sonneborn–Berger",
    "average_opponent": "Average opponent points",
    "wins": "Wins",
    "direct_encounter": "Direct encounter",
}
# Short names for narrow screens (the standings' column heads on a phone, with the whole
# name as the abbreviation's title).
TIEBREAK_SHORT = {
    "buchholz": "BH",
    "buchholz_cut1": "BH-1",
    "sonneborn_berger": "SB",
    "average_opponent": "AOP",
    "wins": "Wins",
    "direct_encounter": "DE",
}
# What each tie-break counts, in a sentence, for the standings page's explanation.
TIEBREAK_HELP = {
    "buchholz": "the points of the players you met, averaged at each table and added up over "
    "the rounds: stronger opponents, higher Buchholz (an opponent's rounds without a game, "
    "a bye, a forfeit or after a withdrawal, count as an average place, the FIDE way)",
    "buchholz_cut1": "Buchholz without your weakest round",
    "sonneborn_berger": "the points of the opponents you finished ahead of (half for a shared "
    "place), averaged at each table and added up over the rounds",
    "average_opponent": "Buchholz divided by the rounds that count for it",
    "wins": "games you won outright (first place, not shared)",
    "direct_encounter": "your results against the players level with you on points, in the "
    "games where you met",
}


@dataclass(frozen=True)
class Game:
    """One finished table: its ranking in groups, best first. ``forfeit``: not played
    out (the result entered by hand as a forfeit): an unplayed round for its players.
    ``scoreless``: nobody played it (every seat a no-show), a double forfeit: an
    unplayed round for every player, who all score 0 whatever the ranking, with no
    result between them (no win, nothing in direct encounter)."""

    ranking: tuple[tuple[str, ...], ...]
    forfeit: bool = False
    scoreless: bool = False


@dataclass(frozen=True)
class Round:
    """One round: its games, and the points of the players who did not play it."""

    games: tuple[Game, ...] = ()
    unplayed: Mapping[str, float] = field(default_factory=dict)


@dataclass
class Row:
    """One line of the standings."""

    player: str
    points: float
    tiebreaks: dict[str, float]
    played: int
    rank: int = 0


def place_points(ranking: Sequence[Sequence[str]], points_per_place: Sequence[float]) -> dict[str, float]:
    """Points of every player of one game: a tied group shares the average of the
    points of the places it spans (places past the end of the list score 0)."""
    out: dict[str, float] = {}
    place = 0
    for group in ranking:
        span = [
            points_per_place[p] if p < len(points_per_place) else 0.0
            for p in range(place, place + len(group))
        ]
        share = sum(span) / len(group)
        for player in group:
            out[player] = share
        place += len(group)
    return out


def pairwise(ranking: Sequence[Sequence[str]]) -> dict[tuple[str, str], float]:
    """``(i, j) -> 1, ½ or 0``: how ``i`` did against ``j`` at one table."""
    index = {p: g for g, group in enumerate(ranking) for p in group}
    out = {}
    for i, gi in index.items():
        for j, gj in index.items():
            if i != j:
                out[(i, j)] = 1.0 if gi < gj else 0.5 if gi == gj else 0.0
    return out


def default_points_per_place(size: int) -> list[float]:
    """1 for first, 0 for last, evenly spaced between (``[1, 0]`` for two players)."""
    if size < 2:
        return [1.0]
    return [(size - 1 - k) / (size - 1) for k in range(size)]


def compute(
    players: Sequence[str],
    rounds: Sequence[Round],
    points_for: Mapping[int, Sequence[float]] | None = None,
    tiebreaks: Sequence[str] = ("buchholz", "sonneborn_berger"),
    scale_size: int = 2,
) -> list[Row]:
    """Standings after ``rounds``: rows sorted by points then the chosen tie-breaks,
    with equal rows sharing a rank. ``points_for`` maps a table size to its points per
    place (default: :func:`default_points_per_place`). A round a player did not play
    (a bye, a late entry, a withdrawal) enters the tie-breaks on the scale of tables of
    ``scale_size`` (the tournament's preferred size): a virtual opponent's result is
    its first place's points, a draw its average place's; so multiplying every points
    table by a constant never reorders the standings."""
    for name in tiebreaks:
        if name not in TIEBREAKS:
            raise ValueError(f"unknown tie-break {name!r} (known: {', '.join(TIEBREAKS)})")
    points_for = dict(points_for or {})

    def ppp(size: int) -> Sequence[float]:
        return points_for.get(size) or default_points_per_place(size)

    scale = ppp(scale_size)
    win = scale[0]
    draw = sum(scale) / len(scale)
    n_rounds = len(rounds)

    # Per player, per round: ("game" or "forfeit", points, {opponent: pairwise}, won), or
    # ("unplayed", points) for a bye, a late entry or a withdrawal.
    history: dict[str, list[tuple]] = {p: [] for p in players}
    for rnd in rounds:
        seen = set()
        for game in rnd.games:
            size = sum(len(g) for g in game.ranking)
            pts = place_points(game.ranking, ppp(size))
            duels = pairwise(game.ranking)
            first = game.ranking[0] if game.ranking else ()
            for player, p in pts.items():
                opps = {j: duels[(player, j)] for j in pts if j != player}
                won = len(first) == 1 and first[0] == player
                kind = "forfeit" if game.forfeit or game.scoreless else "game"
                if game.scoreless:  # a double forfeit: a loss for each, against nobody
                    p, opps, won = 0.0, {}, False
                history.setdefault(player, []).append((kind, p, opps, won))
                seen.add(player)
        for player in history:
            if player not in seen:
                history[player].append(("unplayed", float(rnd.unplayed.get(player, 0.0))))

    totals = {p: sum(h[1] for h in hist) for p, hist in history.items()}
    # Totals as they enter other players' tie-breaks: unplayed rounds (forfeits too,
    # 13.15 (a)) count as draws.
    adjusted = {
        p: sum(h[1] if h[0] == "game" else draw for h in hist) for p, hist in history.items()
    }

    rows = []
    for player in players:
        hist = history[player]
        contributions = []  # Buchholz per round
        sb = 0.0
        wins = 0
        played = 0
        running = 0.0
        for r, h in enumerate(hist):
            if h[0] == "game":
                played += 1
                opps = h[2]
                if opps:
                    contributions.append(sum(adjusted[j] for j in opps) / len(opps))
                    sb += sum(s * adjusted[j] for j, s in opps.items()) / len(opps)
                wins += 1 if h[3] else 0
            else:
                # Virtual opponent (13.15 (b)): starts with our points, takes the
                # complement of our result this round, then draws every later round. A
                # forfeit's result is a normal result for the round itself: a win.
                if h[0] == "forfeit":
                    wins += 1 if h[3] else 0
                virtual = running + (win - h[1]) + draw * (n_rounds - r - 1)
                contributions.append(virtual)
                result = h[1] / win if win else 0.0
                sb += result * virtual
            running += h[1]
        buchholz = sum(contributions)
        values = {
            "buchholz": buchholz,
            "buchholz_cut1": buchholz - min(contributions) if contributions else 0.0,
            "sonneborn_berger": sb,
            "average_opponent": buchholz / len(contributions) if contributions else 0.0,
            "wins": float(wins),
        }
        rows.append(Row(player, totals[player], values, played))

    if "direct_encounter" in tiebreaks:
        by_points: dict[float, set[str]] = {}
        for row in rows:
            by_points.setdefault(round(row.points, 9), set()).add(row.player)
        for row in rows:
            rivals = by_points[round(row.points, 9)] - {row.player}
            score = 0.0
            for h in history[row.player]:
                if h[0] in ("game", "forfeit"):  # a forfeit's result stands between them
                    score += sum(s for j, s in h[2].items() if j in rivals)
            row.tiebreaks["direct_encounter"] = score
    for row in rows:
        row.tiebreaks = {name: round(row.tiebreaks[name], 6) for name in tiebreaks}

    def key(row: Row) -> tuple:
        return (-round(row.points, 9), *(-row.tiebreaks[n] for n in tiebreaks))

    rows.sort(key=lambda r: (key(r), r.player))
    rank = 0
    previous = None
    for i, row in enumerate(rows, start=1):
        if key(row) != previous:
            rank = i
            previous = key(row)
        row.rank = rank
    return rows
