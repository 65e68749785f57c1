"""Tournament pages: public lists, standings, pairings and player histories, and the
organizer's panel. Views are thin: parse, call one service, render or redirect."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django import forms as django_forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from fivex_site.converters import row_id
from games import selectors_lists
from games.errors import ApplicationError
from games.selectors_players import (
    NAME_NOT_ADDRESS,
    did_you_mean,
    player_by_name_or_email,
    time_zone_of,
)
from tournaments import selectors
from tournaments.charts import rating_svg
from tournaments.forms import TournamentForm, parse_ranking, parse_tables
from tournaments.models import Registration, Round, Table, Tournament
from tournaments.services import notices, results, rounds
from tournaments.services import tournaments as tsvc
from tournaments.services.common import is_league_administrator
from tournaments.standings import TIEBREAK_HELP, TIEBREAK_NAMES

log = logging.getLogger(__name__)


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
        try:
            tournament = tsvc.tournament_create(
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
                forbidden_pairs=data["forbidden_pairs"],
            )
        except ApplicationError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, "Tournament created. Open it for registration when ready.")
            return redirect("tournaments:manage", slug=tournament.slug)
    return render(request, "tournaments/create.html", {"form": form})


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
        "tiebreak_names": [TIEBREAK_NAMES[n] for n in tournament.tiebreaks],
        "tiebreak_keys": tournament.tiebreaks,
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
    from games.presentation import and_list

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


# --- the organizer's panel -------------------------------------------------------


@login_required
def manage(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = _tournament(slug)
    if not selectors.tournament_visible(tournament=tournament, user=request.user):
        raise Http404("No such tournament.")  # a draft: not there for a stranger
    if not _is_organizer(request, tournament):
        messages.error(request, "Only the tournament's organizer can manage it.")
        return redirect("tournaments:detail", slug=slug)
    all_rounds = list(tournament.rounds.order_by("number").defer(*selectors.PAIRING_DATA))
    latest = all_rounds[-1] if all_rounds else None
    # ?round=N shows an earlier round's tables, to correct a result there.
    wanted = request.GET.get("round", "")
    number = int(wanted) if wanted.isascii() and wanted.isdecimal() and len(wanted) < 4 else None
    current = next((r for r in all_rounds if r.number == number), latest)
    regs = {r.pk: r for r in tournament.registrations.select_related("user")}
    tables = []
    byes = []
    if current is not None:
        current_tables = list(current.tables.select_related("game").order_by("number"))
        now = selectors_lists.open_prompts_waiting(game_ids=[t.game_id for t in current_tables])
        for table in current_tables:
            result = (
                " > ".join(
                    " = ".join(str(regs[p].user) if p in regs else f"#{p}" for p in group)
                    for group in table.ranking
                )
                if table.ranking
                else ""
            )
            tables.append(
                {"table": table, "players": [regs[p] for p in table.players], "result": result,
                 **now.get(table.game_id, {"prompt": None, "waiting": []})}
            )
        byes = list(current.byes.select_related("registration__user"))
    # Players who withdrew after this round was paired (by the organizer or themselves):
    # said on the panel, not only when Start refuses (an organizer's journey).
    gone = []
    if current is not None and current.status == Round.Status.PAIRED:
        seated = [p for row in tables for p in row["players"]] + [b.registration for b in byes]
        gone = [str(r.user) for r in seated if r.status != Registration.Status.ACTIVE]
    return render(request, "tournaments/manage.html", {
        "gone": gone,
        "t": tournament,
        "registrations": tournament.registrations.select_related("user"),
        "current": current,
        "latest": latest,
        # The pairing the Start button starts (refused if it changed meanwhile).
        "latest_pairing": rounds.pairing_digest(rnd=latest)
        if latest is not None and latest.status == Round.Status.PAIRED
        else "",
        "all_rounds": all_rounds,
        "tables": tables,
        "any_waiting": any(row["waiting"] for row in tables),
        "any_playing": any(
            row["table"].game is not None and row["table"].game.status in ("active", "paused")
            for row in tables
        ),
        "byes": byes,
        "log": tournament.log.select_related("actor").order_by("-seq")[:30],
        # What a refused form held, shown again in that form.
        "draft": _take_draft(request, tournament),
        # Entering other players is a league administrator's right: the form is shown
        # only to those who may use it, and only while it can succeed.
        "forbidden_pairs": selectors.forbidden_pair_names(tournament=tournament),
        "may_register_others": is_league_administrator(request.user)
        and tournament.status != Tournament.Status.CLOSED,
    })


@login_required
@require_POST
def manage_action(request: HttpRequest, slug: str, action: str) -> HttpResponse:
    tournament = _tournament(slug)
    if not selectors.tournament_visible(tournament=tournament, user=request.user):
        raise Http404("No such tournament.")  # a draft: not there for a stranger
    if not _is_organizer(request, tournament):
        # Before reading anything posted: a stranger learns nothing (not even whether an
        # email address has an account).
        messages.error(request, "Only the tournament's organizer can manage it.")
        return redirect("tournaments:detail", slug=slug)
    user = request.user
    post = request.POST
    current = tournament.rounds.order_by("-number").first()
    if action == "open":
        return _act(request, tournament, lambda: tsvc.tournament_open(tournament=tournament, by=user),
                    "Registration is open.")
    if action == "register":
        who = (post.get("user") or "").replace("\x00", "").strip()
        # Registering others is for league administrators (staff): by name or address.
        # Anyone else (refused by the service below) learns nothing of who has an account
        # by address: the lookup does not take one from them.
        admin = is_league_administrator(user)
        target = player_by_name_or_email(text=who, emails=admin)
        if target is None:
            said = NAME_NOT_ADDRESS if "@" in who and not admin else f"No user {who!r}.{did_you_mean(who)}"
            messages.error(request, said)
            _keep_draft(request, tournament, {"form": "register", "user": who, "error": said})
            return redirect("tournaments:manage", slug=slug)
        return _act(request, tournament, lambda: tsvc.registration_add(tournament=tournament, user=target, by=user),
                    f"{target} is registered.", keep={"form": "register", "user": who})
    if action == "withdraw":
        def do() -> None:
            reg = tsvc.registration_get(tournament=tournament, registration_id=post.get("registration"))
            tsvc.registration_withdraw(registration=reg, by=user)
        return _act(request, tournament, do, "Registration withdrawn.")
    if action == "pair":
        return _act(request, tournament, lambda: rounds.round_pair(tournament=tournament, by=user),
                    "The next round is paired. Check it, then start it.")
    if action == "repair":
        if current is None:
            messages.error(request, "No round to re-pair.")
            return redirect("tournaments:manage", slug=slug)
        return _act(request, tournament, lambda: rounds.round_repair(rnd=current, by=user), "Round re-paired.")
    if action == "start":
        if current is None:
            messages.error(request, "Pair a round first.")
            return redirect("tournaments:manage", slug=slug)
        seen = str(post.get("pairing") or "")[:64] or None
        return _act(request, tournament,
                    lambda: rounds.round_start(rnd=current, by=user, pairing_seen=seen),
                    "The round's games have started.")  # fmt: skip
    if action == "remind":
        if current is None:
            messages.error(request, "No round is being played.")
            return redirect("tournaments:manage", slug=slug)
        try:
            done = rounds.round_remind(rnd=current, by=user)
        except ApplicationError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, f"Reminder sent to {done['players']} player"
                             f"{'s' if done['players'] != 1 else ''} at {done['tables']} table"
                             f"{'s' if done['tables'] != 1 else ''}.")  # fmt: skip
            if done["failed"]:
                messages.warning(request, "Not reminded: " + "; ".join(done["failed"]) + ".")
        return redirect("tournaments:manage", slug=slug)
    if action == "extend":
        if current is None or current.status != Round.Status.STARTED:
            messages.error(request, "No round is being played.")
            return redirect("tournaments:manage", slug=slug)
        # Whole hours, as a game's own extension takes them (both inputs step by an hour).
        raw = str(post.get("hours") or "").strip()
        hours = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 3 else 0
        if not 1 <= hours <= 168:
            messages.error(request, "Give the hours to add: a whole number from 1 to 168. Nothing was extended.")
            return redirect("tournaments:manage", slug=slug)
        try:
            done = rounds.round_extend(rnd=current, by=user, hours=hours,
                                       reason=(post.get("reason") or "").replace("\x00", "")[:200])  # fmt: skip
        except ApplicationError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, f"Deadline extended by {hours:g} hours at {done['tables']} table"
                             f"{'s' if done['tables'] != 1 else ''}; their players are told.")  # fmt: skip
            if done["failed"]:
                messages.warning(request, "Not extended: " + "; ".join(done["failed"]) + ".")
        return redirect("tournaments:manage", slug=slug)
    if action == "pair_by_hand":
        names = {
            r.user.username: r.pk for r in tournament.registrations.select_related("user")
            if r.status == Registration.Status.ACTIVE
        }

        def do() -> None:
            # Whether a round can be paired now first: a round being played made the
            # names typed the only refusal said.
            rounds.round_by_hand_number(tournament=tournament)
            tables, byes = parse_tables(post.get("tables", ""), names)
            rnd, warnings = rounds.round_pair_by_hand(
                tournament=tournament, tables=tables, byes=byes, by=user, force=bool(post.get("force"))
            )
            if rnd is None:  # saved, the round shows its warnings itself (they showed twice)
                for w in warnings:
                    messages.warning(request, w)
                raise ApplicationError("Not saved: confirm the warnings to pair this way anyway.")
        return _act(request, tournament, do, "Round paired by hand.",
                    keep={"form": "pair_by_hand", "tables": post.get("tables", "")})
    if action == "result":
        def do() -> None:
            table_id = row_id(post.get("table", ""))
            if not table_id:
                raise ApplicationError("Choose a table of this tournament.")
            table = Table.objects.filter(pk=table_id, round__tournament=tournament).first()
            if table is None:
                raise ApplicationError("Choose a table of this tournament.")
            regs = {r.user.username: r.pk for r in tournament.registrations.select_related("user")
                    if r.pk in table.players}
            ranking = parse_ranking(post.get("ranking", ""), regs)
            results.result_enter(table=table, ranking=ranking, by=user, reason=post.get("reason", ""),
                                 rated=not post.get("forfeit"))
        shown = post.get("round", "")
        shown_ok = shown.isascii() and shown.isdecimal() and len(shown) < 4
        return _act(request, tournament, do, "Result recorded.",
                    query=f"round={int(shown)}" if shown_ok else "",
                    keep={"form": "result", "table": post.get("table", ""),
                          "ranking": post.get("ranking", ""), "reason": post.get("reason", "")})
    if action == "close":
        if not post.get("confirm"):
            messages.error(request, "Tick the box to confirm: a closed tournament cannot be reopened.")
            return redirect("tournaments:manage", slug=slug)
        return _act(request, tournament, lambda: tsvc.tournament_close(tournament=tournament, by=user),
                    "The tournament is closed.")
    messages.error(request, "Unknown action.")
    return redirect("tournaments:manage", slug=slug)
