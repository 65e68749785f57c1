"""Site-wide pages: the home page and the health check."""

import logging
import sys
from typing import Any

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import Resolver404, resolve
from django.views import defaults
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe
from drf_spectacular.views import SpectacularSwaggerView

from fivex_site.health import (
    check_broker,
    check_database,
    check_mail,
    check_static,
    check_workers,
)

logger = logging.getLogger(__name__)


@require_safe  # GET and HEAD (uptime checks send HEAD)
def home(request: HttpRequest) -> HttpResponse:
    """The signed-in player's games, or a welcome page for visitors."""
    from games.presentation import ruleset_name
    from games.rules_text import GAME_SUMMARIES

    # Each game's rules page, so that a visitor (or a player in no game yet) may learn a
    # game before joining one.
    rules = [(ruleset, ruleset_name(ruleset)) for ruleset in GAME_SUMMARIES]
    if not request.user.is_authenticated:
        return render(request, "home.html", {"games": None, "rules": rules})
    from games.models import Seat
    from games.selectors import OVER, seat_offers_waiting
    from games.selectors_invitations import invitations_waiting
    from games.selectors_lists import games_for_user, orders_needed
    from tournaments.selectors import tournaments_for_user

    needed = orders_needed(user=request.user)
    mine = games_for_user(user=request.user)
    # The games still going: those waiting for the player's order first, the nearest
    # deadline first; the rest newest first (a stable sort). Finished games: the last few
    # only (a player's whole history made the page a wall of hundreds of rows).
    games = sorted(
        mine.exclude(status__in=OVER),
        key=lambda g: (
            g.pk not in needed,
            needed[g.pk].deadline is None if g.pk in needed else False,
            needed[g.pk].deadline.timestamp() if g.pk in needed and needed[g.pk].deadline else 0,
        ),
    )
    finished = list(mine.filter(status__in=OVER).order_by("-finished_at", "-id")[:HOME_FINISHED])
    finished_count = (
        mine.filter(status__in=OVER).count() if len(finished) == HOME_FINISHED else len(finished)
    )
    held = {
        game_id: (status, name)
        for game_id, status, name in Seat.objects.filter(
            user=request.user, game_id__in=[g.pk for g in games + finished]
        )
        .exclude(status=Seat.Status.REPLACED)
        .values_list("game_id", "status", "name")
    }
    return render(request, "home.html", {
        "games": games,
        "finished": finished,
        "finished_more": finished_count - len(finished),
        "needed": needed,
        "roles": {g.pk: _role(g, held.get(g.pk), request.user.pk) for g in games + finished},
        "tournaments": tournaments_for_user(user=request.user),
        # Seats an organizer offered this player: the email was the only way to them.
        "offers": seat_offers_waiting(user=request.user),
        # Forming games the player was invited to by name, not answered yet.
        "invitations": invitations_waiting(user=request.user),
        "rules": rules,
    })  # fmt: skip


def _role(game, seat: tuple[str, str] | None, user_id: int) -> str:  # noqa: ANN001
    """What the player is in ``game`` for the home page: ``player`` (and ``organizer``),
    ``resigned``, ``organizer``, ``seat handed over``; a game over adds the place
    ("player, 2nd of 5")."""
    from games.models import Seat
    from games.presentation import place_of
    from games.selectors import OVER

    organizer = game.organizer_id == user_id
    if seat is None:
        return "organizer" if organizer else "seat handed over"
    status, name = seat
    role = "resigned" if status == Seat.Status.RESIGNED else "player"
    if organizer:
        role += " and organizer"
    place = place_of(game.ranking, name) if game.status in OVER else ""
    return f"{role}, {place}" if place else role


# The finished games the home page lists (the newest); the games list has the others.
HOME_FINISHED = 10


@never_cache
@require_safe  # GET and HEAD: load balancers probe with either
def healthz(request: HttpRequest) -> JsonResponse:
    """JSON health report: 200 when the database and the broker answer and this machine
    has its static files, 503 otherwise; with when a worker last ran the beat's deadline
    sweep (``workers``) and how long the oldest email waiting to be sent has waited
    (``mail``): both reported, not counted here. Answered whatever the Host header
    (``fivex_site.middleware.HealthCheckMiddleware``)."""
    database = check_database()
    broker = check_broker()
    static = check_static()
    healthy = all(c["status"] == "ok" for c in (database, broker, static))
    workers = check_workers() if database["status"] == "ok" else {"status": "unknown"}
    mail = check_mail() if database["status"] == "ok" else {"status": "unknown"}
    failing = [(name, check) for name, check in (("database", database), ("broker", broker), ("static", static))
               if check["status"] != "ok"]  # fmt: skip
    if failing:  # one warning a probe, naming what fails (a load balancer probes every few seconds)
        logger.warning(
            "healthz: 503: %s",
            "; ".join(
                f"{name}: {check.get('error') or check['status']}" for name, check in failing
            ),
        )
    if getattr(settings, "IS_PRODUCTION", False) and not request.user.is_staff:
        # The public answer names no internal address and quotes no error text (they
        # are in the logs, and staff signed in see them here).
        for name, check in (("database", database), ("broker", broker), ("static", static),
                            ("workers", workers), ("mail", mail)):  # fmt: skip
            error = check.pop("error", None)
            if error and name not in dict(failing):  # those are in the line above
                logger.warning("healthz: %s: %s", name, error)
            check.pop("url", None)
            check.pop("transport", None)
    response = JsonResponse(
        {
            "status": "ok" if healthy else "error",
            "database": database,
            "broker": broker,
            "static": static,
            "workers": workers,
            "mail": mail,
        },
        status=200 if healthy else 503,
    )
    # Not Django's ERROR "Service Unavailable" too, each probe (the mark its log_response
    # checks; the warning above says it)
    response._has_been_logged = not healthy  # type: ignore[attr-defined]
    return response


