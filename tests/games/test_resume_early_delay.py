"""A prompt that became complete while its game was paused (a resignation entered the last
order) in a game with an early-resolution delay: once the game resumes, a real worker
resolves it when the delay is over, not a sweep minutes later (h1's review)."""

from __future__ import annotations

import time

import pytest

import engine
from games.models import Prompt
from games.services.games import game_create, game_join, seat_resign
from games.services.orders import order_submit
from games.services.organizer import game_pause, game_resume
from tests.games.web_support import make_user


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_prompt_completed_while_paused_resolves_when_its_delay_is_over(celery_worker_process):
    users = {n: make_user(n) for n in ("ann", "bob", "cat")}
    game = game_create(organizer=users["ann"], ruleset="5x", seats_count=3, early_resolution_delay_seconds=2)
    for user in users.values():
        game_join(game=game, user=user)
    game.refresh_from_db()
    prompt = Prompt.objects.get(game=game, number=1)
    rules = engine.get("5x")
    from games.selectors import current_state

    state = current_state(game=game)
    for name in ("ann", "bob"):
        order_submit(seat=game.seats.get(name=name), text=rules.legal_orders(state, name)[0], source="web")
    game_pause(game=game, by=users["ann"], reason="a holiday")
    seat_resign(seat=game.seats.get(name="cat"))  # its default order completes the prompt
    prompt.refresh_from_db()
    assert prompt.ready_at is not None and prompt.resolved_at is None
    game.refresh_from_db()
    game_resume(game=game, by=users["ann"])
    until = time.monotonic() + 20  # the delay (2 s) and a worker's pick-up, well before a sweep
    while Prompt.objects.get(pk=prompt.pk).resolved_at is None:
        assert time.monotonic() < until, celery_worker_process.log()
        time.sleep(0.2)
