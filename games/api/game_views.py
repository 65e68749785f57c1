"""The API's games: the ping, the rulesets, the caller's games (list and creation),
the open games, and a game's view (the caller's seat, or the spectator's)."""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers as drf_serializers
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

import engine
from games import selectors, selectors_hot, selectors_lists
from games.api import serializers as s
from games.api.base import (
    BODY_ERRORS,
    ERRORS,
    PAGE_HEADERS,
    READ_ERRORS,
    BaseAPIView,
    GamesCreateThrottle,
    PageQuerySerializer,
    _games_page,
    _query,
    game_location,
    location_header,
)
from games.api.input_serializers import GameCreateInputSerializer
from games.api.payloads import _payload, seat_view_data, view_payload
from games.models import Game
from games.services import games as game_services
from games.services.game_options import SITE_OPTION_LIMITS


class RulesetQuerySerializer(PageQuerySerializer):
    ruleset = drf_serializers.ChoiceField(
        choices=[r.id for r in engine.rulesets()], required=False,
        help_text="Only games of this ruleset (GET /api/rulesets/).",
    )  # fmt: skip
    q = drf_serializers.CharField(
        required=False, max_length=100, trim_whitespace=True,
        help_text="Only games whose name holds it (case aside), or that a player of that name "
        "plays in.",
    )  # fmt: skip


class MyGamesQuerySerializer(RulesetQuerySerializer):
    status = drf_serializers.ChoiceField(
        choices=Game.Status.values, required=False, help_text="Only games with this status."
    )
    order_needed = drf_serializers.BooleanField(
        required=False,
        help_text="true: only games whose open prompt waits for your order; false: the others. "
        "Written true or false (in any letter case), or 1 or 0: any other value (yes, on, an "
        "empty one) is a 400 naming them.",
    )


# A client's key for one creation (``Idempotency-Key``), as the draft RFC and payment
# APIs take it: a UUID or any short token.
IDEMPOTENCY_KEY_RE = re.compile(r"[A-Za-z0-9._:\-]{1,64}")
# The header in the schema (a pattern is unanchored in JSON Schema: anchored here, as
# ``fullmatch`` reads it), so a client or validator knows the keys refused (an audit).
IDEMPOTENCY_KEY_SCHEMA = {
    "type": "string", "minLength": 1, "maxLength": 64, "pattern": f"^{IDEMPOTENCY_KEY_RE.pattern}$",
}  # fmt: skip


def _create_key(request: Request, *, refuse: bool = True) -> str:
    """The game's ``create_key`` of the request's ``Idempotency-Key`` ("" without one).
    A malformed key is a 400 naming it (``refuse``), or "" (the throttle's look)."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return ""
    if not IDEMPOTENCY_KEY_RE.fullmatch(key):
        if not refuse:
            return ""
        raise drf_serializers.ValidationError(
            {"Idempotency-Key": ["1 to 64 letters, digits, '-', '_', '.' or ':'."]}
        )
    return f"api:{key}"


class PingView(BaseAPIView):
    """Whether the API answers: ``{"ok": true}``, no account needed."""

    # The ceiling the load benchmark measures, kept as it was: no ETag (it would make
    # the ceiling lower and the orders' share of it look better).

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    conditional = False

    @extend_schema(responses={200: s.PingSerializer})
    def get(self, request: Request) -> Response:
        return Response({"ok": True})


class RulesetListView(BaseAPIView):
    """Every game the server plays, with its seat counts and options (their defaults and
    bounds, the site's own included: 6x5's ``max_turns`` at most 1000, ``target`` at most
    33): what ``POST /api/games/`` takes."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(responses={200: s.RulesetSerializer(many=True)})
    def get(self, request: Request) -> Response:
        from games.services.notifications import rules_url

        out = []
        for ruleset in engine.rulesets():
            described = ruleset.describe()
            options = []
            for option in described["options"]:
                # the site's bound where it is tighter than the engine's (an API audit:
                # max_turns 2000 was refused with no maximum listed)
                limit = SITE_OPTION_LIMITS.get((ruleset.id, option.get("name")))
                if limit is not None and (option.get("maximum") is None or limit[0] < option["maximum"]):
                    option = {**option, "maximum": limit[0]}
                options.append(option)
            out.append({key: described[key] for key in ("id", "name", "version", "players")}
                       | {"options": options, "rules_url": rules_url(ruleset.id)})  # fmt: skip
        return Response(out)


