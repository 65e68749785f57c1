"""The organizer's tools over the API: extend the open prompt's deadline, remind the
seats still to order, pause, resume and end a game, make it private or public before the
start (a seat's handover: games.api.handover_views), as the organizer's panel does
(games.views.actions.organizer_action), through the same services with the same caps,
checks and messages. The game's organizer and staff only.

Each call checks, in this order: the game exists and the caller may see it (404), the
caller organizes it or is staff (403; an organizer who plays in a tournament's game has
only the reminders), the body (400), then the service under the game's
lock (409 with the service's own message and code). Each answers with what the tools can
still do (``GET .../organizer/``), as it stands after the call."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers as drf_serializers
from rest_framework.request import Request
from rest_framework.response import Response

from games import selectors
from games.api import organizer_serializers as o
from games.api import serializers as s
from games.api.base import (
    BODY_ERRORS,
    ERRORS,
    READ_ERRORS,
    BaseAPIView,
    UserThrottle,
)
from games.api.handover_serializers import PrivacyInputSerializer, organizer_offer
from games.api.input_serializers import EmptyInputSerializer, StrictInputSerializer
from games.errors import PermissionDenied
from games.models import Game, Seat
from games.services import organizer as organizer_services
from games.services.organizer_panel import tools_state


class OrganizerThrottle(UserThrottle):
    """``API_ORGANIZER_RATE``: the organizer's tools' calls per user (POSTs)."""

    scope = "organizer"


def _conflict(codes: str) -> OpenApiResponse:
    return OpenApiResponse(
        s.ErrorSerializer,
        description=f"The game's state refuses it, nothing changed (the message says why): {codes}",
    )


THROTTLED = OpenApiResponse(s.ErrorSerializer, description="Too many organizer calls")
DONE = OpenApiResponse(
    o.OrganizerToolsSerializer, description="Done: what the tools can still do now"
)


def _tool_schema(request: Any, conflicts: str) -> Any:
    """An organizer tool's schema: its body, its answer, its refusals."""
    return extend_schema(
        request=request,
        responses={
            200: DONE,
            **{k: ERRORS[k] for k in (400, 401, 403, 404)},
            409: _conflict(conflicts),
            **BODY_ERRORS,
            429: THROTTLED,
        },
    )


class OrganizerBaseView(BaseAPIView):
    throttle_classes = [OrganizerThrottle]

    def organized_game(self, request: Request, game_id: int, *, changes: bool = True) -> Game:
        """The game, when the caller may use its organizer tools: a private game is a
        404 to strangers; anyone else but its organizer and staff a 403, and so is an
        organizer who plays in a tournament's game for a tool that ``changes`` it (every
        tool but reading them and the reminders), before its body is read."""
        game = self.visible_game(request, game_id)
        if not selectors.may_organize(game=game, user=request.user):
            raise PermissionDenied("Only the organizer of this game may do that.")
        if changes and not selectors.may_change_game(game=game, user=request.user):
            raise PermissionDenied(selectors.PLAYS_AT_THE_TABLE)
        return game

    def tools(
        self, request: Request, game_id: int, serializer: type = o.OrganizerToolsSerializer, **extra: Any
    ) -> Response:
        """What the tools can still do, read after the call."""
        game = self.game(game_id)
        state = tools_state(game=game, by=request.user)
        offers = [organizer_offer(offer) for offer in selectors.seat_offers_waiting(game=game)]
        seats = Seat.objects.filter(game=game).exclude(status=Seat.Status.REPLACED).select_related("user")
        data = {
            "game": game.pk, "private": game.is_private, "talk_open": game.talk_open, **state,
            "seats": list(seats), "offers": offers,
            **extra,
        }  # fmt: skip
        return Response(serializer(data).data)


class OrganizerToolsView(OrganizerBaseView):
    """What the game's organizer tools can still do: the open prompt, its deadline and
    extensions, the pauses left, who is waiting and who was reminded, and which tools
    the game's state allows now. The game's organizer and staff only."""

    @extend_schema(responses={200: o.OrganizerToolsSerializer, **READ_ERRORS})
    def get(self, request: Request, game_id: int) -> Response:
        self.organized_game(request, game_id, changes=False)
        return self.tools(request, game_id)


