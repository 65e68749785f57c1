"""The tournaments' API for a player's own entry (the tournament page's buttons, for a
league's bot or a script): register, withdraw, ask for a bye and take it back. Running a
tournament: ``tournaments.api_organizer``; the reads: ``tournaments.api``.

    POST   /api/tournaments/{slug}/register/       register (201; 200 when registered already)
    POST   /api/tournaments/{slug}/withdraw/       withdraw (409 already_done the second time)
    POST   /api/tournaments/{slug}/byes/           {"round": 3}: a bye asked for round 3
    DELETE /api/tournaments/{slug}/byes/{round}/   take that request back
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from games.api import serializers as game_serializers
from games.api.base import BODY_ERRORS, BaseAPIView
from games.api.input_serializers import EmptyInputSerializer, StrictInputSerializer
from games.errors import GameStateError, NotFound
from tournaments import selectors
from tournaments.models import Registration, Tournament
from tournaments.services import tournaments as tsvc
from tournaments.services.common import TournamentError

ERRORS = {
    400: OpenApiResponse(game_serializers.ErrorSerializer, description="Malformed request"),
    401: OpenApiResponse(game_serializers.ErrorSerializer, description="Not authenticated"),
    404: OpenApiResponse(
        game_serializers.ErrorSerializer,
        description="No such tournament (a draft is its organizer's), or you are not registered",
    ),
    409: OpenApiResponse(
        game_serializers.ErrorSerializer,
        description="The tournament's state forbids it (conflict; already_done: withdrawn already)",
    ),
}


class MyRegistrationSerializer(serializers.Serializer):
    tournament = serializers.CharField(source="tournament.slug")
    player = serializers.CharField(source="user.username")
    status = serializers.ChoiceField(choices=Registration.Status.choices)
    first_round = serializers.IntegerField(
        help_text="The first round you are paired in (a late entry: the rounds before score 0)."
    )
    requested_byes = serializers.ListField(
        child=serializers.IntegerField(), help_text="The rounds you asked a bye for."
    )


class ByeInputSerializer(StrictInputSerializer):
    round = serializers.IntegerField(
        min_value=1, max_value=9999, help_text="A round not paired yet."
    )


def _tournament(request: Request, slug: str) -> Tournament:
    tournament = Tournament.objects.filter(slug=slug).first()
    if tournament is None or not selectors.tournament_visible(
        tournament=tournament, user=request.user
    ):
        raise NotFound("No such tournament.")
    return tournament


def _mine(request: Request, tournament: Tournament) -> Registration:
    registration = (
        Registration.objects.select_related("tournament", "user")
        .filter(tournament=tournament, user=request.user)
        .first()
    )
    if registration is None:
        raise NotFound("You are not registered in this tournament.")
    return registration


def _done(action: Callable[[], Registration]) -> Registration:
    """``action()``; a TournamentError (the tournament's state forbids it) is a 409, as the
    games' conflicts are (the API's handler knows the games' errors only)."""
    try:
        return action()
    except TournamentError as exc:
        if exc.code == tsvc.ALREADY_DONE:
            raise GameStateError(exc.message, code=tsvc.ALREADY_DONE) from None
        raise GameStateError(exc.message) from None  # conflict


def _answer(registration: Registration, code: int = status.HTTP_200_OK) -> Response:
    registration.refresh_from_db()
    return Response(MyRegistrationSerializer(registration).data, status=code)


class RegisterView(BaseAPIView):
    """Register yourself (a late entry plays from the next round). Registered already: the
    same registration, 200; withdrawn before the start: registered again."""

    @extend_schema(
        request=EmptyInputSerializer,
        responses={
            201: MyRegistrationSerializer,
            200: MyRegistrationSerializer,
            **ERRORS,
            **BODY_ERRORS,
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        self.no_input(request)
        tournament = _tournament(request, slug)
        before: Any = Registration.objects.filter(tournament=tournament, user=request.user).first()
        was_active = before is not None and before.status == Registration.Status.ACTIVE
        registration = _done(
            lambda: tsvc.registration_add(tournament=tournament, user=request.user)
        )
        return _answer(registration, status.HTTP_200_OK if was_active else status.HTTP_201_CREATED)


class WithdrawView(BaseAPIView):
    """Withdraw: not paired from the next round on (a game of yours under way goes on;
    resign it there). The second time: 409 already_done, nothing changed."""

    @extend_schema(
        request=EmptyInputSerializer,
        responses={200: MyRegistrationSerializer, **ERRORS, **BODY_ERRORS},
    )
    def post(self, request: Request, slug: str) -> Response:
        self.no_input(request)
        registration = _mine(request, _tournament(request, slug))
        return _answer(
            _done(lambda: tsvc.registration_withdraw(registration=registration, by=request.user))
        )


class ByeRequestView(BaseAPIView):
    """Ask for a bye in a round not paired yet (it scores the tournament's requested-bye
    points); asked again, nothing changes. Withdrawn, or a round paired already: 409
    conflict, nothing changed; a round the tournament does not have: 400."""

    @extend_schema(
        request=ByeInputSerializer,
        responses={200: MyRegistrationSerializer, **ERRORS, **BODY_ERRORS},
    )
    def post(self, request: Request, slug: str) -> Response:
        registration = _mine(request, _tournament(request, slug))
        data = ByeInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return _answer(
            _done(
                lambda: tsvc.bye_request(
                    registration=registration,
                    round_number=data.validated_data["round"],
                    by=request.user,
                )
            )
        )


class ByeCancelView(BaseAPIView):
    """Take back the bye asked for a round that is not paired yet (none asked for that
    round: 404; the round paired already: 409 conflict, the bye stands)."""

    @extend_schema(responses={
        200: MyRegistrationSerializer, **ERRORS,
        404: OpenApiResponse(
            game_serializers.ErrorSerializer,
            description="No such tournament (a draft is its organizer's), you are not "
            "registered, or no bye was asked for that round",
        ),
    })  # fmt: skip
    def delete(self, request: Request, slug: str, number: int) -> Response:
        registration = _mine(request, _tournament(request, slug))
        return _answer(
            _done(
                lambda: tsvc.bye_cancel(
                    registration=registration, round_number=number, by=request.user
                )
            )
        )
