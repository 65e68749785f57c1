"""The game page: the seat's page for a player, the spectator page for anyone else, and
the summary it polls to notice that the game moved on. Everything a player sees comes
from games.selectors. The games list, the new-game form and the rules pages are in
games.views.lobby; the log page and the export download in games.views.log."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified
from django.shortcuts import render
from django.template.loader import select_template
from django.urls import reverse
from django.views.decorators.http import require_safe

from engine.base import events_for
from fivex_site.links import public_reverse
from games import selectors, selectors_invitations
from games.models import Game, Prompt, SealedOrder, Seat
from games.order_presentation import (
    entered_order_text,
    order_pattern,
    order_reading,
    order_word_labels,
)
from games.pickers import hex_picker, hit_picker
from games.presentation import (
    deadline_policy_text,
    draft_note,
    event_text,
    paused_time_left,
    prompt_heading,
    replace_note,
    ruleset_name,
    waiting_note,
)
from games.rules_text import FORCED_NOTES, PHASE_HINTS, REVEALED_AT_END
from games.selectors_talk import talk_new, talk_summary
from games.services import away as away_services
from games.services.game_options import ruleset_get
from games.services.organizer_panel import paused_remaining_seconds
from games.services.seats import seat_reply_address
from games.sql import db_datetime, db_json
from games.templatetags.games_extras import placed
from games.views.common import engine_part, legal_orders_complete, load_visible_game

# Up to this many legal orders are offered as one button each; more go in a select.
BUTTONS_MAX = 12


#: How much of a commitment the poll shows: enough to tell one order from the next.
SEALED_CHARS = 12


def _status(
    status: str, number: Any, pending: Any, deadline: Any, sealed: dict[str, str], seats: int
) -> dict[str, Any]:
    """The poll's answer. ``version`` changes whenever the page would: the game's status,
    the prompt, its deadline, any seat's order (sealed, replaced or withdrawn) or the
    seats (``seats``: a counter that grows with every resignation and every handover:
    one per seat row, one more per row no longer active)."""
    orders = ",".join(f"{name}={sealed[name]}" for name in sorted(sealed))
    digest = hashlib.sha256(orders.encode()).hexdigest()[:12] if orders else "-"
    return {
        "status": status,
        "prompt": number,
        "pending": list(pending) if number is not None else [],
        "deadline": deadline,
        "ordered": sorted(sealed),
        "sealed": dict(sorted(sealed.items())),
        "seats": seats,
        "version": f"{status}:{number}:{len(sealed)}:{deadline}:{digest}:{seats}",
    }


def seat_history(
    *, game: Game, seat_name: str | None, limit: int = 40, final_board: Any = None
) -> list[dict[str, Any]]:
    """The events of the resolved prompts this seat may see (None: public only), newest
    prompt first; built with engine.events_for like every other view. ``final_board``:
    the board of a game that is over (the last prompt's events may name its hexes)."""
    prompts = Prompt.objects.filter(game=game, status=Prompt.Status.RESOLVED).order_by("-number")
    entered = selectors.orders_entered_for(game=game, seat_name=seat_name) if seat_name else {}
    out = []
    for index, prompt in enumerate(prompts[:limit]):
        board = final_board if index == 0 else None  # the newest prompt ended the game
        texts = [
            event_text(ruleset=game.ruleset, text=e.get("text", ""), board=board)
            for e in events_for(prompt.events or [], seat_name)
        ]
        if texts:
            out.append(
                {
                    "number": prompt.number,
                    "round": prompt.round,
                    "phase": prompt.phase,
                    "heading": prompt_heading(ruleset=game.ruleset, prompt=prompt),
                    "events": texts,
                    "entered": _entered_words(entered.get(prompt.number), game.ruleset),
                }
            )
    return out


def _handovers(game: Game, seats: list[Seat], status: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``selectors.seat_handovers`` of the current ``seats``, not asked when the poll's
    seat counter (one per seat row, one more per row not active: ``_status``) says no
    row was left behind (a seat handed over leaves a replaced row): the usual page costs
    no query for it. A handover between the two reads makes the page look older than it
    is (the counter read first), and the poll reloads it."""
    if status.get("seats") == sum(1 if s.status == Seat.Status.ACTIVE else 2 for s in seats):
        return {}
    return selectors.seat_handovers(game=game, current=seats)


def _plays_later(game: Game, view: dict[str, Any]) -> set[str]:
    """The seats the rules make wait for the others' cards this round (public: who
    explored or played Erik last round is on the table)."""
    if game.status != "active":
        return set()
    return {
        name
        for name in view.get("players") or {}
        if waiting_note(ruleset=game.ruleset, view=view, seat_name=name)
    }


def _replace_note(game: Game) -> str:
    """The order panel's line on replacing a sealed order (``replace_note``), from the
    open prompt's ready_at and resolve_after."""
    prompt = selectors.current_prompt(game=game)
    if prompt is None:
        return ""
    return replace_note(ready_at=prompt.ready_at, resolve_after=prompt.resolve_after)


def _order_reading(
    game: Game, seat: Seat, prompt: dict[str, Any] | None, order: Any, legal: list[str]
) -> str:
    """``order_reading`` of the seat's own current order (not shown for an order entered
    for it). The engine's parse is read from the database only when the text is none of
    the legal orders however written (the page's usual case costs no query)."""
    if not order or not prompt or order.get("source") == "forced":
        return ""
    text = str(order.get("text") or "")
    reading = order_reading(text=text, legal_orders=legal)
    if reading or text.strip() in {o.strip() for o in legal}:
        return reading
    parsed = (
        SealedOrder.objects.filter(
            prompt__game=game,
            prompt__number=prompt.get("number"),
            seat_name=seat.name,
            is_current=True,
        )
        .values_list("parsed", flat=True)
        .first()
    )
    return order_reading(text=text, legal_orders=legal, parsed=parsed, ruleset=game.ruleset)


def _entered_words(order: dict[str, str] | None, ruleset: str) -> str:
    """What the seat is told about an order it did not send itself."""
    if order is None:
        return ""
    return entered_order_text(source=order["source"], reason=order["reason"],
                              text=order["text"], ruleset=ruleset)  # fmt: skip


def detail_context(request: HttpRequest, game: Game) -> dict[str, Any]:
    """Everything the game page shows, for this user (a seat or a spectator)."""
    # The polling version is taken first: if the game moves on while the page is being
    # built, the page looks older than it is and reloads once more, never the reverse.
    status = status_payload(game)
    user = request.user if request.user.is_authenticated else None
    seat = selectors.seat_for_user(game=game, user=user) if user else None
    view = selectors.seat_view(seat=seat) if seat else selectors.spectator_view(game=game)
    prompt = view.get("prompt")
    pending = list(prompt.get("pending") or []) if prompt else []
    ordered = set(prompt.get("ready") or []) if prompt else set()
    legal = list(view.get("legal_orders") or []) if seat else []
    seats = selectors.seats(game=game)
    is_organizer = selectors.may_organize(game=game, user=user)
    ruleset_template = select_template(
        [f"games/rulesets/{game.ruleset}.html", "games/rulesets/_generic.html"]
    ).template.name
    engine_view = engine_part(view)  # a game over: face up, nobody asked (selectors.face_up)
    final_result = None
    if game.status in selectors.OVER and game.started_at and not engine_view.get("ranking"):
        # Ended before its rules ended it: the ranking is the site's (a walkover's), and the
        # board shows the position it stopped at.
        resigned = {s.name for s in seats if s.status == Seat.Status.RESIGNED}
        final_result = [
            (place, [(name, name in resigned) for name in group])
            for place, group in placed(game.ranking or [])
        ]
    ctx: dict[str, Any] = {
        "game": game,
        "seat": seat,
        "engine_view": engine_view,
        "final_result": final_result,
        # what a game that is over shows that it hid while it went on
        "revealed_words": REVEALED_AT_END.get(game.ruleset, "") if game.status in selectors.OVER else "",
        "ruleset_template": ruleset_template,
        "prompt": prompt,
        "pending": pending,
        "is_pending": bool(seat and seat.name in pending and seat.status == "active"),
        "ordered": ordered,
        # Seats still to order (a resigned seat's default order counts as in).
        "waiting": [p for p in pending if p not in ordered],
        "over": game.status in selectors.OVER,
        # who ended a game early: its organizer, or a site administrator (the log says)
        "ended_by": selectors.ended_by(game=game) if game.status == Game.Status.ABANDONED else "",
        # ... and who paused it (the order panel says it)
        "paused_by": selectors.acted_by(game=game, kind="game_paused")
        if game.status == Game.Status.PAUSED and seat is not None
        else "",
        # 2: the player's resignation would end the game (the other seat wins).
        "active_seats_left": sum(1 for s in seats if s.status == "active"),
        "my_order": view.get("my_order") if seat else None,
        # May the sealed order still be replaced? Every order in: being resolved (or soon).
        "replace_note": _replace_note(game) if seat and view.get("my_order") else "",
        "legal_orders": legal,
        "legal_as_buttons": 0 < len(legal) <= BUTTONS_MAX,
        # The engine cut the list (4X Dice's hit lists): the rest are typed.
        "legal_truncated": not legal_orders_complete(game.ruleset, legal),
        # Every combination of a few words (4X Dice's ALLOCATE): one choice per word.
        "order_words": _order_words(game, seat, legal, view)
        if len(legal) > BUTTONS_MAX
        else None,
        # 4X Dice's eXterminate: one row of choices per hit, for the acting seat only.
        "hit_picker": hit_picker(
            ruleset=game.ruleset,
            view=engine_part(view),
            seat_name=seat.name,
            current_order=str((view.get("my_order") or {}).get("text") or ""),
        )
        if seat is not None and seat.name in pending and seat.status == "active"
        else None,
        # 6x5's turn: action, colour, then a hex tapped on the board; acting seat only.
        "hex_picker": hex_picker(
            ruleset=game.ruleset,
            view=engine_part(view),
            seat_name=seat.name,
            legal_orders=legal,
            current_order=str((view.get("my_order") or {}).get("text") or ""),
        )
        if seat is not None and seat.name in pending and seat.status == "active"
        else None,
        "history": seat_history(
            game=game, seat_name=seat.name if seat else None,
            final_board=engine_part(view).get("board") if game.status == "finished" else None,
        ),
        "seats": seats,
        # Seats handed to another player: who holds them now, since when.
        "handovers": _handovers(game, seats, status),
        "is_organizer": is_organizer,
        # The tools that change the game (all but the reminders): not an organizer who
        # plays in a tournament's game (the panel says why instead).
        "may_change_game": is_organizer and selectors.may_change_game(game=game, user=user),
        "plays_at_the_table": selectors.PLAYS_AT_THE_TABLE,
        # Seats offered to other players, waiting for their answer (organizer tools).
        "offers": selectors.seat_offers_waiting(game=game) if is_organizer else [],
        # This game's seat offered to the viewer, waiting for their answer (a link to it).
        "offer_to_me": next(iter(selectors.seat_offers_waiting(game=game, user=user)), None)
        if user is not None and seat is None
        else None,
        # The open prompt as the organizer's tools act on it (its extensions so far).
        "organizer_prompt": selectors.current_prompt(game=game) if is_organizer else None,
        # An organizer tool that refused: its form is shown again, open, with the error.
        "organizer_draft": request.session.pop(f"organizer_draft_{game.pk}", None)
        if is_organizer
        else None,
        "status_url": reverse("games:status", args=[game.pk]),
        "status": status,
        "poll_seconds": getattr(settings, "GAMES_PAGE_POLL_SECONDS", 5),
        "order_draft": request.session.pop(f"order_draft_{game.pk}", None),
        # Why the order typed in the text box was refused: shown next to the box too.
        "order_error": request.session.pop(f"order_error_{game.pk}", None),
        # The seat's own order as the server read it, when it was typed another way.
        "order_reading": _order_reading(game, seat, prompt, view.get("my_order"), legal)
        if seat is not None
        else "",
        # What the open prompt asks, in a sentence or two (the draft has its own note).
        "phase_hint": PHASE_HINTS.get((game.ruleset, str((prompt or {}).get("phase"))), ""),
        "forced_note": FORCED_NOTES.get(game.ruleset, ""),
        # 5X's draft: what passing a leader means, with the seat's two neighbours.
        "draft_note": draft_note(
            ruleset=game.ruleset, view=engine_part(view), seat_name=seat.name
        )
        if seat is not None and seat.status == "active"
        else "",
        "can_join": bool(
            user is not None and seat is None and game.status == "forming" and not game.is_private
        ),
        "ruleset_name": ruleset_name(game.ruleset),
        "min_players": ruleset_get(game.ruleset).min_players,
        "max_extensions": getattr(settings, "GAMES_MAX_DEADLINE_EXTENSIONS", 3),
        # Seats that play later in this round (5X's explorers and Erik): public.
        "plays_later": _plays_later(game, engine_part(view)),
        "waiting_note": (
            waiting_note(ruleset=game.ruleset, view=engine_part(view), seat_name=seat.name)
            if seat is not None and seat.status == "active" and game.status == "active"
            else ""
        ),
    }
    remaining = paused_remaining_seconds(game=game, prompt=selectors.current_prompt(game=game)) if (
        game.status == Game.Status.PAUSED
    ) else None
    if remaining is not None:  # what the prompt has when the game resumes
        ctx["paused_left"] = paused_time_left(remaining_seconds=remaining, grace_minutes=game.grace_minutes)
    if prompt and prompt.get("deadline"):
        ctx["deadline_at"] = datetime.fromisoformat(prompt["deadline"])
        ctx["deadline_policy"] = deadline_policy_text(game=game)
        if game.grace_minutes:  # orders are taken this much longer: the countdown says so
            ctx["grace_until"] = ctx["deadline_at"] + timedelta(minutes=game.grace_minutes)
    if seat is not None:
        ctx["reply_address"] = seat_reply_address(seat=seat)
    elif user is not None:  # a seat of this user's handed over to another player
        ctx["replaced_seat"] = selectors.replaced_seat_name(game=game, user=user)
        if ctx["replaced_seat"]:
            ctx["replaced_by"] = selectors.acted_by(
                game=game, kind="seat_replaced", seat=ctx["replaced_seat"], **{"from": str(user)}
            )
    ctx["talk_count"], ctx["talk_last"] = talk_summary(game=game)
    # A signed-in reader's unread messages by others, as read on any device (the browser's
    # own memory says it for a visitor).
    ctx["talk_unread"] = (
        talk_new(user=user, game_ids=[game.pk]).get(game.pk, 0)
        if user is not None and ctx["talk_count"]
        else 0
    )
    # Seats whose player is away: public in a game whose deadlines wait for them; in one
    # that does not, shown to its organizer alone (who may extend a deadline or pause).
    ctx["away"] = (
        away_services.seats_away(seats=seats)
        if (game.away_days or ctx["may_change_game"])
        and game.status in (Game.Status.ACTIVE, Game.Status.PAUSED)
        else {}
    )
    if game.status in selectors.OVER and user is not None:
        ctx.update(_rematch_context(game=game, user=user, seats=seats))
    if ctx["may_change_game"] and game.status == Game.Status.FORMING:
        ctx["invitations"] = selectors_invitations.game_invitations(game=game)
        ctx["invite_draft"] = request.session.pop(f"invite_draft_{game.pk}", "")
    if is_organizer and game.invite_token:
        # The public address, as emails write it (behind a proxy the request's Host and
        # scheme may be internal ones).
        ctx["invite_url"] = public_reverse("games:invite", game.pk, game.invite_token)
    return ctx


def _rematch_context(*, game: Game, user: Any, seats: list[Seat]) -> dict[str, Any]:
    """A game over, for one of its players or its organizer: its rematch (a private game:
    their way in is its invitation link), or whether they may ask for one."""
    from games.services.rematch import rematch_refusal

    involved = user.pk == game.organizer_id or any(
        s.user_id == user.pk and s.status != Seat.Status.REPLACED for s in seats
    )
    if not involved:
        return {}
    rematch, member, taken = selectors.rematch_seen_by(game=game, user=user)
    if rematch is None:
        return {"can_rematch": not rematch_refusal(game=game, user=user)}
    if rematch.status == Game.Status.FORMING:
        state = f"{taken} of {rematch.seats_count} seats taken"
    elif rematch.status in selectors.OVER:
        state = "over"
    else:
        state = "being played"
    # A player whose invitation its organizer took back is given no link to it (its
    # invitation link, renewed or not, would let them in).
    kept_out = not member and selectors_invitations.invitation_taken_back(
        game_id=rematch.pk, user=user
    )
    link = (
        reverse("games:detail", args=[rematch.pk]) if member
        else "" if kept_out
        else reverse("games:invite", args=[rematch.pk, rematch.invite_token])
    )  # fmt: skip
    return {
        "rematch": rematch, "rematch_state": state, "rematch_link": link,
        "rematch_joined": member, "rematch_kept_out": kept_out,
    }  # fmt: skip


@require_safe
def game_detail(request: HttpRequest, game_id: int) -> HttpResponse:
    """The seat's page for a player, the spectator page for anyone else."""
    game = load_visible_game(request, game_id)
    return render(request, "games/game_detail.html", detail_context(request, game))


def status_payload(game: Game) -> dict[str, Any]:
    """The public summary the page polls; ``version`` changes whenever the page would.
    The page renders it from the same query as the poll, so the two always agree."""
    return _status_from_rows(_status_rows(game.pk))


def _status_rows(game_id: int) -> list[tuple[Any, ...]]:
    """One SQL query for the poll: the game's status, its open prompt (newest; none once
    the game is over), the seats holding a current order for it (one row per such seat,
    at least one row) and the seats' counter (``_status``)."""
    game_t, prompt_t, order_t, seat_t = (m._meta.db_table for m in (Game, Prompt, SealedOrder, Seat))
    sql = (
        f"SELECT g.status, p.number, p.pending, p.deadline, o.seat_name, g.is_private,"
        f" o.commitment, (SELECT sum(CASE WHEN s.status = %s THEN 1 ELSE 2 END)"
        f" FROM {seat_t} s WHERE s.game_id = g.id)"
        f" FROM {game_t} g"
        f" LEFT JOIN {prompt_t} p ON p.id = (SELECT p2.id FROM {prompt_t} p2"
        f" WHERE p2.game_id = g.id AND p2.status = %s AND g.status NOT IN (%s, %s)"
        " ORDER BY p2.number DESC LIMIT 1)"
        f" LEFT JOIN {order_t} o ON o.prompt_id = p.id AND o.is_current"
        " WHERE g.id = %s"
    )
    over = [s.value for s in selectors.OVER]
    with connection.cursor() as cursor:
        cursor.execute(sql, [Seat.Status.ACTIVE.value, Prompt.Status.OPEN.value, *over, game_id])
        return cursor.fetchall()


def _status_payload_by_id(request: HttpRequest, game_id: int) -> tuple[dict[str, Any], bool]:
    """status_payload(load_visible_game(request, game_id)) from one query (the poll's
    hot path; a private game takes the visibility check's queries too), and whether the
    game is private."""
    rows = _status_rows(int(game_id))
    if not rows:
        raise Http404("No such game.")
    private = bool(rows[0][5])
    if private:
        load_visible_game(request, game_id)
    return _status_from_rows(rows), private


def _status_from_rows(rows: list[tuple[Any, ...]]) -> dict[str, Any]:
    """The poll's answer from ``_status_rows``."""
    status, number, pending, deadline_at = rows[0][:4]
    sealed = {row[4]: row[6][:SEALED_CHARS] for row in rows if row[4] is not None}
    pending = db_json(pending) if number is not None else []
    deadline_at = db_datetime(deadline_at)  # SQLite hands back the stored text
    deadline = deadline_at.isoformat() if deadline_at else None
    return _status(status, number, pending, deadline, sealed, int(rows[0][7] or 0))


@require_safe
def game_status(request: HttpRequest, game_id: int) -> HttpResponse:
    """A tiny public summary the page polls to notice that the prompt moved on. Answers
    304 Not Modified when the poller's If-None-Match holds the current ETag."""
    payload, private = _status_payload_by_id(request, game_id)
    body = json.dumps(payload).encode()
    etag = f'"{hashlib.sha256(body).hexdigest()[:20]}"'
    if etag in request.headers.get("If-None-Match", ""):
        response: HttpResponse = HttpResponseNotModified()
    else:
        response = HttpResponse(body, content_type="application/json")
    response["ETag"] = etag
    # A private game's summary is for its players only: no shared cache may keep it.
    response["Cache-Control"] = "private, no-cache" if private else "no-cache"
    return response


def _order_words(
    game: Game, seat: Any, legal: list[str], view: dict[str, Any]
) -> dict[str, Any] | None:
    """The form's word-by-word choice when the legal orders are every combination of a
    few words: the verb and, per word, what it stands for and its choices, the current
    order's preselected."""
    pattern = order_pattern(legal)
    if pattern is None or seat is None:
        return None
    verb, slots = pattern
    words = str((view.get("my_order") or {}).get("text") or "").upper().split()
    chosen = words[1:] if len(words) == len(slots) + 1 and words[0] == verb.upper() else []
    labels = order_word_labels(game.ruleset, engine_part(view), seat.name, verb, len(slots))
    return {
        "verb": verb,
        "slots": [
            {"label": label, "choices": slot, "chosen": chosen[i] if chosen else slot[0]}
            for i, (slot, label) in enumerate(zip(slots, labels, strict=True))
        ],
    }
