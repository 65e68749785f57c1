"""The pages before a game: the games list (my games, the open ones anyone may join,
those being played, which anyone may watch, and those over, with their results; each a
page at a time), the new-game form, and each game's public rules page."""

from __future__ import annotations

import hashlib
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Case, Value, When
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_safe

import engine
from games import (
    selectors,
    selectors_invitations,
    selectors_lists,
    selectors_players,
    selectors_talk,
)
from games.errors import ApplicationError
from games.forms import GameCreateForm
from games.models import Game
from games.presentation import ruleset_name
from games.services import games as game_services
from games.services.invitations import invitation_path
from games.templatetags.games_extras import site_href
from games.views.common import over_api_rate

GAMES_PAGE = 50  # games a page of each list of the games page shows


def _games_page(request: HttpRequest, param: str, games: Any, anchor: str) -> tuple[list[Game], dict]:
    """One page of a list of the games page (``?<param>=N``; a bad or too big number
    gives the first or the last page) and its pager: where it is, the links to the
    pages before and after (the other lists keep their pages)."""
    raw = request.GET.get(param, "")
    number = max(1, int(raw)) if raw.isascii() and raw.isdigit() and len(raw) <= 9 else 1
    page = Paginator(games, GAMES_PAGE).get_page(number)

    def link(n: int) -> str:
        query = request.GET.copy()
        query[param] = str(n)
        return f"?{query.urlencode()}#{anchor}"

    pager = {
        "shown": f"{page.start_index()}–{page.end_index()} of {page.paginator.count}",
        "previous": link(page.number - 1) if page.has_previous() else "",
        "next": link(page.number + 1) if page.has_next() else "",
    } if page.has_other_pages() else {}  # fmt: skip
    return list(page.object_list), pager


@require_safe
def game_list(request: HttpRequest) -> HttpResponse:
    """My games (signed in), the open games anyone may join, the public games being
    played, which anyone may watch (signed in or not), and the public games over, with
    their results; each list a page at a time."""
    signed_in = request.user.is_authenticated
    needed = selectors_lists.orders_needed(user=request.user) if signed_in else {}
    mine: list[Game] = []
    mine_pager: dict = {}
    if signed_in:
        # The games waiting for my order first, then those going on, then those forming,
        # then the ones over; newest first within each.
        owing = Case(When(pk__in=list(needed), then=Value(0)), default=Value(1)) if needed else Value(1)
        stage = Case(When(status__in=("active", "paused"), then=Value(0)),
                     When(status="forming", then=Value(1)), default=Value(2))  # fmt: skip
        ordered = selectors_lists.games_for_user(user=request.user).annotate(owing=owing, stage=stage)
        mine, mine_pager = _games_page(
            request, "mine", ordered.order_by("owing", "stage", "-created_at", "-id"), "my-games"
        )
    # Games of mine are in my list, not in these; ``?game=5x``: the other lists hold games
    # of that ruleset only (an unknown one: every game).
    others = selectors_lists.games_for_user(user=request.user).values("pk") if signed_in else []
    rulesets = [(r.id, r.name) for r in engine.rulesets()]
    only = request.GET.get("game", "")
    only = only if only in dict(rulesets) else ""
    # ``?q=``: the games whose name holds it, or that a player of that name plays in.
    text = request.GET.get("q", "")[:100].replace("\x00", "").strip()

    def listed(games: Any) -> Any:
        games = games.exclude(pk__in=others)
        games = selectors_lists.games_matching(games, text)
        return games.filter(ruleset=only) if only else games

    open_games, open_pager = _games_page(
        request, "open", listed(selectors_lists.open_games()), "open-games"
    )
    watching, watch_pager = _games_page(
        request, "watch", listed(selectors_lists.watchable_games()), "watch-games"
    )
    done, done_pager = _games_page(
        request, "done", listed(selectors_lists.finished_public_games()), "finished-games"
    )
    return render(
        request,
        "games/game_list.html",
        {
            "rulesets": rulesets,
            "only": only,
            "only_name": dict(rulesets).get(only, ""),
            "q": text,
            "my_games": mine,
            "my_pager": mine_pager,
            "open_games": open_games,
            "open_pager": open_pager,
            "watchable": watching,
            "watch_pager": watch_pager,
            "finished": done,
            "finished_pager": done_pager,
            "needed": needed,
            # Table talk by others in my games that I have not read (on any device).
            "talk_new": selectors_talk.talk_new(user=request.user, game_ids=[g.pk for g in mine])
            if signed_in
            else {},
            "seated": selectors_lists.seated_counts(games=mine + open_games + watching),
            # where I finished, in my games that are over (the list said "finished" only)
            "places": selectors_lists.my_places(user=request.user, games=mine) if signed_in else {},
            "offers": selectors.seat_offers_waiting(user=request.user) if signed_in else [],
            # Forming games the player was invited to by name, not yet answered.
            "invitations": [
                {"game": i.game, "game_id": i.game_id, "invited_by": i.invited_by,
                 "link": site_href(invitation_path(i.game))}
                for i in selectors_invitations.invitations_waiting(user=request.user)
            ] if signed_in else [],  # fmt: skip
        },
    )


