"""The REST API: one view per operation, explicit input and output serializers, thin
calls into games.services and games.selectors. Errors: games.api.exceptions.handler."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import selectors, selectors_hot
from games.api import serializers as s
from games.api.authentication import FastTokenAuthentication
from games.api.exceptions import handler
from games.errors import PermissionDenied
from games.models import Game, SealedOrder, Seat
from games.services import games as game_services
from games.services import orders as order_services
from games.views.common import engine_part, public_log

ERRORS = {
    400: OpenApiResponse(s.ErrorSerializer, description="Malformed request"),
    401: OpenApiResponse(s.ErrorSerializer, description="Not authenticated"),
    403: OpenApiResponse(s.ErrorSerializer, description="Not allowed"),
    404: OpenApiResponse(s.ErrorSerializer, description="Unknown game"),
    409: OpenApiResponse(s.ErrorSerializer, description="Wrong game status or prompt"),
}


class BaseAPIView(APIView):
    """Token or session authentication, authenticated callers, JSON errors."""

    authentication_classes = [FastTokenAuthentication, SessionAuthentication]
    permission_classes = [IsAuthenticated]

    def get_exception_handler(self) -> Any:
        return handler

    def game(self, game_id: int) -> Game:
        return selectors.game_get(game_id=game_id)

    def visible_game(self, request: Request, game_id: int) -> Game:
        """The game if the caller may watch it; a private game is a 404 to strangers."""
        return selectors.game_for_viewer(game_id=game_id, user=request.user)

    def no_input(self, request: Request) -> None:
        """An operation that takes nothing still reads the body: malformed JSON (400) or
        an unsupported content type (415) is refused before anything changes."""
        s.EmptyInputSerializer(data=request.data).is_valid(raise_exception=True)


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
    game_info = {"id": game.pk, "name": game.name, "ruleset": game.ruleset, "status": game.status}
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
    return {
        "game": game_info,
        "seat": seat,
        "prompt": prompt,
        "my_order": my_order,
        "legal_orders": list(view.get("legal_orders") or []) if seat is not None else [],
        "events": events,
        "view": engine_part(view),
    }


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


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
        prompt_out["deadline"] = _text(prompt.get("deadline"))
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
            "submitted_at": s.ReceiptSerializer().fields["submitted_at"].to_representation(
                order["submitted_at"]
            )
            if order.get("submitted_at") is not None
            else None,
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
        },
        "seat": _text(payload["seat"]),
        "prompt": prompt_out,
        "my_order": order_out,
        "legal_orders": _texts(payload["legal_orders"]),
        "events": events,
        "view": payload["view"],
    }


class PingView(BaseAPIView):
    """A trivial view: the ceiling measured by the load benchmark."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(responses={200: s.PingSerializer})
    def get(self, request: Request) -> Response:
        return Response({"ok": True})


class GameListCreateView(BaseAPIView):
    """GET: the caller's games, newest first. POST: create a game (caller organizes)."""

    @extend_schema(responses={200: s.MyGameSerializer(many=True), **ERRORS})
    def get(self, request: Request) -> Response:
        games = (
            selectors.games_for_user(user=request.user)
            .select_related("organizer")
            .prefetch_related("seats__user")[:200]
        )
        needed = selectors.orders_needed(user=request.user)
        return Response(s.MyGameSerializer(games, many=True, context={"needed": needed}).data)

    @extend_schema(request=s.GameCreateInputSerializer, responses={201: s.GameCreatedSerializer, **ERRORS})
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
        }
        policy = (
            "deadline_hours",
            "grace_minutes",
            "quiet_hours_start",
            "quiet_hours_end",
            "reminder_hours",
            "early_resolution_delay_seconds",
        )
        kwargs.update({k: data[k] for k in policy if data.get(k) is not None})
        game = game_services.game_create(**kwargs)
        return Response(s.GameCreatedSerializer(game).data, status=status.HTTP_201_CREATED)


