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
    assert f"sealed already for decision 1 (receipt {order.commitment[:12]}" in message, message
    assert "Decision 2 is open now and waits for your order" in message, message
    assert not SealedOrder.objects.filter(prompt__game=game, prompt__number=2).exists()
    # Once ann has ordered for prompt 2, the message says so instead.
    client.post(url, {"text": "PLAY EXPLOIT", "prompt": 2}, follow=True)
    later = client.post(url, {"text": "PASS CAESAR", "prompt": 1}, follow=True)
    assert "Decision 2 is open now; your order for it is in" in said(later), said(later)


@pytest.fixture
def game(django_capture_on_commit_callbacks):
    return dealt_5x_game(
        django_capture_on_commit_callbacks, names=("ann", "bob", "cat"), organizer="ann",
        deal=DEAL, name="Twice",
    )  # fmt: skip


def post_as(client, game, name: str, text: str):
    client.force_login(game.seats.get(name=name).user)
    url = reverse("games:order", args=[game.pk])
    return client.post(url, {"text": text, "prompt": 1}, follow=True)


def test_second_click_on_the_last_order_says_it_was_sealed_already(client, game):
    # Regression: the second click of a double click on the order that completed the
    # prompt (its resolution not run yet) said "Order received and sealed ... Yours was
    # the last order", as if a new order had been stored.
    post_as(client, game, "bob", "PASS DIDO")
    post_as(client, game, "cat", "PASS TOKUGAWA")
    first = post_as(client, game, "ann", "PASS CAESAR")
    assert "Yours was the last order: the decision is being resolved now." in said(first), said(first)
    second = post_as(client, game, "ann", "PASS CAESAR")
    order = SealedOrder.objects.get(prompt__game=game, seat_name="ann")
    message = said(second)
    assert "Order received" not in message and "Yours was the last order" not in message, message
    assert f"sealed already for decision 1 (receipt {order.commitment[:12]}" in message, message
    assert "nothing new was stored" in message, message
    assert "Every order is in: the decision is being resolved now." in message, message


def test_resending_an_order_that_was_not_the_last_never_claims_it_was(client, game):
    # ann ordered first; bob and cat completed the prompt. ann's form sent again is
    # neither a new order nor the last one.
    post_as(client, game, "ann", "PASS CAESAR")
    post_as(client, game, "bob", "PASS DIDO")
    post_as(client, game, "cat", "PASS TOKUGAWA")
    message = said(post_as(client, game, "ann", "PASS CAESAR"))
    assert "last order" not in message and "Order received" not in message, message
    assert "nothing new was stored" in message, message
    assert "Every order is in: the decision is being resolved now." in message, message


def test_replacing_after_every_order_is_in_never_claims_the_last_order(client, game):
    post_as(client, game, "ann", "PASS CAESAR")
    post_as(client, game, "bob", "PASS DIDO")
    post_as(client, game, "cat", "PASS TOKUGAWA")
    message = said(post_as(client, game, "ann", "PASS GANDHI"))
    assert "Order received and sealed" in message and "last order" not in message, message
    assert "Every order is in: the decision is being resolved now, with this order." in message


def test_resending_while_the_early_resolution_delay_runs(client, game):
    game.early_resolution_delay_seconds = 3600
    game.save(update_fields=["early_resolution_delay_seconds"])
    post_as(client, game, "bob", "PASS DIDO")
    post_as(client, game, "cat", "PASS TOKUGAWA")
    post_as(client, game, "ann", "PASS CAESAR")
    message = said(post_as(client, game, "ann", "PASS CAESAR"))
    assert "Order received" not in message and "nothing new was stored" in message, message
    assert "Every order is in: the decision is resolved in a moment" in message, message
    assert "you may still replace yours" in message, message


def test_resending_before_every_order_is_in(client, game):
    post_as(client, game, "ann", "PASS CAESAR")
    message = said(post_as(client, game, "ann", "PASS CAESAR"))
    assert "Order received" not in message and "nothing new was stored" in message, message
    assert "You may replace it until the decision is resolved." in message, message


