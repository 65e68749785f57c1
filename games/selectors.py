"""Reads of one game: finding it and who may see it, its seats and their handovers, its
open prompt and state, and the per-seat and spectator views its page, the API and the
emails show. Everything shown to a player is built from the engine's per-seat view and
``events_for``; sealed orders of other seats never appear here before the game is over
(their commitments do). The lists of games are read in games.selectors_lists, the log
and export in games.selectors_log, players (names, time zones) in games.selectors_players."""

from __future__ import annotations

import functools
import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q, Subquery

from engine.base import events_for
from fivex_site.links import public_url
from games.errors import NotFound
from games.models import Game, LogEntry, Prompt, SealedOrder, Seat, SeatOffer, StateSnapshot

OVER = (Game.Status.FINISHED, Game.Status.ABANDONED)


def orders_entered_for(*, game: Game, seat_name: str) -> dict[int, dict[str, str]]:
    """The seat's orders that it did not send itself, by prompt number: ``source``
    (``default`` or ``forced``), ``text`` (the seat's own order: show it to that seat
    only) and, for a default order, ``reason`` (deadline, resigned, refused)."""
    out = {
        number: {"source": source, "text": text, "reason": ""}
        for number, source, text in SealedOrder.objects.filter(
            prompt__game=game,
            seat_name=seat_name,
            is_current=True,
            source__in=[SealedOrder.Source.DEFAULT, SealedOrder.Source.FORCED],
        ).values_list("prompt__number", "source", "text")
    }
    if any(o["source"] == SealedOrder.Source.DEFAULT for o in out.values()):
        for payload in LogEntry.objects.filter(
            game=game, kind="nmr_applied", payload__seat=seat_name
        ).order_by("seq").values_list("payload", flat=True):
            entry = out.get(payload.get("prompt"))
            if entry is not None:
                entry["reason"] = str(payload.get("reason") or "")
    return out


def acted_by(*, game: Game, kind: str, **payload_match: Any) -> str:
    """Who did the game's latest organizer action ``kind`` (its log entry whose payload
    has ``payload_match``), as its page says it and the emails do: "the organizer", or "a
    site administrator (name)" when the entry says staff did (entries before the log
    named who acted: the organizer)."""
    filters = {f"payload__{key}": value for key, value in payload_match.items()}
    entry = LogEntry.objects.filter(game=game, kind=kind, **filters).order_by("-seq").first()
    payload = (entry.payload if entry else None) or {}
    if payload.get("as") == "staff" and payload.get("by"):
        return f"a site administrator ({payload['by']})"
    return "the organizer"


def ended_by(*, game: Game) -> str:
    """Who ended the game early, as its page says it (``acted_by``)."""
    return acted_by(game=game, kind="game_ended")


def game_get(*, game_id: Any) -> Game:
    """The game with this id; raises NotFound."""
    try:
        return Game.objects.get(pk=int(game_id))
    except (Game.DoesNotExist, TypeError, ValueError):
        raise NotFound("No such game.") from None


def game_get_by_public_id(*, public_id: str) -> Game:
    """The game with this public slug; raises NotFound."""
    game = Game.objects.filter(public_id=public_id).first()
    if game is None:
        raise NotFound("No such game.")
    return game


