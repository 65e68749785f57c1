"""Results: recording finished games, organizer corrections, ratings."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import CharField, Exists, OuterRef, Value
from django.db.models.functions import Cast, Concat
from django.utils import timezone

from games.errors import PermissionDenied, ValidationError
from games.models import Game, Seat
from games.presentation import one_line
from tournaments.models import RatingEntry, Registration, Round, Table, Tournament
from tournaments.ratings import rate
from tournaments.selectors import INITIAL_RATING, silent_seats
from tournaments.services import notices
from tournaments.services.common import (
    TournamentError,
    lock_tournament,
    log_add,
    require_organizer,
)

#: The longest reason for a result entered by hand (it goes into the log and the emails).
MAX_REASON_CHARS = 500
#: The code of a refusal to do what is done already (the API answers it 409):
#: ``tournaments.services.tournaments.ALREADY_DONE``'s.
ALREADY_DONE = "already_done"

logger = logging.getLogger(__name__)


def _ranking_from_game(*, table: Table, game: Game) -> list[list[int]] | None:
    """The game's final ranking (seat names) as registration ids: a seat stands for
    the registration paired at its position, even if a substitute played it. A seat
    that resigned ranks last whatever its score (a resignation is a loss), tied with
    any other that resigned."""
    if not game.ranking:
        return None
    seats = Seat.objects.filter(game=game).exclude(status=Seat.Status.REPLACED)
    positions = {seat.name: seat.position for seat in seats}
    resigned = {seat.name for seat in seats if seat.status == Seat.Status.RESIGNED}
    out = []
    for group in game.ranking:
        kept = [table.players[positions[name]] for name in group if name not in resigned]
        if kept:
            out.append(kept)
    last = [table.players[positions[name]] for g in game.ranking for name in g if name in resigned]
    if last:
        out.append(last)
    return out


def round_check_finished(*, rnd: Round) -> bool:
    """Mark a started round finished once every table has a result."""
    with transaction.atomic():
        tournament = lock_tournament(tournament_id=rnd.tournament_id)
        rnd = Round.objects.get(pk=rnd.pk)
        if rnd.status != Round.Status.STARTED:
            return rnd.status == Round.Status.FINISHED
        if rnd.tables.filter(ranking__isnull=True).exists():
            return False
        rnd.status = Round.Status.FINISHED
        rnd.finished_at = timezone.now()
        rnd.save(update_fields=["status", "finished_at"])
        log_add(tournament=tournament, kind="round_finished", payload={"round": rnd.number})
        notices.round_finished(tournament=tournament, rnd=rnd)
    return True


def results_collect() -> int:
    """Record the result of every finished tournament game that has none yet (oldest
    finish first), update ratings and finish rounds. Safe to run at any time, twice.
    Returns how many results were recorded."""
    recorded = 0
    touched: set[str] = set()
    tables = (
        Table.objects.filter(ranking__isnull=True, round__status=Round.Status.STARTED,
                             game__status__in=[Game.Status.FINISHED, Game.Status.ABANDONED])
        .select_related("game", "round__tournament")
        .order_by("game__finished_at", "game_id")
    )
    rounds_touched: dict[int, Round] = {}
    for table in tables:
        try:
            if _collect_one(table):
                recorded += 1
                touched.add(table.round.tournament.rating_pool)
                rounds_touched[table.round_id] = table.round
        except Exception:  # one broken table must not hold back every other tournament
            logger.exception("recording the result of tournament table %s failed", table.pk)
    # Once per pool, after the results and outside the tournaments' locks (a replay of the
    # pool's history per result made a round of 50 tables cost minutes), and before a
    # round is finished, so the next round is paired on the new ratings. A pool whose sync
    # failed or never ran (a run that stopped before it) is caught up by the next run.
    touched |= lagging_pools()
    for pool in sorted(touched):
        try:
            ratings_sync(pool=pool)
        except Exception:
            logger.exception("updating the ratings of pool %s failed", pool)
    for rnd in rounds_touched.values():
        try:
            round_check_finished(rnd=rnd)
        except Exception:
            logger.exception("finishing tournament round %s failed", rnd.pk)
    return recorded


def _collect_one(table: Table) -> bool:
    """Record one table's result from its finished game; whether it was recorded."""
    with transaction.atomic():
        tournament = lock_tournament(tournament_id=table.round.tournament_id)
        table = Table.objects.select_related("game").get(pk=table.pk)
        if table.ranking is not None:
            return False
        registered = set(tournament.registrations.values_list("pk", flat=True))
        if not set(table.players) <= registered:  # an old admin delete: nobody to rate
            raise ValueError(f"table {table.pk} names registrations that are gone")
        ranking = _ranking_from_game(table=table, game=table.game)
        if ranking is None:
            return False  # an abandoned game without a result: the organizer enters one
        # A game a seat never played (a no-show: every order of its defaults) counts in
        # the standings as it ended, but moves nobody's rating: what the ratings would
        # learn is the default orders' strength (a participant's journey: a game nobody
        # ordered in was a rated draw). As chess servers abort a game without moves.
        silent = silent_seats(game=table.game)
        table.ranking = ranking
        table.result_source = "game"
        table.rated = not silent
        # Every seat silent: nobody played it (a double forfeit), no points for anyone.
        table.scoreless = len(silent) == len(table.players)
        table.recorded_at = table.game.finished_at or timezone.now()
        table.save(update_fields=["ranking", "result_source", "recorded_at", "rated", "scoreless"])
        payload = {"round": table.round.number, "table": table.number,
                   "game": table.game_id, "ranking": ranking}
        if silent:
            payload.update(rated=False, no_orders_from=silent)
        log_add(tournament=tournament, kind="result_recorded", payload=payload)
    return True


