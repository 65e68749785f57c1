"""Table talk: players of a game (and its organizer) write to each other on its talk page.

Anyone who may see the game reads it (a public game's talk is public, as its board is);
its players, those who still hold or resigned a seat, and its organizer write in it, from
the moment they join until long after the game ends ("good game"). What is written is the
writers' own: the site never puts a hand or a sealed order there. A message's author, the
organizer and site administrators may remove it; it then reads "(removed by ...)".
Limits per writer and game: ``TALK_PER_MINUTE`` messages a minute, ``TALK_PER_DAY`` a day,
``TALK_MAX_CHARS`` characters each."""

from __future__ import annotations

import unicodedata
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from games.errors import KeyReused, MessagesCapped, PermissionDenied, ValidationError
from games.models import Game, GameMessage, Seat, TalkRead
from games.notes import NAME_INVISIBLE_RE

TALK_MAX_CHARS = 1000
TALK_PER_MINUTE = 6
TALK_PER_DAY = 200
#: How often a day the organizer may open or close a game's table talk: each change is an
#: entry of the game's audit log (the API takes 120 organizer calls a minute).
TALK_CHANGES_PER_DAY = 6
EMPTY_MESSAGE = "The message is empty: nothing was sent."


def talk_seat(*, game: Game, user: Any) -> Seat | None:
    """The seat ``user`` writes from: one they hold or resigned (a seat handed over to
    another player is theirs no more)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return (
        Seat.objects.filter(game=game, user=user)
        .exclude(status=Seat.Status.REPLACED)
        .order_by("position", "id")
        .first()
    )


def talk_refusal(*, game: Game, user: Any) -> str:
    """Why ``user`` may not write at this game's table ("" when they may)."""
    return _refusal(game=game, user=user, seat=talk_seat(game=game, user=user))


def _refusal(*, game: Game, user: Any, seat: Seat | None) -> str:
    """``talk_refusal`` with the user's ``talk_seat`` already read."""
    if user is None or not getattr(user, "is_authenticated", False):
        return "Log in to write at the table."
    if game.status == Game.Status.ABANDONED and game.started_at is None:
        return "This game was cancelled before it started: its table is closed."
    if user.pk == game.organizer_id:
        return ""
    if seat is not None:
        if not game.talk_open:
            where = f" ({game.part_of_label}'s rule)" if game.part_of_label else ""
            return f"Table talk is closed at this table{where}: only its organizer writes here."
        return ""
    return "Only the game's players and its organizer write at its table; everyone who can see the game reads it."


def _clean(text: Any) -> str:
    """The message as it is kept: invisible characters and direction overrides out (a
    bidi override would turn the page's text round), line breaks kept (three or more
    blank lines fold to one), no spaces at the ends of lines."""
    if not isinstance(text, str):
        raise ValidationError("A message is text.", field="text")
    text = NAME_INVISIBLE_RE.sub("", unicodedata.normalize("NFC", text))
    text = "".join(ch for ch in text if ch in "\n\t" or unicodedata.category(ch) != "Cc")
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()


def message_post(*, game: Game, user: Any, text: Any, client_key: str = "") -> GameMessage:
    """Write ``text`` at the game's table; returns the message, ``created`` False when
    this ``client_key`` (a form sent twice, a client's retry) already wrote it. Raises
    PermissionDenied (not a player nor the organizer), ValidationError (empty, too long),
    MessagesCapped (too many too fast) or KeyReused (the key wrote another text)."""
    seat = talk_seat(game=game, user=user)
    refusal = _refusal(game=game, user=user, seat=seat)
    if refusal:
        raise PermissionDenied(refusal)
    text = _clean(text)
    if not text:
        raise ValidationError(EMPTY_MESSAGE, field="text")
    if len(text) > TALK_MAX_CHARS:
        raise ValidationError(
            f"A message takes at most {TALK_MAX_CHARS} characters (this one has {len(text)}); "
            "nothing was sent.",
            field="text",
        )
    if client_key:
        earlier = GameMessage.objects.filter(game=game, author=user, client_key=client_key).first()
        if earlier is not None:
            if earlier.text != text:
                raise KeyReused(
                    "This Idempotency-Key wrote another message (message "
                    f"{earlier.pk}); send a new key for a new message. Nothing was sent."
                )
            earlier.created = False
            return earlier
    now = timezone.now()
    mine = GameMessage.objects.filter(game=game, author=user)
    for window, cap, words in (
        (timedelta(minutes=1), TALK_PER_MINUTE, "a minute at one table: wait a moment."),
        (timedelta(days=1), TALK_PER_DAY, "a day at one table."),
    ):
        recent = list(
            mine.filter(created_at__gte=now - window)
            .order_by("-created_at")
            .values_list("created_at", flat=True)[:cap]
        )
        if len(recent) >= cap:  # the cap-th newest leaves the window first
            raise MessagesCapped(
                f"At most {cap} messages {words} Nothing was sent.", retry_at=recent[-1] + window
            )
    try:
        with transaction.atomic():
            message = GameMessage.objects.create(
                game=game, author=user, seat_name=seat.name if seat else "", text=text,
                client_key=client_key,
            )  # fmt: skip
    except IntegrityError:  # the same key at the same moment (two clicks, two servers)
        message = GameMessage.objects.get(game=game, author=user, client_key=client_key)
        message.created = False
        return message
    message.created = True
    return message


