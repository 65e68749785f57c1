"""The tournaments' REST API: public reads, like the tournament pages (a league's
website or chat bot shows standings and pairings from it). Running a tournament is
``tournaments.api_organizer`` (the panel's operations), a player's entry
``tournaments.api_player``.

    GET /api/tournaments/               every tournament but drafts, newest first (paged)
    GET /api/tournaments/{slug}/        one tournament: settings, standings, rounds
    GET /api/ratings/                   every rating pool with a rated game
    GET /api/ratings/{pool}/            one pool's players by rating
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from fivex_site.links import public_reverse
from games.api import serializers as game_serializers
from games.api.base import (
    PAGE_HEADERS,
    BaseAPIView,
    PageQuerySerializer,
    _query,
    paged_response,
)
from games.errors import NotFound
from tournaments import selectors
from tournaments.models import Bye, Round, Tournament
from tournaments.ratings import round_rating
from tournaments.standings import TIEBREAK_NAMES

ERRORS = {
    400: OpenApiResponse(game_serializers.ErrorSerializer, description="Malformed request"),
    404: OpenApiResponse(game_serializers.ErrorSerializer, description="Not found"),
}


_WHEN = game_serializers.WhenField()

#: Where a table's result came from (``Table.result_source``; "" before it is in).
RESULT_SOURCES = ("game", "organizer")


def _when(value: Any) -> str | None:
    """A moment as the rest of the API writes it (``games.api.serializers.WhenField``)."""
    return None if value is None else _WHEN.to_representation(value)


def _url(name: str, *args: Any) -> str:
    return public_reverse(name, *args)


class TournamentSummarySerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    ruleset = game_serializers.RulesetIdField()
    status = serializers.ChoiceField(choices=Tournament.Status.values)
    organizer = serializers.CharField()
    table_sizes = serializers.ListField(child=serializers.IntegerField())
    rounds_count = serializers.IntegerField()
    rounds_paired = serializers.IntegerField()
    entrants = serializers.IntegerField(help_text="Players who take or took part.")
    rating_pool = serializers.CharField()
    created_at = serializers.CharField()
    url = serializers.CharField(help_text="The tournament's page.")


class StandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="Tied players share their rank.")
    player = serializers.CharField()
    points = serializers.FloatField()
    tiebreaks = serializers.DictField(child=serializers.FloatField(), help_text="By tie-break key.")
    played = serializers.IntegerField(
        help_text="Games played: not a bye, nor a forfeit (won or lost)."
    )
    withdrawn = serializers.BooleanField()
    rating = serializers.FloatField(
        help_text="Current rating in the tournament's pool, to one decimal."
    )


class TableSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    players = serializers.ListField(child=serializers.CharField(), help_text="In seat order.")
    game = serializers.IntegerField(allow_null=True, help_text="The table's game (`/api/games/{id}/`).")
    ranking = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        allow_null=True,
        help_text="Best first; tied players share a group. Null until the result is in.",
    )
    result_source = serializers.ChoiceField(
        choices=RESULT_SOURCES, allow_blank=True,
        help_text='"game", "organizer" or "" (no result yet).',
    )  # fmt: skip
    rated = serializers.BooleanField(
        help_text="False for a result entered for a game not played out (a forfeit): its points "
        "count in the standings (in the tie-breaks an unplayed round for its players, the FIDE "
        "way), not in the ratings."
    )
    nobody_played = serializers.BooleanField(
        help_text="True for a game nobody played (every seat sent no order of its own, each one "
        "a default, or the organizer entered it so): a double forfeit, no points for any of its "
        "players whatever its ranking, not rated, and no meeting for the pairing."
    )


class ByeSerializer(serializers.Serializer):
    player = serializers.CharField()
    kind = serializers.ChoiceField(choices=Bye.Kind.choices)
    points = serializers.FloatField()


class RoundSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Round.Status.values)
    tables = TableSerializer(many=True)
    byes = ByeSerializer(many=True)


class TournamentDetailSerializer(TournamentSummarySerializer):
    options = serializers.DictField()
    deadline_hours = serializers.FloatField()
    quiet_hours = serializers.DictField(
        allow_null=True, help_text="`start`, `end` (hours) and `time_zone`; null when none."
    )
    points_per_place = serializers.DictField(
        child=serializers.ListField(child=serializers.FloatField()), help_text="By table size."
    )
    tiebreaks = serializers.ListField(child=serializers.DictField(), help_text="`key` and `name`, in order.")
    allow_late_entry = serializers.BooleanField(help_text="Whether players may register after round 1 is paired.")
    table_talk = serializers.BooleanField(help_text="Whether the players of its tables write at them.")
    away_days = serializers.IntegerField(
        help_text="How long its tables' deadlines may wait for a player who is away (days a game)."
    )
    standings = StandingSerializer(many=True)
    rounds = RoundSerializer(many=True)


def _summary(t: Tournament, rounds_paired: int, entrants: int) -> dict[str, Any]:
    return {
        "slug": t.slug,
        "name": t.name,
        "ruleset": t.ruleset,
        "status": t.status,
        "organizer": t.organizer.username,
        "table_sizes": [int(n) for n in t.table_sizes],
        "rounds_count": t.rounds_count,
        "rounds_paired": rounds_paired,
        "entrants": entrants,
        "rating_pool": t.rating_pool,
        "created_at": _when(t.created_at),
        "url": _url("tournaments:detail", t.slug),
    }


def tournament_payload(t: Tournament) -> dict[str, Any]:
    """Everything public about a tournament: settings, standings and every round."""
    registrations = {r.pk: r.user.username for r in t.registrations.select_related("user")}
    ratings = selectors.current_ratings(pool=t.rating_pool)
    rounds = list(
        t.rounds.order_by("number").defer(*selectors.PAIRING_DATA).prefetch_related("tables", "byes")
    )
    standings = [
        {
            "rank": row["rank"],
            "player": row["user"].username,
            "points": round(row["points"], 6),  # as the tie-breaks: 1.166667, not 1.1666666666666665
            "tiebreaks": dict(row["tiebreaks"]),
            "played": row["played"],
            "withdrawn": row["withdrawn"],
            "rating": round_rating(ratings.get(row["user"].pk, selectors.INITIAL_RATING)),
        }
        for row in selectors.standings(tournament=t)
    ]
    if t.status == Tournament.Status.CLOSED and not any(
        r.status == Round.Status.FINISHED for r in rounds
    ):
        standings = []  # closed before any round was played: no standings (as its page)
    data = _summary(t, len(rounds), selectors.entrants_count(tournament=t))
    quiet = None
    if t.quiet_hours_start is not None:
        quiet = {"start": t.quiet_hours_start, "end": t.quiet_hours_end,
                 "time_zone": t.quiet_hours_time_zone}  # fmt: skip
    data.update(
        options=dict(t.options or {}),
        deadline_hours=t.deadline_hours,
        quiet_hours=quiet,
        points_per_place={str(k): v for k, v in selectors.points_for(t).items()},
        tiebreaks=[{"key": k, "name": TIEBREAK_NAMES.get(k, k)} for k in t.tiebreaks],
        allow_late_entry=t.allow_late_entry,
        table_talk=t.table_talk,
        away_days=t.away_days,
        standings=standings,
        rounds=[
            {
                "number": rnd.number,
                "status": rnd.status,
                "tables": [
                    {
                        "number": table.number,
                        "players": [registrations[p] for p in table.players],
                        "game": table.game_id,
                        "ranking": None
                        if not table.ranking
                        else [[registrations[p] for p in group] for group in table.ranking],
                        "result_source": table.result_source or "",
                        "rated": table.rated,
                        "nobody_played": table.scoreless,
                    }
                    for table in sorted(rnd.tables.all(), key=lambda tb: tb.number)
                ],
                "byes": [
                    {"player": registrations[b.registration_id], "kind": b.kind,
                     "points": b.points}  # fmt: skip
                    for b in rnd.byes.all()
                ],
            }
            for rnd in rounds
        ],
    )
    return data


class TournamentListView(BaseAPIView):
    """Every tournament but drafts, newest first, a page at a time."""

    query_methods = frozenset({"GET"})

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[PageQuerySerializer, *PAGE_HEADERS],
        responses={200: TournamentSummarySerializer(many=True), 400: ERRORS[400]},
        description="Every tournament but drafts, newest first: `limit` (1-200) and `offset`; "
        "`X-Total-Count` gives the total and `Link` the other pages. Public, like the "
        "tournament pages.",
    )
    def get(self, request: Request) -> Response:
        query = _query(request, PageQuerySerializer)
        limit, offset = query["limit"], query["offset"]
        tournaments = selectors.tournaments_list().order_by("-created_at", "-id")
        page = tournaments[offset : offset + limit]
        data = [_summary(t, t.rounds_paired, t.entrants) for t in page]
        return paged_response(request, data, total=tournaments.count(), limit=limit, offset=offset)


class TournamentDetailView(BaseAPIView):
    """One tournament: its settings, standings and rounds (tables, games, results, byes)."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: TournamentDetailSerializer, 404: ERRORS[404]})
    def get(self, request: Request, slug: str) -> Response:
        tournament = Tournament.objects.select_related("organizer").filter(slug=slug).first()
        if tournament is None or not selectors.tournament_visible(
            tournament=tournament, user=request.user
        ):
            raise NotFound("No such tournament.")  # a draft: only its organizer sees it
        return Response(tournament_payload(tournament))


