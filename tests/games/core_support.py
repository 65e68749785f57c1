"""Helpers for the games-core service tests: users, games, playing prompts."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from django.contrib.auth import get_user_model

from games.models import Game, Prompt, Seat
from games.selectors import current_prompt, current_state
from games.services.games import game_create, game_join
from games.services.orders import order_submit


def make_users(names: list[str]) -> list:
    """Users with an email address each."""
    User = get_user_model()
    out = []
    for n in names:
        user = User.objects.filter(username=n).first()
        out.append(user or User.objects.create_user(username=n, email=f"{n}@example.com"))
    return out


def make_game(names: list[str], **policy) -> tuple[Game, dict[str, Seat]]:
    """A 5x game that started by itself when the last of ``names`` joined (seating
    shuffled by the seed). Returns the game and its seats by name."""
    users = make_users(["organizer", *names])
    game = game_create(
        organizer=users[0], ruleset="5x", options={}, seats_count=len(names), **policy
    )
    for user in users[1:]:
        game_join(game=game, user=user)
    game.refresh_from_db()
    return game, {s.name: s for s in Seat.objects.filter(game=game)}


def start_fixed(names: list[str], **policy) -> tuple[Game, dict[str, Seat]]:
    """A 5x game started by its organizer with the seating fixed to ``names``."""
    from games.services.games import game_start

    users = make_users(["organizer", *names])
    organizer = users[0]
    game = game_create(
        organizer=organizer, ruleset="5x", options={}, seats_count=6, name="Fixed", **policy
    )
    for user in users[1:]:
        game_join(game=game, user=user)
    game_start(game=game, user=organizer, fixed_order=list(names))
    game.refresh_from_db()
    return game, {s.name: s for s in Seat.objects.filter(game=game)}


def play_prompt(
    game: Game,
    seats: dict[str, Seat],
    choose: Callable[[str, list[str]], str],
    capture,
) -> tuple[Prompt, dict[str, str]]:
    """Submit one order for every pending seat of the open prompt that was asked
    (through ``order_submit``, with on-commit callbacks executed); return the prompt and
    the orders submitted. A seat with one legal order already has it (``Prompt.forced``)."""
    import engine

    prompt = current_prompt(game=game)
    assert prompt is not None
    rules = engine.get(game.ruleset)
    state = current_state(game=game)
    step = {}
    for name in prompt.pending:
        if name in prompt.forced:
            continue
        text = choose(name, rules.legal_orders(state, name))
        step[name] = text
        with capture(execute=True):
            order_submit(seat=seats[name], text=text, source="web")
    return prompt, step


def stored_steps(game: Game) -> list[dict[str, str]]:
    """The orders every resolved prompt was resolved with, as a runner script's steps."""
    from games.models import SealedOrder

    steps: dict[int, dict[str, str]] = {}
    for number, seat, text in (
        SealedOrder.objects.filter(prompt__game=game, is_current=True, prompt__status="resolved")
        .order_by("prompt__number", "seat_name")
        .values_list("prompt__number", "seat_name", "text")
    ):
        steps.setdefault(number, {})[seat] = text
    return [steps[n] for n in sorted(steps)]


@pytest.fixture
def eager_celery() -> Iterator[None]:
    """Run tasks in this process when they are enqueued (service tests need no worker)."""
    from fivex_site.celery import app

    saved = (app.conf.task_always_eager, app.conf.task_eager_propagates)
    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    try:
        yield
    finally:
        app.conf.task_always_eager, app.conf.task_eager_propagates = saved


def play_defaults(game: Game, prompts: int = 200) -> bool:
    """Every pending seat without an order sends the engine's default order, prompt after
    prompt, at most ``prompts`` times. Returns whether the game is over."""
    import engine
    from games.services.resolution import prompt_resolve

    rules = engine.get(game.ruleset)
    for _ in range(prompts):
        prompt = Prompt.objects.filter(game=game, resolved_at__isnull=True).order_by("-number").first()
        if prompt is None:
            break
        state = current_state(game=game)
        for name in prompt.pending:
            seat = Seat.objects.filter(game=game, name=name, status=Seat.Status.ACTIVE).first()
            if seat is None:  # resigned: the server enters its default orders
                continue
            if not seat.orders.filter(prompt=prompt, is_current=True).exists():
                order_submit(seat=seat, text=rules.default_order(state, name), source="web")
        assert prompt_resolve(game_id=game.pk, prompt_number=prompt.number)
    game.refresh_from_db()
    return game.status != Game.Status.ACTIVE