def _api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


@csrf_exempt  # it changes nothing; a POST with a session cookie gets the JSON 404 too
def api_not_found(request: HttpRequest) -> HttpResponse:
    """404 for an unknown endpoint under /api/ (or an id no row can have); a page that
    exists with a trailing slash (the schema, the docs) is redirected to, as Django's
    APPEND_SLASH does elsewhere."""
    if not request.path.endswith("/") and request.method in ("GET", "HEAD"):
        try:
            match = resolve(request.path + "/")
        except Resolver404:
            match = None
        if match is not None and match.func is not api_not_found:
            query = request.META.get("QUERY_STRING", "")
            return HttpResponsePermanentRedirect(
                request.path + "/" + (f"?{query}" if query else "")
            )
    body = {"error": "not_found", "message": f"No such API endpoint: {request.path}"}
    return JsonResponse(body, status=404)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """404: JSON under /api/, else the page."""
    if _api(request):
        return api_not_found(request)
    return defaults.page_not_found(request, exception)


UNAVAILABLE_MESSAGE = (
    "The site is briefly unavailable (its database is not answering). Try again in a "
    "moment: an order sent again is never doubled."
)
RETRY_AFTER_SECONDS = 30


# PostgreSQL's SQLSTATEs of a database that is away: connection exceptions (class 08), a
# server shutting down or restarting (57P01-57P03), too many connections (53300).
_AWAY_SQLSTATES = ("57P01", "57P02", "57P03", "53300")


def database_away(exc: BaseException | None) -> bool:
    """Whether an error says the database cannot be reached (restarting, failing over,
    full of connections), rather than a bug: such a request is answered 503, to be tried
    again. A missing table (a release that skipped ``migrate``), a deadlock or a timeout
    is a 500, logged with its traceback."""
    from django.db import InterfaceError, OperationalError

    if isinstance(exc, InterfaceError):
        return True
    if not isinstance(exc, OperationalError):
        return False
    sqlstate = getattr(exc.__cause__, "sqlstate", None)
    if sqlstate:  # PostgreSQL named it
        return sqlstate.startswith("08") or sqlstate in _AWAY_SQLSTATES
    # No SQLSTATE: psycopg could not connect at all; SQLite could not open or lock its file.
    text = str(exc).lower()
    return any(
        sign in text
        for sign in (
            "connection",
            "could not connect",
            "server closed",
            "unable to open",
            "database is locked",
        )
    )


def log_unavailable(request: Any, response: HttpResponse, exc: BaseException, where: str) -> None:
    """Log a database outage's 503 once: one warning naming the request (its path's tokens
    masked) and the database's error, without a traceback (an outage, not a bug). Django's
    own ERROR for the answer ("Service Unavailable", a traceback for a page) is skipped:
    ``_has_been_logged`` is the mark Django's ``log_response`` checks so as not to log a
    response twice. A request failing again on its way out (a middleware reading the
    user) is not logged again."""
    from fivex_site.errors import mask_tokens

    request = getattr(request, "_request", request)  # DRF's Request wraps Django's
    response._has_been_logged = True  # type: ignore[attr-defined]
    if getattr(request, "_unavailable_logged", False):
        return
    if request is not None:
        request._unavailable_logged = True
    path = mask_tokens(getattr(request, "path", "?"))
    logger.warning(
        "database unavailable: 503 for %s %s (%s): %s",
        getattr(request, "method", "?"), path, where, exc,
    )  # fmt: skip


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """400 made outside a view (Django's SuspiciousOperation: a Host the site does not
    serve, a body over the limits read by a middleware): JSON under /api/, as every
    answer there is (it was Django's HTML page), else Django's page."""
    if _api(request):
        message = (
            "The request's Host header names a site this server does not serve."
            if isinstance(exception, DisallowedHost)
            else "Bad request."
        )
        return JsonResponse({"error": "bad_request", "message": message}, status=400)
    return defaults.bad_request(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """500 outside a DRF view (whose handler answers JSON itself): JSON under /api/. The
    database away (a restart): 503 with ``Retry-After``, not a bug's 500."""
    exc = sys.exc_info()[1]
    if database_away(exc):
        if _api(request):
            response: HttpResponse = JsonResponse(
                {"error": "unavailable", "message": UNAVAILABLE_MESSAGE}, status=503
            )
        else:
            response = HttpResponse(render_to_string("503.html"), status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        log_unavailable(request, response, exc, "page")
        return response
    if _api(request):
        body = {
            "error": "server_error",
            "message": "An unexpected error occurred. It has been logged.",
        }
        return JsonResponse(body, status=500)
    return defaults.server_error(request)


class ApiDocsView(SpectacularSwaggerView):
    """The API's documentation page. Another method than GET or HEAD is a JSON 405, as
    everywhere under ``/api/`` (Django's own 405 is an empty HTML answer)."""

    def http_method_not_allowed(
        self, request: HttpRequest, *args: Any, **kwargs: Any
    ) -> HttpResponse:
        allowed = ", ".join(m.upper() for m in self.http_method_names if hasattr(self, m))
        answer = JsonResponse(
            {"error": "method_not_allowed", "message": f'Method "{request.method}" not allowed.'},
            status=405,
        )
        answer["Allow"] = allowed
        return answer
