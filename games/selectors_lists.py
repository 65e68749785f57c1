"""Reads behind the lists of games: a player's own games and the orders they wait for
(the games page, the home page, the calendar feed, the API), the public lists (forming,
being played, over), and what a list shows of each of its games, read in a query or two
for the whole list (seats held, places, deadline moves, who is still to order: a
tournament's tables). One game's reads are in games.selectors."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, QuerySet

from games.models import Game, LogEntry, Prompt, SealedOrder, Seat
from games.selectors import OVER


def games_for_user(*, user: Any) -> QuerySet[Game]:
    """Games where the user holds (or held) a seat or is the organizer, newest first."""
    if user is None or not getattr(user, "is_authenticated", False):
        return Game.objects.none()
    # The seats as a subquery, not a join: "seat's user OR organizer" across a join
    # kept PostgreSQL from the seats' user index (a scan of every seat and game of the
    # site) and needed DISTINCT.
    seated = Seat.objects.filter(user=user).values("game_id")
    return Game.objects.filter(Q(pk__in=seated) | Q(organizer=user)).order_by("-created_at", "-id")


def seated_counts(*, games: list[Game]) -> dict[int, int]:
    """Game id -> the number of its seats that are held (a replaced seat is not), in one
    query for a whole list of games."""
    rows = (
        Seat.objects.filter(game_id__in=[g.pk for g in games])
        .exclude(status=Seat.Status.REPLACED)
        .values("game_id")
        .annotate(n=Count("id"))
        .values_list("game_id", "n")
    )
    return {game.pk: 0 for game in games} | dict(rows)


#: The log's entries of a deadline moved other than by an extension (``Prompt.extensions``
#: counts those): a resumption after a pause, a deadline held for a player away.
DEADLINE_MOVES = ("game_resumed", "deadline_held")


def deadline_moves(*, game_ids: list[int]) -> dict[tuple[int, int], int]:
    """(game id, prompt number) -> how often the prompt's deadline moved other than by an
    extension (``DEADLINE_MOVES``), for the games listed; one query."""
    out: dict[tuple[int, int], int] = {}
    for key in LogEntry.objects.filter(game_id__in=game_ids, kind__in=DEADLINE_MOVES).values_list(
        "game_id", "payload__prompt"
    ):
        out[key] = out.get(key, 0) + 1
    return out


def my_places(*, user: Any, games: list[Game]) -> dict[int, str]:
    """Game id -> where the user's seat finished ("2nd of 3", "tied 1st of 4"), for the
    games of the list that are over with a ranking (one query)."""
    from games.presentation import place_of

    over = {g.pk: g for g in games if g.status in OVER and g.ranking}
    if not over or not getattr(user, "is_authenticated", False):
        return {}
    seats = (
        Seat.objects.filter(game_id__in=list(over), user=user)
        .exclude(status=Seat.Status.REPLACED)
        .values_list("game_id", "name")
    )
    places = {gid: place_of(over[gid].ranking, name) for gid, name in seats}
    return {gid: place for gid, place in places.items() if place}


def asked_seats(prompt: Prompt) -> list[str]:
    """The seats ``prompt`` asks for a decision: pending, less those whose order the rules
    force (``Prompt.forced``: entered for them when it opened, they have no choice). Every
    list of who owes an order starts from it (the home page and the games list, the daily
    summary, the tournament's tables, the API), then leaves out the seats with an order in."""
    forced = set(prompt.forced or [])
    return [name for name in prompt.pending or [] if name not in forced]


def orders_needed(*, user: Any) -> dict[int, Prompt]:
    """The user's active games whose open prompt waits for an order from the user's
    (active) seat and has none of the player's yet: game id -> that prompt (its deadline,
    its phase). A default order does not count as the player's: it stands in for a seat
    that resigned, and the player a handover gave that seat to chooses for itself."""
    if user is None or not getattr(user, "is_authenticated", False):
        return {}
    seats = dict(
        Seat.objects.filter(user=user, status=Seat.Status.ACTIVE, game__status=Game.Status.ACTIVE)
        .values_list("game_id", "name")
    )
    if not seats:
        return {}
    waiting = {
        p.game_id: p
        for p in Prompt.objects.filter(game_id__in=seats, status=Prompt.Status.OPEN)
        if seats[p.game_id] in asked_seats(p)
    }
    ordered = set(
        SealedOrder.objects.filter(prompt__in=list(waiting.values()), is_current=True)
        .exclude(source=SealedOrder.Source.DEFAULT)
        .values_list("prompt__game_id", "seat_name")
    )
    return {g: p for g, p in waiting.items() if (g, seats[g]) not in ordered}


def open_prompts_waiting(*, game_ids: list[int]) -> dict[int, dict[str, Any]]:
    """Each game's open prompt and the seats it asks (``asked_seats``) that have sealed no
    order yet (a resigned seat's default counts as in), in two queries whatever
    the number of games: ``{game_id: {"prompt": Prompt, "waiting": [seat names]}}``.
    Who has sealed is public (the game page shows it); what is sealed is not read."""
    out: dict[int, dict[str, Any]] = {}
    prompts = (
        Prompt.objects.filter(game_id__in=[g for g in game_ids if g], status=Prompt.Status.OPEN)
        .exclude(game__status__in=OVER)  # a game ended early leaves its prompt open
        .order_by("game_id", "number")
    )
    for prompt in prompts:
        out[prompt.game_id] = {"prompt": prompt, "waiting": asked_seats(prompt)}  # newest last
    sealed = SealedOrder.objects.filter(
        prompt_id__in=[o["prompt"].pk for o in out.values()], is_current=True
    ).values_list("prompt__game_id", "seat_name")
    for game_id, name in sealed:
        if name in out[game_id]["waiting"]:
            out[game_id]["waiting"].remove(name)
    return out


def open_games() -> QuerySet[Game]:
    """Public games still forming, newest first."""
    return (
        Game.objects.filter(status=Game.Status.FORMING, is_private=False)
        .select_related("organizer")  # the games list names each one's organizer
        .order_by("-created_at", "-id")
    )


def watchable_games() -> QuerySet[Game]:
    """Public games being played (active or paused), the most recently started first:
    anyone may watch them (the spectator's view)."""
    return Game.objects.filter(
        status__in=(Game.Status.ACTIVE, Game.Status.PAUSED), is_private=False
    ).order_by("-started_at", "-id")


def finished_public_games() -> QuerySet[Game]:
    """Public games that were played and are over, the most recently ended first: their
    results, pages and logs are anyone's to read (they dropped out of every list once
    over: a game-end audit)."""
    return Game.objects.filter(
        status__in=(Game.Status.FINISHED, Game.Status.ABANDONED),
        is_private=False,
        started_at__isnull=False,
    ).order_by("-finished_at", "-id")


def games_matching(games: QuerySet[Game], text: str) -> QuerySet[Game]:
    """Those of ``games`` whose name holds ``text`` (case aside), or that a player named
    ``text`` plays in (a seat of theirs, handed over or not); ``text`` "" changes nothing.
    The player's games are a subquery of their seats: a join of every game to its seats,
    made distinct again, cost an anonymous search seconds on a site of many games."""
    text = text.replace("\x00", "").strip()[:100]
    if not text:
        return games
    playing = Seat.objects.filter(user__username__iexact=text).values("game_id")
    return games.filter(Q(name__icontains=text) | Q(pk__in=playing))
