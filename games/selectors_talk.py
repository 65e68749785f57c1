"""Reads of table talk (``games.services.talk`` writes it)."""

from __future__ import annotations

from typing import Any

from games.models import Game, GameMessage

#: Messages a page shows; older ones are a link away (``before``).
TALK_PAGE = 100


def talk_summary(*, game: Game) -> tuple[int, int]:
    """How many messages were written at the table (removed ones included) and the
    newest one's id (0 for none): the game page's link, and whether it says "new"."""
    from django.db.models import Count, Max

    row = GameMessage.objects.filter(game=game).aggregate(count=Count("id"), last=Max("id"))
    return row["count"] or 0, row["last"] or 0


def talk_seen(*, game: Game, user: Any) -> int:
    """The newest message of ``game``'s talk that ``user`` has read (0: none, or nobody
    signed in): messages after it written by others are new to them."""
    from games.models import TalkRead

    if user is None or not getattr(user, "is_authenticated", False):
        return 0
    return (
        TalkRead.objects.filter(user=user, game=game).values_list("last_id", flat=True).first()
        or 0
    )


def talk_new(*, user: Any, game_ids: list[int]) -> dict[int, int]:
    """Of ``game_ids``, the games whose talk has messages by others that ``user`` has not
    read: game id -> how many (one statement, for the games list)."""
    from django.db.models import Count, F, OuterRef, Q, Subquery

    from games.models import TalkRead

    if not game_ids or user is None or not getattr(user, "is_authenticated", False):
        return {}
    read = TalkRead.objects.filter(user=user, game=OuterRef("game")).values("last_id")[:1]
    rows = (
        GameMessage.objects.filter(game_id__in=game_ids, removed_at__isnull=True)
        .exclude(author=user)
        .annotate(read=Subquery(read))
        .filter(Q(read__isnull=True) | Q(id__gt=F("read")))
        .values("game_id")
        .annotate(n=Count("id"))
    )
    return {row["game_id"]: row["n"] for row in rows}


def talk_page(*, game: Game, before: int | None = None, limit: int = TALK_PAGE) -> tuple[list[GameMessage], bool]:
    """The newest ``limit`` messages (older than message ``before`` if given), oldest
    first, with their authors and removers; and whether older ones exist."""
    rows = GameMessage.objects.filter(game=game).select_related("author", "removed_by")
    if before is not None:
        rows = rows.filter(pk__lt=before)
    newest = list(rows.order_by("-id")[: limit + 1])
    return list(reversed(newest[:limit])), len(newest) > limit


def talk_after(*, game: Game, after: int = 0, limit: int = TALK_PAGE) -> list[GameMessage]:
    """Messages newer than message ``after``, oldest first, at most ``limit`` (the API's
    polling: pass the last id seen)."""
    return list(
        GameMessage.objects.filter(game=game, pk__gt=after)
        .select_related("author", "removed_by")
        .order_by("id")[:limit]
    )


def removed_between(*, game: Game, first: int, last: int, limit: int = TALK_PAGE) -> list[GameMessage]:
    """The removed messages among ``first`` .. ``last`` (the ids a talk page shows), the
    newest first, at most ``limit``: the page greys them out without a reload."""
    if first <= 0 or last < first:
        return []
    return list(
        GameMessage.objects.filter(game=game, pk__gte=first, pk__lte=last, removed_at__isnull=False)
        .select_related("author", "removed_by")
        .order_by("-id")[:limit]
    )


def removed_words(message: GameMessage, game: Game) -> str:
    """Who removed a message, as the table shows it ("" while it stands)."""
    if message.removed_at is None:
        return ""
    if message.removed_by_id == message.author_id:
        return "removed by its author"
    if message.removed_by_id == game.organizer_id:
        return "removed by the organizer"
    return "removed by a site administrator"


def own_messages(*, user: Any) -> list[GameMessage]:
    """Everything ``user`` wrote at any table (their data download)."""
    return list(GameMessage.objects.filter(author=user).order_by("id"))


def message_at(*, game: Game, message_id: int) -> GameMessage | None:
    """One message of the game's table, or None."""
    return GameMessage.objects.filter(game=game, pk=message_id).select_related("game").first()


def talk_since(*, game: Game, since: Any) -> list[tuple[int, str, str]]:
    """(author id, author name, text) of each message written at the table since
    ``since`` and not removed, oldest first (the turn emails say who wrote, and what)."""
    return list(
        GameMessage.objects.filter(game=game, created_at__gte=since, removed_at__isnull=True)
        .order_by("id")
        .values_list("author_id", "author__username", "text")
    )


def author_label(message: GameMessage) -> str:
    """How the table names a message's author: "ann", "ann (seat ann-2)", "boss (organizer)"."""
    name = message.author.username
    if not message.seat_name:
        return f"{name} (organizer)"
    return name if message.seat_name == name else f"{name} (seat {message.seat_name})"