def seat_for_user(*, game: Game, user: Any) -> Seat | None:
    """The user's (non-replaced) seat in the game, or None."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    seat = Seat.objects.filter(game=game, user=user).exclude(status=Seat.Status.REPLACED).first()
    if seat is not None:
        seat.game = game  # already loaded: spare seat_view a query
    return seat


def replaced_seat_name(*, game: Game, user: Any) -> str | None:
    """The name of the user's seat in the game that the organizer handed to another
    player, or None."""
    return (
        Seat.objects.filter(game=game, user=user, status=Seat.Status.REPLACED)
        .values_list("name", flat=True)
        .first()
    )


NO_SEAT = "You do not hold a seat in this game."


def no_seat_reason(*, game_id: int, user: Any) -> str:
    """Why ``user`` may not order in the game: their seat was handed over to another
    player (when and by whom, as the log says; they may still watch as a spectator), or
    they never held one (``NO_SEAT``)."""
    if user is None or getattr(user, "pk", None) is None:
        return NO_SEAT
    name = (
        Seat.objects.filter(game_id=game_id, user=user, status=Seat.Status.REPLACED)
        .order_by("-id")
        .values_list("name", flat=True)
        .first()
    )
    if name is None:
        return NO_SEAT
    from games.presentation import local_time

    entry = (
        LogEntry.objects.filter(
            game_id=game_id, kind="seat_replaced", payload__seat=name, payload__from=str(user)
        )
        .order_by("-seq")
        .first()
    )
    when = f" on {local_time(entry.created_at)}" if entry is not None else ""
    who = ""
    if entry is not None:
        payload = entry.payload or {}
        staff = payload.get("as") == "staff" and payload.get("by")
        who = f" by a site administrator ({payload['by']})" if staff else " by the organizer"
    return (
        f"Your seat {name} was handed over to another player{when}{who}: you no longer play "
        "in this game, and nothing was stored. You may still follow it as a spectator on its page."
    )


def seat_offers_waiting(*, game: Game | None = None, user: Any = None) -> list[SeatOffer]:
    """Offers of a seat still waiting for an answer, in a game in progress, whose seat
    nobody took meanwhile: a game's (for its organizer) or a player's (offered to them)."""
    if game is not None:
        # Read on every game page, where there is almost never an offer: a plain look
        # first (the full query's joins and subquery cost ~10x its time to build).
        waiting = SeatOffer.objects.filter(game=game, status=SeatOffer.Status.PENDING)
        if not (waiting.filter(to_user=user) if user is not None else waiting).exists():
            return []
    offers = SeatOffer.objects.filter(
        status=SeatOffer.Status.PENDING,
        game__status__in=(Game.Status.ACTIVE, Game.Status.PAUSED),
    ).exclude(seat__status=Seat.Status.REPLACED)
    if game is not None:
        offers = offers.filter(game=game)
    if user is not None:
        # Not one made by an organizer who plays in this tournament's game (before the
        # tool was taken from them, ``may_change_game``): it can no longer be accepted.
        maker_seated = Seat.objects.filter(game=OuterRef("game"), user=OuterRef("by"))
        offers = offers.filter(to_user=user).exclude(
            Q(by__is_staff=False)
            & ~(Q(game__part_of_path="") & Q(game__part_of_label=""))
            & Exists(maker_seated)
        )
    return list(offers.select_related("game", "seat", "to_user", "by").order_by("created_at", "id"))


def may_organize(*, game: Game, user: Any) -> bool:
    """Whether ``user`` may use the game's organizer tools: its organizer, or staff (site
    administrators stand in for any organizer)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return game.organizer_id == user.pk or bool(getattr(user, "is_staff", False))


#: Why an organizer who plays in a tournament's game may not use the tools that change it
#: (``may_change_game``): the services' refusal, the panel's note, the API's ``refused``.
PLAYS_AT_THE_TABLE = (
    "You play in this game: a tournament's games are managed by its site administrators, "
    "not by a player at the table."
)


def plays_at_the_table(*, game: Game, user: Any) -> bool:
    """Whether ``user``, not staff, holds or held a seat (any status) in ``game`` and the
    game is part of a tournament: its own ``part_of`` columns say so (the round that made
    it sets them; the games room reads nothing of the tournaments' tables)."""
    if user is None or not getattr(user, "is_authenticated", False) or user.is_staff:
        return False
    if not (game.part_of_path or game.part_of_label):
        return False
    return Seat.objects.filter(game=game, user=user).exists()


def may_change_game(*, game: Game, user: Any) -> bool:
    """Whether ``user`` may use the organizer tools that change ``game`` (extend, pause,
    resume, end, privacy, seat offers and handovers, withdrawing offers): whoever
    ``may_organize``, except an organizer who plays in a tournament's game
    (``plays_at_the_table``; a security review: the tournament's organizer, made the
    organizer of every table, extended their own deadline and offered an opponent's seat
    to an accomplice). Staff keep every tool; in a casual game the players chose to join
    the organizer's game, and its seated organizer keeps them too. Reminders only need
    ``may_organize``."""
    return may_organize(game=game, user=user) and not plays_at_the_table(game=game, user=user)


def game_visible(*, game: Game, user: Any) -> bool:
    """Whether ``user`` may watch ``game``. Any game that is not private; a private game
    only by its organizer, anyone who holds or held a seat in it, and staff. Everyone
    else is told there is no such game (private games are unlisted; ids are sequential)."""
    if not game.is_private:
        return True
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    if game.organizer_id == user.pk or user.is_staff:
        return True
    return Seat.objects.filter(game=game, user=user).exists()