class DeadlineExtendView(OrganizerBaseView):
    """Push the open prompt's deadline back by whole hours (at most
    GAMES_MAX_DEADLINE_EXTENSIONS times per prompt, 3 by default), in a running or paused
    game; the players are told. Send ``prompt`` and ``extensions`` as you saw them to make
    a retry safe."""

    @_tool_schema(
        o.ExtendInputSerializer,
        "extensions_capped (the prompt's limit reached), already_extended (extended since "
        "the extensions you sent: a retry), prompt_closed (the prompt you named was "
        "resolved), conflict (no game in progress: forming or over).",
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = self.organized_game(request, game_id)
        data_in = o.ExtendInputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        data = data_in.validated_data
        organizer_services.deadline_extend(
            game=game,
            by=request.user,
            hours=data["hours"],
            reason=data["reason"],
            prompt_number=data.get("prompt"),
            extensions_seen=data.get("extensions"),
        )
        return self.tools(request, game_id)


class RemindView(OrganizerBaseView):
    """Email a reminder to each seat that still owes the open prompt an order (once per
    prompt and seat; not the caller's own seat). ``reminded_now`` names them; seats no
    email reaches are in ``unreachable``."""

    @extend_schema(
        request=EmptyInputSerializer,
        responses={
            200: OpenApiResponse(
                o.RemindedSerializer, description="Reminded: who, and what the tools can still do now"
            ),
            **{k: ERRORS[k] for k in (400, 401, 403, 404)},
            409: _conflict(
                "nobody_to_remind (every order is in, or every seat still to order was "
                "reminded for this prompt already), no_email (none of them has an email "
                "address), conflict (the game is not running: forming, paused or over)."
            ),
            **BODY_ERRORS,
            429: THROTTLED,
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = self.organized_game(request, game_id, changes=False)
        self.no_input(request)
        names = organizer_services.game_remind(game=game, by=request.user)
        return self.tools(request, game_id, o.RemindedSerializer, reminded_now=names)


class PauseView(OrganizerBaseView):
    """Pause a running game: its deadline stops (the time left is kept) and orders are
    refused until it resumes; the players are told. At most 4 pauses a day."""

    @_tool_schema(
        o.PauseInputSerializer,
        "conflict (only an active game can be paused: it is paused already, forming or "
        "over), pauses_capped (paused 4 times in the last day; extend the deadline instead).",
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = self.organized_game(request, game_id)
        data_in = o.PauseInputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        organizer_services.game_pause(
            game=game, by=request.user, reason=data_in.validated_data["reason"]
        )
        return self.tools(request, game_id)


class ResumeView(OrganizerBaseView):
    """Resume a paused game: the deadline is now plus the time that was left (moved out
    of the quiet hours); the players are told."""

    @_tool_schema(
        EmptyInputSerializer,
        "conflict (only a paused game can be resumed: it runs already, or is over).",
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = self.organized_game(request, game_id)
        self.no_input(request)
        organizer_services.game_resume(game=game, by=request.user)
        return self.tools(request, game_id)


class GameEndView(OrganizerBaseView):
    """End the game early (``"confirm": true`` required): it is abandoned, without a
    ranking, the open prompt's sealed orders are never revealed and the seed is revealed
    in the log. A game not started yet is cancelled."""

    @_tool_schema(
        o.EndInputSerializer,
        "game_finished (the game is already over).",
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = self.organized_game(request, game_id)
        data_in = o.EndInputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        organizer_services.game_end(game=game, by=request.user, reason=data_in.validated_data["reason"])
        return self.tools(request, game_id)


class PrivacyView(OrganizerBaseView):
    """Before the start, make the game private (joined by its invitation link only, its
    pages shown to its players) or public (listed among the open games). Setting what it
    is already changes nothing (and logs nothing)."""

    @_tool_schema(
        PrivacyInputSerializer,
        "conflict (the game has started: only a game not started can change its privacy).",
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = self.organized_game(request, game_id)
        data_in = PrivacyInputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        organizer_services.game_privacy_set(
            game=game, by=request.user, private=data_in.validated_data["private"]
        )
        return self.tools(request, game_id)


class TalkSwitchInputSerializer(StrictInputSerializer):
    open = drf_serializers.BooleanField(
        help_text="true: its players write at its table; false: only its organizer does."
    )


class TalkSwitchView(OrganizerBaseView):
    """Open or close the game's table talk to its players, at any time until the game is
    over (logged ``talk_changed``; setting what it is already changes nothing)."""

    @_tool_schema(TalkSwitchInputSerializer, "game_finished or conflict (the game is over).")
    def post(self, request: Request, game_id: int) -> Response:
        from games.services.talk import talk_open_set

        game = self.organized_game(request, game_id)
        data_in = TalkSwitchInputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        talk_open_set(game=game, by=request.user, open_=data_in.validated_data["open"])
        return self.tools(request, game_id)