@require_safe
def game_rules(request: HttpRequest, ruleset: str) -> HttpResponse:
    """The rules of one game, for players (public): what each prompt asks, the cards,
    the scoring, the orders one can type."""
    from django.template import TemplateDoesNotExist
    from django.template.loader import get_template

    from games.rules_text import GAME_SUMMARIES

    if ruleset not in GAME_SUMMARIES:
        raise Http404("No such game.")
    try:
        get_template(f"games/rules/{ruleset}.html")
    except TemplateDoesNotExist:
        raise Http404("No rules page for this game.") from None
    return render(
        request,
        "games/rules_page.html",
        {"ruleset": ruleset, "name": ruleset_name(ruleset), "summary": GAME_SUMMARIES[ruleset],
         "others": [(r, ruleset_name(r)) for r in GAME_SUMMARIES if r != ruleset]},
    )  # fmt: skip


@login_required
def game_create(request: HttpRequest) -> HttpResponse:
    """The creation form (GET) and creation itself (POST, then redirect to the game)."""
    like = None
    if request.method != "POST" and "like" in request.GET:
        like = _game_to_copy(request)
    form = GameCreateForm(
        request.POST or None,
        time_zone=selectors_players.time_zone_of(user=request.user).key,
        initial=_settings_of(like) if like is not None else None,
    )
    warnings: list[str] = []
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        warnings = data.get("warnings") or []
        if warnings and not data.get("accept_warnings"):
            # Allowed but discouraged: show the advice and ask once more.
            return render(
                request,
                "games/game_create.html",
                {"form": form, "warnings": warnings},
            )
        # The form's own key, with what it asks for: sent again as it was (Back, Create),
        # it opens the game it made, before any rate limit; edited, it makes another game.
        key = ""
        if data.get("create_key"):
            asked = sorted((k, v) for k, v in request.POST.lists() if k not in ("csrfmiddlewaretoken", "create_key"))
            key = f"web:{data['create_key']}:{hashlib.sha256(repr(asked).encode()).hexdigest()[:16]}"
            earlier = game_services.created_with(organizer=request.user, create_key=key)
            if earlier is not None:
                messages.info(request, "This form created this game already: here it is.")
                return redirect("games:detail", game_id=earlier.pk)
        refusal = over_api_rate(request, "games_create")
        if refusal:
            form.add_error(None, refusal)
            return render(request, "games/game_create.html", {"form": form, "warnings": warnings})
        try:
            game = game_services.game_create(
                organizer=request.user,
                ruleset=data["ruleset"],
                options=data["options"],
                seats_count=data["seats_count"],
                name=data["name"],
                is_private=data["is_private"],
                require_sender_match=data["require_sender_match"],
                talk_open=data["talk_open"],
                away_days=data["away_days"],
                deadline_hours=data["deadline_hours"],
                grace_minutes=data["grace_minutes"],
                quiet_hours_start=data["quiet_hours_start"],
                quiet_hours_end=data["quiet_hours_end"],
                quiet_hours_time_zone=data["quiet_hours_time_zone"],
                reminder_hours=data["reminder_hours"],
                early_resolution_delay_seconds=data["early_resolution_delay_seconds"],
                seat_organizer=data["play"],
                create_key=key,
            )
        except ApplicationError as exc:
            form.add_error(None, exc.message)
        else:
            if not game.created:  # this form was sent before: its game, not a second one
                messages.info(request, "This form created this game already: here it is.")
                return redirect("games:detail", game_id=game.pk)
            for warning in game.warnings or []:
                messages.warning(request, warning)
            messages.success(request, "Game created. Share the link so players can join.")
            return redirect("games:detail", game_id=game.pk)
    return render(
        request, "games/game_create.html", {"form": form, "warnings": warnings, "like": like}
    )


def _game_to_copy(request: HttpRequest) -> Any:
    """The game ``?like=ID`` names, if the player may watch it (else None, said once)."""
    from games.errors import NotFound
    from games.selectors import game_for_viewer

    raw = request.GET.get("like", "")
    try:
        if not (raw.isascii() and raw.isdigit() and len(raw) <= 12):
            raise NotFound("No such game.")
        return game_for_viewer(game_id=int(raw), user=request.user)
    except NotFound:
        messages.info(request, "There is no such game to copy: the form has its usual settings.")
        return None


def _settings_of(game: Any) -> dict[str, Any]:
    """A new game's form filled in as ``game`` was made (its name left to the player): the
    game, its options, seats, privacy, table talk, waiting for players away, deadlines."""
    from games.forms import option_field_name

    initial: dict[str, Any] = {
        "ruleset": game.ruleset,
        "seats_count": game.seats_count,
        "is_private": game.is_private,
        "require_sender_match": game.require_sender_match,
        "talk_open": game.talk_open,
        "away_days": game.away_days,
        "deadline_hours": game.deadline_hours,
        "grace_minutes": game.grace_minutes,
        "quiet_hours_start": game.quiet_hours_start,
        "quiet_hours_end": game.quiet_hours_end,
        "quiet_hours_time_zone": game.quiet_hours_time_zone,
        "reminder_hours": game.reminder_hours,
        "early_resolution_delay_seconds": game.early_resolution_delay_seconds,
    }
    for name, value in (game.options or {}).items():
        initial[option_field_name(game.ruleset, name)] = value if isinstance(value, bool) else str(value)
    return initial