def may_remove(*, message: GameMessage, game: Game, user: Any) -> bool:
    """Whether ``user`` may remove the message: its author, the game's organizer, staff."""
    return user is not None and (user.pk in (message.author_id, game.organizer_id) or user.is_staff)


def message_remove(*, message: GameMessage, by: Any) -> GameMessage:
    """Remove a message from the table (its author, the game's organizer or staff); its
    row stays, its text is no longer shown. Removing it again changes nothing."""
    if not may_remove(message=message, game=message.game, user=by):
        raise PermissionDenied(
            "Only its author, the game's organizer or a site administrator removes a message."
        )
    if message.removed_at is None:
        GameMessage.objects.filter(pk=message.pk, removed_at__isnull=True).update(
            removed_at=timezone.now(), removed_by=by
        )
        message.refresh_from_db()
    return message


def talk_read_mark(*, user: Any, game: Game, last_id: int) -> None:
    """``user`` has read ``game``'s table talk up to message ``last_id`` (their talk page
    showed it): the game page and the games list say "new" only for what comes after,
    on every device. Never moves back (an older page read later); nobody signed in,
    nothing kept."""
    if user is None or not getattr(user, "is_authenticated", False) or last_id <= 0:
        return
    if TalkRead.objects.filter(user=user, game=game, last_id__lt=last_id).update(last_id=last_id):
        return
    try:
        with transaction.atomic():
            TalkRead.objects.get_or_create(user=user, game=game, defaults={"last_id": last_id})
    except IntegrityError:  # made by another request meanwhile: move it on if behind
        pass
    TalkRead.objects.filter(user=user, game=game, last_id__lt=last_id).update(last_id=last_id)


def talk_erase_for_user(*, user: Any) -> int:
    """Closing an account: every message the player wrote reads "(removed by its author)"
    and its text is erased. Returns how many were erased."""
    return (
        GameMessage.objects.filter(author=user)
        .exclude(text="", removed_at__isnull=False)
        .update(text="", removed_at=timezone.now(), removed_by=user)
    )


def talk_open_set(*, game: Game, by: Any, open_: bool) -> Game:
    """The organizer opens or closes the table to its players (its organizer always
    writes), at any time until the game is over (a tournament's collusion worry may come
    mid-game). Logged (``talk_changed``) when it changes. Raises PermissionDenied or
    GameStateError."""
    from games.errors import GameStateError
    from games.services.audit import log_append
    from games.services.locking import lock_game
    from games.services.organizer_common import _check_organizer, acting

    with transaction.atomic():
        game = lock_game(game_id=game.pk)
        _check_organizer(game, by)
        if game.status in (Game.Status.FINISHED, Game.Status.ABANDONED):
            raise GameStateError("The game is over: its table talk stays as it is.")
        if game.talk_open != bool(open_):
            from datetime import timedelta

            from games.models import LogEntry
            from games.presentation import local_time
            from games.services.organizer_common import _day_cap_reached

            now = timezone.now()
            changes = list(
                LogEntry.objects.filter(
                    game=game, kind="talk_changed", created_at__gte=now - timedelta(days=1)
                )
                .order_by("created_at")
                .values_list("created_at", flat=True)
            )
            again = _day_cap_reached(changes, TALK_CHANGES_PER_DAY)
            if again is not None:
                raise GameStateError(
                    f"The table talk was opened or closed {len(changes)} times in the last "
                    f"day, the limit (each change is written in the game's log): it can "
                    f"change again from {local_time(again)}."
                )
            game.talk_open = bool(open_)
            game.save(update_fields=["talk_open"])
            log_append(
                game=game,
                kind="talk_changed",
                payload={"open": game.talk_open, **acting(game=game, by=by)},
            )
    return game
