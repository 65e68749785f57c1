"""Creating, joining, leaving and starting games; resigning a seat (a new game's ruleset
and options: ``games.services.game_options``; the start itself: ``games.services.starting``;
a walkover: ``games.services.walkover``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from games.errors import (
    GameStateError,
    NoSeat,
    NotPending,
    PermissionDenied,
    ValidationError,
)
from games.models import Game, SealedOrder, Seat
from games.presentation import one_line
from games.selectors import invite_valid, may_organize, no_seat_reason
from games.services.audit import log_append
from games.services.create_once import created_before, request_fingerprint
from games.services.deadlines import deadline_policy_check, default_reminder_hours
from games.services.game_options import game_options_check, ruleset_get
from games.services.locking import lock_game
from games.services.starting import _start_locked
from games.services.walkover import _walkover_locked

_NAME_CHARS = re.compile(r"[^A-Za-z0-9_.-]")


def game_create(
    *,
    organizer: Any,
    ruleset: str,
    options: Mapping[str, Any] | None = None,
    seats_count: int,
    name: str = "",
    is_private: bool = False,
    deadline_hours: float | None = None,
    grace_minutes: int = 0,
    quiet_hours_start: int | None = None,
    quiet_hours_end: int | None = None,
    quiet_hours_time_zone: str = "UTC",
    reminder_hours: float | None = None,
    early_resolution_delay_seconds: int = 0,
    require_sender_match: bool = False,
    setup: Mapping[str, Any] | None = None,
    seat_organizer: bool = False,
    part_of: tuple[str, str] | None = None,
    create_key: str = "",
    talk_open: bool = True,
    away_days: int = 0,
) -> Game:
    """Create a forming game. Options are checked by the engine's ``normalize_options``;
    discouraged but allowed choices are listed in ``game.warnings``. With
    ``seat_organizer`` the organizer also takes the first seat. ``part_of`` is a
    (label, site path) of the page the game belongs to, such as a tournament's round,
    which the game's pages link to. ``create_key``: the request's own key (the form's,
    an API client's Idempotency-Key): when the organizer already created a game with it,
    that game is returned, ``game.created`` False (a form sent twice, a retry), never a
    second game; the same key with other parameters raises KeyReused. Raises
    ValidationError."""
    if deadline_hours is None:
        deadline_hours = getattr(settings, "GAMES_DEFAULT_DEADLINE_HOURS", 48)
    if reminder_hours is None:
        reminder_hours = default_reminder_hours(deadline_hours)
    rules, normalized, warnings = game_options_check(
        ruleset=ruleset, options=options, seats_count=seats_count
    )
    deadline_policy_check(
        deadline_hours=deadline_hours,
        grace_minutes=grace_minutes,
        quiet_hours_start=quiet_hours_start,
        quiet_hours_end=quiet_hours_end,
        reminder_hours=reminder_hours,
        early_resolution_delay_seconds=early_resolution_delay_seconds,
    )
    from games.services.players import time_zone_valid

    quiet_hours_time_zone = time_zone_valid(quiet_hours_time_zone or "UTC")
    from games.services.away import away_days_check

    away_days = away_days_check(away_days)
    setup = dict(setup or {})
    for key in setup:
        if key not in rules.setup_keys:
            raise ValidationError(f"Unknown setup key {key!r} for {rules.id}.")
    name = one_line(name)[:120]  # it ends up in email subjects: one line
    part_of_label, part_of_path = part_of or ("", "")
    if part_of_path and (
        not part_of_path.startswith("/") or part_of_path.startswith("//") or "\\" in part_of_path
    ):
        raise ValidationError("A game's part_of path must be a path on this site.")
    fields = {
        "ruleset": rules.id, "options": normalized, "setup": setup,
        "engine_version": rules.version, "name": name,
        "part_of_label": one_line(part_of_label)[:200], "part_of_path": part_of_path[:300],
        "seats_count": seats_count, "is_private": bool(is_private), "warnings": warnings,
        "deadline_hours": float(deadline_hours), "grace_minutes": grace_minutes,
        "quiet_hours_start": quiet_hours_start, "quiet_hours_end": quiet_hours_end,
        "quiet_hours_time_zone": quiet_hours_time_zone, "reminder_hours": float(reminder_hours),
        "early_resolution_delay_seconds": early_resolution_delay_seconds,
        "require_sender_match": bool(require_sender_match), "talk_open": bool(talk_open),
        "away_days": away_days,
    }  # fmt: skip
    fingerprint = ""
    if create_key:
        # what this request asks for: the game's fields and whether its organizer sits
        fingerprint = request_fingerprint([fields, bool(seat_organizer)])
        earlier = created_with(organizer=organizer, create_key=create_key, fingerprint=fingerprint)
        if earlier is not None:
            return earlier
    try:
        with transaction.atomic():
            game = Game.objects.create(
                organizer=organizer, create_key=create_key, create_fingerprint=fingerprint, **fields
            )
            game = lock_game(game_id=game.pk)
            log_append(
                game=game,
                kind="game_created",
                payload={
                    "ruleset": rules.id,
                    "engine_version": rules.version,
                    "options": normalized,
                    "seats": seats_count,
                    "private": game.is_private,
                    "name": name,
                    "deadline_hours": game.deadline_hours,
                    "grace_minutes": grace_minutes,
                    "quiet_hours": [quiet_hours_start, quiet_hours_end],
                    **(
                        {"quiet_hours_time_zone": quiet_hours_time_zone}
                        if quiet_hours_time_zone != "UTC"
                        else {}
                    ),
                    "warnings": warnings,
                    # the deadline's waits for players who are away (games.services.away)
                    **({"away_days": away_days} if away_days else {}),
                },
            )
            if seat_organizer:
                _join_locked(game=game, user=organizer)
    except IntegrityError:
        # The same key at the same moment (two clicks reaching two servers): the other
        # request's game.
        earlier = (
            created_with(organizer=organizer, create_key=create_key, fingerprint=fingerprint)
            if create_key else None
        )  # fmt: skip
        if earlier is None:
            raise
        return earlier
    game.created = True
    return game


def created_with(*, organizer: Any, create_key: str, fingerprint: str | None = None) -> Game | None:
    """The game ``organizer`` created with ``create_key`` (``game.created`` False), or None.
    ``fingerprint``: what this request asks for; another one raises KeyReused."""
    return created_before(
        Game.objects, organizer=organizer, create_key=create_key, fingerprint=fingerprint,
        reused=lambda game: "This Idempotency-Key made another game (its first request asked "
        f"for other parameters: game {game.pk}); send a new key for a new game.",
    )  # fmt: skip


def game_create_seated(
    *,
    organizer: Any,
    ruleset: str,
    options: Mapping[str, Any] | None = None,
    users: list[Any],
    seating_fixed: bool = True,
    name: str = "",
    is_private: bool = True,
    **policy: Any,
) -> Game:
    """Create a game with ``users`` already seated and start it at once (used by
    tournaments, whose pairing fixes the seats; their tables are public, ``is_private``
    False). With ``seating_fixed`` the seating is the clockwise order of ``users``;
    otherwise it is the seed's shuffle. ``policy``
    takes game_create's deadline keywords (``deadline_hours``...). Raises
    ValidationError / GameStateError like :func:`game_create` and :func:`game_start`.
    With fixed seating, the first seat moves first where the ruleset has a first player
    (``setup.first``: 4X Dice, 6x5)."""
    if len({getattr(u, "pk", None) for u in users}) != len(users):
        raise ValidationError("A player can only take one seat.")
    with transaction.atomic():
        game = game_create(
            organizer=organizer,
            ruleset=ruleset,
            options=options,
            seats_count=len(users),
            name=name,
            is_private=is_private,
            **policy,
        )
        game = lock_game(game_id=game.pk)
        seats = [_join_locked(game=game, user=user) for user in users]
        if seating_fixed and "first" in ruleset_get(ruleset).setup_keys:
            # Seat 1 moves first (tournaments.md: the pairing alternates who does in a
            # two-player game); left to the seed, it drew the first player at random.
            game.setup = {**(game.setup or {}), "first": seats[0].name}
            game.save(update_fields=["setup"])
        _start_locked(game=game, fixed_order=[s.name for s in seats] if seating_fixed else None)
    return game


def seat_name_base(username: str) -> str:
    """A player name as a table spells it, before any ``-2`` that keeps two seats apart:
    ASCII letters ("Zoë" -> "Zoe"), anything else outside the order language's name
    characters "_", at most 40 characters, no full stop at the end."""
    from anyascii import anyascii

    # Never ending in a full stop: an order's line loses its sentence punctuation at the
    # end ("TAKE GANDHI FROM bob." would name "bob").
    return _NAME_CHARS.sub("_", anyascii(username))[:40].rstrip(".") or "player"


def _seat_name(*, game: Game, user: Any) -> str:
    """The engine seat name for a user: the username, made safe for order texts (written
    in ASCII letters: "Zoë" -> "Zoe", "Иван" -> "Ivan", anything else left "_") and unique
    (case-insensitively) within the game."""
    base = seat_name_base(str(user.get_username()))
    taken = {
        n.lower()
        for n in Seat.objects.filter(game=game)
        .exclude(status=Seat.Status.REPLACED)
        .values_list("name", flat=True)
    }
    name, counter = base, 2
    while name.lower() in taken:
        name = f"{base}-{counter}"
        counter += 1
    return name


def _join_locked(*, game: Game, user: Any) -> Seat:
    from games.services.players import email_every_prompt_default

    seat = Seat.objects.create(
        game=game, user=user, name=_seat_name(game=game, user=user),
        email_every_prompt=email_every_prompt_default(user=user),
    )  # fmt: skip
    log_append(game=game, kind="seat_joined", payload={"seat": seat.name})
    return seat


def game_join(*, game: Game, user: Any, invite_token: str | None = None) -> Seat:
    """``game_join_seat`` without whether the seat is new."""
    return game_join_seat(game=game, user=user, invite_token=invite_token)[0]


def game_join_seat(
    *, game: Game, user: Any, invite_token: str | None = None
) -> tuple[Seat, bool]:
    """Take a seat in a forming game (a private game needs its invitation token, except
    for its organizer); returns the seat and whether this call took it.
    Joining twice returns the same seat. The game starts by itself when the last seat
    fills. Raises GameStateError (not forming, full) or PermissionDenied."""
    with transaction.atomic():
        game = lock_game(game_id=game.pk)
        existing = (
            Seat.objects.filter(game=game, user=user).exclude(status=Seat.Status.REPLACED).first()
        )
        if existing is not None:
            return existing, False
        if game.status != Game.Status.FORMING:
            raise _not_forming(game, "This game has already started; no seat is free.")
        if (
            game.is_private
            and game.organizer_id != getattr(user, "pk", None)
            and not invite_valid(game=game, token=invite_token)
        ):
            raise PermissionDenied("This game is private: you need a valid invitation link.")
        seated = Seat.objects.filter(game=game).count()
        if seated >= game.seats_count:
            raise GameStateError("This game is full.")
        seat = _join_locked(game=game, user=user)
        if seated + 1 == game.seats_count:
            _start_locked(game=game, fixed_order=None)
            seat.refresh_from_db()
    return seat, True


def _not_forming(game: Game, started: str) -> GameStateError:
    """The refusal of a seat change (join, leave, start) in a game no longer forming:
    ``started`` when it is under way; a game over says so, and one its organizer
    cancelled before it started says that (it never started)."""
    if game.status in (Game.Status.FINISHED, Game.Status.ABANDONED):
        if game.started_at is None:
            return GameStateError(
                "The organizer cancelled this game before it started.", code="game_finished"
            )
        return GameStateError("The game is over.", code="game_finished")
    return GameStateError(started)


def game_leave(*, game: Game, user: Any) -> None:
    """Leave a game that has not started. Raises NoSeat (the user holds no seat in it,
    whatever its state, as an order or a resignation does) or GameStateError."""
    with transaction.atomic():
        game = lock_game(game_id=game.pk)
        seat = Seat.objects.filter(game=game, user=user).exclude(status=Seat.Status.REPLACED).first()
        if seat is None:  # never held one, or it was handed over: say which
            raise NoSeat(no_seat_reason(game_id=game.pk, user=user))
        if game.status != Game.Status.FORMING:
            raise _not_forming(game, "The game has started: you can resign, but not leave.")
        name = seat.name
        seat.delete()
        log_append(game=game, kind="seat_left", payload={"seat": name})


def game_start(*, game: Game, user: Any, fixed_order: list[str] | None = None) -> Game:
    """Start a forming game now (its organizer, or staff: they hold every organizer's
    tools), with at least the ruleset's minimum of players. ``fixed_order`` (seat names, clockwise) fixes the seating; otherwise it is
    the seed's shuffle of the join order. Raises PermissionDenied, GameStateError,
    ValidationError."""
    with transaction.atomic():
        game = lock_game(game_id=game.pk)
        # Staff too: the page offers them the button (a game whose organizer closed the
        # account would otherwise start only once full).
        if not may_organize(game=game, user=user):
            raise PermissionDenied("Only the organizer can start this game.")
        if game.status != Game.Status.FORMING:
            raise _not_forming(game, "This game has already started.")
        _start_locked(game=game, fixed_order=fixed_order)
    return game


def seat_resign(*, seat: Seat) -> None:
    """Resign a seat: from now on its orders are the engine's default orders (a pending
    order it still owes is filled at once) and it never blocks a prompt. When every
    other seat has resigned, the game ends at once: the last seat playing wins, the
    resigned seats share last place (a walkover; a duel is not played out against
    default orders). Raises GameStateError or NotPending."""
    from games.services.orders import order_fill_default, prompt_check_ready
    from games.services.resolution import open_prompt_locked

    with transaction.atomic():
        game = lock_game(game_id=seat.game_id)
        if game.status not in (Game.Status.ACTIVE, Game.Status.PAUSED):
            raise GameStateError("You can only resign from a game in progress.")
        # Read under the lock: a leave that ran meanwhile may have removed the seat.
        seat = Seat.objects.filter(pk=seat.pk).first()
        if seat is None:
            raise PermissionDenied("You do not hold a seat in this game.")
        if seat.status == Seat.Status.REPLACED:
            raise PermissionDenied("This seat has been handed to another player.")
        if seat.status != Seat.Status.ACTIVE:
            raise NotPending("This seat has already resigned.", code="resigned")
        seat.status = Seat.Status.RESIGNED
        seat.left_at = timezone.now()
        seat.save(update_fields=["status", "left_at"])
        log_append(game=game, kind="seat_resigned", payload={"seat": seat.name})
        playing = list(Seat.objects.filter(game=game, status=Seat.Status.ACTIVE))
        if len(playing) == 1:
            _walkover_locked(game=game, winner=playing[0])
            return
        prompt = open_prompt_locked(game=game)
        if (
            prompt is not None
            and seat.name in prompt.pending
            and not SealedOrder.objects.filter(
                prompt=prompt, seat_name=seat.name, is_current=True
            ).exists()
        ):  # an order already sealed stands: only one still owed gets the default
            order_fill_default(game=game, prompt=prompt, seat=seat, reason="resigned")
            prompt_check_ready(game=game, prompt=prompt)


