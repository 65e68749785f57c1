"""The REST API's common parts: the base view (authentication, JSON errors, caching
headers, ETags), the per-user throttles, the error answers the schema lists, query
parsing and list pages. The views live by topic in ``game_views`` (the games, their
list and creation), ``seat_views`` (join, start, leave, resign, orders), ``log_views``
(the log and the export), ``organizer_views``, ``handover_views`` and ``webhook_views``.
Errors: games.api.exceptions.handler."""

from __future__ import annotations

import hashlib
import math
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpResponseNotModified
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import serializers as drf_serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from fivex_site.links import public_url, site_path
from games import selectors
from games.api import serializers as s
from games.api.authentication import FastTokenAuthentication
from games.api.exceptions import handler
from games.api.input_serializers import EmptyInputSerializer, StrictInputSerializer
from games.models import Game

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
    # The methods whose handler reads query parameters itself (``_query``, whose
    # serializer refuses the ones it does not take); every other operation takes none,
    # and ``initial`` refuses any (a POST's ``?prompt=1`` was ignored: an audit).
    query_methods: frozenset[str] = frozenset()

    def get_exception_handler(self) -> Any:
        return handler

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)  # authentication, permissions, throttles
        # OPTIONS describes the endpoint whatever its URL's query (a browser's CORS
        # preflight carries the query string of the request it asks about). A method the
        # view has no handler for is dispatch's 405, whatever the query (an audit: TRACE
        # ?limit=1 was a 400 saying the operation takes no parameters).
        if request.query_params and request.method != "OPTIONS" and self._handles(request):
            method = "GET" if request.method == "HEAD" else request.method
            if method not in self.query_methods:
                _no_query(request)

    def _handles(self, request: Request) -> bool:
        """Whether ``dispatch`` has a handler for the request's method (else its 405)."""
        method = request.method.lower()
        return method in self.http_method_names and hasattr(self, method)

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
        EmptyInputSerializer(data=request.data).is_valid(raise_exception=True)


def _once(request: Request) -> None:
    """A query parameter given twice is refused (400, named), as a JSON key or a form field
    given twice is: ``?status=active&status=finished`` took the last one (an audit)."""
    repeated = {k: len(v) for k, v in request.query_params.lists() if len(v) > 1}
    if repeated:
        raise drf_serializers.ValidationError(
            {k: [f"Given {n} times: give it once."] for k, n in sorted(repeated.items())}
        )


def _no_query(request: Request) -> None:
    """An operation that takes no query parameters refuses them (400, named), as those
    that take some refuse the ones they do not: a misspelt parameter is never ignored."""
    _once(request)
    unknown = sorted(k for k in request.query_params if k != "format")
    if unknown:
        raise drf_serializers.ValidationError(
            {k: ["Unknown query parameter (this operation takes none)."] for k in unknown}
        )


def _query(request: Request, serializer_class: type) -> dict[str, Any]:
    _once(request)
    params = {k: v for k, v in request.query_params.items() if k != "format"}
    query = serializer_class(data=params, context={"query": True})  # text, by nature
    query.is_valid(raise_exception=True)
    return dict(query.validated_data)


def location_header(description: str) -> OpenApiParameter:
    """The ``Location`` of a 201 answer, in the schema."""
    return OpenApiParameter(
        "Location", str, OpenApiParameter.HEADER, response=[201], description=description
    )


def game_location(game_id: int) -> dict[str, str]:
    """``Location``: the game's address in the API (``GET`` it for the caller's view),
    at the site's public address."""
    return {"Location": public_url(f"/api/games/{game_id}/")}


# --- lists: pages by limit and offset ---------------------------------------------

PAGE_DEFAULT = 100
PAGE_MAX = 200


class PageQuerySerializer(StrictInputSerializer):
    limit = drf_serializers.IntegerField(
        min_value=1, max_value=PAGE_MAX, default=PAGE_DEFAULT, help_text="Items per page."
    )
    offset = drf_serializers.IntegerField(
        min_value=0, max_value=10**9, default=0, help_text="Items skipped."
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
