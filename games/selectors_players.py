"""Reads about players rather than games: the account someone means by the name (or, for
a site administrator, the address) they typed, with a "did you mean" for a name that
differs by an accent only; the time zone a player writes dates in; whose calendar feed
a token opens."""

from __future__ import annotations

import re
import unicodedata
import zoneinfo
from typing import Any

from django.contrib.auth import get_user_model

_CALENDAR_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{20,64}")


def calendar_owner(*, token: Any) -> Any:
    """The user whose calendar feed address holds ``token``, or None."""
    from games.models import PlayerSettings
    from games.services.players import calendar_digest

    if not isinstance(token, str) or not _CALENDAR_TOKEN_RE.fullmatch(token):
        return None  # not one we make (a NUL would be a database error on PostgreSQL)
    row = (
        PlayerSettings.objects.filter(calendar_digest=calendar_digest(token))
        .select_related("user")
        .first()
    )
    return row.user if row is not None and row.user.is_active else None


def chosen_time_zone(*, user: Any) -> str:
    """The time zone name the player chose (its settings), "" if it chose none."""
    from games.models import PlayerSettings

    try:
        return str(user.player_settings.time_zone or "")
    except (PlayerSettings.DoesNotExist, AttributeError):
        return ""


def time_zone_of(*, user: Any) -> zoneinfo.ZoneInfo:
    """The time zone the player's pages and emails write dates in (UTC unless set).
    Reads ``user.player_settings`` (select it with the user to spare a query)."""
    from games.models import PlayerSettings

    try:
        name = user.player_settings.time_zone or "UTC"  # "": none chosen
    except (PlayerSettings.DoesNotExist, AttributeError):
        return zoneinfo.ZoneInfo("UTC")
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):  # a zone this machine lost
        return zoneinfo.ZoneInfo("UTC")


def player_by_name_or_email(*, text: Any, emails: bool = False) -> Any:
    """The account a person means by ``text``: its player name, or with ``emails`` (a
    site administrator asking) an email address (anything with an ``@``: player names
    have none). None when nobody. Without ``emails`` an address finds nobody: an
    organizer's form must not tell anyone whether an address has an account (allauth's
    pages take care not to), nor which player name it belongs to."""
    from django.contrib.auth import get_user_model

    text = str(text or "").replace("\x00", "").strip()
    if not text:
        return None
    users = get_user_model().objects.filter(is_active=True)  # not a closed account
    if "@" in text:
        if not emails:
            return None
        return users.filter(email__iexact=text).order_by("pk").first()
    return users.filter(username__iexact=text).order_by("pk").first()


#: Letters that carry no accent to drop but are written otherwise without them.
_PLAIN_LETTERS = str.maketrans({"ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "ß": "ss", "æ": "ae",
                                "Æ": "AE", "œ": "oe", "Œ": "OE", "đ": "d", "Đ": "D", "þ": "th",
                                "Þ": "TH", "ı": "i"})  # fmt: skip