class OpenGamesView(BaseAPIView):
    """Public games still looking for players, newest first."""

    @extend_schema(responses={200: s.GameSerializer(many=True), **ERRORS})
    def get(self, request: Request) -> Response:
        games = (
            selectors.open_games().select_related("organizer").prefetch_related("seats__user")[:200]
        )
        return Response(s.GameSerializer(games, many=True).data)


class GameDetailView(BaseAPIView):
    """The caller's view of a game: its seat's view, or the spectator's."""

    @extend_schema(responses={200: s.SeatViewSerializer, **ERRORS})
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


class GameJoinView(BaseAPIView):
    """Take a seat (a private game needs its invitation token)."""

    @extend_schema(
        request=s.JoinInputSerializer,
        responses={201: s.SeatSerializer, 200: s.SeatSerializer, **ERRORS},
    )
    def post(self, request: Request, game_id: int) -> Response:
        data_in = s.JoinInputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        game = self.game(game_id)
        token = data_in.validated_data.get("invite_token") or None
        held = selectors.seat_for_user(game=game, user=request.user)
        seat = game_services.game_join(game=game, user=request.user, invite_token=token)
        # Joining again (a retry, a double click) answers the seat already held: 200.
        again = held is not None and held.pk == seat.pk
        return Response(
            s.SeatSerializer(seat).data, status=status.HTTP_200_OK if again else status.HTTP_201_CREATED
        )


class GameStartView(BaseAPIView):
    """The organizer starts the game."""

    @extend_schema(request=s.EmptyInputSerializer, responses={200: s.GameSerializer, **ERRORS})
    def post(self, request: Request, game_id: int) -> Response:
        self.no_input(request)
        game = self.game(game_id)
        game = game_services.game_start(game=game, user=request.user)
        return Response(s.GameSerializer(game).data)


class GameLeaveView(BaseAPIView):
    """Give up the caller's seat before the game starts."""

    @extend_schema(request=s.EmptyInputSerializer, responses={200: s.GameSerializer, **ERRORS})
    def post(self, request: Request, game_id: int) -> Response:
        self.no_input(request)
        game = self.game(game_id)
        game_services.game_leave(game=game, user=request.user)
        return Response(s.GameSerializer(self.game(game_id)).data)


class SeatResignView(BaseAPIView):
    """Resign the caller's seat in a running game (default orders from now on)."""

    @extend_schema(request=s.EmptyInputSerializer, responses={200: s.SeatSerializer, **ERRORS})
    def post(self, request: Request, game_id: int) -> Response:
        self.no_input(request)
        game = self.game(game_id)
        seat = selectors.seat_for_user(game=game, user=request.user)
        if seat is None:
            raise PermissionDenied("You do not hold a seat in this game.")
        game_services.seat_resign(seat=seat)
        seat.refresh_from_db()
        return Response(s.SeatSerializer(seat).data)


class OrderSubmitView(BaseAPIView):
    """Submit or replace the caller's sealed order for the open prompt."""

    @extend_schema(
        request=s.OrderInputSerializer,
        responses={
            201: s.ReceiptSerializer,
            422: OpenApiResponse(s.ErrorSerializer, description="Order refused"),
            **ERRORS,
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        data_in = s.OrderInputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        order = order_services.order_submit_for_user(
            game_id=game_id,
            user=request.user,
            text=data_in.validated_data["text"],
            source="api",
            expected_prompt=data_in.validated_data.get("prompt"),
        )
        return Response(s.ReceiptSerializer(receipt(order)).data, status=status.HTTP_201_CREATED)


class GameLogView(BaseAPIView):
    """The public audit log (orders as commitments until the rules reveal them)."""

    @extend_schema(responses={200: s.LogSerializer, **ERRORS})
    def get(self, request: Request, game_id: int) -> Response:
        game = self.visible_game(request, game_id)
        entries = public_log(game=game, for_user=request.user)
        return Response(s.LogSerializer({"game": game.pk, "entries": entries}).data)


class GameExportView(BaseAPIView):
    """The finished game's full record: setup, seed, every order, the hash chain."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT, **ERRORS})
    def get(self, request: Request, game_id: int) -> Response:
        game = self.visible_game(request, game_id)
        return Response(selectors.game_export(game=game))
