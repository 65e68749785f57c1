"""The REST API: one view per operation, explicit input and output serializers, thin
calls into games.services and games.selectors. Errors: games.api.exceptions.handler."""

from __future__ import annotations

import hashlib
import math
import re
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpResponseNotModified
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers as drf_serializers
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

import engine
from fivex_site.links import public_url, site_path
from games import selectors, selectors_hot, selectors_lists, selectors_log
from games.api import serializers as s
from games.api.authentication import FastTokenAuthentication
from games.api.exceptions import handler
from games.errors import PermissionDenied
from games.models import Game, SealedOrder, Seat
from games.presentation import order_reading
from games.services import games as game_services
from games.services import orders as order_services
from games.views.common import engine_part, legal_orders_complete, public_log

ERRORS = {
    400: OpenApiResponse(s.ErrorSerializer, description="Malformed request"),
    401: OpenApiResponse(s.ErrorSerializer, description="Not authenticated"),
    403: OpenApiResponse(s.ErrorSerializer, description="Not allowed"),
    404: OpenApiResponse(s.ErrorSerializer, description="Unknown game"),
    409: OpenApiResponse(s.ErrorSerializer, description="Wrong game status or prompt"),
}
# What a read answers besides 200: no game state stops one (the export's 409 aside).
READ_ERRORS = {code: answer for code, answer in ERRORS.items() if code != 409}
# What any POST may also answer: a body over the size limit, or not JSON/form-encoded.
BODY_ERRORS = {
    413: OpenApiResponse(s.ErrorSerializer, description="Request body too large"),
    415: OpenApiResponse(s.ErrorSerializer, description="Unsupported content type"),
}


class UserThrottle(SimpleRateThrottle):
    """A per-user rate from ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"][scope]`` (read at
    each request; ``None`` turns it off), counted in the default cache, on the requests
    of ``methods`` (POST: an OPTIONS or a GET costs the quota nothing). Approximate, as
    DRF's throttles are: simultaneous requests may pass a few over the limit."""

    scope = ""
    methods: tuple[str, ...] = ("POST",)

    def allow_request(self, request: Request, view: Any) -> bool:
        if request.method not in self.methods:
            return True
        allowed = super().allow_request(request, view)
        if self.rate is not None and self.key is not None:
            # Told on the answer (``RateLimit-*`` headers): a client sees the limit coming
            # instead of meeting it as a 429.
            history = getattr(self, "history", [])
            reset = self.duration - (self.now - history[-1]) if history else self.duration
            request.rate_limit = (
                self.num_requests,
                max(0, self.num_requests - len(history)),
                max(0, math.ceil(reset)),
            )
        return allowed

    def get_rate(self) -> str | None:
        return settings.REST_FRAMEWORK.get("DEFAULT_THROTTLE_RATES", {}).get(self.scope)

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if not request.user or not request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class OrdersThrottle(UserThrottle):
    scope = "orders"


class GamesCreateThrottle(UserThrottle):
    scope = "games_create"


def _conditional(request: Request, response: Any) -> Any:
    """An ``ETag`` on a successful GET (a digest of the body), and 304 Not Modified when
    the caller's ``If-None-Match`` holds it: a bot polling its seat view or a game's log
    downloads it again only when it changed. Nothing is stored between requests (the
    answers stay ``no-store``); the caller keeps the tag."""
    if getattr(response, "streaming", False):
        return response
    if hasattr(response, "render") and not getattr(response, "is_rendered", True):
        response.render()
    etag = f'"{hashlib.sha256(response.content).hexdigest()[:24]}"'
    asked = request.headers.get("If-None-Match", "")
    tags = [tag.strip().removeprefix("W/") for tag in asked.split(",")]
    if etag in tags or "*" in tags:  # "*": any current representation (RFC 9110 13.1.2)
        unchanged = HttpResponseNotModified()
        for header in ("Cache-Control", "Vary"):
            if header in response:
                unchanged[header] = response[header]
        unchanged["ETag"] = etag
        return unchanged
    response["ETag"] = etag
    return response


