"""The API's invitations by name: the organizer invites players to a forming game (each
emailed its link) and reads who was invited; an invited player declines."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers as drf_serializers
from rest_framework.request import Request
from rest_framework.response import Response

from games import selectors_invitations
from games.api import serializers as s
from games.api.base import BODY_ERRORS, ERRORS, READ_ERRORS, BaseAPIView
from games.api.input_serializers import EmptyInputSerializer, StrictCharField, StrictInputSerializer
from games.errors import PermissionDenied
from games.selectors import may_organize
from games.services import invitations as invitation_services


class InviteInputSerializer(StrictInputSerializer):
    players = drf_serializers.ListField(
        child=StrictCharField(max_length=150),
        min_length=1,
        max_length=invitation_services.NAMES_AT_ONCE,
        help_text="Player names on this site (as on their pages; case does not matter), at "
        f"most {invitation_services.NAMES_AT_ONCE} at a time.",
    )


#: An invitation's states (``InvitationStateEnum`` in the schema).
INVITATION_STATES = ("waiting", "joined", "declined", "taken back")


class InvitationSerializer(drf_serializers.Serializer):
    player = drf_serializers.CharField(source="name")
    state = drf_serializers.ChoiceField(
        choices=INVITATION_STATES,
        help_text="waiting: neither joined nor declined yet; taken back: by the organizer.",
    )
    invited_at = s.WhenField(source="at")


class InvitationListSerializer(drf_serializers.Serializer):
    game = drf_serializers.IntegerField()
    invitations = InvitationSerializer(many=True)


class InviteResultSerializer(drf_serializers.Serializer):
    game = drf_serializers.IntegerField()
    invited = drf_serializers.ListField(
        child=drf_serializers.CharField(), help_text="Invited now, each emailed the game's link."
    )
    skipped = drf_serializers.DictField(
        child=drf_serializers.CharField(),
        help_text="Named but not invited, and why: has a seat already, invited already, "
        "declined, has the caller's invitations waiting, or the caller.",
    )


class GameInvitationsView(BaseAPIView):
    """Invitations by name to a forming game (its organizer and staff). GET: who was
    invited, and whether they joined or declined. POST: invite players (every name must
    be a player's, or nobody is invited); a player invited before is not invited again
    (``skipped`` says so), so a retry sends nothing twice."""

    @extend_schema(responses={200: InvitationListSerializer, **READ_ERRORS})
    def get(self, request: Request, game_id: int) -> Response:
        game = self.visible_game(request, game_id)
        if not may_organize(game=game, user=request.user):
            raise PermissionDenied("Only the organizer of this game can see its invitations.")
        rows = selectors_invitations.game_invitations(game=game)
        return Response(InvitationListSerializer({"game": game.pk, "invitations": rows}).data)

    @extend_schema(
        request=InviteInputSerializer,
        responses={
            200: InviteResultSerializer, **ERRORS, **BODY_ERRORS,
            409: OpenApiResponse(
                s.ErrorSerializer,
                description="The game is not forming (conflict), or its invitations (or the "
                "caller's of the day) are used up (invitations_capped)",
            ),
        },
    )  # fmt: skip
    def post(self, request: Request, game_id: int) -> Response:
        game = self.visible_game(request, game_id)
        data_in = InviteInputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        result = invitation_services.invite_players(
            game=game, by=request.user, names=data_in.validated_data["players"]
        )
        return Response(InviteResultSerializer({"game": game.pk, **result}).data)


class GameInvitationView(BaseAPIView):
    """One player's invitation to a forming game. DELETE: its organizer takes it back (a
    wrong name, a seat meant for another): the player no longer sees it; taken back
    again, nothing changes; invited again later (POST to the list), it shows again. 404
    when that player has no invitation there; 409 when they took a seat or declined."""

    @extend_schema(responses={200: InvitationSerializer, **ERRORS})
    def delete(self, request: Request, game_id: int, name: str) -> Response:
        game = self.visible_game(request, game_id)
        invitation = invitation_services.invitation_withdraw(game=game, by=request.user, name=name)
        return Response(
            InvitationSerializer(
                {"name": invitation.user.username, "state": "taken back", "at": invitation.created_at}
            ).data
        )


class InvitationDeclineView(BaseAPIView):
    """The caller declines their invitation to a forming game (the organizer is told
    once; declined again, nothing changes). 404 when the caller has no invitation there."""

    @extend_schema(
        request=EmptyInputSerializer,
        responses={200: InvitationSerializer, **ERRORS, **BODY_ERRORS},
    )
    def post(self, request: Request, game_id: int) -> Response:
        self.no_input(request)
        invitation = invitation_services.invitation_decline(game_id=game_id, user=request.user)
        return Response(
            InvitationSerializer(
                {"name": request.user.username, "state": "declined", "at": invitation.created_at}
            ).data
        )
