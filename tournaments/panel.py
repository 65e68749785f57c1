"""A tournament's organizer's panel: the page (registrations, the round on show with its
tables and who is still to order, byes, the log, forms shown again with what a refused
one held) and its actions (open, rename, delete a draft, register a player, withdraw, pair, re-pair, start,
remind, extend, pair by hand, enter a result, close), each one service call. The
helpers it shares with the public pages are in tournaments.views."""

from __future__ import annotations

import hashlib
import re
import secrets

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from fivex_site.converters import row_id
from games import selectors_lists
from games.errors import ApplicationError
from games.presentation import decision_words, hours_length
from games.selectors_players import (
    NAME_NOT_ADDRESS,
    did_you_mean,
    order_records,
    player_by_name_or_email,
)
from tournaments import selectors
from tournaments.forms import parse_ranking, parse_tables, register_limit, tables_limit
from tournaments.models import Registration, Round, Table, Tournament
from tournaments.services import results, rounds
from tournaments.services import tournaments as tsvc
from tournaments.services.common import is_league_administrator
from tournaments.text import name_shown
from tournaments.views import _act, _is_organizer, _keep_draft, _take_draft, _tournament


def _log_shown(tournament: Tournament) -> list:
    """The panel's audit log, newest first: a pairing's entry carries its input as the
    pairing command reads it (``pairing_input``: JSON, for ``python -m tournaments.pairing``
    to check the round; the tournaments audit: the README promised it in the log and the
    panel showed only "Round paired")."""
    import json

    entries = list(tournament.log.select_related("actor").order_by("-seq")[:30])
    for entry in entries:
        if entry.kind == "round_paired" and isinstance(entry.payload.get("input"), dict):
            entry.pairing_input = json.dumps(entry.payload["input"], indent=1, ensure_ascii=False)
    return entries


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
                 "nobody_played": table.scoreless,
                 **now.get(table.game_id, {"prompt": None, "waiting": []})}
            )
        byes = list(current.byes.select_related("registration__user"))
    # Players who withdrew after this round was paired (by the organizer or themselves):
    # said on the panel, not only when Start refuses (an organizer's journey).
    gone = []
    if current is not None and current.status == Round.Status.PAIRED:
        seated = [p for row in tables for p in row["players"]] + [b.registration for b in byes]
        gone = [str(r.user) for r in seated if r.status != Registration.Status.ACTIVE]
    # A result of an earlier round entered or corrected since the latest round was paired
    # (automatically): Start would be refused; said here first (h3's review).
    stale = (
        latest is not None and latest.status == Round.Status.PAIRED and not latest.paired_by_hand
        and rounds.results_changed_since_pairing(tournament=tournament, rnd=latest)
    )  # fmt: skip
    # How each player kept this tournament's deadlines (to withdraw a no-show in time).
    kept = order_records(game_ids=Table.objects.filter(round__tournament=tournament).values("game_id"))
    registrations = list(tournament.registrations.select_related("user"))
    for registration in registrations:
        registration.deadlines = kept.get(registration.user_id)
    # What a round being played waits for, where "Pair next round" will be: a table whose
    # game the organizer ended early waits for its result, said nowhere else.
    waits_for = (
        selectors.round_waits_for(rnd=latest)
        if latest is not None and latest.status == Round.Status.STARTED else ""
    )
    return render(request, "tournaments/manage.html", {
        "gone": gone,
        "stale": stale,
        "waits_for": waits_for,
        "t": tournament,
        "registrations": registrations,
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
        # The extend form's own key: sent twice (a second tap), it extends once.
        "extend_key": secrets.token_hex(16),
        "log": _log_shown(tournament),
        # What a refused form held, shown again in that form.
        "draft": _take_draft(request, tournament),
        # Entering other players is a league administrator's right: the form is shown
        # only to those who may use it, and only while it can succeed.
        "forbidden_pairs": selectors.forbidden_pair_names(tournament=tournament),
        # The pairing by hand's bound (the form refuses longer text).
        "tables_limit": tables_limit(players=sum(
            1 for r in regs.values() if r.status == Registration.Status.ACTIVE)),
        # The "register a player" field's bound (a name or address; longer is not kept).
        "register_limit": register_limit(),
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
    if action == "rename":
        name = (post.get("name") or "").replace("\x00", "")[:1000]
        return _act(request, tournament,
                    lambda: tsvc.tournament_rename(tournament=tournament, by=user, name=name),
                    lambda t: f"Renamed: {t.name}.")  # fmt: skip
    if action == "delete":
        if not post.get("confirm"):
            messages.error(request, "Tick the box to confirm: a deleted draft is gone, its log with it.")
            return redirect("tournaments:manage", slug=slug)
        try:
            name = tsvc.tournament_delete(tournament=tournament, by=user)
        except ApplicationError as exc:
            messages.error(request, exc.message)
            return redirect("tournaments:manage", slug=slug)
        messages.success(request, f"The draft {name} was deleted.")
        return redirect("tournaments:list")
    if action == "register":
        who = (post.get("user") or "").replace("\x00", "").strip()
        # Registering others is for league administrators (staff): by name or address.
        # Anyone else (refused by the service below) learns nothing of who has an account
        # by address: the lookup does not take one from them.
        admin = is_league_administrator(user)
        target = player_by_name_or_email(text=who, emails=admin)
        # Text longer than any name or address is none to mend: the field is not refilled
        # with it, as pairing by hand's is not.
        kept = who if len(who) <= register_limit() else ""
        if target is None:
            if not who:  # an empty field sent past the browser's own check
                said = "Name the player to register: a player name (or an address)." if admin else (
                    "Name the player to register: a player name.")
            elif "@" in who and not admin:
                said = NAME_NOT_ADDRESS
            else:
                said = f"No user {name_shown(who)}.{did_you_mean(who)}"
            messages.error(request, said)
            _keep_draft(request, tournament, {"form": "register", "user": kept, "error": said})
            return redirect("tournaments:manage", slug=slug)
        def registered(reg: Registration) -> str:
            if reg.first_round == 1:
                return f"{target} is registered."
            # A late entry: a round paired already (even not started) is played without
            # them; the organizer expected them at its tables (h3's walk).
            return (f"{target} is registered, a late entry: {target} plays from round "
                    f"{reg.first_round}, round {reg.first_round - 1} being paired already "
                    "(the rounds before score 0).")

        return _act(request, tournament, lambda: tsvc.registration_add(tournament=tournament, user=target, by=user),
                    registered, keep={"form": "register", "user": kept})
    if action == "withdraw":
        def do() -> Registration:
            reg = tsvc.registration_get(tournament=tournament, registration_id=post.get("registration"))
            return tsvc.registration_withdraw(registration=reg, by=user)

        def withdrawn(reg: Registration) -> str:
            # What is left to see to (an organizer's journey: "Registration withdrawn."
            # said nothing of the game the player was in the middle of).
            name = str(reg.user)
            left = selectors.withdrawal_consequences(registration=reg)
            said = [f"{name} is withdrawn: not paired in the rounds to come."]
            for number, table in left["games"]:
                said.append(f"Their game in round {number} (table {table}) goes on and its result "
                            "counts: at each deadline they miss, their default order is played.")
            if left["paired"]:
                said.append(f"Round {left['paired']} was paired with them: re-pair it before starting it.")
            return " ".join(said)

        return _act(request, tournament, do, withdrawn)
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
        try:
            rounds.round_start(rnd=current, by=user, pairing_seen=seen)
        except ApplicationError as exc:
            # A player withdrew since the page was shown: the panel's warning now says
            # who and offers Re-pair; the refusal says only what happened (it repeated
            # the warning in other words).
            gone = exc.code == rounds.WITHDRAWN_SINCE_PAIRING
            messages.error(request, f"Round {current.number} was not started." if gone else exc.message)
        else:
            messages.success(request, "The round's games have started.")
        return redirect("tournaments:manage", slug=slug)
    if action == "remind":
        if current is None:
            messages.error(request, "No round is being played.")
            return redirect("tournaments:manage", slug=slug)
        try:
            done = rounds.round_remind(rnd=current, by=user)
        except ApplicationError as exc:
            messages.error(request, decision_words(exc.message))  # the API's word is "prompt"
        else:
            messages.success(request, f"Reminder sent to {done['players']} player"
                             f"{'s' if done['players'] != 1 else ''} at {done['tables']} table"
                             f"{'s' if done['tables'] != 1 else ''}.")  # fmt: skip
            if done["failed"]:
                messages.warning(request, decision_words("Not reminded: " + "; ".join(done["failed"]) + "."))
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
        reason = (post.get("reason") or "").replace("\x00", "")[:200]
        # The form's key with what it asked: the same form sent again is a retry, the
        # form edited after Back (other hours, another reason) another extension.
        form_key = str(post.get("key") or "")
        key = f"web:{form_key}:{hashlib.sha256(repr((hours, reason)).encode()).hexdigest()[:16]}" if (
            re.fullmatch(r"[0-9a-f]{32}", form_key)) else ""  # fmt: skip
        try:
            done = rounds.round_extend(rnd=current, by=user, hours=hours, reason=reason, key=key)
        except ApplicationError as exc:
            messages.error(request, exc.message)
        else:
            if done["replayed"]:
                messages.info(request, "This form extended the deadlines already: nothing more was changed.")
                return redirect("tournaments:manage", slug=slug)
            messages.success(request, f"Deadline extended by {hours_length(hours)} at {done['tables']} table"
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
        typed = post.get("tables", "")
        # Text past the bound is no pairing to fix: the panel does not keep it.
        kept = typed if len(typed) <= tables_limit(players=len(names)) else ""
        return _act(request, tournament, do, "Round paired by hand.",
                    keep={"form": "pair_by_hand", "tables": kept})
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
            scoreless = bool(post.get("nobody_played"))
            if scoreless and post.get("forfeit"):
                raise ApplicationError(
                    "Tick one of \"not played (a forfeit)\" and \"nobody played (a double "
                    "forfeit)\": a forfeit has a winner, a double forfeit none."
                )
            typed = post.get("ranking", "")
            ranking = [] if scoreless and not typed.strip() else parse_ranking(typed, regs)
            table = results.result_enter(table=table, ranking=ranking, by=user, reason=post.get("reason", ""),
                                         rated=not post.get("forfeit"), scoreless=scoreless)
            return table, {pk: name for name, pk in regs.items()}

        def recorded(done: tuple[Table, dict[int, str]]) -> str:
            # The result as recorded, how it counts too: a row comes ticked as its result
            # stands ("nobody played"), and a winner typed over it stayed a double forfeit
            # under a bare "Result recorded." (an organizer's journey).
            table, names = done
            text = " > ".join(" = ".join(names.get(p, "?") for p in group) for group in table.ranking or [])
            if table.scoreless:
                note = "nobody played: no points, not rated"
                text = f"{text} ({note})" if text else note
            elif not table.rated:
                text += " (a forfeit, not rated)"
            return f"Result recorded for table {table.number} of round {table.round.number}: {text}."

        shown = post.get("round", "")
        shown_ok = shown.isascii() and shown.isdecimal() and len(shown) < 4
        return _act(request, tournament, do, recorded,
                    query=f"round={int(shown)}" if shown_ok else "",
                    keep={"form": "result", "table": post.get("table", ""),
                          "ranking": post.get("ranking", ""), "reason": post.get("reason", ""),
                          "nobody_played": "1" if post.get("nobody_played") else ""})
    if action == "close":
        if not post.get("confirm"):
            messages.error(request, "Tick the box to confirm: a closed tournament cannot be reopened.")
            return redirect("tournaments:manage", slug=slug)
        return _act(request, tournament, lambda: tsvc.tournament_close(tournament=tournament, by=user),
                    lambda t: "The tournament was already closed: nothing changed." if not t.just_closed
                    else "The tournament is closed." + (
                        f" Round {t.dropped_round}, paired but never started, was dropped."
                        if t.dropped_round else ""))
    messages.error(request, "Unknown action.")
    return redirect("tournaments:manage", slug=slug)