class BaseAPIView(APIView):
    """Token or session authentication, authenticated callers, JSON errors; answers
    are the caller's own (``Cache-Control: private, no-store``: a seat view holds a
    hand, a log its owner's salts)."""

    authentication_classes = [FastTokenAuthentication, SessionAuthentication]
    permission_classes = [IsAuthenticated]
    # An ETag on successful GETs (``_conditional``).
    conditional = True

    def get_exception_handler(self) -> Any:
        return handler

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        response = super().finalize_response(request, response, *args, **kwargs)
        if "Cache-Control" not in response:
            response["Cache-Control"] = "private, no-store"
        limit = getattr(request, "rate_limit", None)
        if limit is not None:
            response["RateLimit-Limit"], response["RateLimit-Remaining"], response["RateLimit-Reset"] = (
                str(n) for n in limit
            )
        if self.conditional and request.method in ("GET", "HEAD") and response.status_code == 200:
            return _conditional(request, response)
        return response

    def game(self, game_id: int) -> Game:
        return selectors.game_get(game_id=game_id)

    def visible_game(self, request: Request, game_id: int) -> Game:
        """The game if the caller may watch it; a private game is a 404 to strangers."""
        return selectors.game_for_viewer(game_id=game_id, user=request.user)

    def no_input(self, request: Request) -> None:
        """An operation that takes nothing still reads the body: malformed JSON (400) or
        an unsupported content type (415) is refused before anything changes."""
        s.EmptyInputSerializer(data=request.data).is_valid(raise_exception=True)


# --- lists: pages by limit and offset ---------------------------------------------

PAGE_DEFAULT = 100
PAGE_MAX = 200


class PageQuerySerializer(s.StrictInputSerializer):
    limit = drf_serializers.IntegerField(
        min_value=1, max_value=PAGE_MAX, default=PAGE_DEFAULT, help_text="Items per page."
    )
    offset = drf_serializers.IntegerField(
        min_value=0, max_value=10**9, default=0, help_text="Items skipped."
    )


LOG_LIMIT = 1000


class LogQuerySerializer(s.StrictInputSerializer):
    after = drf_serializers.IntegerField(
        min_value=0, max_value=10**9, default=0,
        help_text="Only the entries after this sequence number (the last one you have).",
    )  # fmt: skip
    limit = drf_serializers.IntegerField(
        min_value=1, max_value=LOG_LIMIT, default=LOG_LIMIT, help_text="Entries at most."
    )


class MyGamesQuerySerializer(PageQuerySerializer):
    status = drf_serializers.ChoiceField(
        choices=Game.Status.values, required=False, help_text="Only games with this status."
    )
    order_needed = drf_serializers.BooleanField(
        required=False,
        default=None,
        allow_null=True,
        help_text="true: only games whose open prompt waits for your order; false: the others.",
    )


PAGE_HEADERS = [
    OpenApiParameter(
        "X-Total-Count",
        int,
        OpenApiParameter.HEADER,
        response=[200],
        description="How many items match, over every page.",
    ),
    OpenApiParameter(
        "Link",
        str,
        OpenApiParameter.HEADER,
        response=[200],
        description='The other pages, when there are: <url>; rel="next", <url>; rel="prev".',
    ),
]




def location_header(description: str) -> OpenApiParameter:
    """The ``Location`` of a 201 answer, in the schema."""
    return OpenApiParameter(
        "Location", str, OpenApiParameter.HEADER, response=[201], description=description
    )


def game_location(game_id: int) -> dict[str, str]:
    """``Location``: the game's address in the API (``GET`` it for the caller's view),
    at the site's public address."""
    return {"Location": public_url(f"/api/games/{game_id}/")}


# A client's key for one creation (``Idempotency-Key``), as the draft RFC and payment
# APIs take it: a UUID or any short token.
IDEMPOTENCY_KEY_RE = re.compile(r"[A-Za-z0-9._:\-]{1,64}")


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


def _no_query(request: Request) -> None:
    """An operation that takes no query parameters refuses them (400, named), as those
    that take some refuse the ones they do not: a misspelt parameter is never ignored."""
    unknown = sorted(k for k in request.query_params if k != "format")
    if unknown:
        raise drf_serializers.ValidationError(
            {k: ["Unknown query parameter (this operation takes none)."] for k in unknown}
        )


def _query(request: Request, serializer_class: type) -> dict[str, Any]:
    params = {k: v for k, v in request.query_params.items() if k != "format"}
    query = serializer_class(data=params, context={"query": True})  # text, by nature
    query.is_valid(raise_exception=True)
    return dict(query.validated_data)


def _games_page(
    request: Request,
    games: Any,
    query: dict[str, Any],
    serializer_class: type,
    context: dict[str, Any] | None = None,
) -> Response:
    """A list answer: this page of ``games`` (``limit`` and ``offset`` of ``query``),
    with ``X-Total-Count`` and a ``Link`` header to the next and previous pages (RFC
    8288), so the body stays a plain list."""
    limit, offset = query["limit"], query["offset"]
    total = games.count()
    page = games.select_related("organizer").prefetch_related("seats__user")[
        offset : offset + limit
    ]
    data = serializer_class(page, many=True, context=context or {}).data
    return paged_response(request, data, total=total, limit=limit, offset=offset)