def invite_valid(*, game: Game, token: Any) -> bool:
    """Whether ``token`` is the game's invitation token."""
    return (
        isinstance(token, str)
        and bool(game.invite_token)
        and secrets.compare_digest(token.encode(), str(game.invite_token).encode())
    )


def game_for_joining(*, game_id: Any, user: Any, token: Any) -> Game:
    """The game if ``user`` may watch it or holds its invitation token; NotFound
    otherwise (the same answer as for an unknown id)."""
    game = game_get(game_id=game_id)
    if not game_visible(game=game, user=user) and not invite_valid(game=game, token=token):
        raise NotFound("No such game.")
    return game


def game_for_viewer(*, game_id: Any, user: Any) -> Game:
    """The game if ``user`` may watch it (``game_visible``); raises NotFound otherwise."""
    game = game_get(game_id=game_id)
    if not game_visible(game=game, user=user):
        raise NotFound("No such game.")
    return game


def game_and_seat_for_user(*, game_id: Any, user: Any) -> tuple[Game, Seat | None]:
    """The game and the user's (non-replaced) seat in it, in one query when the user
    holds a seat (the API's hot path). Raises NotFound for an unknown game, or a private
    one the user may not watch."""
    if user is not None and getattr(user, "is_authenticated", False):
        try:
            pk = int(game_id)
        except (TypeError, ValueError):
            raise NotFound("No such game.") from None
        seat = (
            Seat.objects.select_related("game")
            .filter(game_id=pk, user=user)
            .exclude(status=Seat.Status.REPLACED)
            .first()
        )
        if seat is not None:
            return seat.game, seat
    return game_for_viewer(game_id=game_id, user=user), None


def seats(*, game: Game) -> list[Seat]:
    """The game's current seats (replaced ones left out), in seating order."""
    return list(
        Seat.objects.filter(game=game)
        .exclude(status=Seat.Status.REPLACED)
        .select_related("user")
        .order_by("position", "joined_at", "id")
    )


def seat_handovers(*, game: Game, current: list[Seat]) -> dict[str, dict[str, Any]]:
    """The seats (of ``current``, the game's current seats) that were handed to another
    player: seat name -> ``{"holder": username now, "previous": the username it was
    handed over from, "since_prompt": the prompt open when it was handed over (None
    before the first)}``. Seat names stay as they are (they are in the engine and the
    log); this says who holds them now. One query, however many seats were handed over
    (it is read on every game page)."""
    if not current:
        return {}
    username = f"user__{get_user_model().USERNAME_FIELD}"
    # Per current seat: the player of the last replaced seat of that name (none: never
    # handed over) and the last prompt opened by the time it was handed over.
    previous = (
        Seat.objects.filter(game=game, status=Seat.Status.REPLACED, name=OuterRef("name"))
        .order_by("-joined_at", "-id")
        .values(username)[:1]
    )
    since = (
        Prompt.objects.filter(game=game, opened_at__lte=OuterRef("joined_at"))
        .order_by("-number")
        .values("number")[:1]
    )
    found = {
        pk: (before, number)
        for pk, before, number in Seat.objects.filter(pk__in=[seat.pk for seat in current])
        .annotate(previous=Subquery(previous), since_prompt=Subquery(since))
        .filter(previous__isnull=False)
        .values_list("pk", "previous", "since_prompt")
    }
    return {
        seat.name: {
            "holder": seat.user.get_username(),
            "previous": found[seat.pk][0],
            "since_prompt": found[seat.pk][1],
        }
        for seat in current
        if seat.pk in found
    }



def current_prompt(*, game: Game) -> Prompt | None:
    """The open prompt, or None (forming, over, or between prompts). A game ended early
    leaves its last prompt open in the records, unanswerable: it is not shown as open."""
    if game.status in OVER:
        return None
    return Prompt.objects.filter(game=game, status=Prompt.Status.OPEN).order_by("-number").first()


@functools.lru_cache(maxsize=1024)
def open_prompt_state(game_id: int, seed_commitment: str, prompt_id: int, number: int) -> dict:
    """The snapshot state of an open prompt, cached per process: a prompt's snapshot is
    written with the prompt and never changes. The key holds the game's seed commitment,
    so a reused row id never meets another game's entry. Callers must not modify it
    (the engine never modifies the states it is given: tests/engine/test_properties.py)."""
    return StateSnapshot.objects.get(game_id=game_id, prompt_number=number).state


