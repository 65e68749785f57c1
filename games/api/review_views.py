"""The API's review of a game prompt by prompt (``games.selectors_review``): what the
review page shows, as data."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers as drf_serializers
from rest_framework.request import Request
from rest_framework.response import Response

from games import selectors, selectors_review
from games.api import serializers as s
from games.api.base import READ_ERRORS, BaseAPIView
from games.errors import NotFound
from games.models import SealedOrder


class ReviewPromptSerializer(drf_serializers.Serializer):
    number = drf_serializers.IntegerField()
    round = drf_serializers.IntegerField()
    phase = drf_serializers.CharField()
    asked = drf_serializers.ListField(
        child=drf_serializers.CharField(), source="pending", help_text="The seats it asked."
    )
    resolved_at = s.WhenField()


class ReviewOrderSerializer(drf_serializers.Serializer):
    seat = drf_serializers.CharField()
    text = drf_serializers.CharField()
    source = drf_serializers.ChoiceField(choices=SealedOrder.Source.choices)
    reason = drf_serializers.CharField(
        help_text='For a default order: deadline, resigned or refused; "" otherwise.'
    )
    submitted_at = s.WhenField()


class ReviewStepSerializer(drf_serializers.Serializer):
    game = drf_serializers.IntegerField()
    prompt = ReviewPromptSerializer()
    table = drf_serializers.JSONField(
        help_text="The engine's view of the state while the prompt was open: every hand face "
        "up once the game is over; while it runs, the caller's seat's view (its own hand then) "
        "for a seated player, the public (spectator's) view for anyone else."
    )
    orders = ReviewOrderSerializer(
        many=True, allow_null=True,
        help_text="The orders it took, once the game is over; while it runs, the caller's own "
        "seat's order alone (a seated player; [] if it gave none), null for anyone else (the "
        "API shows no other seat's order text before the end).",
    )  # fmt: skip
    events = drf_serializers.ListField(
        child=drf_serializers.CharField(),
        help_text="What its resolution did, in words: the public events, and while the game "
        "runs the caller's seat's own too; once it is over every seat's, those a seat alone was "
        'told headed "<seat>, told alone: ".',
    )


class GameReviewStepView(BaseAPIView):
    """One resolved prompt of a game, as its review page shows it (whoever may watch the
    game): the table while it was open, the orders it took (a game over only) and what
    happened. 404 for a prompt not resolved (or none such)."""

    @extend_schema(responses={200: ReviewStepSerializer, **READ_ERRORS})
    def get(self, request: Request, game_id: int, number: int) -> Response:
        game = self.visible_game(request, game_id)
        seat = selectors.seat_for_user(game=game, user=request.user)
        step = selectors_review.review_step(
            game=game, number=number, seat_name=seat.name if seat is not None else None
        )
        if step is None:
            raise NotFound(f"Prompt {number} of this game has not been resolved.")
        return Response(
            ReviewStepSerializer(
                {
                    "game": game.pk, "prompt": step["prompt"], "table": step["table"],
                    "orders": step["orders"], "events": step["events"],
                }
            ).data
        )  # fmt: skip
