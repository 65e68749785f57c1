"""Reads of the tournaments room: standings, pairing input, histories, ratings."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from engine.words import counted
from games.presentation import place_of
from games.selectors_players import folded_name
from tournaments import standings as standings_mod
from tournaments.models import Bye, RatingEntry, Registration, Round, Table, Tournament
from tournaments.ratings import round_rating

INITIAL_RATING = 1500.0


def may_manage(*, tournament: Tournament, user: Any) -> bool:
    """Whether ``user`` runs the tournament: its organizer, or staff."""
    return bool(
        user is not None
        and getattr(user, "is_authenticated", False)
        and (user.is_staff or tournament.organizer_id == user.pk)
    )


def tournament_visible(*, tournament: Tournament, user: Any) -> bool:
    """Whether ``user`` may see the tournament: any but a draft, which only its organizer
    and staff see (it is still being set up; its name makes its address guessable)."""
    return tournament.status != Tournament.Status.DRAFT or may_manage(
        tournament=tournament, user=user
    )


# A round's pairing request and answer (the pairing command's JSON, 6-55 KB a round),
# kept for the audit; the pages and the standings read the tables and byes instead.
PAIRING_DATA = ("pairing_input", "pairing_output")


def tournaments_list() -> QuerySet[Tournament]:
    """Every tournament that is not a draft, newest first, with ``entrants`` (players who
    take or took part: not those who withdrew before round 1), ``rounds_paired`` and
    ``rounds_finished``."""
    never_started = Q(status=Registration.Status.WITHDRAWN) & (
        Q(withdrawn_after_round__isnull=True) | Q(withdrawn_after_round__lt=F("first_round"))
    )
    # Each count in a subquery of its own: both over one join counted registrations x
    # rounds rows (40,712 for 22 tournaments: most of the page's time).
    entrants = (
        Registration.objects.filter(tournament=OuterRef("pk"))
        .exclude(never_started)
        .order_by()
        .values("tournament")
        .annotate(n=Count("pk"))
        .values("n")
    )
    rounds = (
        Round.objects.filter(tournament=OuterRef("pk"))
        .order_by()
        .values("tournament")
        .annotate(n=Count("pk"))
        .values("n")
    )
    finished = (
        Round.objects.filter(tournament=OuterRef("pk"), status=Round.Status.FINISHED)
        .order_by()
        .values("tournament")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return (
        Tournament.objects.exclude(status=Tournament.Status.DRAFT)
        .select_related("organizer")
        .annotate(
            entrants=Coalesce(Subquery(entrants), 0),
            rounds_paired=Coalesce(Subquery(rounds), 0),
            rounds_finished=Coalesce(Subquery(finished), 0),
        )
        .order_by("-created_at", "-id")
    )


def points_for(tournament: Tournament) -> dict[int, list[float]]:
    """Points per place for every allowed table size."""
    out = {}
    for size in tournament.table_sizes:
        out[int(size)] = tournament.points_per_place.get(
            str(size)
        ) or standings_mod.default_points_per_place(int(size))
    return out


def history(
    *, tournament: Tournament, upto: int | None = None, rounds_read: list[Round] | None = None
) -> list[standings_mod.Round]:
    """The tournament's finished rounds as the standings module wants them, with
    registration ids (as strings) as player ids. A round still being played is left
    out: its players have neither a result nor a bye yet (counting them as unplayed
    would give everyone a virtual opponent's Buchholz). ``rounds_read``: the tournament's
    rounds by number with their tables and byes, read already by the caller."""
    rounds = []
    qs = rounds_read if rounds_read is not None else (
        tournament.rounds.order_by("number").defer(*PAIRING_DATA).prefetch_related("tables", "byes")
    )
    for rnd in qs:
        if upto is not None and rnd.number > upto:
            break
        if rnd.status != Round.Status.FINISHED:
            break
        games = tuple(
            standings_mod.Game(
                ranking=tuple(tuple(str(p) for p in g) for g in t.ranking),
                # Entered by hand ticked "not played (a forfeit)", or a game nobody
                # played (every seat a no-show): an unplayed round for its players'
                # tie-breaks (FIDE), as for the pairing (:func:`tables_met_at`). A
                # no-show's game that others played was played by them. Nobody
                # played: a double forfeit, no points for anyone (FIDE's 0-0).
                forfeit=t.result_source == "organizer" and not t.rated,
                scoreless=t.scoreless,
            )
            for t in rnd.tables.all()
            if t.ranking
        )
        unplayed = {str(b.registration_id): b.points for b in rnd.byes.all()}
        rounds.append(standings_mod.Round(games=games, unplayed=unplayed))
    return rounds


def _never_started(registration: Registration) -> bool:
    """Withdrawn before its first round started (round 1, or a late entry's first)."""
    return (
        registration.status == Registration.Status.WITHDRAWN
        and (registration.withdrawn_after_round or 0) < registration.first_round
    )


def entrants_count(*, tournament: Tournament) -> int:
    """How many players take or took part (not those who withdrew before round 1)."""
    return sum(1 for r in tournament.registrations.all() if not _never_started(r))


def standings(
    *,
    tournament: Tournament,
    upto: int | None = None,
    rounds_read: list[Round] | None = None,
    registrations_read: list[Registration] | None = None,
) -> list[dict[str, Any]]:
    """The standings table: rank, registration, user, points, tie-breaks, games played.
    A player who withdrew before any round started never took part and is not in it.
    ``rounds_read`` (as :func:`history` takes them) and ``registrations_read`` (with their
    users): read once by a caller asking for the standings after several rounds."""
    if registrations_read is None:
        registrations_read = list(tournament.registrations.select_related("user"))
    regs = {str(r.pk): r for r in registrations_read if not _never_started(r)}
    rows = standings_mod.compute(
        list(regs),
        history(tournament=tournament, upto=upto, rounds_read=rounds_read),
        points_for(tournament),
        tournament.tiebreaks,
        scale_size=tournament.tiebreak_scale_size or tournament.table_sizes[0],
    )
    # Players of one rank (level on points and every tie-break) by name, not by their
    # registrations' ids as text ("10" before "9": a participant's journey).
    rows = sorted(rows, key=lambda row: (row.rank, folded_name(regs[row.player].user.username)))
    return [
        {
            "rank": row.rank,
            "registration": regs[row.player],
            "user": regs[row.player].user,
            "points": row.points,
            "tiebreaks": row.tiebreaks,
            "played": row.played,
            "withdrawn": regs[row.player].status == Registration.Status.WITHDRAWN,
        }
        for row in rows
    ]


def current_ratings(*, pool: str) -> dict[int, float]:
    """user id -> rating after the last ledger row of the pool."""
    out: dict[int, float] = {}
    for user_id, after in (
        RatingEntry.objects.filter(pool=pool)
        .order_by("seq", "id")
        .values_list("user_id", "rating_after")
    ):
        out[user_id] = after
    return out


def rating_pools() -> list[dict[str, Any]]:
    """Every pool with a rated game: ``pool``, ``players`` and ``games``; the league's
    pools first (a pool of one organizer's own is named ``organizer:pool``), the busiest
    first within each."""
    rows = (
        RatingEntry.objects.values("pool")
        .annotate(players=Count("user", distinct=True), games=Count("game_key", distinct=True))
        .order_by()
    )
    out = [dict(row) for row in rows]
    out.sort(key=lambda r: (":" in r["pool"], -r["players"], r["pool"]))
    return out


def rating_pool_exists(*, pool: str) -> bool:
    """Whether ``pool`` names a pool some tournament or rated game uses (a name no
    column could hold, a NUL say, names none)."""
    if not isinstance(pool, str) or not pool or len(pool) > 64 or not pool.isprintable():
        return False
    return (
        RatingEntry.objects.filter(pool=pool).exists()
        or Tournament.objects.filter(rating_pool=pool).exists()
    )


def pairing_byes_ahead(*, tournament: Tournament, round_number: int) -> str:
    """A warning when the byes requested for a round leave players the table sizes cannot
    all seat (some will get a pairing bye); "" otherwise."""
    from tournaments.pairing.sizes import plan

    playing = [
        r for r in tournament.registrations.filter(status="active")
        if round_number not in (r.requested_byes or [])
    ]  # fmt: skip
    layout = plan(len(playing), tuple(tournament.table_sizes))
    sizes = " or ".join(str(s) for s in tournament.table_sizes)
    if layout is None:
        remain = "remains" if len(playing) == 1 else "remain"
        return (f"With the byes asked for round {round_number}, {counted(len(playing), 'player')} {remain}: "
                f"too few for a table of {sizes}.")  # fmt: skip
    byes = layout[0]
    if not byes:
        return ""
    return (
        f"With the byes asked for round {round_number}, {len(playing)} players remain for tables "
        f"of {sizes}: {byes} of them will get a pairing bye unless someone else joins or asks "
        "for one."
    )


def rating_list(*, pool: str) -> list[dict[str, Any]]:
    """The pool's players by rating, best first: ``rank`` (players whose ratings round to
    the same whole number share it), ``user``, ``rating``, ``games`` (rated games),
    ``change`` (of the last one) and ``last_played``."""
    from django.db.models import Count, Max

    # Each player's count and last ledger row, in SQL (loading the whole ledger made a
    # public page cost a replay of the pool's history).
    per_user = {
        user_id: (games, last)
        for user_id, games, last in RatingEntry.objects.filter(pool=pool)
        .values("user_id")
        .annotate(games=Count("id"), last=Max("seq"))
        .values_list("user_id", "games", "last")
    }
    last_rows = RatingEntry.objects.filter(
        pool=pool, seq__in=[last for _games, last in per_user.values()]
    ).select_related("user", "game")
    players: dict[int, dict[str, Any]] = {}
    for entry in last_rows:
        games, last = per_user[entry.user_id]
        if entry.seq != last:
            continue
        # When the game ended, not when its ledger row was written (a correction rebuilds
        # the pool's ledger).
        ended = entry.game.finished_at if entry.game is not None else None
        players[entry.user_id] = {
            "user": entry.user,
            "games": games,
            "rating": entry.rating_after,
            # As shown, to one decimal (no -0.0): a change that rounds to 0 reads "0.0"
            # whichever way it went.
            "change": round_rating(entry.rating_after - entry.rating_before) or 0.0,
            "last_played": ended or entry.created_at,
        }
    rows = sorted(players.values(), key=lambda r: (-r["rating"], r["user"].username))
    for i, row in enumerate(rows):
        same = i > 0 and round_rating(rows[i - 1]["rating"], 0) == round_rating(row["rating"], 0)
        row["rank"] = rows[i - 1]["rank"] if same else i + 1
    return rows


def tables_met_at(*, tournament: Tournament, before: int) -> QuerySet[Table]:
    """The tables of the rounds before round ``before`` where their players met: every
    one but a forfeit (a result entered by hand ticked "not played") and a game nobody
    played (every seat a no-show: :func:`silent_seats` names them all). A game not played
    is no meeting (FIDE C.04.1 b: two players shall not *play* each other more than
    once; they may be paired again) and gives nobody a seat (no colour, as a bye gives
    none). A game in which some seats played and others sent no order was played."""
    return Table.objects.filter(round__tournament=tournament, round__number__lt=before).exclude(
        Q(result_source="organizer", rated=False) | Q(scoreless=True)
    )


def forfeit_winners(*, tournament: Tournament, before: int) -> list[int]:
    """The registrations that scored by a forfeit (placed above the last place of a table
    whose result was entered by hand "not played") in the rounds before ``before``, once
    for each such table. FIDE C.04.1 d: a player who has already scored a forfeit win
    shall not receive the pairing-allocated bye, so the pairing counts each as an earlier
    bye; at a table of three or more, every player placed above the last scored without
    playing. A table all tied (nobody played, nobody won) gives none."""
    won = []
    for ranking in Table.objects.filter(
        round__tournament=tournament,
        round__number__lt=before,
        result_source="organizer",
        rated=False,
        scoreless=False,  # nobody played (a double forfeit): nobody scored, whatever was typed
    ).values_list("ranking", flat=True):
        if ranking and len(ranking) > 1:
            won.extend(reg_id for group in ranking[:-1] for reg_id in group)
    return won


def pairing_input(*, tournament: Tournament, round_number: int, seed: int) -> dict[str, Any]:
    """The contract's pairing input (``python -m tournaments.pairing``) for a round:
    active registrations with their points, rating, earlier opponents, pairing byes
    (a forfeit win counts as one: :func:`forfeit_winners`) and seat counts (a forfeit's table,
    or a game nobody played, gives neither an opponent nor a seat: :func:`tables_met_at`). Requested byes for that round and withdrawn players are marked
    withdrawn (they are not paired)."""
    regs = list(tournament.registrations.select_related("user").order_by("pk"))
    rows = {r["registration"].pk: r for r in standings(tournament=tournament)}
    ratings = current_ratings(pool=tournament.rating_pool)
    opponents: dict[int, list[str]] = defaultdict(list)
    seats: dict[int, list[int]] = defaultdict(lambda: [0] * max(tournament.table_sizes))
    for table in tables_met_at(tournament=tournament, before=round_number):
        for pos, reg_id in enumerate(table.players):
            seats[reg_id][pos] += 1
            opponents[reg_id].extend(str(o) for o in table.players if o != reg_id)
    byes = defaultdict(int)
    for bye in Bye.objects.filter(
        round__tournament=tournament, kind=Bye.Kind.PAIRING, round__number__lt=round_number
    ):
        byes[bye.registration_id] += 1
    for reg_id in forfeit_winners(tournament=tournament, before=round_number):
        byes[reg_id] += 1  # FIDE C.04.1 d: a forfeit win is as good as a bye for this
    players = []
    for reg in regs:
        entry: dict[str, Any] = {
            "id": str(reg.pk),
            "points": rows[reg.pk]["points"] if reg.pk in rows else 0.0,
            "rating": round_rating(ratings.get(reg.user_id, INITIAL_RATING)),
            "opponents": opponents[reg.pk],
            "byes": byes[reg.pk],
            "seats": seats[reg.pk],
        }
        if (
            reg.status == Registration.Status.WITHDRAWN
            or round_number in reg.requested_byes
            or reg.first_round > round_number
        ):
            entry["withdrawn"] = True
        players.append(entry)
    by_user = {r.user_id: str(r.pk) for r in regs}
    forbidden = [
        [by_user[a], by_user[b]]
        for a, b in tournament.forbidden_pairs
        if a in by_user and b in by_user
    ]
    return {
        "table_sizes": list(tournament.table_sizes),
        "seed": seed,
        "players": players,
        "forbidden": forbidden,
    }


def round_get(*, tournament: Tournament, number: int) -> Round | None:
    """The round with that number, or None."""
    return tournament.rounds.filter(number=number).first()


def silent_seats(*, game: Any) -> list[str]:
    """The players (user names; a substitute for the seat it holds) of ``game`` whose seat
    was asked for orders and sent none of its own in the whole game: every order of
    theirs a default or entered for them. A seat that resigned is not one (a resignation
    is a loss, rated: resigning at once must not spare a rating), nor one never asked in a
    prompt that resolved (a 6x5 seat whose opponent resigned before its first turn
    ended). Their table is not rated."""
    from games.models import Prompt, SealedOrder, Seat

    seats = {
        seat.name: seat.user.username
        for seat in Seat.objects.filter(game=game, status=Seat.Status.ACTIVE).select_related("user")
    }
    if not seats:
        return []
    # asked in a prompt that then resolved (not the one a walkover left open)
    asked = {
        name
        for pending in Prompt.objects.filter(game=game, status=Prompt.Status.RESOLVED).values_list(
            "pending", flat=True
        )
        for name in pending or []
    }
    spoke = set(
        SealedOrder.objects.filter(prompt__game=game, source__in=SealedOrder.PLAYER_SOURCES)
        .values_list("seat_name", flat=True)
        .distinct()
    )
    return sorted(seats[name] for name in seats if name in asked and name not in spoke)


def _absence(registration: Registration, number: int) -> str:
    """Why a player has neither table nor bye in round ``number``."""
    withdrawn = registration.withdrawn_after_round
    if (
        registration.status == Registration.Status.WITHDRAWN
        and withdrawn is not None
        and withdrawn < number
        and number >= registration.first_round
    ):  # (a registration restored before round 1 was paired keeps an old number here)
        return "withdrawn"
    if number < registration.first_round:
        return f"not entered yet (from round {registration.first_round})"
    return "not paired"


def player_history(*, tournament: Tournament, registration: Registration) -> list[dict[str, Any]]:
    """Round by round: the table, the opponents, the place and points, or the bye."""
    regs = {r.pk: r for r in tournament.registrations.select_related("user")}
    ppp = points_for(tournament)
    out = []
    rounds = tournament.rounds.order_by("number").defer(*PAIRING_DATA)
    for rnd in rounds.prefetch_related("tables__game", "byes"):
        line: dict[str, Any] = {"round": rnd.number, "status": rnd.status}
        bye = next((b for b in rnd.byes.all() if b.registration_id == registration.pk), None)
        table = next((t for t in rnd.tables.all() if registration.pk in t.players), None)
        if bye is not None:
            line.update(kind=bye.get_kind_display(), points=bye.points)
        elif table is not None:
            line.update(
                kind="game",
                table=table,
                seat=table.players.index(registration.pk) + 1,
                opponents=[regs[p].user for p in table.players if p != registration.pk],
            )
            if table.ranking:
                pts = standings_mod.place_points(table.ranking, ppp.get(len(table.players), [0.0]))
                nobody = table.scoreless  # nobody played: a double forfeit, no points
                # as the result's email says it: "tied 2nd of 4", and 4th (not 3rd) after
                # two players level in 2nd place
                line.update(
                    place=place_of(table.ranking, registration.pk),
                    nobody_played=nobody,
                    points=0.0 if nobody else pts[registration.pk],
                )
        else:
            line.update(kind=_absence(registration, rnd.number), points=0.0)
        out.append(line)
    return out


def rating_history(*, pool: str, user: Any) -> list[RatingEntry]:
    """The user's ledger rows in a pool, oldest first."""
    return list(
        RatingEntry.objects.filter(pool=pool, user=user)
        .select_related("game")
        .order_by("seq", "id")
    )


def tournaments_for_user(*, user: Any) -> list[dict[str, Any]]:
    """The tournaments a player takes part in or organizes (not drafts of others), the
    ones still going first, newest first within each: the tournament, ``rounds_paired``
    and ``rounds_finished``, whether ``user`` organizes it and its registration's status (None if not entered)."""
    entered = {
        r.tournament_id: r.status
        for r in Registration.objects.filter(user=user).only("tournament_id", "status")
    }
    rows = (
        Tournament.objects.filter(Q(pk__in=list(entered)) | Q(organizer=user))
        .select_related("organizer")
        .annotate(
            rounds_paired=Count("rounds", distinct=True),
            rounds_finished=Count(
                "rounds", filter=Q(rounds__status=Round.Status.FINISHED), distinct=True
            ),
        )
        .order_by("-created_at", "-id")
    )
    out = [
        {
            "tournament": t,
            "organizer": t.organizer_id == user.pk,
            "registration": entered.get(t.pk),
        }
        for t in rows
        if t.status != Tournament.Status.DRAFT or t.organizer_id == user.pk
    ]
    out.sort(key=lambda row: row["tournament"].status == Tournament.Status.CLOSED)
    return out


def forbidden_pair_names(*, tournament: Tournament) -> list[str]:
    """The pairs who must never meet, as "ann & bob" (an account gone shows as its id)."""
    from django.contrib.auth import get_user_model

    ids = {i for pair in tournament.forbidden_pairs for i in pair}
    names = dict(get_user_model().objects.filter(pk__in=ids).values_list("pk", "username"))
    return [" & ".join(names.get(i, f"#{i}") for i in pair) for pair in tournament.forbidden_pairs]


def player_ratings(*, user: Any) -> list[dict[str, Any]]:
    """The player's rating in every pool they have a rated game in, by pool name:
    ``pool``, ``rating`` (after their last game there), ``games``, ``start`` (before their
    first) and ``after`` (the rating after each game, oldest first: the chart's points)."""
    pools: dict[str, dict[str, Any]] = {}
    for entry in RatingEntry.objects.filter(user=user).order_by("pool", "seq", "id"):
        row = pools.setdefault(
            entry.pool, {"pool": entry.pool, "start": entry.rating_before, "after": []}
        )
        row["after"].append(entry.rating_after)
    for row in pools.values():
        row["rating"], row["games"] = row["after"][-1], len(row["after"])
    return list(pools.values())


def tournaments_entered(*, user: Any) -> list[dict[str, Any]]:
    """What anyone may see of the tournaments a player entered: not drafts (not public),
    those still going first (``tournaments_for_user``'s rows)."""
    return [
        row
        for row in tournaments_for_user(user=user)
        if row["registration"] is not None and row["tournament"].status != Tournament.Status.DRAFT
    ]


#: Players a page of the players' list shows.
PLAYERS_PAGE = 50


def players_directory(
    *, text: str = "", limit: int = PLAYERS_PAGE, offset: int = 0
) -> list[dict[str, Any]]:
    """Players anyone may find: active accounts with a seat kept in a public game that
    started, or a rating. Each ``name``, ``played`` (public games played to the end),
    ``playing`` (public games running or paused) and ``rated`` (rating pools). With
    ``text``: the names that hold it (case aside), an exact name first, then by name;
    without: the most active first (played, then playing). ``limit`` rows from the
    ``offset``-th (a page; the order is total, so pages neither repeat nor skip a row
    while nothing changes). Private games count for nothing here, as on a player's page."""
    from django.contrib.auth import get_user_model
    from django.db.models import Case, IntegerField, Value, When
    from django.db.models.functions import Lower

    from games.models import Game, Seat

    # Each count its own subquery: counted over joins of a player's seats and rating
    # entries together, a player of 400 rated games made 160,000 rows to count.
    kept = Seat.objects.filter(user=OuterRef("pk"), game__is_private=False).exclude(
        status=Seat.Status.REPLACED
    )

    def number(rows: QuerySet, field: str) -> Coalesce:
        counted_rows = rows.order_by().values("user").annotate(n=Count(field, distinct=True))
        return Coalesce(Subquery(counted_rows.values("n")[:1]), 0)

    players = (
        get_user_model()
        .objects.filter(is_active=True)
        .annotate(
            played=number(kept.filter(game__status=Game.Status.FINISHED), "id"),
            playing=number(
                kept.filter(game__status__in=[Game.Status.ACTIVE, Game.Status.PAUSED]), "id"
            ),
            rated=number(RatingEntry.objects.filter(user=OuterRef("pk")), "pool"),
        )
        .filter(Q(played__gt=0) | Q(playing__gt=0) | Q(rated__gt=0))
    )
    text = text.replace("\x00", "").strip()[:150]
    offset = max(0, offset)
    if text:
        exact = Case(
            When(username__iexact=text, then=Value(0)), default=Value(1), output_field=IntegerField()
        )
        ordered = players.filter(username__icontains=text).order_by(exact, Lower("username"), "pk")
    else:
        ordered = players.order_by("-played", "-playing", "username", "pk")
    rows = list(ordered[offset : offset + limit])
    return [
        {"name": u.username, "played": u.played, "playing": u.playing, "rated": u.rated}
        for u in rows
    ]


def withdrawal_consequences(*, registration: Registration) -> dict[str, Any]:
    """What a withdrawal leaves for the organizer to see to, as the panel's answer says it:
    ``games``, (round, table) of each game of the player's still being played, which goes
    on; ``paired``, the number of a round paired (not started) that places them, to be
    re-paired before it starts (or None)."""
    from games.models import Game

    tables = Table.objects.filter(
        round__tournament_id=registration.tournament_id, round__status=Round.Status.STARTED,
        game__status__in=[Game.Status.ACTIVE, Game.Status.PAUSED],
    ).select_related("round").order_by("round__number", "number")  # fmt: skip
    games = [(t.round.number, t.number) for t in tables if registration.pk in t.players]
    paired = Round.objects.filter(
        tournament_id=registration.tournament_id, status=Round.Status.PAIRED
    ).defer(*PAIRING_DATA).first()
    placed = paired is not None and (
        paired.byes.filter(registration=registration).exists()
        or any(registration.pk in t.players for t in paired.tables.all())
    )
    return {"games": games, "paired": paired.number if placed else None}


def round_waits_for(*, rnd: Round) -> str:
    """What an unfinished round waits for, as a refusal's tail: the tables whose game the
    organizer ended early (their result is the organizer's to enter: an organizer who
    forgot one was told only "not finished yet"), those still being played and those
    whose result is being recorded; "" for a round not started. The panel says it
    where "Pair next round" will be, and pairing's refusal ends with it."""
    from games.models import Game
    from games.presentation import and_list

    ended, playing, recording = [], [], []
    for table in rnd.tables.filter(ranking__isnull=True).select_related("game").order_by("number"):
        if table.game is None:
            continue
        if table.game.status == Game.Status.ABANDONED:
            ended.append(str(table.number))
        elif table.game.status == Game.Status.FINISHED:
            recording.append(str(table.number))
        else:
            playing.append(str(table.number))

    def tables(numbers: list[str]) -> str:
        return f"table{'s' if len(numbers) > 1 else ''} {and_list(numbers)}"

    parts = []
    if ended:
        parts.append(
            f"{tables(ended)}'s game ended early, enter its result" if len(ended) == 1
            else f"{tables(ended)}'s games ended early, enter their results"
        )
    if playing:
        parts.append(f"{tables(playing)} {'is' if len(playing) == 1 else 'are'} still being played")
    if recording:
        parts.append(f"{tables(recording)}'s result{'s are' if len(recording) > 1 else ' is'} "
                     "being recorded")  # fmt: skip
    return ": " + "; ".join(parts) if parts else ""


def rating_changes(*, tournament: Tournament) -> dict[int, float]:
    """user id -> the sum of the rating changes of this tournament's games in its pool
    (the standings' export gives each player's Elo change over the event)."""
    games = Table.objects.filter(round__tournament=tournament, game__isnull=False).values("game_id")
    out: dict[int, float] = defaultdict(float)
    for user_id, before, after in RatingEntry.objects.filter(
        pool=tournament.rating_pool, game_id__in=games
    ).values_list("user_id", "rating_before", "rating_after"):
        out[user_id] += after - before
    return dict(out)
