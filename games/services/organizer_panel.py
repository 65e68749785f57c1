"""What the organizer's tools panel shows: the open prompt's reminders and which tools the
game's state allows now (reads; each tool decides again under the game's lock)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import timezone

from games.models import Game, Prompt
from games.presentation import and_list
from games.services.organizer import PAUSES_PER_DAY, _pauses_last_day, _remind_targets


def reminders_shown(*, game: Game, prompt: Prompt | None, by: Any) -> dict[str, Any] | None:
    """For the organizer's panel, the open prompt's reminders (a second click on Remind
    was refused with "...were already reminded", and nothing said so before):
    ``reminded``, the waiting seats reminded already ("ann and bob", seat order; "" for
    none) and ``were`` ("was" or "were"), ``last``, when the latest of them was, and
    ``fresh``, the seats a click would remind now ("cat"; ""), ``unreachable``, those not
    reminded yet that no email reaches (no address, a deactivated account). None when no
    prompt waits in a running game. A read: ``game_remind`` decides again under the
    game's lock."""
    from games.services.notifications import mailable

    if prompt is None or game.status != Game.Status.ACTIVE or prompt.status != Prompt.Status.OPEN:
        return None
    owing, fresh, last, _sealed = _remind_targets(game=game, prompt=prompt, by=by)
    reminded = [seat.name for seat in owing if seat.name in last]
    return {
        "reminded": and_list(reminded),
        "were": "was" if len(reminded) == 1 else "were",
        # every one the line above names as waiting (it named them twice: a visual review)
        "all": len(reminded) > 1 and len(reminded) == len(owing),
        "last": max(last.values()) if last else None,
        "fresh": and_list([seat.name for seat in fresh if mailable(seat.user)]),
        # not "nobody is left to remind" when one is left that no email reaches (a code
        # review): as the button's answer says it
        "unreachable": and_list([seat.name for seat in fresh if not mailable(seat.user)]),
    }


def paused_remaining_seconds(*, game: Game, prompt: Prompt | None) -> int | None:
    """The time a paused game's open prompt has when it resumes, in seconds (negative:
    paused in the grace after its deadline); None unless the game is paused with a prompt
    open. The organizer's API (``remaining_seconds``) and the game page say it."""
    if prompt is None or game.status != Game.Status.PAUSED:
        return None
    return round(prompt.paused_remaining_seconds or 0)


def tools_state(*, game: Game, by: Any) -> dict[str, Any]:
    """What the game's organizer tools can still do, for ``by`` (the organizer or staff;
    the caller checks): the game's ``status``; the open ``prompt`` (its number, or None)
    with its ``deadline`` (None while paused) and, while paused, ``remaining_seconds``
    (what resuming gives back; negative in the grace); ``extensions`` of its deadline so
    far and ``extensions_max``; ``pauses_left`` in the last day; the seats ``waiting``
    for an order (public: the game page shows them), those ``reminded`` for this prompt
    already and those ``unreachable`` by email; and ``can``, each tool's name to whether
    the game's state allows it now (``offer``: handing a seat over, ``privacy``: making
    the game private or public); ``refused``, why every tool but ``remind`` is refused
    to ``by`` (an organizer who plays in a tournament's game: ``selectors.may_change_game``),
    else None. A read: each service decides again under the lock."""
    from games.selectors import PLAYS_AT_THE_TABLE, current_prompt, may_change_game
    from games.services.notifications import mailable

    cap = getattr(settings, "GAMES_MAX_DEADLINE_EXTENSIONS", 3)
    prompt = current_prompt(game=game)
    running = game.status in (Game.Status.ACTIVE, Game.Status.PAUSED) and prompt is not None
    now = timezone.now()
    pauses_left = max(0, PAUSES_PER_DAY - len(_pauses_last_day(game, now))) if running else 0
    waiting: list[str] = []
    reminded: list[str] = []
    unreachable: list[str] = []
    fresh_mailable = False
    if running:
        owing, fresh, last, _sealed = _remind_targets(game=game, prompt=prompt, by=by)
        waiting = [seat.name for seat in owing]
        reminded = [seat.name for seat in owing if seat.name in last]
        unreachable = [seat.name for seat in fresh if not mailable(seat.user)]
        fresh_mailable = len(unreachable) < len(fresh)
    paused = game.status == Game.Status.PAUSED
    extensions = prompt.extensions if running else 0
    changes = may_change_game(game=game, user=by)
    return {
        "status": game.status,
        "prompt": prompt.number if running else None,
        "deadline": prompt.deadline if running else None,
        "remaining_seconds": paused_remaining_seconds(game=game, prompt=prompt) if running else None,
        "extensions": extensions,
        "extensions_max": cap,
        "pauses_left": pauses_left,
        "waiting": waiting,
        "reminded": reminded,
        "unreachable": unreachable,
        "refused": None if changes else PLAYS_AT_THE_TABLE,
        "can": {
            "extend": changes and running and extensions < cap,
            "remind": running and not paused and fresh_mailable,
            "pause": changes and running and not paused and pauses_left > 0,
            "resume": changes and running and paused,
            "end": changes and game.status not in (Game.Status.FINISHED, Game.Status.ABANDONED),
            "offer": changes and game.status in (Game.Status.ACTIVE, Game.Status.PAUSED),
            "privacy": changes and game.status == Game.Status.FORMING,
        },
    }

