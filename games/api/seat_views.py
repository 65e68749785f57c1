"""The API's seat actions: join a game, start it, leave it, resign, and submit the
sealed order for the open prompt."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from games import selectors
from games.api import serializers as s
from games.api.base import (
    BODY_ERRORS,
    ERRORS,
    BaseAPIView,
    OrdersThrottle,
    game_location,
    location_header,
)
from games.api.input_serializers import (
    EmptyInputSerializer,
    JoinInputSerializer,
    OrderInputSerializer,
)
from games.api.payloads import receipt, submitted_receipt_data
from games.errors import PermissionDenied
from games.order_presentation import order_reading
from games.services import games as game_services
from games.services import orders as order_services


class GameJoinView(BaseAPIView):
    """Take a seat (a private game needs its invitation token). Taking the last seat
    starts the game: its status becomes active and the first prompt opens (GET the game
    to see it); ``start`` then answers 409."""

    @extend_schema(
        request=JoinInputSerializer,
        parameters=[location_header("The game, where the seat's view is (GET it).")],
        responses={201: s.SeatSerializer, 200: s.SeatSerializer, **ERRORS, **BODY_ERRORS},
    )
    def post(self, request: Request, game_id: int) -> Response:
        data_in = JoinInputSerializer(data=request.data)
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
        request=EmptyInputSerializer,
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
        request=EmptyInputSerializer,
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
        request=EmptyInputSerializer,
        responses={200: s.SeatSerializer, **ERRORS, **BODY_ERRORS},
    )
    def post(self, request: Request, game_id: int) -> Response:
        self.no_input(request)
        game = self.visible_game(request, game_id)
        seat = selectors.seat_for_user(game=game, user=request.user)
        if seat is None:
            raise PermissionDenied(selectors.no_seat_reason(game_id=game.pk, user=request.user))
        game_services.seat_resign(seat=seat)
        seat.refresh_from_db()
        return Response(s.SeatSerializer(seat).data)


class OrderSubmitView(BaseAPIView):
    """Submit or replace the caller's sealed order for the open prompt."""

    throttle_classes = [OrdersThrottle]

    @extend_schema(
        request=OrderInputSerializer,
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
        data_in = OrderInputSerializer(data=request.data)
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
            submitted_receipt_data({**receipt(order), "understood_as": understood}),
            status=status.HTTP_201_CREATED if stored else status.HTTP_200_OK,
            headers=game_location(game_id) if stored else None,
        )
