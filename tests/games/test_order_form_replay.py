"""An order form sent again after its prompt resolved (a double submit, Back and send
again): the order's receipt again, and a message that says what is true."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.models import SealedOrder
from tests.games.web_support import dealt_5x_game, eager_celery  # noqa: F401

pytestmark = pytest.mark.django_db

DEAL = {"ann": ["GANDHI", "CAESAR"], "bob": ["QIN", "DIDO"], "cat": ["NAPOLEON", "TOKUGAWA"]}


def said(response) -> str:
    return " ".join(str(m) for m in response.context["messages"])


def test_an_old_order_form_sent_again_says_it_was_sealed_already(
    client, eager_celery, django_capture_on_commit_callbacks  # noqa: F811
):
    # Regression (bad-input audit): re-posting the prompt-1 form after prompt 1 resolved
    # said "Order received and sealed ... Yours was the last order: the prompt is being
    # resolved now", while nothing was stored, cat's order was the last and prompt 2
    # waited for ann.
    game = dealt_5x_game(
        django_capture_on_commit_callbacks, names=("ann", "bob", "cat"), organizer="ann",
        deal=DEAL, name="Replay",
    )  # fmt: skip
    url = reverse("games:order", args=[game.pk])
    for name, text in (("ann", "PASS CAESAR"), ("bob", "PASS DIDO"), ("cat", "PASS TOKUGAWA")):
        client.force_login(game.seats.get(name=name).user)
        with django_capture_on_commit_callbacks(execute=True):
            client.post(url, {"text": text, "prompt": 1}, follow=True)
    game.refresh_from_db()
    assert game.prompts.get(number=2).status == "open"
    ann = game.seats.get(name="ann")
    client.force_login(ann.user)
    with django_capture_on_commit_callbacks(execute=True):
        again = client.post(url, {"text": "PASS CAESAR", "prompt": 1}, follow=True)
    order = SealedOrder.objects.get(prompt__game=game, prompt__number=1, seat_name="ann")
    message = said(again)
    assert "last order" not in message and "Order received" not in message, message
    assert f"sealed already for prompt 1 (receipt {order.commitment[:12]}" in message, message
    assert "Prompt 2 is open now and waits for your order" in message, message
    assert not SealedOrder.objects.filter(prompt__game=game, prompt__number=2).exists()
    # Once ann has ordered for prompt 2, the message says so instead.
    client.post(url, {"text": "PLAY EXPLOIT", "prompt": 2}, follow=True)
    later = client.post(url, {"text": "PASS CAESAR", "prompt": 1}, follow=True)
    assert "Prompt 2 is open now; your order for it is in" in said(later), said(later)