def paged_response(
    request: Request, data: Any, *, total: int, limit: int, offset: int
) -> Response:
    """A list answer (``data``: one page of ``total`` items, or a body holding that page)
    with ``X-Total-Count`` and a ``Link`` header to the next and previous pages (RFC
    8288), so the body stays what it is."""
    # The site's public address (FIVEX_BASE_URL), as in emails: right behind a proxy too.
    base = public_url(site_path(request.path))
    kept = {k: v for k, v in request.query_params.items() if k not in ("limit", "offset")}
    links = []
    if offset + limit < total:
        links.append(f'<{base}?{urlencode({**kept, "limit": limit, "offset": offset + limit})}>; rel="next"')
    if offset > 0 and total > 0:
        prev = max(0, min(offset - limit, total - limit))  # past the end: the last page
        links.append(f'<{base}?{urlencode({**kept, "limit": limit, "offset": prev})}>; rel="prev"')
    response = Response(data)
    response["X-Total-Count"] = str(total)
    if links:
        response["Link"] = ", ".join(links)
    return response


def receipt(order: SealedOrder) -> dict[str, Any]:
    """The receipt of a sealed order."""
    return {
        "commitment": order.commitment,
        "prompt": order.prompt.number,
        "submitted_at": order.submitted_at,
        "text": order.text,
        "source": order.source,
    }


def view_payload(game: Game, view: dict[str, Any], seat: Seat | None) -> dict[str, Any]:
    """Reshape a selectors view into SeatViewSerializer's fields."""
    game_info = {
        "id": game.pk, "name": game.name, "ruleset": game.ruleset, "status": game.status,
        "ranking": game.ranking, "end_reason": game.end_reason, "finished_at": game.finished_at,
    }  # fmt: skip
    return _payload(game_info, view, seat.name if seat is not None else None)


def _payload(game_info: dict[str, Any], view: dict[str, Any], seat: str | None) -> dict[str, Any]:
    prompt = view.get("prompt")
    my_order = view.get("my_order") if seat is not None else None
    if my_order is not None and "prompt" not in my_order and prompt:
        my_order = {**my_order, "prompt": prompt.get("number")}
    events = [
        {"kind": e.get("kind", ""), "text": e.get("text", ""), "data": e.get("data")}
        for e in view.get("events") or []
    ]
    legal = list(view.get("legal_orders") or []) if seat is not None else []
    return {
        "game": game_info,
        "seat": seat,
        "prompt": prompt,
        "my_order": my_order,
        "legal_orders": legal,
        "legal_orders_complete": legal_orders_complete(game_info.get("ruleset"), legal),
        "events": events,
        "view": engine_part(view),
    }


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


_WHEN = s.WhenField()


def _when(value: Any) -> str | None:
    return None if value is None else _WHEN.to_representation(value)


def _texts(values: Any) -> list[str | None] | None:
    return None if values is None else [_text(x) for x in values]


def seat_view_data(payload: dict[str, Any]) -> dict[str, Any]:
    """SeatViewSerializer(payload).data without the serializer machinery (the API's
    hottest read): the same fields, the same coercions, the same keys left out."""
    game = payload["game"]
    prompt = payload["prompt"]
    if prompt is not None:
        prompt_out: dict[str, Any] | None = {"number": _int(prompt.get("number"))}
        if "round" in prompt:
            prompt_out["round"] = _int(prompt["round"])
        prompt_out["phase"] = _text(prompt.get("phase"))
        prompt_out["deadline"] = _when(prompt.get("deadline"))
        prompt_out["pending"] = _texts(prompt.get("pending"))
        if "ready" in prompt:
            prompt_out["ready"] = _texts(prompt["ready"])
    else:
        prompt_out = None
    order = payload["my_order"]
    order_out = (
        None
        if order is None
        else {
            "commitment": _text(order.get("commitment")),
            "prompt": _int(order.get("prompt")),
            "submitted_at": _when(order.get("submitted_at")),
            "text": _text(order.get("text")),
            "source": _text(order.get("source")),
        }
    )
    events = []
    for event in payload["events"]:
        item: dict[str, Any] = {"kind": _text(event.get("kind")), "text": _text(event.get("text"))}
        if "data" in event:
            item["data"] = event["data"]
        events.append(item)
    return {
        "game": {
            "id": _int(game["id"]),
            "name": _text(game["name"]),
            "ruleset": _text(game["ruleset"]),
            "status": _text(game["status"]),
            "ranking": (
                None if game["ranking"] is None
                else [[_text(name) for name in group] for group in game["ranking"]]
            ),
            "end_reason": _text(game["end_reason"]),
            "finished_at": _when(game["finished_at"]),
        },
        "seat": _text(payload["seat"]),
        "prompt": prompt_out,
        "my_order": order_out,
        "legal_orders": _texts(payload["legal_orders"]),
        "legal_orders_complete": bool(payload["legal_orders_complete"]),
        "events": events,
        "view": payload["view"],
    }


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

        if request.query_params:
            _no_query(request)
        out = []
        for ruleset in engine.rulesets():
            described = ruleset.describe()
            options = []
            for option in described["options"]:
                # the site's bound where it is tighter than the engine's (an API audit:
                # max_turns 2000 was refused with no maximum listed)
                limit = game_services.SITE_OPTION_LIMITS.get((ruleset.id, option.get("name")))
                if limit is not None and (option.get("maximum") is None or limit[0] < option["maximum"]):
                    option = {**option, "maximum": limit[0]}
                options.append(option)
            out.append({key: described[key] for key in ("id", "name", "version", "players")}
                       | {"options": options, "rules_url": rules_url(ruleset.id)})  # fmt: skip
        return Response(out)


