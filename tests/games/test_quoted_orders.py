"""An order in quotes ("“PLAY EXPAND”" from autocorrect): one pair of matching quotes
around the whole order, or around a whole line of a several-line order, is no part of
it, the same on the web, by API and by email (``games.notes.order_text``); a quote
inside an order stays (the engine then refuses it)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.models import LogEntry, SealedOrder
from games.notes import order_text
from tests.games.web_support import dealt_5x_game, token_client

pytestmark = pytest.mark.django_db

DEAL = {"ann": ["GANDHI", "CAESAR"], "bob": ["QIN", "DIDO"], "cat": ["NAPOLEON", "TOKUGAWA"]}


@pytest.mark.parametrize(
    "typed,read",
    [
        ('"PASS CAESAR"', "PASS CAESAR"),
        ("'PASS CAESAR'", "PASS CAESAR"),
        ("“PASS CAESAR”", "PASS CAESAR"),
        ("‘PASS CAESAR’", "PASS CAESAR"),
        ("«PASS CAESAR»", "PASS CAESAR"),
        ("« PASS CAESAR »", "PASS CAESAR"),  # French spacing
        ("„PASS CAESAR“", "PASS CAESAR"),
        ("»PASS CAESAR«", "PASS CAESAR"),
        ("＂PASS CAESAR＂", "PASS CAESAR"),  # full-width, as NFKC reads it
        ("“PASS CAESAR.”", "PASS CAESAR"),
        ("“PASS CAESAR”.", "PASS CAESAR"),
        ("  “PASS CAESAR”  # my note", "PASS CAESAR"),
        # several lines: around the whole order, or around each whole line
        ("“CHANGE 1\nPLACE RED 0,1”", "CHANGE 1\nPLACE RED 0,1"),
        ("“CHANGE 1”\n“PLACE RED 0,1”", "CHANGE 1\nPLACE RED 0,1"),
        ("'CHANGE 1\nPLACE RED 0,1'", "CHANGE 1\nPLACE RED 0,1"),
        ("'CHANGE 1'\n'PLACE RED 0,1'", "CHANGE 1\nPLACE RED 0,1"),
        ("'HIT bob 1 SHIP'\nHIT cat 2 ASTEROID", "HIT bob 1 SHIP\nHIT cat 2 ASTEROID"),
        # one pair only, and only around the whole text or line: a quote inside stays
        ('"“PASS CAESAR”"', "“PASS CAESAR”"),
        ('PASS "CAESAR"', 'PASS "CAESAR"'),
        ('"PASS" "CAESAR"', '"PASS" "CAESAR"'),
        ("“PASS CAESAR", "“PASS CAESAR"),
        ("“PASS CAESAR\"", "“PASS CAESAR\""),
        ("TAKE GANDHI FROM O'Brien", "TAKE GANDHI FROM O'Brien"),
        ('""', '""'),
    ],
)
def test_one_pair_of_quotes_around_the_order_is_no_part_of_it(typed, read):
    assert order_text(typed) == read


@pytest.fixture
def game(django_capture_on_commit_callbacks):
    return dealt_5x_game(
        django_capture_on_commit_callbacks, names=("ann", "bob", "cat"), organizer="ann",
        deal=DEAL, name="Quotes",
    )  # fmt: skip


def test_api_the_sealed_order_again_in_quotes_is_the_same_order(game):
    client = token_client(game.seats.get(name="ann").user)
    url = f"/api/games/{game.pk}/orders/"
    first = client.post(url, {"text": "“PASS CAESAR”"}, format="json")
    again = client.post(url, {"text": '"pass caesar"'}, format="json")
    assert (first.status_code, again.status_code) == (201, 200), (first.content, again.content)
    assert again.json()["commitment"] == first.json()["commitment"]
    [order] = SealedOrder.objects.filter(prompt__game=game, seat_name="ann")
    assert order.text == "PASS CAESAR"
    assert not LogEntry.objects.filter(game=game, kind="order_replaced").exists()


def test_web_an_order_in_quotes_is_sealed_without_them(client, game):
    client.force_login(game.seats.get(name="ann").user)
    client.post(reverse("games:order", args=[game.pk]), {"text": "‘PASS CAESAR’"})
    [order] = SealedOrder.objects.filter(prompt__game=game, seat_name="ann")
    assert order.text == "PASS CAESAR"