def concession(table: Table, player: int) -> list[list[int]]:
    """The only result a player of ``table`` may enter for it: the table's current
    ranking (everyone level when it has none) with ``player`` moved to last place, alone."""
    base = table.ranking or [[p for p in table.players]]
    others = [[p for p in group if p != player] for group in base]
    return [group for group in others if group] + [[player]]


def _as_sets(ranking: Sequence[Sequence[int]]) -> list[frozenset[int]]:
    return [frozenset(group) for group in ranking]


def _ranking_text(table: Table, ranking: Sequence[Sequence[int]]) -> str:
    names = dict(
        table.round.tournament.registrations.filter(pk__in=table.players).values_list(
            "pk", "user__username"
        )
    )
    return " > ".join(" = ".join(names.get(p, f"#{p}") for p in group) for group in ranking)


def result_enter(
    *, table: Table, ranking: Sequence[Sequence[int]], by: Any, reason: str, rated: bool = True,
    scoreless: bool = False,
) -> Table:
    """Enter or correct a table's result by hand (logged with who and why). Ratings of
    the pool are rebuilt from scratch, since a correction changes everything after it.
    ``rated=False``: a game not played out (a forfeit): the result counts in the
    standings, not in the ratings. ``scoreless``: nobody played it (a double forfeit,
    FIDE's 0-0): no points for anyone, not rated; an empty ``ranking`` ranks everyone
    level."""
    reason = one_line(reason)  # no control characters (a NUL is no database text)
    if not reason:
        raise ValidationError("Say why the result is entered or corrected.")
    if len(reason) > MAX_REASON_CHARS:
        raise ValidationError(
            f"The reason is too long ({len(reason)} characters; at most {MAX_REASON_CHARS})."
        )
    ranking = [[int(p) for p in group] for group in ranking if group]
    rated = bool(rated) and not scoreless
    with transaction.atomic():
        tournament = lock_tournament(tournament_id=table.round.tournament_id)
        require_organizer(tournament=tournament, user=by)
        table = Table.objects.select_related("round", "game").get(pk=table.pk)
        if tournament.status == Tournament.Status.CLOSED:
            raise TournamentError("The tournament is closed: its results are final.")
        if table.game is not None and table.game.status not in (
            Game.Status.FINISHED,
            Game.Status.ABANDONED,
        ):
            raise TournamentError(
                f"Table {table.number}'s game is still being played: its result comes from "
                "the game when it ends. To decide it now, end the game first (the game's "
                "page, organizer tools: End the game)."
            )
        if scoreless and not ranking:
            ranking = [list(table.players)]  # nobody played: nobody ahead of anyone
        flat = [p for g in ranking for p in g]
        if sorted(flat) != sorted(table.players):
            raise ValidationError("The result must rank every player of the table exactly once.")
        if table.round.status == Round.Status.PAIRED:
            raise TournamentError("This round has not started yet.")
        mine = table.round.tournament.registrations.filter(
            pk__in=table.players, user_id=getattr(by, "pk", None)
        ).values_list("pk", flat=True).first()
        if mine is not None and (scoreless or _as_sets(ranking) != _as_sets(concession(table, mine))):
            # Nobody decides their own game: an organizer (or staff) who plays at the table
            # may only concede it, so that the round can finish: themselves last, alone,
            # everyone else as the table's result already ranks them (all level when it
            # has none). A member of staff who does not play there decides anything.
            raise PermissionDenied(
                f"You play at table {table.number}: you may only concede it, ranking "
                f"yourself last and the others as they stand "
                f"({_ranking_text(table, concession(table, mine))}). Any other result comes "
                "from its game, or is entered by a member of staff who does not play at it."
            )
        old = table.ranking
        if (old and _as_sets(old) == _as_sets(ranking) and table.rated == rated
                and table.scoreless == bool(scoreless)):
            # A double click, or a second organizer entering what the first did: nothing to
            # log, tell the players or rate again.
            raise ValidationError(
                f"Table {table.number}'s result is already {_ranking_text(table, old)}: "
                "nothing was changed.",
                code=ALREADY_DONE,
            )
        table.ranking = ranking
        table.result_source = "organizer"
        table.recorded_at = table.recorded_at or timezone.now()
        table.rated = rated
        table.scoreless = bool(scoreless)
        table.save(update_fields=["ranking", "result_source", "recorded_at", "rated", "scoreless"])
        payload = {"round": table.round.number, "table": table.number, "old": old,
                   "new": ranking, "reason": reason}  # fmt: skip
        if not rated:
            payload["rated"] = False
        if scoreless:
            payload["scoreless"] = True
        entry = log_add(tournament=tournament, kind="result_corrected" if old else "result_entered",
                        actor=by, payload=payload)
        finishes_round = (
            table.round.status == Round.Status.STARTED
            and not table.round.tables.filter(ranking__isnull=True).exists()
        )
        if not finishes_round:  # else the round's end email gives the result
            notices.result_by_hand(tournament=tournament, table=table, old=old, reason=reason,
                                   seq=entry.seq)
        ratings_sync(pool=tournament.rating_pool, rebuild=True)
    round_check_finished(rnd=table.round)
    return table