class GameListCreateView(BaseAPIView):
    """GET: the caller's games, newest first, a page at a time. POST: create a game
    (the caller organizes it)."""

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
        if query.get("order_needed") is True:
            games = games.filter(pk__in=list(needed))
        elif query.get("order_needed") is False:
            games = games.exclude(pk__in=list(needed))
        context = {"needed": needed, "user": request.user}
        return _games_page(request, games, query, s.MyGameSerializer, context)

    @extend_schema(
        request=s.GameCreateInputSerializer,
        parameters=[
            location_header("The new game (GET it for its view)."),
            OpenApiParameter(
                "Idempotency-Key", str, OpenApiParameter.HEADER, required=False,
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
            429: OpenApiResponse(s.ErrorSerializer, description="Too many games created"),
        },
    )
    def post(self, request: Request) -> Response:
        data_in = s.GameCreateInputSerializer(data=request.data)
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

    @extend_schema(
        operation_id="games_open_list",
        parameters=[PageQuerySerializer, *PAGE_HEADERS],
        responses={
            200: OpenApiResponse(s.GameSerializer(many=True), description="One page"),
            400: ERRORS[400],
            401: ERRORS[401],
        },
    )
    def get(self, request: Request) -> Response:
        query = _query(request, PageQuerySerializer)
        return _games_page(request, selectors_lists.open_games(), query, s.GameSerializer)


class GameDetailView(BaseAPIView):
    """The caller's view of a game: its seat's view, or the spectator's."""

    @extend_schema(responses={200: s.SeatViewSerializer, **READ_ERRORS})
    def get(self, request: Request, game_id: int) -> Response:
        if request.query_params:
            _no_query(request)
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


class GameJoinView(BaseAPIView):
    """Take a seat (a private game needs its invitation token). Taking the last seat
    starts the game: its status becomes active and the first prompt opens (GET the game
    to see it); ``start`` then answers 409."""

    @extend_schema(
        request=s.JoinInputSerializer,
        parameters=[location_header("The game, where the seat's view is (GET it).")],
        responses={201: s.SeatSerializer, 200: s.SeatSerializer, **ERRORS, **BODY_ERRORS},
    )
    def post(self, request: Request, game_id: int) -> Response:
        data_in = s.JoinInputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        token = data_in.validated_data.get("invite_token") or None
        game = selectors.game_for_joining(game_id=game_id, user=request.user, token=token)
        seat, created = game_services.game_join_seat(
            game=game, user=request.user, invite_token=token
        )
        # Joining again (a retry, a double click, even at the same moment) answers the
        # seat already held: 200; only the call that took it answers 201.
        return Response(
            s.SeatSerializer(seat).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
            headers=game_location(game.pk) if created else None,
        )


class GameStartView(BaseAPIView):
    """The organizer starts the game."""

    @extend_schema(
        request=s.EmptyInputSerializer,
        responses={200: s.GameSerializer, **ERRORS, **BODY_ERRORS},
    )
    def post(self, request: Request, game_id: int) -> Response:
        self.no_input(request)
        game = self.visible_game(request, game_id)
        game = game_services.game_start(game=game, user=request.user)
        return Response(s.GameSerializer(game).data)


class GameLeaveView(BaseAPIView):
    """Give up the caller's seat before the game starts."""

    @extend_schema(
        request=s.EmptyInputSerializer,
        responses={200: s.GameSerializer, **ERRORS, **BODY_ERRORS},
    )
    def post(self, request: Request, game_id: int) -> Response:
        self.no_input(request)
        game = self.visible_game(request, game_id)
        game_services.game_leave(game=game, user=request.user)
        return Response(s.GameSerializer(self.game(game_id)).data)


class SeatResignView(BaseAPIView):
    """Resign the caller's seat in a running game (default orders from now on; when one
    seat is left playing, the game ends at once and that seat wins: a walkover)."""

    @extend_schema(
        request=s.EmptyInputSerializer,
        responses={200: s.SeatSerializer, **ERRORS, **BODY_ERRORS},
    )
    def post(self, request: Request, game_id: int) -> Response:
        self.no_input(request)
        game = self.visible_game(request, game_id)
        seat = selectors.seat_for_user(game=game, user=request.user)
        if seat is None:
            raise PermissionDenied("You do not hold a seat in this game.")
        game_services.seat_resign(seat=seat)
        seat.refresh_from_db()
        return Response(s.SeatSerializer(seat).data)


class OrderSubmitView(BaseAPIView):
    """Submit or replace the caller's sealed order for the open prompt."""

    throttle_classes = [OrdersThrottle]

    @extend_schema(
        request=s.OrderInputSerializer,
        parameters=[location_header("The game, whose view shows the order as my_order.")],
        responses={
            201: OpenApiResponse(s.SubmittedReceiptSerializer, description="Order sealed (stored now)"),
            200: OpenApiResponse(
                s.SubmittedReceiptSerializer,
                description="The same order was already sealed for this prompt (a retry or "
                "a double click): its receipt, nothing stored",
            ),
            422: OpenApiResponse(s.ErrorSerializer, description="Order refused"),
            429: OpenApiResponse(s.ErrorSerializer, description="Too many orders"),
            **ERRORS,
            **BODY_ERRORS,
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        data_in = s.OrderInputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        try:
            order = order_services.order_submit_for_user(
                game_id=game_id,
                user=request.user,
                text=data_in.validated_data["text"],
                source="api",
                expected_prompt=data_in.validated_data.get("prompt"),
            )
        except PermissionDenied:
            # Holding no seat: a private game does not exist for a stranger.
            self.visible_game(request, game_id)
            raise
        # The same order again (a retry, a double click): its receipt, nothing stored.
        stored = not getattr(order, "already_stored", False)
        # How the order was read, as the page and the email confirmation say it (a
        # player's journey: the API gave the text as typed only).
        understood = order_reading(text=order.text, legal_orders=[], parsed=order.parsed,
                                   ruleset=order.seat.game.ruleset)  # fmt: skip
        return Response(
            s.SubmittedReceiptSerializer({**receipt(order), "understood_as": understood}).data,
            status=status.HTTP_201_CREATED if stored else status.HTTP_200_OK,
            headers=game_location(game_id) if stored else None,
        )


class GameLogView(BaseAPIView):
    """The audit log: while the game runs, other seats' orders as their commitments only
    (what the rules reveal is in the caller's view); everything once the game is over."""

    @extend_schema(
        parameters=[
            LogQuerySerializer,
            OpenApiParameter("X-Total-Count", int, OpenApiParameter.HEADER, response=[200],
                             description="How many entries the log has."),
            OpenApiParameter("Link", str, OpenApiParameter.HEADER, response=[200],
                             description='The next entries, when there are: <url>; rel="next".'),
        ],
        responses={200: s.LogSerializer, **READ_ERRORS},
    )  # fmt: skip
    def get(self, request: Request, game_id: int) -> Response:
        game = self.visible_game(request, game_id)  # a stranger's 404 before any 400
        query = _query(request, LogQuerySerializer)
        total = selectors_log.log_length(game=game)
        entries = public_log(
            game=game, for_user=request.user, after=query["after"], limit=query["limit"]
        )
        response = Response(s.LogSerializer({"game": game.pk, "entries": entries}).data)
        response["X-Total-Count"] = str(total)
        if entries and entries[-1]["seq"] < total:
            following = urlencode({"after": entries[-1]["seq"], "limit": query["limit"]})
            response["Link"] = f'<{public_url(site_path(request.path))}?{following}>; rel="next"'
        return response


class GameExportView(BaseAPIView):
    """The finished game's full record: setup, seed, every order, the hash chain."""

    @extend_schema(
        responses={
            200: s.ExportSerializer,
            **READ_ERRORS,
            409: OpenApiResponse(s.ErrorSerializer, description="The game is not over yet"),
        }
    )
    def get(self, request: Request, game_id: int) -> Response:
        _no_query(request)
        game = self.visible_game(request, game_id)
        return Response(selectors_log.game_export(game=game))
