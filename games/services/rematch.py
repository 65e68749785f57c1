"""A rematch: once a game is over, one of its players (or its organizer) asks to play it
again. That makes a new private game, the same ruleset, options, number of seats and
deadline policy, with a new seed (a new deal), organized by whoever asked, who takes a seat
in it if they played; every other player of the old game is emailed its invitation link.
It starts by itself when its seats are full (the seating drawn by its seed), or earlier
when its organizer starts it with the players who joined. One rematch a game: whoever
asks after the first gets the same new game.

A tournament's table is not played again here: its organizer pairs the next round.
"""

from __future__ import annotations

import re
from typing import Any

from django.db import transaction

from fivex_site.links import public_url
from games.errors import GameStateError, PermissionDenied
from games.models import Game, Seat
from games.presentation import ruleset_name
from games.services.invitations import invite_users
from games.services.locking import lock_game

#: " (rematch)", " (rematch 3)": stripped from the old name before the new one is made.
_REMATCH_SUFFIX = re.compile(r" \(rematch(?: \d+)?\)$")


def rematch_players(*, game: Game) -> list[Any]:
    """Who played the game to its end, in seating order: every seat's player but those
    whose seat was handed over (their successor played it), each once."""
    users: dict[int, Any] = {}
    for seat in (
        Seat.objects.filter(game=game)
        .exclude(status=Seat.Status.REPLACED)
        .select_related("user")
        .order_by("position", "id")
    ):
        users.setdefault(seat.user_id, seat.user)
    return list(users.values())


def rematch_check(*, game: Game, user: Any) -> None:
    """Raise why ``user`` may not ask for a rematch of ``game``: GameStateError (not
    played and over, a tournament's table) or PermissionDenied (neither one of its players
    nor its organizer)."""
    if game.status not in (Game.Status.FINISHED, Game.Status.ABANDONED) or game.started_at is None:
        raise GameStateError("Only a game that was played and is over can be played again.")
    if game.part_of_path:
        where = game.part_of_label or "its tournament"
        raise GameStateError(
            f"This game is a table of {where}: the next games are paired there, not here."
        )
    if user.pk != game.organizer_id and user.pk not in {u.pk for u in rematch_players(game=game)}:
        raise PermissionDenied("Only the game's players and its organizer can ask to play it again.")


def rematch_refusal(*, game: Game, user: Any) -> str:
    """Why ``user`` may not ask for a rematch of ``game`` ("" when they may)."""
    try:
        rematch_check(game=game, user=user)
    except (GameStateError, PermissionDenied) as exc:
        return exc.message
    return ""


def _kept_out(*, rematch: Game, user: Any) -> bool:
    """Whether ``user`` is neither the rematch's organizer nor seated in it and its
    organizer took back their invitation: asking again must not hand them the rematch (its
    invitation link, renewed or not), which the organizer kept them out of."""
    from games.selectors_invitations import invitation_taken_back

    if rematch.organizer_id == user.pk:
        return False
    seated = rematch.seats.filter(user=user).exclude(status=Seat.Status.REPLACED).exists()
    return not seated and invitation_taken_back(game_id=rematch.pk, user=user)


def _rematch_name(game: Game) -> str:
    depth, older = 1, game
    while older.rematch_of_id is not None and depth < 1000:
        depth += 1
        older = Game.objects.only("rematch_of_id").get(pk=older.rematch_of_id)
    base = _REMATCH_SUFFIX.sub("", game.title)
    suffix = " (rematch)" if depth == 1 else f" (rematch {depth})"
    return base[: 120 - len(suffix)] + suffix


def game_rematch(*, game: Game, by: Any) -> Game:
    """The rematch of ``game`` asked by ``by``: made now (``created`` True, the other
    players emailed), or the one asked already (``created`` False: a double click, or
    another player who asked first). Raises GameStateError (not over, a tournament's
    table) or PermissionDenied (not one of its players nor its organizer)."""
    from games.services.games import game_create

    with transaction.atomic():
        game = lock_game(game_id=game.pk)  # two players asking at once: one after the other
        rematch_check(game=game, user=by)  # first: the rematch is private
        existing = Game.objects.filter(rematch_of=game).first()
        if existing is not None:
            if _kept_out(rematch=existing, user=by):
                raise PermissionDenied(
                    f"{existing.organizer} took back your invitation to the rematch "
                    f"{existing.title}: its invitation link is not given to you."
                )
            existing.created = False
            return existing
        players = rematch_players(game=game)
        new = game_create(
            organizer=by,
            ruleset=game.ruleset,
            options=game.options,
            seats_count=game.seats_count,
            name=_rematch_name(game),
            is_private=True,  # the old players' seats: joined by the invitation link
            deadline_hours=game.deadline_hours,
            grace_minutes=game.grace_minutes,
            quiet_hours_start=game.quiet_hours_start,
            quiet_hours_end=game.quiet_hours_end,
            quiet_hours_time_zone=game.quiet_hours_time_zone,
            reminder_hours=game.reminder_hours,
            early_resolution_delay_seconds=game.early_resolution_delay_seconds,
            require_sender_match=game.require_sender_match,
            talk_open=game.talk_open,
            away_days=game.away_days,
            seat_organizer=any(u.pk == by.pk for u in players),
        )
        Game.objects.filter(pk=new.pk).update(rematch_of=game)
        new.rematch_of = game
        others = [user for user in players if user.pk != by.pk]
        # Invited by name too: their games page lists the rematch, which they may decline.
        invite_users(game=new, by=by, users=others, email=False)  # notify_rematch emails them
        for user in others:
            notify_rematch(game=game, new=new, user=user, by=by)
    new.created = True
    return new


def notify_rematch(*, game: Game, new: Game, user: Any, by: Any) -> None:
    """Invite one of the old game's players to its rematch (the invitation link)."""
    from games.services.handover_notices import user_notice

    link = public_url(f"/games/{new.pk}/invite/{new.invite_token}/")
    seats = new.seats_count

    def text() -> str:
        return (
            f"{by} asks to play {game.title} again: a new game of "
            f"{ruleset_name(new.ruleset)} for {seats} players, with the same options and "
            "deadlines and a new deal. Take your seat here:\n"
            f"{link}\n\nIt starts by itself when all {seats} seats are taken (the seating is "
            f"drawn at the start); {by}, who organizes it, can also start it with the players "
            "who joined. Nothing happens if you do not join."
        )

    user_notice(
        user=user, game=new, subject=f"{by} asks for a rematch", text=text,
        key=f"rematch:{new.pk}:{user.pk}", kind="rematch",
    )  # fmt: skip