def test_an_old_order_form_sent_again_while_paused_says_the_game_is_paused(
    client, eager_celery, django_capture_on_commit_callbacks  # noqa: F811
):
    # Regression (an audit): while the game was paused, re-posting the prompt-1 form said
    # "Prompt 2 is open now and waits for your order", though no order is accepted then.
    from games.services.organizer import game_pause

    game = dealt_5x_game(
        django_capture_on_commit_callbacks, names=("ann", "bob", "cat"), organizer="ann",
        deal=DEAL, name="Paused",
    )  # fmt: skip
    url = reverse("games:order", args=[game.pk])
    for name, text in (("ann", "PASS CAESAR"), ("bob", "PASS DIDO"), ("cat", "PASS TOKUGAWA")):
        client.force_login(game.seats.get(name=name).user)
        with django_capture_on_commit_callbacks(execute=True):
            client.post(url, {"text": text, "prompt": 1}, follow=True)
    game.refresh_from_db()
    assert game.prompts.get(number=2).status == "open"
    with django_capture_on_commit_callbacks(execute=True):
        game_pause(game=game, by=game.organizer)
    client.force_login(game.seats.get(name="ann").user)
    message = said(client.post(url, {"text": "PASS CAESAR", "prompt": 1}, follow=True))
    assert "nothing new was stored" in message, message
    assert "waits for your order" not in message, message
    assert message.endswith(
        " Decision 2 is open, but the game is paused: your order for it is accepted again when "
        "the game resumes."
    ), message


def panel_note(client, game, name: str) -> str:
    """The line under the seat's sealed order in the order panel of the game page."""
    import re

    client.force_login(game.seats.get(name=name).user)
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    receipt = page.split('id="receipt"', 1)[1].split("</div>", 1)[0]
    return " ".join(re.sub(r"<[^>]+>", " ", receipt.split("Submitted", 1)[1]).split())


def test_the_order_panel_says_what_is_true_in_each_state(client, game):
    # Regression (an audit): the panel said "You may replace it until the prompt
    # resolves." also once every order was in and the prompt was being resolved.
    post_as(client, game, "ann", "PASS CAESAR")
    assert panel_note(client, game, "ann").endswith(". You may replace it until the decision is resolved.")
    post_as(client, game, "bob", "PASS DIDO")
    post_as(client, game, "cat", "PASS TOKUGAWA")  # complete; its resolution not run (no worker)
    assert panel_note(client, game, "ann").endswith(". Every order is in: the decision is being resolved now.")


def test_the_order_panel_during_the_early_resolution_delay(client, game):
    game.early_resolution_delay_seconds = 3600
    game.save(update_fields=["early_resolution_delay_seconds"])
    for name, text in (("ann", "PASS CAESAR"), ("bob", "PASS DIDO"), ("cat", "PASS TOKUGAWA")):
        post_as(client, game, name, text)
    assert panel_note(client, game, "bob").endswith(
        ". Every order is in: the decision is resolved in a moment, and until then you may still replace yours."
    )


def test_a_replacement_says_it_takes_the_earlier_orders_place(client, game):
    # Guards against the phone walk's "Order received and sealed" after a replacement,
    # word for word what the first order was told: had the first one gone, or did both
    # count? The panel below showed only the new one.
    first = said(post_as(client, game, "ann", "PASS CAESAR"))
    assert first.startswith("Order received and sealed (receipt "), first
    assert "earlier" not in first, first
    order = SealedOrder.objects.get(prompt__game=game, seat_name="ann", is_current=True)
    second = said(post_as(client, game, "ann", "PASS GANDHI"))
    new = SealedOrder.objects.get(prompt__game=game, seat_name="ann", is_current=True)
    assert new.pk != order.pk and new.text == "PASS GANDHI"
    assert second.startswith(
        f"Order received and sealed in place of your earlier one (receipt {new.commitment[:12]}…)."
    ), second
