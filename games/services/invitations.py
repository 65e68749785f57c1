"""Inviting players to a forming game by name (``GameInvitation``).

The organizer (or staff) names players; each one not seated and not invited before is
emailed the game's link (a private game's invitation link: it lets them join) and sees
the invitation on their games page until they join, decline, or the game starts. Names
are checked first, all of them: one unknown name and nobody is invited. A player who
declines is not invited to that game again, and the organizer is told. A player may say
who may invite them by name (``PlayerSettings.invitations``: anyone, players they have
played a game with, nobody); the others are skipped with that reason. A rematch
(``games.services.rematch``) invites the old game's players through ``invite_users``
whatever they said (it is their own game again, and its email goes to them anyway).

Every invitation emails someone, so a game has at most ``INVITATIONS_PER_GAME`` of them,
at most ``NAMES_AT_ONCE`` at a time; one player invites at most ``INVITATIONS_PER_DAY``
a day over all their games, and a player with ``WAITING_FROM_ONE`` invitations from the
same organizer unanswered is not invited again by them until one is answered. Both caps
are counted under a lock per organizer (``lock_name``), taken after the game's, so they
hold when several of the organizer's games invite at the same moment.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, OuterRef, Q
from django.utils import timezone

from fivex_site.links import public_url
from games.errors import GameStateError, NotFound, ValidationError
from games.models import Game, GameInvitation, PlayerSettings, Seat
from games.presentation import and_list, ruleset_name
from games.services.locking import lock_name
from games.services.organizer_common import _check_organizer, locked_forming

NAMES_AT_ONCE = 20
INVITATIONS_PER_GAME = 40
#: Invitations one player makes by name in a day, over all their games (games may be made
#: 60 an hour: each could email the same strangers).
INVITATIONS_PER_DAY = 100
#: Invitations from one organizer a player may have waiting (unanswered, to forming
#: games) before the next is skipped: each is an email, and a player declines each.
WAITING_FROM_ONE = 3
# invite_players' refusal when the game's invitations are all used.
INVITATIONS_CAPPED = "invitations_capped"
# A player name as typed: a run of anything but commas, semicolons and white space; "@bob"
# is bob (as people write names in chats).
_NAME = re.compile(r"[^\s,;]+")


def invitation_path(game: Game) -> str:
    """Where an invited player takes their seat: a private game's invitation link (it lets
    them in), else the game's page (a path from the site's root)."""
    if game.is_private and game.invite_token:
        return f"/games/{game.pk}/invite/{game.invite_token}/"
    return f"/games/{game.pk}/"


def invite_link(game: Game) -> str:
    """``invitation_path`` as an email gives it (the site's public address)."""
    return public_url(invitation_path(game))


def _names(names: Any) -> list[str]:
    """The names asked for, once each (case aside), in the order given."""
    if isinstance(names, str):
        found = _NAME.findall(names)
    elif isinstance(names, list | tuple) and all(isinstance(n, str) for n in names):
        found = [part for n in names for part in _NAME.findall(n)]
    else:
        raise ValidationError("players: a list of player names.", field="players")
    out: dict[str, str] = {}
    for name in found:
        name = name.lstrip("@")
        if name:
            out.setdefault(name.casefold(), name[:150])
    if not out:
        raise ValidationError("Name at least one player to invite.", field="players")
    if len(out) > NAMES_AT_ONCE:
        raise ValidationError(
            f"Invite at most {NAMES_AT_ONCE} players at a time ({len(out)} named).",
            field="players",
        )
    return list(out.values())


def invite_players(*, game: Game, by: Any, names: Any) -> dict[str, Any]:
    """Invite the players ``names`` (a list, or one text of names separated by commas or
    spaces) to the forming ``game``. Returns ``{"invited": [...], "skipped": {name: why}}``
    (a player seated, invited before, who declined, who takes no invitations from ``by``
    (``refusing``), or the inviter). Raises
    ValidationError (an unknown name: nobody is invited; too many names), GameStateError
    (the game is not forming; the game's invitations are used up) or PermissionDenied."""
    _check_organizer(game, by)  # first (again under the lock below): nothing said to others
    wanted = _names(names)
    User = get_user_model()
    match = Q()
    for name in wanted:
        match |= Q(username__iexact=name)
    found = {u.username.casefold(): u for u in User.objects.filter(match, is_active=True)}
    unknown = [name for name in wanted if name.casefold() not in found]
    if unknown:
        raise ValidationError(
            f"No player is called {and_list(unknown)}: nobody was invited. Names are "
            "players' names on this site (as on their pages), not email addresses.",
            field="players",
        )
    with transaction.atomic():
        game = locked_forming(
            game=game, by=by,
            refusal="Players are invited while a game is forming: this one has started or ended.",
        )  # fmt: skip
        users = [found[n.casefold()] for n in wanted]
        refused = refusing(users=users, by=by)
        done = invite_users(game=game, by=by, users=[u for u in users if u.pk not in refused])
        names = {u.pk: u.username for u in users}
        skipped = {names[pk]: why for pk, why in refused.items()} | done["skipped"]
        return {"invited": done["invited"], "skipped": skipped}


def refusing(*, users: list[Any], by: Any) -> dict[int, str]:
    """Those of ``users`` who take no invitation by name from ``by`` (their settings),
    by id, with the reason said to the inviter. Staff are refused as anyone is."""
    said = dict(
        PlayerSettings.objects.filter(user__in=users)
        .exclude(invitations=PlayerSettings.Invitations.ANYONE)
        .values_list("user_id", "invitations")
    )
    if not said:
        return {}
    only_known = [pk for pk, who in said.items() if who == PlayerSettings.Invitations.PLAYED_WITH]
    known = set(
        Seat.objects.filter(
            user_id__in=only_known, game__started_at__isnull=False, game__seats__user=by
        ).values_list("user_id", flat=True)
    ) if only_known else set()  # fmt: skip
    return {
        pk: "takes no invitations"
        if who == PlayerSettings.Invitations.NOBODY
        else "takes invitations only from players they have played with"
        for pk, who in said.items()
        if pk not in known
    }


def invite_users(*, game: Game, by: Any, users: list[Any], email: bool = True) -> dict[str, Any]:
    """Invite ``users`` to ``game`` (locked by the caller, forming), email each one
    invited now (unless ``email`` is False: a rematch's own email invites its players).
    See ``invite_players``."""
    seated = set(
        Seat.objects.filter(game=game)
        .exclude(status=Seat.Status.REPLACED)
        .values_list("user_id", flat=True)
    )
    before = {
        user_id: declined
        for user_id, declined in GameInvitation.objects.filter(game=game).values_list(
            "user_id", "declined_at"
        )
    }
    taken_back = set(
        GameInvitation.objects.filter(game=game, withdrawn_at__isnull=False).values_list(
            "user_id", flat=True
        )
    )
    again: list[Any] = []
    if email and getattr(by, "pk", None) is not None and users:
        # The caps count the organizer's invitations over all their games: one lock per
        # organizer (besides the game's) so invitations from two games at once cannot
        # both read the counts before either is written.
        lock_name(name=f"invitations-by:{by.pk}")
    waiting = _waiting_from(by=by, users=users) if email else {}
    skipped: dict[str, str] = {}
    new: list[Any] = []
    for user in users:
        if user.pk == getattr(by, "pk", None):
            skipped[user.username] = "you: join the game yourself"
        elif user.pk in seated:
            skipped[user.username] = "has a seat already"
        elif user.pk in taken_back:
            again.append(user)  # invited again: the invitation shows again (no second email)
        elif user.pk in before:
            skipped[user.username] = "declined" if before[user.pk] else "invited already"
        elif waiting.get(user.pk, 0) >= WAITING_FROM_ONE:
            skipped[user.username] = (
                f"has {WAITING_FROM_ONE} invitations of yours waiting for an answer (or "
                "emailed in the last day)"
            )
        else:
            new.append(user)
    if new and len(before) + len(new) > INVITATIONS_PER_GAME:
        left = max(0, INVITATIONS_PER_GAME - len(before))
        raise GameStateError(
            f"A game can invite {INVITATIONS_PER_GAME} players in all; this one has {left} "
            "invitation(s) left: nobody was invited. Share the game's link instead.",
            code=INVITATIONS_CAPPED,
        )
    if new and email and by is not None:
        today = GameInvitation.objects.filter(
            invited_by=by, created_at__gte=timezone.now() - timedelta(days=1)
        ).count()
        if today + len(new) > INVITATIONS_PER_DAY:
            raise GameStateError(
                f"You can invite {INVITATIONS_PER_DAY} players a day by name, over all your "
                f"games; {max(0, INVITATIONS_PER_DAY - today)} invitation(s) are left for "
                "now: nobody was invited. Share the game's link instead.",
                code=INVITATIONS_CAPPED,
            )
    if again:
        GameInvitation.objects.filter(game=game, user__in=again).update(
            withdrawn_at=None, invited_by=by
        )
    for user in new:
        try:
            with transaction.atomic():
                GameInvitation.objects.create(game=game, user=user, invited_by=by)
        except IntegrityError:  # invited by a request that committed meanwhile
            skipped[user.username] = "invited already"
            continue
        if email:
            _notify_invited(game=game, user=user, by=by)
    invited = [u.username for u in again] + [u.username for u in new if u.username not in skipped]
    return {"invited": invited, "skipped": skipped}


def invitation_withdraw(*, game: Game, by: Any, name: Any) -> GameInvitation:
    """The organizer takes back the invitation of the player ``name`` to the forming
    ``game`` (a wrong name, a seat meant for another): the player no longer sees it and
    cannot decline it; told nothing (the email they had says the game's link, which a
    public game's page shows anyway). Invited again later, it shows again. Taken back
    twice, nothing changes. Raises PermissionDenied, GameStateError (not forming; the
    player took a seat or declined) or NotFound (no invitation of that player)."""
    _check_organizer(game, by)
    if not isinstance(name, str) or not name.strip():
        raise ValidationError("Name the player whose invitation to take back.", field="player")
    with transaction.atomic():
        game = locked_forming(
            game=game, by=by,
            refusal="Invitations are taken back while a game is forming: this one has started "
            "or ended.",
        )  # fmt: skip
        wanted = name.strip().lstrip("@")[:150]
        # Its row locked, as a decline locks it: a decline at the same moment is either
        # seen here (refused below) or waits and finds the invitation taken back.
        invitation = (
            GameInvitation.objects.select_for_update(of=("self",))
            .select_related("user")
            .filter(game=game, user__username__iexact=wanted)
            .first()
            if "\x00" not in wanted  # no player name holds one (nor can a database text)
            else None
        )
        if invitation is None:
            raise NotFound(f"No player called {name.strip()[:150]!r} is invited to this game.")
        if invitation.withdrawn_at is not None:
            return invitation
        if Seat.objects.filter(game=game, user=invitation.user).exclude(
            status=Seat.Status.REPLACED
        ).exists():
            raise GameStateError(
                f"{invitation.user} has taken a seat: there is no invitation to take back "
                "(before the start a player leaves a seat on the game's page)."
            )
        if invitation.declined_at is not None:
            raise GameStateError(f"{invitation.user} declined the invitation already.")
        invitation.withdrawn_at = timezone.now()
        invitation.save(update_fields=["withdrawn_at"])
    return invitation


def _waiting_from(*, by: Any, users: list[Any]) -> dict[int, int]:
    """user id -> how many of ``by``'s invitations each of ``users`` has not answered
    (forming games, neither declined nor joined), and those emailed in the last day that
    ``by`` took back or whose game no longer forms (cancelled, started without them):
    else taking one back, or cancelling its game, freed its place for one more email,
    again and again."""
    if by is None or not users:
        return {}
    seated = Seat.objects.filter(game=OuterRef("game"), user=OuterRef("user")).exclude(
        status=Seat.Status.REPLACED
    )
    rows = (
        GameInvitation.objects.filter(
            invited_by=by,
            user__in=[u.pk for u in users],
            declined_at__isnull=True,
        )
        .filter(
            Q(withdrawn_at__isnull=True, game__status=Game.Status.FORMING)
            | Q(created_at__gte=timezone.now() - timedelta(days=1))
        )
        .exclude(Exists(seated))
        .values("user")
        .annotate(n=Count("id"))
        .values_list("user", "n")
    )
    return dict(rows)


def _notify_invited(*, game: Game, user: Any, by: Any) -> None:
    from games.services.handover_notices import user_notice

    link = invite_link(game)
    seats = game.seats_count
    title = game.title

    def text() -> str:
        return (
            f"{by} invites you to play {title}, a game of {ruleset_name(game.ruleset)} for "
            f"{seats} players. Take your seat here:\n{link}\n\nIt starts when its seats "
            "are taken (or when its organizer starts it). Not for you? Decline it on your "
            f"games page ({public_url('/games/')}); nothing happens if you do nothing."
        )

    user_notice(
        user=user, game=game, subject=f"{by} invites you to a game", text=text,
        key=f"invitation:{game.pk}:{user.pk}", kind="invitation",
    )  # fmt: skip


def invitation_decline(*, game_id: Any, user: Any) -> GameInvitation:
    """``user`` declines their invitation to a game (a second time changes nothing); the
    organizer is told once. Raises NotFound (no invitation) or GameStateError (the
    game started or ended: nothing to decline; leaving a seat is done on its page)."""
    from games.services.handover_notices import user_notice

    with transaction.atomic():
        invitation = (
            GameInvitation.objects.select_for_update(of=("self",))
            .select_related("game", "game__organizer")
            .filter(game_id=game_id, user=user)
            .first()
        )
        if invitation is None or invitation.withdrawn_at is not None:
            raise NotFound("You have no invitation to this game.")
        game = invitation.game
        if invitation.declined_at is not None:
            return invitation
        if game.status != Game.Status.FORMING:
            raise GameStateError(
                "This game is no longer forming: there is no invitation to decline."
            )
        if Seat.objects.filter(game=game, user=user).exclude(status=Seat.Status.REPLACED).exists():
            raise GameStateError(
                "You have a seat in this game: leave it on the game's page instead."
            )
        invitation.declined_at = timezone.now()
        invitation.save(update_fields=["declined_at"])
        name, title = str(user), game.title

        def text() -> str:
            return f"{name} declined your invitation to {title}."

        if game.organizer.pk != user.pk:
            user_notice(
                user=game.organizer, game=game, subject=f"{name} declined your invitation",
                text=text, key=f"invitation-declined:{game.pk}:{user.pk}", kind="notice",
                url=public_url(f"/games/{game.pk}/"),
            )  # fmt: skip
    return invitation