def folded_name(text: str) -> str:
    """``Zoë`` -> ``zoe``, ``Bjørn`` -> ``bjorn``, ``Straße`` -> ``strasse``: without
    accents, case folded."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_PLAIN_LETTERS))
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


#: The most names ``player_names_like`` reads with a letter outside ASCII (its one query
#: that is not an exact lookup): a public page asks it for any text typed, so its work is
#: bounded whatever the site's size; past it a suggestion may be missed (a hint only).
NAMES_LIKE_ROWS = 500

# A name holding a letter outside ASCII (the only names whose plain spelling differs from
# their case-folded one); \x01: no name holds a NUL, and PostgreSQL takes none in a pattern.
_NOT_ASCII = r"[^\x01-\x7f]"


def player_names_like(*, text: Any, limit: int = 3) -> list[str]:
    """Player names that read as ``text`` but for accents (``Zoe`` for Zoë, ``Jose``
    for José), for a "did you mean" when ``text`` names nobody: a name is looked up
    exactly, since two accounts may differ by an accent only.

    Two bounded reads: a plain name is the folded text's, case aside (an index's exact
    lookup); an accented one is among at most ``NAMES_LIKE_ROWS`` names of a similar
    length holding a letter outside ASCII (the database keeps the plain names back)."""
    from django.db.models.functions import Length

    text = str(text or "").replace("\x00", "").strip()
    if not text or "@" in text:
        return []
    target = folded_name(text)
    users = get_user_model().objects.filter(is_active=True)
    found: set[str] = set()
    if target.isascii():
        found.update(users.filter(username__iexact=target).values_list("username", flat=True)[:limit + 1])
    accented = (
        users.filter(username__regex=_NOT_ASCII)
        # a name's plain spelling may be a letter or two longer or shorter (ß, æ)
        .annotate(length=Length("username"))
        .filter(length__range=(max(1, len(text) - 2), len(text) + 2))
        .order_by("username")
        .values_list("username", flat=True)[:NAMES_LIKE_ROWS]
    )
    found.update(n for n in accented if folded_name(n) == target)
    return sorted(n for n in found if n != text)[:limit]


def did_you_mean(text: Any) -> str:
    """`` Did you mean Zoë?`` after "no such player" when ``text`` reads as a player's
    name but for accents; "" otherwise."""
    like = player_names_like(text=text)
    return f" Did you mean {' or '.join(like)}?" if like else ""


NAME_NOT_ADDRESS = (
    "Give the player's name, as their games show it: only site administrators can find a "
    "player by email address."
)


def public_record(*, user: Any, recent: int = 20) -> dict[str, Any]:
    """What anyone may see of a player's games: only public games (a private game's
    players are its own business), seats the player kept to the end (a seat handed over
    was played out by someone else). ``finished``: the latest ``recent`` games played to
    the end, newest first, each with the player's ``place`` ("tied 2nd of 5"); ``played``
    and ``won`` (first place, alone or tied) count every such game; ``ended_early``: games ended before their rules ended
    them; ``playing``: games running or paused, ``forming``: games waiting for players."""
    from games.models import Game, Seat
    from games.presentation import place_of

    seats = list(
        Seat.objects.filter(user=user, game__is_private=False)
        .exclude(status=Seat.Status.REPLACED)
        .select_related("game")
        .order_by("-game__finished_at", "-game__created_at", "-game_id")
    )
    finished, playing, forming = [], [], []
    won = ended_early = 0
    for seat in seats:
        game = seat.game
        if game.status in (Game.Status.ACTIVE, Game.Status.PAUSED):
            playing.append(game)
        elif game.status == Game.Status.FORMING:
            forming.append(game)
        elif game.status == Game.Status.FINISHED and game.ranking:
            place = place_of(game.ranking, seat.name)
            if not place:  # not ranked (a seat the ranking does not name)
                continue
            won += seat.name in game.ranking[0]
            finished.append({"game": game, "place": place})
        elif game.started_at is not None:  # ended early, or finished without a ranking
            ended_early += 1
    return {
        "finished": finished[:recent], "played": len(finished), "won": won,
        "ended_early": ended_early, "playing": playing, "forming": forming,
    }  # fmt: skip


def _order_counts() -> dict[str, Any]:
    """The counts of ``given`` and ``missed`` orders among current sealed orders of resolved
    prompts, as :func:`order_record` says: for the caller to aggregate or group by."""
    from django.db.models import Count, F, Q

    from games.models import SealedOrder, Seat

    after_resigning = Q(
        seat__status=Seat.Status.RESIGNED,
        seat__left_at__isnull=False,
        submitted_at__gte=F("seat__left_at"),
    )
    return {
        "given": Count("pk", filter=Q(source__in=SealedOrder.PLAYER_SOURCES), distinct=True),
        "missed": Count(
            "pk",
            filter=Q(source=SealedOrder.Source.DEFAULT, replaces__isnull=True) & ~after_resigning,
            distinct=True,
        ),
    }


def _record(given: int, missed: int) -> dict[str, Any]:
    share = round(100 * given / (given + missed)) if given + missed else None
    if share == 100 and missed:
        share = 99  # "100 %" beside a missed deadline reads as none missed
    return {"given": given, "missed": missed, "share": share}


def order_record(*, user: Any) -> dict[str, Any]:
    """How the player kept their deadlines, in public games (as ``public_record``):
    ``given`` the resolved prompts that asked them and took an order they sent (web, API
    or email), ``missed`` those a deadline filled with their default order; ``share``:
    given of both, a whole percent (None with neither). Orders entered for the seat (its
    only legal one), a seat's defaults once it resigned and a default that stood in for an
    order the engine refused (the site's fault, not theirs) count for nothing."""
    from games.models import Prompt, SealedOrder

    counts = SealedOrder.objects.filter(
        seat__user=user,
        is_current=True,
        prompt__status=Prompt.Status.RESOLVED,
        prompt__game__is_private=False,
    ).aggregate(**_order_counts())
    return _record(counts["given"], counts["missed"])


def order_records(*, game_ids: Any) -> dict[int, dict[str, Any]]:
    """:func:`order_record` of each player in the games ``game_ids`` (ids or a subquery;
    private games too: for their organizer), by user id, in one statement; a player with
    no resolved prompt there is not in it."""
    from games.models import Prompt, SealedOrder

    rows = (
        SealedOrder.objects.filter(
            seat__game_id__in=game_ids,
            is_current=True,
            prompt__status=Prompt.Status.RESOLVED,
            seat__user__isnull=False,
        )
        .values("seat__user_id")
        .annotate(**_order_counts())
        .order_by()
    )
    return {row["seat__user_id"]: _record(row["given"], row["missed"]) for row in rows}
