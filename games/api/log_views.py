"""The API's records of a game: its audit log, a page of entries at a time, and the
finished game's full export."""

from __future__ import annotations

from urllib.parse import urlencode

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers as drf_serializers
from rest_framework.request import Request
from rest_framework.response import Response

from fivex_site.links import public_url, site_path
from games import selectors_log
from games.api import serializers as s
from games.api.base import READ_ERRORS, BaseAPIView, _query
from games.api.input_serializers import StrictInputSerializer
from games.views.common import public_log

LOG_LIMIT = 1000


class LogQuerySerializer(StrictInputSerializer):
    after = drf_serializers.IntegerField(
        min_value=0, max_value=10**9, default=0,
        help_text="Only the entries after this sequence number (the last one you have).",
    )  # fmt: skip
    limit = drf_serializers.IntegerField(
        min_value=1, max_value=LOG_LIMIT, default=LOG_LIMIT, help_text="Entries at most."
    )


class GameLogView(BaseAPIView):
    """The audit log: while the game runs, other seats' orders as their commitments only
    (what the rules reveal is in the caller's view); everything once the game is over."""

    query_methods = frozenset({"GET"})

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
        game = self.visible_game(request, game_id)
        return Response(selectors_log.game_export(game=game))