class RatingPoolSerializer(serializers.Serializer):
    pool = serializers.CharField()
    players = serializers.IntegerField()
    games = serializers.IntegerField(help_text="Rated games.")


class RatingRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="Players whose ratings round alike share it.")
    player = serializers.CharField()
    rating = serializers.FloatField(help_text="To one decimal, as the ratings contract prints.")
    games = serializers.IntegerField(help_text="Rated games played in the pool.")
    change = serializers.FloatField(help_text="The last game's rating change, to one decimal.")
    last_played = serializers.CharField()


class RatingListSerializer(serializers.Serializer):
    pool = serializers.CharField()
    players = RatingRowSerializer(many=True)


class RatingPoolsView(BaseAPIView):
    """Every rating pool with a rated game."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: RatingPoolSerializer(many=True)})
    def get(self, request: Request) -> Response:
        return Response(selectors.rating_pools())


class RatingListView(BaseAPIView):
    """One pool's players by rating, best first."""

    query_methods = frozenset({"GET"})

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[PageQuerySerializer, *PAGE_HEADERS],
        responses={200: RatingListSerializer, 400: ERRORS[400], 404: ERRORS[404]},
        description="The pool's players by rating, best first, a page at a time (`limit` "
        "1-200, `offset`; `X-Total-Count` and `Link` as on the other lists).",
    )
    def get(self, request: Request, pool: str) -> Response:
        query = _query(request, PageQuerySerializer)
        if not selectors.rating_pool_exists(pool=pool):
            raise NotFound("No such rating pool.")
        rows = selectors.rating_list(pool=pool)
        limit, offset = query["limit"], query["offset"]
        page = [
            {"rank": r["rank"], "player": r["user"].username, "rating": round_rating(r["rating"]),
             "games": r["games"], "change": round_rating(r["change"]),
             "last_played": _when(r["last_played"])}
            for r in rows[offset : offset + limit]
        ]  # fmt: skip
        body = {"pool": pool, "players": page}
        return paged_response(request, body, total=len(rows), limit=limit, offset=offset)
