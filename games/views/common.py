"""Helpers shared by the game pages: loading a game, turning application errors into
messages, and splitting a seat view into its wrapper and the engine's own part."""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect

from games import selectors, selectors_log
from games.errors import ApplicationError, NotFound
from games.presentation import decision_words

logger = logging.getLogger(__name__)

# Keys selectors.seat_view adds around the engine's view.
WRAPPER_KEYS = frozenset(
    {"game", "prompt", "my_order", "legal_orders", "events", "seat", "view", "seats", "orders_in"}
)


def load_game(game_id: int) -> Any:
    """The game, or a 404 page."""
    try:
        return selectors.game_get(game_id=game_id)
    except NotFound as exc:
        raise Http404(exc.message) from None


def load_visible_game(request: HttpRequest, game_id: int) -> Any:
    """The game if the requester may watch it (``selectors.game_visible``), or a 404 page
    (a private game is not shown to strangers)."""
    user = request.user if request.user.is_authenticated else None
    try:
        return selectors.game_for_viewer(game_id=game_id, user=user)
    except NotFound as exc:
        raise Http404(exc.message) from None


def engine_part(view: dict[str, Any]) -> dict[str, Any]:
    """The engine's own view inside a selectors view (nested under ``view`` or merged)."""
    inner = view.get("view")
    if isinstance(inner, dict):
        return inner
    return {k: v for k, v in view.items() if k not in WRAPPER_KEYS}


def legal_orders_complete(ruleset: Any, orders: list[Any]) -> bool:
    """False when the engine cut the list at its ruleset's ``legal_orders_cap`` (4X
    Dice's hit lists): orders beyond it are legal too, and may be typed."""
    import engine

    try:
        cap = engine.get(ruleset).legal_orders_cap
    except engine.ScriptError:
        return True
    return cap is None or len(orders) < cap


def game_url(game: Any) -> str:
    from django.urls import reverse

    return reverse("games:detail", args=[game.pk])


def post_action(view_func: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Wrap a POST-only action: non-POST -> redirect to the game page; an
    ApplicationError becomes an error message and a redirect (POST-redirect-GET)."""

    @functools.wraps(view_func)
    def wrapper(request: HttpRequest, game_id: int, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method != "POST":
            return redirect("games:detail", game_id=game_id)
        try:
            return view_func(request, game_id, *args, **kwargs)
        except NotFound as exc:
            raise Http404(exc.message) from None
        except ApplicationError as exc:
            messages.error(request, decision_words(exc.message))  # the API's word is "prompt"
            return redirect("games:detail", game_id=game_id)

    return wrapper


def public_log(
    *, game: Any, for_user: Any, after: int = 0, limit: int | None = None
) -> list[dict[str, Any]]:
    """selectors_log.game_log, plus a safety net (defence in depth): while the game runs,
    a fixed set-up in an entry's payload (e.g. 5X's ``setup.deal``: every seat's
    leaders) is withheld, since it holds other seats' hidden cards. The log itself no
    longer carries it before the end (``game_started`` has only ``setup_commitment``;
    see ``engine.audit``), but logs written before that change still do. The full log
    is public once the game is over."""
    entries = selectors_log.game_log(game=game, for_user=for_user, after=after, limit=limit)
    if game.status in ("finished", "abandoned"):
        return entries
    out = []
    for entry in entries:
        payload = entry.get("payload")
        if isinstance(payload, dict) and payload.get("setup"):
            entry = {
                **entry,
                "payload": {**payload, "setup": "(withheld until the game ends)"},
                "redacted": True,
            }
        out.append(entry)
    return out


def _wait_words(seconds: float) -> str:
    seconds = max(1, math.ceil(seconds))
    if seconds < 120:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minutes"


def over_api_rate(request: HttpRequest, scope: str) -> str | None:
    """The API's per-user limit ``scope`` (``orders``, ``games_create``), counted for the
    web form too, in the same quota: a form was a way around the API's limits (150 orders
    a minute, 70 games in 6 seconds). None while under it (this request is counted), else
    what to tell the player."""
    from games.api.base import GamesCreateThrottle, OrdersThrottle

    throttle = {"orders": OrdersThrottle, "games_create": GamesCreateThrottle}[scope]()
    if throttle.allow_request(request, None):
        return None
    limit, per = throttle.num_requests, {1: "a second", 60: "a minute", 3600: "an hour",
                                         86400: "a day"}.get(throttle.duration, f"per {throttle.duration} s")  # fmt: skip
    what = "orders" if scope == "orders" else "new games"
    return (
        f"Too many {what} at once (at most {limit} {per}): nothing was changed; "
        f"try again in {_wait_words(throttle.wait() or 1)}."
    )
