"""The same order again is the order the engine reads the same (its parsed form), not
the same bytes: a retry written with other spaces or another letter case gets the
receipt of the order already sealed, and nothing is stored or logged."""

from __future__ import annotations

import pytest
from django.urls import reverse

from engine.audit import order_commitment
from games.models import LogEntry, SealedOrder
from tests.games.web_support import dealt_5x_game, eager_celery, token_client  # noqa: F401

pytestmark = pytest.mark.django_db

DEAL = {"ann": ["GANDHI", "CAESAR"], "bob": ["QIN", "DIDO"], "cat": ["NAPOLEON", "TOKUGAWA"]}


@pytest.fixture
def game(django_capture_on_commit_callbacks):
    return dealt_5x_game(
        django_capture_on_commit_callbacks, names=("ann", "bob", "cat"), organizer="ann",
        deal=DEAL, name="Same meaning",
    )  # fmt: skip


def anns_orders(game) -> list[SealedOrder]:
    return list(SealedOrder.objects.filter(prompt__game=game, seat_name="ann").order_by("pk"))


def said(response) -> str:
    return " ".join(str(m) for m in response.context["messages"])


@pytest.mark.parametrize("again", ["PASS  CAESAR", "pass caesar", "  Pass   Caesar  ", "PASS caesar"])
def test_api_the_same_order_in_other_spaces_or_case_is_not_stored_again(game, again):
    # Regression: "PASS  CAESAR" after "PASS CAESAR" was sealed as a new order (a new
    # commitment, an order_replaced entry, 201) though the engine reads both the same.
    client = token_client(game.seats.get(name="ann").user)
    url = f"/api/games/{game.pk}/orders/"
    first = client.post(url, {"text": "PASS CAESAR", "prompt": 1}, format="json")
    retry = client.post(url, {"text": again, "prompt": 1}, format="json")
    assert (first.status_code, retry.status_code) == (201, 200), retry.content
    assert retry.json()["commitment"] == first.json()["commitment"]
    [order] = anns_orders(game)
    assert order.text == "PASS CAESAR"  # the first sealed text is kept
    assert not LogEntry.objects.filter(game=game, kind="order_replaced").exists()


def test_api_another_order_is_still_a_replacement(game):
    client = token_client(game.seats.get(name="ann").user)
    url = f"/api/games/{game.pk}/orders/"
    client.post(url, {"text": "PASS CAESAR"}, format="json")
    other = client.post(url, {"text": "pass gandhi"}, format="json")
    assert other.status_code == 201, other.content
    assert [o.text for o in anns_orders(game)] == ["PASS CAESAR", "pass gandhi"]
    assert LogEntry.objects.filter(game=game, kind="order_replaced").count() == 1


def test_an_order_sealed_with_a_tab_before_tabs_read_as_spaces_is_the_same_order(game):
    # An order sealed before the site read a tab as a space keeps its tab; the same
    # order sent now (with a space) is that order, not a replacement.
    client = token_client(game.seats.get(name="ann").user)
    url = f"/api/games/{game.pk}/orders/"
    first = client.post(url, {"text": "PASS CAESAR"}, format="json")
    [order] = anns_orders(game)
    old = "PASS\tCAESAR"
    SealedOrder.objects.filter(pk=order.pk).update(
        text=old, commitment=order_commitment(salt=order.salt, text=old)
    )
    retry = client.post(url, {"text": "PASS CAESAR"}, format="json")
    assert retry.status_code == 200, retry.content
    assert retry.json()["commitment"] != first.json()["commitment"]  # the old row's
    [kept] = anns_orders(game)
    assert kept.text == old


def test_a_sealed_text_the_engine_refuses_now_is_replaced_by_the_same_order_sent_again(
    game, eager_celery, django_capture_on_commit_callbacks  # noqa: F811
):
    # Regression (a review): "the same order" compared the new text's reading with the
    # stored parsed form, but the resolution reads the stored TEXT again. A sealed text
    # the engine refuses (here an RLM the engine does not drop, written in by hand) was
    # kept for a resend that would mend it, and the seat got the default order.
    client = token_client(game.seats.get(name="ann").user)
    url = f"/api/games/{game.pk}/orders/"
    client.post(url, {"text": "PASS GANDHI", "prompt": 1}, format="json")
    [order] = anns_orders(game)
    bad = "PASS GANDHI\u200f"
    SealedOrder.objects.filter(pk=order.pk).update(
        text=bad, commitment=order_commitment(salt=order.salt, text=bad)
    )
    mended = client.post(url, {"text": "pass gandhi", "prompt": 1}, format="json")
    assert mended.status_code == 201, mended.content
    assert anns_orders(game)[-1].text == "pass gandhi"
    with django_capture_on_commit_callbacks(execute=True):
        for name, text in (("bob", "PASS DIDO"), ("cat", "PASS TOKUGAWA")):
            token_client(game.seats.get(name=name).user).post(url, {"text": text, "prompt": 1}, format="json")
    played = LogEntry.objects.filter(game=game, kind="orders_revealed").get()
    assert played.payload["orders"]["ann"]["text"] == "pass gandhi"
    assert not LogEntry.objects.filter(game=game, kind="nmr_applied").exists()