def current_state(*, game: Game) -> dict:
    """The engine state of the latest snapshot ({} before the game starts)."""
    snapshot = StateSnapshot.objects.filter(game=game).order_by("-prompt_number").first()
    return snapshot.state if snapshot is not None else {}


def _state_for(game: Game, prompt: Prompt | None) -> dict:
    """The engine state that goes with ``prompt`` (read after it): the open prompt's own
    snapshot, so a resolution committing between the two reads cannot pair the new
    prompt with the old board or the old legal orders with the new prompt; without an
    open prompt, the latest snapshot."""
    if prompt is not None:
        snapshot = StateSnapshot.objects.filter(game=game, prompt_number=prompt.number).first()
        if snapshot is not None:
            return snapshot.state
    return current_state(game=game)


def _open_and_last_resolved(game: Game) -> tuple[Prompt | None, Prompt | None]:
    """The open prompt and the latest resolved one, in one query: at most one prompt is
    open and it is always the newest, so the two newest prompts hold both."""
    newest = list(Prompt.objects.filter(game=game).order_by("-number")[:2])
    open_prompt = None
    if newest and newest[0].status == Prompt.Status.OPEN:
        open_prompt = newest.pop(0)
    if game.status in OVER:  # ended early: its last prompt is not open any more
        open_prompt = None
    last = next((p for p in newest if p.status == Prompt.Status.RESOLVED), None)
    return open_prompt, last


def current_order(*, seat: Seat) -> SealedOrder | None:
    """The seat's current sealed order for the open prompt (for its own eyes only)."""
    if seat.status == Seat.Status.REPLACED:
        return None
    prompt = current_prompt(game=seat.game)
    if prompt is None:
        return None
    return SealedOrder.objects.filter(prompt=prompt, seat_name=seat.name, is_current=True).first()


def legal_orders(*, seat: Seat) -> list[str]:
    """Every legal order text for the seat now; empty if it is not asked."""
    from games.services.game_options import ruleset_get

    game = seat.game
    if game.status != Game.Status.ACTIVE or seat.status != Seat.Status.ACTIVE:
        return []
    prompt = current_prompt(game=game)
    if prompt is None or seat.name not in prompt.pending:
        return []
    return ruleset_get(game.ruleset).legal_orders(current_state(game=game), seat.name)


def _legal(game: Game, seat: Seat, prompt: Prompt | None, state: dict) -> list[str]:
    """legal_orders with the open prompt and the state already read."""
    from games.services.game_options import ruleset_get

    if game.status != Game.Status.ACTIVE or seat.status != Seat.Status.ACTIVE:
        return []
    if prompt is None or seat.name not in prompt.pending or not state:
        return []
    return ruleset_get(game.ruleset).legal_orders(state, seat.name)


def _game_info(game: Game) -> dict[str, Any]:
    return {
        "id": game.pk,
        "public_id": game.public_id,
        "name": game.name,
        "ruleset": game.ruleset,
        "status": game.status,
        "seed_commitment": game.seed_commitment or None,
        "seats": [
            {"name": name, "position": position, "status": status}
            for name, position, status in Seat.objects.filter(game=game)
            .exclude(status=Seat.Status.REPLACED)
            .order_by("position", "joined_at", "id")
            .values_list("name", "position", "status")
        ],
        "ranking": game.ranking,
        "warnings": list(game.warnings or []),
    }


def _prompt_info(prompt: Prompt | None, ready: list[str] | None = None) -> dict[str, Any] | None:
    if prompt is None:
        return None
    if ready is None:
        ready = list(
            SealedOrder.objects.filter(prompt=prompt, is_current=True).values_list(
                "seat_name", flat=True
            )
        )
    return {
        "number": prompt.number,
        "round": prompt.round,
        "phase": prompt.phase,
        "deadline": prompt.deadline.isoformat() if prompt.deadline else None,
        "pending": list(prompt.pending),
        "ready": sorted(ready),
    }


def _view(game: Game, seat_name: str | None, state: dict | None = None) -> dict[str, Any]:

    if game.status == Game.Status.FORMING:
        return {}
    if state is None:
        state = current_state(game=game)
    if not state:
        return {}
    return engine_view(game=game, state=state, seat_name=seat_name)


