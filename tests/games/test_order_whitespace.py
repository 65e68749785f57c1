"""White space in an order: a tab or another horizontal space reads as a space, a line or
paragraph separator as a line break (as the engines read it), so the same order sent
again is the same order."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.models import LogEntry, SealedOrder
from games.notes import order_text
from tests.games.web_support import dealt_5x_game, token_client

pytestmark = pytest.mark.django_db

DEAL = {"ann": ["GANDHI", "CAESAR"], "bob": ["QIN", "DIDO"], "cat": ["NAPOLEON", "TOKUGAWA"]}


@pytest.fixture
def game(django_capture_on_commit_callbacks):
    return dealt_5x_game(
        django_capture_on_commit_callbacks, names=("ann", "bob", "cat"), organizer="ann",
        deal=DEAL, name="Spaces",
    )  # fmt: skip


@pytest.mark.parametrize("text", ["PASS\tCAESAR", "PASS\u1680CAESAR", "PASS\x1fCAESAR", "\tPASS CAESAR\t"])
def test_api_a_tab_between_words_is_the_same_order_again(game, text):
    # Regression (bad-input audit): "PASS\tGENGHIS" replaced the identical "PASS GENGHIS"
    # (a new commitment, an order_replaced entry) while a no-break space was the same.
    client = token_client(game.seats.get(name="ann").user)
    url = f"/api/games/{game.pk}/orders/"
    first = client.post(url, {"text": "PASS CAESAR"}, format="json")
    again = client.post(url, {"text": text}, format="json")
    assert (first.status_code, again.status_code) == (201, 200), again.content
    assert again.json()["commitment"] == first.json()["commitment"]
    assert SealedOrder.objects.filter(prompt__game=game, seat_name="ann").count() == 1
    assert not LogEntry.objects.filter(game=game, kind="order_replaced").exists()


def test_web_a_tab_between_words_is_the_same_order_again(client, game):
    client.force_login(game.seats.get(name="ann").user)
    url = reverse("games:order", args=[game.pk])
    client.post(url, {"text": "PASS CAESAR"})
    client.post(url, {"text": "PASS\tCAESAR"})
    [order] = SealedOrder.objects.filter(prompt__game=game, seat_name="ann")
    assert order.text == "PASS CAESAR"


def test_line_separators_are_the_line_breaks_the_engines_read():
    # 6x5's change_goal order is two lines; the engines split lines as str.splitlines
    # does, so the sealed text shows the same two lines.
    for separator in ("\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1e", "\r"):
        assert order_text(f"CHANGE 1{separator}PLACE RED 0,1") == "CHANGE 1\nPLACE RED 0,1"
    assert order_text("PLAY\tEXPAND.\u2028# a note") == "PLAY EXPAND"
