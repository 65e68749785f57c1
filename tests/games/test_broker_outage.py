"""From a failure-mode audit: with the broker away, an order that completes a prompt was
stored, then the request answered 500 (enqueueing its resolution failed after the
commit); the player sent it again or gave up. The order's answer is its receipt; the
beat's sweeps pick the work up when the broker is back."""

from __future__ import annotations

import logging

import pytest

import engine
from games.models import Prompt, SealedOrder
from games.selectors import current_state
from games.services.orders import order_submit
from tests.conftest import private_celery_route
from tests.games.core_support import start_fixed
from tests.games.web_support import token_client

pytestmark = pytest.mark.django_db
RULES = engine.get("5x")


@pytest.fixture
def broker_away(tmp_path):
    """The app's broker is a port where nothing listens."""
    with private_celery_route(tmp_path, broker_url="redis://127.0.0.1:1/0"):
        yield


def test_the_last_order_gets_its_receipt_while_the_broker_is_away(
    broker_away, django_capture_on_commit_callbacks, caplog
) -> None:
    game, seats = start_fixed(["ann", "bob", "cat"])
    state = current_state(game=game)
    for name in ("ann", "bob"):
        order_submit(seat=seats[name], text=RULES.legal_orders(state, name)[0], source="web")
    text = RULES.legal_orders(state, "cat")[0]
    with caplog.at_level(logging.WARNING), django_capture_on_commit_callbacks(execute=True):
        answer = token_client(seats["cat"].user).post(
            f"/api/games/{game.pk}/orders/", {"text": text}, format="json"
        )
    assert answer.status_code == 201, answer.content
    assert answer.json()["text"] == text
    assert SealedOrder.objects.filter(prompt__game=game, seat_name="cat", is_current=True).count() == 1
    assert Prompt.objects.get(game=game, number=1).ready_at is not None  # the sweep's cue
    assert "could not queue games.tasks.resolve_prompt" in caplog.text