def test_api_retry_of_the_order_that_closed_the_prompt_in_other_spaces_gets_its_receipt(
    game, eager_celery, django_capture_on_commit_callbacks  # noqa: F811
):
    # The retry of a lost answer to the order that completed prompt 1 (resolved since):
    # the same order in other spaces is that order, not "prompt 1 is not open any more".
    for name, text in (("bob", "PASS DIDO"), ("cat", "PASS TOKUGAWA")):
        token_client(game.seats.get(name=name).user).post(
            f"/api/games/{game.pk}/orders/", {"text": text, "prompt": 1}, format="json"
        )
    client = token_client(game.seats.get(name="ann").user)
    url = f"/api/games/{game.pk}/orders/"
    with django_capture_on_commit_callbacks(execute=True):
        first = client.post(url, {"text": "pass  caesar", "prompt": 1}, format="json")
    assert first.status_code == 201, first.content
    assert game.prompts.get(number=1).status == "resolved"
    retry = client.post(url, {"text": "PASS CAESAR", "prompt": 1}, format="json")
    assert retry.status_code == 200, retry.content
    assert retry.json()["commitment"] == first.json()["commitment"]
    # Another order for that prompt is still refused, and stores nothing.
    other = client.post(url, {"text": "PASS GANDHI", "prompt": 1}, format="json")
    assert other.status_code == 409, other.content
    assert len(anns_orders(game)) == 1


def test_web_the_same_order_in_other_case_is_not_stored_again(client, game):
    client.force_login(game.seats.get(name="ann").user)
    url = reverse("games:order", args=[game.pk])
    client.post(url, {"text": "PASS CAESAR", "prompt": 1}, follow=True)  # its message read
    again = client.post(url, {"text": "pass   caesar", "prompt": 1}, follow=True)
    [order] = anns_orders(game)
    assert order.text == "PASS CAESAR"
    message = said(again)
    assert f"sealed already for decision 1 (receipt {order.commitment[:12]}" in message, message
    assert "nothing new was stored" in message and "Order received" not in message, message


def submit(game, name: str, text: str) -> SealedOrder:
    from games.services.orders import order_submit

    return order_submit(seat=game.seats.get(name=name), text=text, source="api", expected_prompt=1)


def test_4x_dice_the_same_allocation_again_and_another_one():
    from games.services.games import game_create_seated
    from tests.games.web_support import make_user

    users = [make_user(n) for n in ("ann", "bob", "cat")]
    game = game_create_seated(
        organizer=users[0], ruleset="4x-dice", users=users, is_private=False,
        setup={"first": "ann", "rolls": [[2, 0], [1, 0], [0, 1]] * 3},
    )  # fmt: skip
    first = submit(game, "ann", "ALLOCATE EXTERMINATE EXPLORE EXPAND")
    again = submit(game, "ann", "allocate exterminate,  explore expand")
    assert getattr(again, "already_stored", False) and again.pk == first.pk
    # The same areas for other dice is another order (dice are numbered in ALLOCATE order).
    other = submit(game, "ann", "ALLOCATE EXPLORE EXTERMINATE EXPAND")
    assert not getattr(other, "already_stored", False) and other.pk != first.pk
    assert [o.text for o in anns_orders(game)] == [
        "ALLOCATE EXTERMINATE EXPLORE EXPAND", "ALLOCATE EXPLORE EXTERMINATE EXPAND"
    ]


def test_6x5_the_same_placement_again_and_another_one():
    from games.services.games import game_create_seated
    from tests.games.web_support import make_user

    ann, amy = make_user("ann"), make_user("amy")
    game = game_create_seated(
        organizer=ann, ruleset="6x5", users=[ann, amy], is_private=False, setup={"first": "ann"}
    )
    first = submit(game, "ann", "PLACE BLUE 1,0")
    again = submit(game, "ann", " place  blue 1,0 ")
    assert getattr(again, "already_stored", False) and again.pk == first.pk
    other = submit(game, "ann", "PLACE BLUE 0,1")
    assert not getattr(other, "already_stored", False)
    assert [o.text for o in anns_orders(game)] == ["PLACE BLUE 1,0", "PLACE BLUE 0,1"]
