"""Site-wide pages: the home page and the health check."""

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from fivex_site.health import check_broker, check_database


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """The signed-in player's games, or a welcome page for visitors."""
    if not request.user.is_authenticated:
        return render(request, "home.html", {"games": None})
    from games.selectors import games_for_user

    games = games_for_user(user=request.user)
    return render(request, "home.html", {"games": games})


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """JSON health report: 200 when the database and the broker answer, 503 otherwise."""
    database = check_database()
    broker = check_broker()
    healthy = database["status"] == "ok" and broker["status"] == "ok"
    return JsonResponse(
        {"status": "ok" if healthy else "error", "database": database, "broker": broker},
        status=200 if healthy else 503,
    )
