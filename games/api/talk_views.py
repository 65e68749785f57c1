"""The API's table talk: read a game's messages (polling with ``after``), write one."""

from __future__ import annotations

from django.core.validators import RegexValidator
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers as drf_serializers
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from games.api import serializers as s
from games.api.base import BODY_ERRORS, ERRORS, READ_ERRORS, BaseAPIView, _query
from games.api.game_views import IDEMPOTENCY_KEY_SCHEMA, _create_key
from games.api.input_serializers import StrictCharField, StrictInputSerializer
from games.models import Game, GameMessage
from games.selectors_talk import TALK_PAGE, removed_words, talk_after
from games.services import talk as talk_services


class TalkQuerySerializer(StrictInputSerializer):
    after = drf_serializers.IntegerField(
        min_value=0, max_value=2**62, default=0,
        help_text="Only the messages after this id (the last one you have).",
    )  # fmt: skip
    limit = drf_serializers.IntegerField(
        min_value=1, max_value=TALK_PAGE, default=TALK_PAGE, help_text="Messages at most."
    )


class TalkInputSerializer(StrictInputSerializer):
    text = StrictCharField(
        max_length=talk_services.TALK_MAX_CHARS * 2,  # the service counts after cleaning
        min_length=1,
        # Not blank, in the schema too (its pattern), with the service's words.
        validators=[RegexValidator(r"\S", message=talk_services.EMPTY_MESSAGE)],
        trim_whitespace=False,
        help_text=f"The message, at most {talk_services.TALK_MAX_CHARS} characters (line "
        "breaks kept; invisible and direction-changing characters dropped).",
    )


class TalkMessageSerializer(drf_serializers.Serializer):
    id = drf_serializers.IntegerField(source="pk")
    author = drf_serializers.CharField(source="author.username")
    seat = drf_serializers.CharField(
        source="seat_name",
        help_text='The author\'s seat when they wrote it; "" for an organizer without one.',
    )
    text = drf_serializers.CharField(allow_null=True, help_text="null once the message is removed.")
    removed = drf_serializers.CharField(
        allow_null=True, help_text='Who removed it ("removed by its author", ...), or null.'
    )
    created_at = s.WhenField()


class TalkListSerializer(drf_serializers.Serializer):
    game = drf_serializers.IntegerField()
    messages = TalkMessageSerializer(many=True)


def _message(message: GameMessage, game: Game) -> dict:
    removed = removed_words(message, game)
    return {
        "pk": message.pk, "author": message.author, "seat_name": message.seat_name,
        "text": None if removed else message.text, "removed": removed or None,
        "created_at": message.created_at,
    }  # fmt: skip


class GameTalkView(BaseAPIView):
    """Table talk. GET: the messages after ``after``, oldest first (whoever may see the
    game). POST: write one (the game's players and its organizer; 6 a minute and 200 a
    day at one table: 429 messages_capped beyond). An ``Idempotency-Key`` makes a retry
    answer the message it wrote (200) instead of writing it twice."""

    query_methods = frozenset({"GET"})

    @extend_schema(
        parameters=[TalkQuerySerializer], responses={200: TalkListSerializer, **READ_ERRORS}
    )
    def get(self, request: Request, game_id: int) -> Response:
        game = self.visible_game(request, game_id)
        query = _query(request, TalkQuerySerializer)
        rows = talk_after(game=game, after=query["after"], limit=query["limit"])
        return Response(
            TalkListSerializer(
                {"game": game.pk, "messages": [_message(m, game) for m in rows]}
            ).data
        )

    @extend_schema(
        request=TalkInputSerializer,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key", IDEMPOTENCY_KEY_SCHEMA, OpenApiParameter.HEADER, required=False,
                description="Your own key for this message: sent again, the message it wrote is answered (200).",
            )
        ],
        responses={
            201: TalkMessageSerializer, 200: TalkMessageSerializer, **ERRORS, **BODY_ERRORS,
            422: OpenApiResponse(
                s.ErrorSerializer,
                description="This Idempotency-Key wrote another message (idempotency_key_reused): "
                "send a new key for a new message",
            ),
            429: OpenApiResponse(s.ErrorSerializer, description="messages_capped: too many messages at this table for now"),
        },
    )  # fmt: skip
    def post(self, request: Request, game_id: int) -> Response:
        game = self.visible_game(request, game_id)
        data_in = TalkInputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        message = talk_services.message_post(
            game=game, user=request.user, text=data_in.validated_data["text"],
            client_key=_create_key(request),
        )  # fmt: skip
        return Response(
            TalkMessageSerializer(_message(message, game)).data,
            status=status.HTTP_201_CREATED if message.created else status.HTTP_200_OK,
        )
