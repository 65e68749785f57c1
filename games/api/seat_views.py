"""The API's seat actions: join a game, start it, leave it, resign, and submit the
sealed order for the open prompt."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
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
from games.errors import NoSeat, PermissionDenied
from games.order_presentation import order_reading
from games.services import games as game_services
from games.services import orders as order_services
from games.services import rematch as rematch_services

#: What a seat's own action (order, resign, leave) answers a caller with no seat in the
#: game, whatever its state: the code says so (it was forbidden, as for the organizer's
#: tools, or for leaving a 409).
SEAT_ERRORS = {
    **ERRORS,
    403: OpenApiResponse(
        s.ErrorSerializer,
        description="no_seat: you hold no seat in this game (never, or it was handed to "
        "another player: the message says which)",
    ),
}


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


class GameRematchView(BaseAPIView):
    """Play a game that is over again with the same players (one of its players or its
    organizer): a new private game with the same ruleset, options, seats and deadline
    policy and a new seed, organized by the caller, who takes a seat in it if they played;
    the other players are emailed its invitation link. One rematch a game: asked again (a
    retry, another player) it answers the same game, 200; 403 to a player whose invitation
    to it its organizer took back (its invitation token is not theirs)."""

    @extend_schema(
        request=EmptyInputSerializer,
        parameters=[location_header("The new game (GET it).")],
        responses={201: s.GameCreatedSerializer, 200: s.GameCreatedSerializer, **ERRORS, **BODY_ERRORS},
    )
    def post(self, request: Request, game_id: int) -> Response:
        self.no_input(request)
        game = self.visible_game(request, game_id)
        new = rematch_services.game_rematch(game=game, by=request.user)
        return Response(
            s.GameCreatedSerializer(new).data,
            status=status.HTTP_201_CREATED if new.created else status.HTTP_200_OK,
            headers=game_location(new.pk),
        )


class GameLeaveView(BaseAPIView):
    """Give up the caller's seat before the game starts."""

    @extend_schema(
        request=EmptyInputSerializer,
        responses={200: s.GameSerializer, **SEAT_ERRORS, **BODY_ERRORS},
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
        responses={200: s.SeatSerializer, **SEAT_ERRORS, **BODY_ERRORS},
    )
    def post(self, request: Request, game_id: int) -> Response:
        self.no_input(request)
        game = self.visible_game(request, game_id)
        seat = selectors.seat_for_user(game=game, user=request.user)
        if seat is None:
            raise NoSeat(selectors.no_seat_reason(game_id=game.pk, user=request.user))
        game_services.seat_resign(seat=seat)
        seat.refresh_from_db()
        return Response(s.SeatSerializer(seat).data)


#: Examples of the order POST, from a 3-seat 5X game without leaders at its first prompt
#: (tests/games/test_api_examples.py sends each request and checks the answers are these).
ORDER_EXAMPLES = [
    OpenApiExample(
        "An order in its legal form", request_only=True,
        value={"text": "PLAY EXPAND", "prompt": 1},
        description="One of legal_orders, as GET /api/games/{id}/ lists them, with the prompt it answers.",
    ),
    OpenApiExample(
        "Sealed", response_only=True, status_codes=["201"],
        value={"commitment": "c3c576ae3a46361626cb58c52d4a37305d9bca300dbecd7cc0ea3d1b5cadecbd",
               "prompt": 1, "submitted_at": "2026-11-28T09:54:33.461848Z", "text": "PLAY EXPAND",
               "source": "api", "understood_as": ""},
        description="The receipt: the commitment (SHA-256) is public, the text is yours until the reveal.",
    ),
    OpenApiExample(
        "An order as a player types it, with a note", request_only=True,
        value={"text": "play explore # keeping EXPAND for later", "prompt": 1},
        description="Any case; the note after # is dropped before the order is sealed, never published.",
    ),
    OpenApiExample(
        "Sealed, with how it was read", response_only=True, status_codes=["201"],
        value={"commitment": "fc280d6a10ea2b035253346368a99250c6b67c66fda3cc2d60e7c6694e50568f",
               "prompt": 1, "submitted_at": "2026-11-28T09:54:33.863453Z", "text": "play explore",
               "source": "api", "understood_as": "PLAY EXPLORE"},
    ),
    OpenApiExample(
        "Not a card of the game", response_only=True, status_codes=["422"],
        value={"error": "order_refused", "message": "'ROCKET' is not a 5X card; you can play: "
               "EXPLOIT, EXTERMINATE, EXPAND, EXPLORE, EXCAVATE"},
        description='{"text": "PLAY ROCKET", "prompt": 1}: the reason and the legal orders; nothing stored.',
    ),
    OpenApiExample(
        "An order for a prompt not open", response_only=True, status_codes=["409"],
        value={"error": "prompt_closed", "message": "Prompt 2 is not open yet: prompt 1 is open "
               "now (round 1, play). Nothing was stored."},
        description='{"text": "PLAY EXPAND", "prompt": 2} while prompt 1 is open.',
    ),
    OpenApiExample(
        "No order", response_only=True, status_codes=["400"],
        value={"error": "invalid", "message": "text: This field may not be blank.",
               "fields": {"text": ["This field may not be blank."]}},
        description='{"text": "  "}',
    ),
]  # fmt: skip


class OrderSubmitView(BaseAPIView):
    """Submit or replace the caller's sealed order for the open prompt."""

    throttle_classes = [OrdersThrottle]

    @extend_schema(
        examples=ORDER_EXAMPLES,
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
            **SEAT_ERRORS,
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
        except PermissionDenied:  # NoSeat
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