def engine_view(*, game: Game, state: dict, seat_name: str | None) -> dict[str, Any]:
    """The engine's view of ``state`` for ``seat_name`` (None: a spectator), every hand
    face up once the game is over (``face_up``): what pages, the API and emails show."""
    from games.services.game_options import ruleset_get

    rules = ruleset_get(game.ruleset)
    view = dict(rules.view(state, seat_name))
    return face_up(rules, state, view) if game.status in OVER else view


def face_up(rules: Any, state: dict, view: dict[str, Any]) -> dict[str, Any]:
    """The view of a game that is over, as the table looks when the last card is
    turned: every seat's hidden information shown (``Ruleset.revealed``), nobody asked
    for an order (a walkover or the organizer stops a game in mid-prompt; its seed and
    set-up are public in the log then). 6x5's own view shows every goal once its rules
    end the game; 5X's never shows another seat's hand."""
    players = view.get("players")
    if isinstance(players, dict):
        view["players"] = {
            name: {**entry, **rules.revealed(state, name)} if isinstance(entry, dict) else entry
            for name, entry in players.items()
        }
    if view.get("pending"):
        view["pending"] = []
    view.pop("orders", None)  # 5X's own legal orders: nobody is to act
    return view


def seat_view(*, seat: Seat) -> dict[str, Any]:
    """What the seat's player may see now: the engine's view for the seat plus the game,
    the open prompt, the seat's own order, its legal orders and the latest events it
    may see. (Each row is read once: prompts, snapshot, seats, the prompt's orders.)"""
    game = seat.game
    # A player who handed the seat over no longer sees its hidden information.
    viewer = None if seat.status == Seat.Status.REPLACED else seat.name
    prompt, last = _open_and_last_resolved(game)
    state = _state_for(game, prompt) if game.status != Game.Status.FORMING else {}
    out = _view(game, viewer, state)
    orders = (
        list(SealedOrder.objects.filter(prompt=prompt, is_current=True)) if prompt else []
    )
    order = (
        next((o for o in orders if o.seat_name == seat.name), None)
        if seat.status != Seat.Status.REPLACED
        else None
    )
    out.update(
        {
            "game": _game_info(game),
            "seat": {"name": seat.name, "position": seat.position, "status": seat.status},
            "prompt": _prompt_info(prompt, [o.seat_name for o in orders]),
            "my_order": (
                {
                    "text": order.text,
                    "commitment": order.commitment,
                    "source": order.source,
                    "submitted_at": order.submitted_at.isoformat(),
                }
                if order is not None
                else None
            ),
            "legal_orders": _legal(game, seat, prompt, state),
            "events": [
                {"kind": e.get("kind"), "text": e.get("text")}
                for e in events_for(last.events if last else [], viewer)
            ],
        }
    )
    return out


def spectator_view(*, game: Game) -> dict[str, Any]:
    """The public view of the game (the engine's spectator view plus public events)."""
    prompt, last = _open_and_last_resolved(game)
    out = _view(game, None, _state_for(game, prompt) if game.status != Game.Status.FORMING else {})
    out.update(
        {
            "game": _game_info(game),
            "seat": None,
            "prompt": _prompt_info(prompt),
            "my_order": None,
            "legal_orders": [],
            "events": [
                {"kind": e.get("kind"), "text": e.get("text")}
                for e in events_for(last.events if last else [], None)
            ],
        }
    )
    return out


def part_of(*, label: str, path: str) -> dict[str, str] | None:
    """What series a game is part of, as its page links it ("Part of Winter Cup, round
    2"): ``{"label", "url"}`` (the round's public page, for a tournament's table), or
    None. The game holds both (set by whatever made it: a tournament's round); the games
    room reads nothing of the tournaments'."""
    if not path:
        return None
    return {"label": label or "its series", "url": public_url(path)}


def rematch_seen_by(*, game: Game, user: Any) -> tuple[Game | None, bool, int]:
    """The rematch of ``game`` (None if nobody asked for one), whether ``user`` organizes
    it or holds a seat in it, and how many seats it has taken."""
    rematch = Game.objects.filter(rematch_of=game).first()
    if rematch is None:
        return None, False, 0
    seats = list(rematch.seats.exclude(status=Seat.Status.REPLACED).values_list("user_id", flat=True))
    return rematch, rematch.organizer_id == user.pk or user.pk in seats, len(seats)