class GameListCreateView(BaseAPIView):
    """GET: the caller's games, newest first, a page at a time. POST: create a game
    (the caller organizes it)."""

    query_methods = frozenset({"GET"})

    def get_throttles(self) -> list[Any]:
        if self.request.method != "POST":
            return []
        key = _create_key(self.request, refuse=False)
        if key and Game.objects.filter(organizer_id=self.request.user.pk, create_key=key).exists():
            return []  # a retry of a creation that worked: its game, not a 429 (a code review)
        return [GamesCreateThrottle()]

    @extend_schema(
        operation_id="games_list",
        parameters=[MyGamesQuerySerializer, *PAGE_HEADERS],
        responses={
            200: OpenApiResponse(s.MyGameSerializer(many=True), description="One page"),
            400: ERRORS[400],
            401: ERRORS[401],
        },
    )
    def get(self, request: Request) -> Response:
        query = _query(request, MyGamesQuerySerializer)
        games = selectors_lists.games_for_user(user=request.user)
        needed = selectors_lists.orders_needed(user=request.user)
        if query.get("status"):
            games = games.filter(status=query["status"])
        if query.get("ruleset"):
            games = games.filter(ruleset=query["ruleset"])
        games = selectors_lists.games_matching(games, query.get("q") or "")
        if query.get("order_needed") is True:
            games = games.filter(pk__in=list(needed))
        elif query.get("order_needed") is False:
            games = games.exclude(pk__in=list(needed))
        context = {"needed": needed, "user": request.user}
        return _games_page(request, games, query, s.MyGameSerializer, context)

    @extend_schema(
        request=GameCreateInputSerializer,
        parameters=[
            location_header("The new game (GET it for its view)."),
            OpenApiParameter(
                "Idempotency-Key", IDEMPOTENCY_KEY_SCHEMA, OpenApiParameter.HEADER, required=False,
                description="Your own key for this creation (1 to 64 letters, digits, "
                "'-', '_', '.', ':'; a UUID, say): sent again with the same key (a retry "
                "after a timeout), the call answers 200 with the game that key created, "
                "not a second game. Keys are yours alone and kept with the game.",
            ),  # fmt: skip
        ],
        responses={
            201: s.GameCreatedSerializer,
            200: OpenApiResponse(
                s.GameCreatedSerializer, description="The game this Idempotency-Key created before"
            ),
            **{k: ERRORS[k] for k in (400, 401)},
            **BODY_ERRORS,
            422: OpenApiResponse(
                s.ErrorSerializer,
                description="This Idempotency-Key created a game with other parameters "
                "(idempotency_key_reused): send a new key for a new game",
            ),
            429: OpenApiResponse(s.ErrorSerializer, description="Too many games created"),
        },
    )
    def post(self, request: Request) -> Response:
        data_in = GameCreateInputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        data = dict(data_in.validated_data)
        kwargs: dict[str, Any] = {
            "organizer": request.user,
            "ruleset": data["ruleset"],
            "options": data["options"],
            "seats_count": data["seats_count"],
            "name": data.get("name", ""),
            "is_private": data.get("is_private", False),
            "require_sender_match": data.get("require_sender_match", False),
            "talk_open": data.get("talk_open", True),
            "away_days": data.get("away_days", 0),
        }
        policy = (
            "deadline_hours",
            "grace_minutes",
            "quiet_hours_start",
            "quiet_hours_end",
            "quiet_hours_time_zone",
            "reminder_hours",
            "early_resolution_delay_seconds",
        )
        kwargs.update({k: data[k] for k in policy if data.get(k) is not None})
        kwargs["create_key"] = _create_key(request)
        game = game_services.game_create(**kwargs)
        return Response(
            s.GameCreatedSerializer(game).data,
            status=status.HTTP_201_CREATED if game.created else status.HTTP_200_OK,
            headers=game_location(game.pk),
        )


class OpenGamesView(BaseAPIView):
    """Public games still looking for players, newest first."""

    query_methods = frozenset({"GET"})

    @extend_schema(
        operation_id="games_open_list",
        parameters=[RulesetQuerySerializer, *PAGE_HEADERS],
        responses={
            200: OpenApiResponse(s.GameSerializer(many=True), description="One page"),
            400: ERRORS[400],
            401: ERRORS[401],
        },
    )
    def get(self, request: Request) -> Response:
        query = _query(request, RulesetQuerySerializer)
        games = selectors_lists.open_games()
        if query.get("ruleset"):
            games = games.filter(ruleset=query["ruleset"])
        games = selectors_lists.games_matching(games, query.get("q") or "")
        return _games_page(request, games, query, s.GameSerializer)


class GameDetailView(BaseAPIView):
    """The caller's view of a game: its seat's view, or the spectator's."""

    @extend_schema(responses={200: s.SeatViewSerializer, **READ_ERRORS})
    def get(self, request: Request, game_id: int) -> Response:
        # A seat in a running game (nearly every call): two hand-written SQL statements.
        hot = selectors_hot.seat_view_for_user(game_id=game_id, user_id=request.user.pk)
        if hot is not None:
            game_info, view = hot
            return Response(seat_view_data(_payload(game_info, view, view["seat"]["name"])))
        game, seat = selectors.game_and_seat_for_user(game_id=game_id, user=request.user)
        if seat is not None and seat.status == "replaced":
            seat = None
        view = selectors.seat_view(seat=seat) if seat else selectors.spectator_view(game=game)
        return Response(seat_view_data(view_payload(game, view, seat)))
