"""Tournament pages: public lists, standings, pairings, ratings and player histories,
the new-tournament form and a player's own actions (register, withdraw, byes), with the
helpers the organizer's panel (tournaments.panel) shares. Views are thin: parse, call
one service, render or redirect."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

from django import forms as django_forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from games import selectors_lists
from games.errors import ApplicationError
from games.presentation import and_list
from games.selectors_players import time_zone_of
from tournaments import selectors
from tournaments.charts import rating_svg
from tournaments.forms import TournamentForm
from tournaments.models import Registration, Round, Table, Tournament
from tournaments.services import notices
from tournaments.services import tournaments as tsvc
from tournaments.services.common import is_league_administrator
from tournaments.standings import TIEBREAK_HELP, TIEBREAK_NAMES, TIEBREAK_SHORT


def _tournament(slug: str) -> Tournament:
    return get_object_or_404(Tournament, slug=slug)


def _visible_tournament(request: HttpRequest, slug: str) -> Tournament:
    """The tournament at ``slug`` if the caller may see it: a draft is a 404 to all but
    its organizer and staff, on every page of it (its name and entrants are not public)."""
    tournament = _tournament(slug)
    if not selectors.tournament_visible(tournament=tournament, user=request.user):
        raise Http404("No such tournament.")
    return tournament


def _is_organizer(request: HttpRequest, tournament: Tournament) -> bool:
    return selectors.may_manage(tournament=tournament, user=request.user)


_DRAFT = "tournament_panel_draft"


def _keep_draft(request: HttpRequest, tournament: Tournament, fields: dict[str, str]) -> None:
    """Remember what a refused panel form held, so the panel shows it again (the answer is
    a redirect): one draft per session, for the next panel page of this tournament."""
    request.session[_DRAFT] = {"slug": tournament.slug,
                               **{k: v[:5000] for k, v in fields.items()}}  # fmt: skip


def _take_draft(request: HttpRequest, tournament: Tournament) -> dict[str, str]:
    draft = request.session.get(_DRAFT) if _DRAFT in request.session else None
    if not isinstance(draft, dict) or draft.get("slug") != tournament.slug:
        return {}
    del request.session[_DRAFT]
    return draft


def _act(request: HttpRequest, tournament: Tournament, action: Callable[[], Any],
         ok: str | Callable[[Any], str], to: str = "tournaments:manage", query: str = "",
         keep: dict[str, str] | None = None) -> HttpResponse:
    """Run one service call; its ApplicationError becomes a message (never a 500). When
    it is refused, ``keep`` (the form's fields) is shown again in the panel. ``ok`` may
    be a function of the call's result."""
    try:
        done = action()
    except (ApplicationError, django_forms.ValidationError) as exc:
        text = exc.message if isinstance(exc, ApplicationError) else " ".join(exc.messages)
        messages.error(request, text)
        if keep:
            _keep_draft(request, tournament, {**keep, "error": text})
    else:
        messages.success(request, ok(done) if callable(ok) else ok)
    response = redirect(to, slug=tournament.slug)
    if query:
        response["Location"] += f"?{query}"
    return response


def tournament_list(request: HttpRequest) -> HttpResponse:
    mine = (
        Tournament.objects.filter(Q(organizer=request.user) | Q(registrations__user=request.user)).distinct()
        if request.user.is_authenticated else Tournament.objects.none()
    )
    return render(request, "tournaments/list.html",
                  {"tournaments": selectors.tournaments_list(), "mine": mine})


@login_required
def tournament_create(request: HttpRequest) -> HttpResponse:
    form = TournamentForm(
        request.POST or None,
        time_zone=time_zone_of(user=request.user).key,
        emails=is_league_administrator(request.user),
    )
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        # The form's own key with what it asks (as the new-game form's): sent again as it
        # was, it opens the tournament it made; edited, it makes another.
        key = ""
        if data.get("create_key"):
            asked = sorted((k, v) for k, v in request.POST.lists() if k not in ("csrfmiddlewaretoken", "create_key"))
            key = f"web:{data['create_key']}:{hashlib.sha256(repr(asked).encode()).hexdigest()[:16]}"
        try:
            tournament = tsvc.tournament_create(
                create_key=key,
                organizer=request.user,
                name=data["name"],
                ruleset=data["ruleset"],
                options=data["options"],
                table_sizes=data["table_sizes"],
                rounds_count=data["rounds_count"],
                deadline_hours=data["deadline_hours"],
                quiet_hours_start=data["quiet_hours_start"],
                quiet_hours_end=data["quiet_hours_end"],
                quiet_hours_time_zone=data["quiet_hours_time_zone"],
                points_per_place=data["points_per_place"],
                tiebreaks=data["tiebreaks"] or ["buchholz"],
                rating_pool=data["rating_pool"],
                bye_points=data["bye_points"],
                requested_bye_points=data["requested_bye_points"],
                allow_late_entry=data["allow_late_entry"],
                table_talk=data["table_talk"],
                away_days=data["away_days"],
                forbidden_pairs=data["forbidden_pairs"],
            )
        except ApplicationError as exc:
            # Under the field the refusal is about (aria-invalid, described by its
            # error), else one for the whole form.
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        else:
            if not tournament.created:
                messages.info(request, "This form created this tournament already: here it is.")
            else:
                messages.success(request, "Tournament created. Open it for registration when ready.")
            return redirect("tournaments:manage", slug=tournament.slug)
    return render(request, "tournaments/create.html", {"form": form})


def _csv_number(value: float) -> str:
    """A number as a spreadsheet reads it: up to four decimals, no trailing zeros."""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _csv_text(value: str) -> str:
    """A cell a spreadsheet shows as written: one starting as a formula would (=, +, -,
    @) is led by an apostrophe, as OWASP advises against formula injection."""
    return f"'{value}" if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


@require_safe
def standings_csv(request: HttpRequest, slug: str) -> HttpResponse:
    """The standings as the tournament's page shows them, as CSV (an organizer's export of
    its results): rank, player, points, each tie-break, games played, withdrawn, rating in
    the tournament's pool and its change over this tournament's games. A draft's is its organizer's and staff's alone, as its page."""
    import csv

    tournament = _visible_tournament(request, slug)
    rows = selectors.standings(tournament=tournament)
    if tournament.status == Tournament.Status.CLOSED and not tournament.rounds.filter(
        status=Round.Status.FINISHED
    ).exists():
        rows = []  # closed before any round was played: no standings (as its page)
    ratings = selectors.current_ratings(pool=tournament.rating_pool)
    changes = selectors.rating_changes(tournament=tournament)
    answer = HttpResponse(content_type="text/csv; charset=utf-8")
    answer["Content-Disposition"] = f'attachment; filename="{tournament.slug}-standings.csv"'
    answer.write("\ufeff")  # a BOM: a spreadsheet then reads the names' accents as UTF-8
    out = csv.writer(answer)
    out.writerow([
        "Rank", "Player", "Points", *(TIEBREAK_NAMES[n] for n in tournament.tiebreaks),
        "Played", "Withdrawn", f"Rating ({tournament.rating_pool})", "Rating change (this tournament)",
    ])  # fmt: skip
    for row in rows:
        out.writerow([
            row["rank"], _csv_text(row["user"].username), _csv_number(row["points"]),
            *(_csv_number(row["tiebreaks"][n]) for n in tournament.tiebreaks),
            row["played"], "yes" if row["withdrawn"] else "no",
            f"{ratings.get(row['user'].pk, selectors.INITIAL_RATING):.1f}",
            _csv_number(round(changes.get(row["user"].pk, 0.0), 1)),
        ])  # fmt: skip
    return answer


def tournament_detail(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = _visible_tournament(request, slug)
    registration = None
    if request.user.is_authenticated:
        registration = tournament.registrations.filter(user=request.user).first()
    rounds = list(tournament.rounds.order_by("number").defer(*selectors.PAIRING_DATA))
    finished = 0
    for rnd in rounds:  # the standings count the finished rounds before the first open one
        if rnd.status != Round.Status.FINISHED:
            break
        finished = rnd.number
    my_game = my_bye = my_table = None
    round_open = next((r for r in rounds if r.status != Round.Status.FINISHED), None)
    if registration is not None and round_open is not None:
        my_table = next(
            (tb for tb in round_open.tables.select_related("game") if registration.pk in tb.players),
            None,
        )
        table = my_table if my_table is not None and my_table.game is not None else None
        my_game = None if table is None else {
            "round": round_open.number,
            "table": table.number,
            # whom the round seats them with, as the paired round's banner said it (an
            # audit: gone once the round started), in seat order
            "opponents": and_list([
                str(r.user) for r in sorted(
                    tournament.registrations.filter(pk__in=table.players).exclude(pk=registration.pk)
                    .select_related("user"), key=lambda r: table.players.index(r.pk))
            ]),
            "game": table.game,
            # the open prompt, when it waits for this player's order
            "wanted": selectors_lists.orders_needed(user=request.user).get(table.game_id),
        }
        if table is None:  # sitting this round out: say so (it was told by email only)
            my_bye = round_open.byes.filter(registration=registration).first()
    standings = selectors.standings(tournament=tournament)
    return render(request, "tournaments/detail.html", {
        "t": tournament,
        "my_game": my_game,
        "my_bye": my_bye,
        "standings": standings,
        "standings_after": finished,
        **_where_i_stand(tournament, registration, standings, rounds, round_open, finished,
                         my_table),
        "round_open": round_open,
        # (whole name, short name): a phone shows the short one, the whole as its title
        "tiebreak_heads": [(TIEBREAK_NAMES[n], TIEBREAK_SHORT[n]) for n in tournament.tiebreaks],
        "tiebreak_keys": tournament.tiebreaks,
        # a phone's standings card labels each value by it
        "tiebreak_short": TIEBREAK_SHORT,
        # How the standings count, for a player who never met a Buchholz.
        "tiebreak_help": [(TIEBREAK_NAMES[n], TIEBREAK_HELP[n]) for n in tournament.tiebreaks],
        "points_per_place": sorted(selectors.points_for(tournament).items()),
        "uses_virtual_opponent": bool(
            {"buchholz", "buchholz_cut1", "sonneborn_berger", "average_opponent"}
            & set(tournament.tiebreaks)
        ),
        "rounds": rounds,
        "registration": registration,
        "is_organizer": _is_organizer(request, tournament),
    })


def _where_i_stand(
    tournament: Tournament, registration: Registration | None, standings: list[dict[str, Any]],
    rounds: list[Round], round_open: Round | None, finished: int, my_table: Table | None,
) -> dict[str, str]:
    """What a participant's own box says (a participant's journey: their place, whom a
    paired round seats them with, and when the next round comes were not on the page):
    ``my_standing`` ("You are tied 2nd of 8 with 2 points."), ``my_pairing`` and
    ``next_round_note``."""
    out: dict[str, str] = {}
    row = next((r for r in standings if registration is not None
                and r["registration"].pk == registration.pk), None)
    if row is not None and finished:
        out["my_standing"] = (
            f"You are {notices.standing_words(row, standings)}"
            f"{'' if tournament.status == Tournament.Status.CLOSED else f' after round {finished}'}."
        )
    if (
        registration is not None and registration.status == Registration.Status.ACTIVE
        and round_open is not None and round_open.status == Round.Status.PAIRED
        and my_table is not None
    ):
        players = {r.pk: r for r in tournament.registrations.filter(pk__in=my_table.players)
                   .select_related("user")}
        others = [players[p] for p in my_table.players if p != registration.pk and p in players]
        gone = [r.user.username for r in others if r.status == Registration.Status.WITHDRAWN]
        if gone:  # round_start refuses it: the organizer re-pairs the round first
            out["my_pairing"] = (
                f"Round {round_open.number} is paired, but {and_list(gone)} withdrew since: the "
                "organizer pairs it again before it starts."
            )
        else:
            out["my_pairing"] = (
                f"Round {round_open.number} is paired: you play "
                f"{and_list([r.user.username for r in others])} at table {my_table.number}. "
                "It starts when the organizer starts it; your game's email tells you."
            )
    if (
        round_open is None and tournament.status == Tournament.Status.RUNNING
        and len(rounds) < tournament.rounds_count
    ):
        out["next_round_note"] = (
            f"Round {len(rounds) + 1} of {tournament.rounds_count} starts when the organizer "
            "pairs and starts it; its game's email tells each player."
        )
    return out


def ratings(request: HttpRequest) -> HttpResponse:
    """Every rating pool with a rated game."""
    return render(request, "tournaments/ratings.html", {"pools": selectors.rating_pools()})


def rating_pool(request: HttpRequest, pool: str) -> HttpResponse:
    """One pool's players by rating."""
    if not selectors.rating_pool_exists(pool=pool):
        raise Http404("No such rating pool.")
    rows = selectors.rating_list(pool=pool)
    return render(request, "tournaments/rating_pool.html", {"pool": pool, "rows": rows})


def round_detail(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    tournament = _visible_tournament(request, slug)
    rnd = get_object_or_404(Round, tournament=tournament, number=number)
    regs = {r.pk: r for r in tournament.registrations.select_related("user")}
    tables = []
    round_tables = list(rnd.tables.select_related("game").order_by("number"))
    # Each game's open prompt and who it waits for, in two queries (it was one a table).
    now = selectors_lists.open_prompts_waiting(game_ids=[t.game_id for t in round_tables])
    for table in round_tables:
        tables.append({
            "table": table,
            "players": [regs[p] for p in table.players],
            "ranking": [[regs[p].user for p in g] for g in (table.ranking or [])],
            "nobody_played": table.scoreless,
            **now.get(table.game_id, {"prompt": None, "waiting": []}),
        })
    return render(request, "tournaments/round.html", {
        "t": tournament, "round": rnd, "tables": tables,
        "byes": rnd.byes.select_related("registration__user"),
        "is_organizer": _is_organizer(request, tournament),
    })


def player_detail(request: HttpRequest, slug: str, registration_id: int) -> HttpResponse:
    tournament = _visible_tournament(request, slug)
    registration = get_object_or_404(Registration, tournament=tournament, pk=registration_id)
    ledger = selectors.rating_history(pool=tournament.rating_pool, user=registration.user)
    return render(request, "tournaments/player.html", {
        "t": tournament,
        "registration": registration,
        "history": selectors.player_history(tournament=tournament, registration=registration),
        "ledger": ledger,
        "chart": rating_svg([e.rating_after for e in ledger], start=ledger[0].rating_before if ledger else None),
    })


_PLAYER_NAME_RE = re.compile(r"[\w.@+-]{1,150}")


@require_safe
def players(request: HttpRequest) -> HttpResponse:
    """Find a player: the most active players, or the names holding ``?q=``."""
    from games.selectors_players import did_you_mean

    text = request.GET.get("q", "")[:150].replace("\x00", "").strip()
    raw = request.GET.get("page", "1")
    number = int(raw) if raw.isascii() and raw.isdigit() and 0 < len(raw) <= 6 else 0
    if number < 1:
        return redirect(_players_page(text, 1))
    size = selectors.PLAYERS_PAGE
    rows = selectors.players_directory(text=text, limit=size + 1, offset=(number - 1) * size)
    if not rows and number > 1:  # past the end (the list shrank, or a typed number)
        return redirect(_players_page(text, 1))
    return render(request, "tournaments/players.html", {
        "q": text, "players": rows[:size], "page": size, "number": number,
        "first": (number - 1) * size + 1,
        "previous_url": _players_page(text, number - 1) if number > 1 else "",
        "next_url": _players_page(text, number + 1) if len(rows) > size else "",
        "did_you_mean": did_you_mean(text) if text and not rows else "",
    })  # fmt: skip


def _players_page(text: str, number: int) -> str:
    """The players list's page ``number`` (of the names holding ``text``, if any)."""
    from urllib.parse import urlencode

    query = {"q": text} if text else {}
    if number > 1:
        query["page"] = str(number)
    return reverse("players") + (f"?{urlencode(query)}" if query else "")


def player_profile(request: HttpRequest, name: str) -> HttpResponse:
    """A player's public page: ratings in every pool (with their charts), public games
    played (places, wins), being played and forming, and tournaments entered. Private
    games are not shown, to anyone; a closed account has no page."""
    from django.contrib.auth import get_user_model

    from games.selectors_players import order_record, public_record

    # A player name's characters (sign-up's, or Django's own for an admin-made account):
    # anything else names nobody, and a NUL would be a database error on PostgreSQL.
    player = (
        get_user_model().objects.filter(username=name, is_active=True).first()
        if _PLAYER_NAME_RE.fullmatch(name) else None
    )  # fmt: skip
    if player is None:
        raise Http404("No such player.")
    ratings = selectors.player_ratings(user=player)
    for row in ratings:
        row["chart"] = rating_svg(row["after"], start=row["start"])
    return render(request, "tournaments/player_profile.html", {
        "player": player,
        "ratings": ratings,
        "record": public_record(user=player),
        "orders": order_record(user=player),
        "tournaments": selectors.tournaments_entered(user=player),
        "is_me": request.user.is_authenticated and request.user.pk == player.pk,
    })


@login_required
@require_POST
def register(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = _visible_tournament(request, slug)
    held = _my_registration(tournament, request.user)
    already = held is not None and held.status == Registration.Status.ACTIVE

    def said(registration: Registration) -> str:
        if already:
            return "You are already registered."
        if registration.first_round > 1:  # a late entry (a participant's journey: nothing
            # said when the player would play), as the registration has it
            return (f"You are registered: you play from round {registration.first_round} (the "
                    "rounds before score 0 for you).")
        return "You are registered."

    return _act(request, tournament, lambda: tsvc.registration_add(tournament=tournament, user=request.user),
                said, to="tournaments:detail")


def _my_registration(tournament: Tournament, user: Any) -> Registration | None:
    return Registration.objects.filter(tournament=tournament, user=user).first()


def _not_registered(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    messages.error(request, "You are not registered in this tournament.")
    return redirect("tournaments:detail", slug=tournament.slug)


@login_required
@require_POST
def withdraw(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = _visible_tournament(request, slug)
    reg = _my_registration(tournament, request.user)
    if reg is None:
        return _not_registered(request, tournament)
    return _act(request, tournament, lambda: tsvc.registration_withdraw(registration=reg, by=request.user),
                "You have withdrawn: you will not be paired in the next rounds. A game of yours "
                "already under way goes on; resign it there if you will not finish it.",
                to="tournaments:detail")


def _posted_round(request: HttpRequest) -> int | None:
    """The round number posted as `round` (ASCII digits, at most four), or None."""
    raw = str(request.POST.get("round", "")).strip()
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 4 else None


@login_required
@require_POST
def request_bye(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = _visible_tournament(request, slug)
    reg = _my_registration(tournament, request.user)
    if reg is None:
        return _not_registered(request, tournament)
    number = _posted_round(request)
    if number is None:
        messages.error(request, "Choose the round you will miss.")
        return redirect("tournaments:detail", slug=slug)
    response = _act(request, tournament,
                    lambda: tsvc.bye_request(registration=reg, round_number=number, by=request.user),
                    f"Bye requested for round {number}.", to="tournaments:detail")  # fmt: skip
    reg.refresh_from_db()
    if number in reg.requested_byes:  # granted: say what it does to the round's seating
        warning = selectors.pairing_byes_ahead(tournament=tournament, round_number=number)
        if warning:
            messages.warning(request, warning)
    return response


@login_required
@require_POST
def cancel_bye(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = _visible_tournament(request, slug)
    reg = _my_registration(tournament, request.user)
    if reg is None:
        return _not_registered(request, tournament)
    number = _posted_round(request)
    if number is None:
        messages.error(request, "Choose the round whose bye you take back.")
        return redirect("tournaments:detail", slug=slug)
    return _act(request, tournament,
                lambda: tsvc.bye_cancel(registration=reg, round_number=number, by=request.user),
                f"Bye for round {number} taken back: you will be paired.",
                to="tournaments:detail")  # fmt: skip

