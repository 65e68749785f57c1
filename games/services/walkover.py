"""Ending a game by walkover, when every seat but one has resigned."""

from __future__ import annotations

from django.utils import timezone

from games.models import Game, Seat
from games.presentation import and_list
from games.services.audit import log_append


def _walkover_locked(*, game: Game, winner: Seat) -> None:
    """End the game because every seat but ``winner`` resigned (the caller holds the
    game's lock): finished, ``winner`` first and the resigned seats tied last, the seed
    and set-up revealed (``game_walkover``: ``engine verify`` replays the prompts played
    and checks the ranking against the resignations logged). The open prompt stays
    unresolved in the records, as when an organizer ends a game."""
    from games.services.audit import end_reveal
    from games.services.notifications import notify_game_notice

    resigned = sorted(
        Seat.objects.filter(game=game, status=Seat.Status.RESIGNED).values_list("name", flat=True)
    )
    game.status = Game.Status.FINISHED
    game.finished_at = timezone.now()
    game.ranking = [[winner.name], resigned]
    game.end_reason = f"every player but {winner.name} resigned; {winner.name} wins"
    game.save(update_fields=["status", "finished_at", "ranking", "end_reason"])
    from games.services.handover import seat_offers_close
    from games.services.queueing import enqueue_game_over_tasks

    seat_offers_close(game=game, why="the game is over")  # logged before the ending entry
    ended = log_append(
        game=game,
        kind="game_walkover",
        payload={"winner": winner.name, "ranking": game.ranking, **end_reveal(game=game)},
    )
    enqueue_game_over_tasks()
    notify_game_notice(
        game=game,
        subject=f"Game over: {winner.name} wins",
        # with the final ranking, as the end of a game played out gives it (a participant's
        # journey: one line, no ranking)
        text=(
            f"every player but {winner.name} resigned, so the game is over: {winner.name} "
            f"wins.\n\nFinal ranking: 1st {winner.name}; {'tied ' if len(resigned) > 1 else ''}"
            f"2nd {and_list(resigned)} (resigned). The game's seed and set-up are revealed in "
            "its log."
        ),
        key=f"walkover:{game.pk}",
        final_table=True,  # the table as it ended, every hand face up
        head=(ended.seq, ended.hash),  # the log's final entry
    )