# The collection run catches up pools whose rating sync failed for results this recent.
LAGGING_DAYS = 14


def lagging_pools(*, days: int = LAGGING_DAYS) -> set[str]:
    """Pools with a table rated in the last ``days`` that has no row in the ledger (one
    query: each such table looks its key up in the ledger's (pool, game key) index; older
    gaps are for ``recompute_ratings``)."""
    missing = RatingEntry.objects.filter(
        pool=OuterRef("round__tournament__rating_pool"), game_key=OuterRef("key")
    )
    return set(
        Table.objects.filter(ranking__isnull=False, rated=True,
                             recorded_at__gte=timezone.now() - timedelta(days=days))
        .annotate(key=Concat(Value("t"), Cast("pk", CharField())))
        .filter(~Exists(missing))
        .values_list("round__tournament__rating_pool", flat=True)
        .distinct()
    )


def pool_games(*, pool: str) -> list[tuple[str, list[list[str]], int | None]]:
    """The pool's rated games in the order they finished: ``(key, ranking by user id
    strings, game id)``; forfeits (``Table.rated`` off) are not rated."""
    # Three columns, not the tables with their rounds: each table's round carried its
    # pairing's JSON (6-55 KB), decoded once per rated table (a pool of 10,000 games took
    # 6-8 s to read here, 30 ms now).
    tables = (
        Table.objects.filter(round__tournament__rating_pool=pool, ranking__isnull=False, rated=True)
        .order_by("recorded_at", "id")
        .values_list("pk", "ranking", "game_id")
    )
    # Registration -> user for the whole pool in one query (registration ids are unique
    # across tournaments): it was one query per rated table.
    users = dict(
        Registration.objects.filter(tournament__rating_pool=pool).values_list("pk", "user_id")
    )
    return [
        (f"t{pk}", [[str(users[p]) for p in group] for group in ranking], game_id)
        for pk, ranking, game_id in tables
    ]


