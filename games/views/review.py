"""A game reviewed decision by decision (``games.selectors_review``): one page a resolved
prompt (the table while it was open, the orders, what happened), and the end."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import select_template
from django.urls import reverse
from django.views.decorators.http import require_safe

from games import selectors_review
from games.models import Game
from games.presentation import ruleset_name
from games.rules_text import REVEALED_AT_END
from games.selectors import OVER, seat_for_user
from games.views.common import load_visible_game


def _number(raw: str) -> int | None:
    raw = raw.strip()
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 9 else None


@require_safe
def game_review(request: HttpRequest, game_id: int) -> HttpResponse:
    """The review's first step, or the step ``?prompt=N`` names (the page's jump form)."""
    game = load_visible_game(request, game_id)
    steps = selectors_review.review_steps(game=game)
    if "prompt" in request.GET:
        wanted = _number(request.GET["prompt"])
        if wanted is not None and any(s["number"] == wanted for s in steps):
            return redirect("games:review_step", game_id=game.pk, number=wanted)
        messages.error(
            request,
            f"There is no resolved decision {request.GET['prompt'][:12]!r} in this game: "
            f"its resolved decisions are numbered 1 to {len(steps)}."
            if steps
            else "No decision of this game has been resolved yet.",
        )
    if steps:
        return redirect("games:review_step", game_id=game.pk, number=steps[0]["number"])
    if game.status in OVER and game.started_at:
        return redirect("games:review_end", game_id=game.pk)
    if "prompt" not in request.GET:
        messages.info(request, "No decision of this game has been resolved yet: nothing to review.")
    return redirect("games:detail", game_id=game.pk)


def _context(game: Game, steps: list[dict[str, Any]], at: int | None) -> dict[str, Any]:
    """What every review page shows: the steps, where this one is among them, the links
    before and after it (``at``: a prompt's number; None: the end)."""
    numbers = [s["number"] for s in steps]
    over = game.status in OVER
    index = numbers.index(at) if at is not None else len(numbers)
    previous = numbers[index - 1] if index > 0 else None
    following = numbers[index + 1] if at is not None and index + 1 < len(numbers) else None

    def step_url(number: int) -> str:
        return reverse("games:review_step", args=[game.pk, number])

    end_url = reverse("games:review_end", args=[game.pk]) if over else ""
    return {
        "game": game,
        "over": over,
        "steps": steps,
        "at": at,
        "position": index + 1,
        "first_url": step_url(numbers[0]) if numbers and index > 0 else "",
        "previous_url": step_url(previous) if previous is not None else "",
        "next_url": step_url(following)
        if following is not None
        else (end_url if at is not None else ""),
        "next_is_end": following is None and at is not None and over,
        # The end's own link, unless "Next" leads there already.
        "end_url": end_url if at is not None and following is not None else "",
        # A game in progress: after its last resolved prompt comes the game as it is now.
        "now_url": reverse("games:detail", args=[game.pk]) if not over else "",
        "ruleset_name": ruleset_name(game.ruleset),
        "ruleset_template": select_template(
            [f"games/rulesets/{game.ruleset}.html", "games/rulesets/_generic.html"]
        ).template.name,
        "revealed_words": REVEALED_AT_END.get(game.ruleset, "") if over else "",
    }


@require_safe
def game_review_step(request: HttpRequest, game_id: int, number: int) -> HttpResponse:
    """One resolved prompt: the table while it was open, the orders, what happened."""
    game = load_visible_game(request, game_id)
    seat = seat_for_user(game=game, user=request.user)
    step = selectors_review.review_step(
        game=game, number=number, seat_name=seat.name if seat is not None else None
    )
    if step is None:
        raise Http404(f"Decision {number} of this game has not been resolved.")
    steps = selectors_review.review_steps(game=game)
    ctx = _context(game, steps, number)
    ctx.update(step)
    ctx["own_seat"] = seat if step["own"] else None
    return render(request, "games/game_review.html", ctx)


@require_safe
def game_review_end(request: HttpRequest, game_id: int) -> HttpResponse:
    """The table as the game ended (a game that is over)."""
    game = load_visible_game(request, game_id)
    if game.status not in OVER or not game.started_at:
        messages.info(request, "The game has not ended: its page shows it as it is now.")
        return redirect("games:detail", game_id=game.pk)
    steps = selectors_review.review_steps(game=game)
    ctx = _context(game, steps, None)
    ctx.update(selectors_review.review_end(game=game))
    return render(request, "games/game_review.html", ctx)