def ratings_compute(*, pool: str):
    """Ratings of a pool recomputed from scratch from its finished games."""
    games = pool_games(pool=pool)
    return rate([(key, ranking) for key, ranking, _t in games], initial=INITIAL_RATING), games


def ratings_sync(*, pool: str, rebuild: bool = False) -> int:
    """Bring the stored ledger up to date: append rows for newly recorded games (or,
    with ``rebuild``, rewrite the whole ledger). Returns the rows written."""
    with transaction.atomic():
        _pool_lock(pool)
        return _ratings_sync_locked(pool=pool, rebuild=rebuild)


def _pool_lock(pool: str) -> None:
    """Serialize the ledger's writers of one pool (two tournaments of a pool record
    results under different locks) until the transaction ends. PostgreSQL: an advisory
    lock on the pool's name; SQLite writes one transaction at a time anyway."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 7))", [pool])


def _ratings_sync_locked(*, pool: str, rebuild: bool) -> int:
    result, games = ratings_compute(pool=pool)
    game_ids = {key: game_id for key, _r, game_id in games}
    stored = list(RatingEntry.objects.filter(pool=pool).values_list("game_key", flat=True))
    known = set(stored)
    # Appending is right only when the stored rows are the start of the recomputed ledger.
    # A game recorded before games already rated (it finished first but its result came
    # later, or a sync failed in between) changes every rating after it: rewrite the
    # pool's ledger in order (rows appended after it would have been rated without it,
    # and numbered over the rows already there).
    if not rebuild and (
        len(stored) > len(result.ledger)
        or any(row.game not in known for row in result.ledger[: len(stored)])
    ):
        logger.info("rating pool %s: a game was recorded out of order; ledger rebuilt", pool)
        rebuild = True
    if rebuild:
        RatingEntry.objects.filter(pool=pool).delete()
        known = set()
    rows = []
    for seq, row in enumerate(result.ledger, start=1):
        if row.game in known:
            continue
        rows.append(
            RatingEntry(
                pool=pool, seq=seq, user_id=int(row.player), game_id=game_ids[row.game],
                game_key=row.game, rating_before=row.rating_before, expected=row.expected,
                actual=row.actual, k=row.k, rating_after=row.rating_after,
            )
        )
    RatingEntry.objects.bulk_create(rows)
    return len(rows)


def ratings_differences(*, pool: str) -> list[str]:
    """Compare the stored ledger with a recomputation; one line per difference."""
    result, _games = ratings_compute(pool=pool)
    stored = {
        (e.game_key, str(e.user_id)): e for e in RatingEntry.objects.filter(pool=pool)
    }
    diffs = []
    seen = set()
    for row in result.ledger:
        key = (row.game, row.player)
        seen.add(key)
        entry = stored.get(key)
        if entry is None:
            diffs.append(f"{pool}: game {row.game}, user {row.player}: missing from the ledger")
        elif abs(entry.rating_after - row.rating_after) > 1e-6 or abs(entry.rating_before - row.rating_before) > 1e-6:
            diffs.append(
                f"{pool}: game {row.game}, user {row.player}: stored {entry.rating_before:.1f} -> "
                f"{entry.rating_after:.1f}, recomputed {row.rating_before:.1f} -> {row.rating_after:.1f}"
            )
    for key in stored.keys() - seen:
        diffs.append(f"{pool}: game {key[0]}, user {key[1]}: in the ledger but not a rated game")
    return diffs


def pools() -> list[str]:
    """Every rating pool in use."""
    return sorted(set(Tournament.objects.values_list("rating_pool", flat=True)) |
                  set(RatingEntry.objects.values_list("pool", flat=True)))
