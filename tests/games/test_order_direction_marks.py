"""Bidirectional marks, embeddings, overrides and isolates in an order: dropped before it
is read, on the web and by the API (email: tests/mail/test_processing.py), and never
echoed raw in a refusal."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.models import SealedOrder
from tests.games.web_support import dealt_5x_game, token_client

pytestmark = pytest.mark.django_db

DEAL = {"ann": ["GANDHI", "CAESAR"], "bob": ["QIN", "DIDO"], "cat": ["NAPOLEON", "TOKUGAWA"]}
# Direction marks and controls a phone or mail program in a Hebrew or Arabic locale adds
# around what is typed (RLM, LRM, ALM, embeddings, overrides, isolates).
BIDI = "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


@pytest.fixture
def game(django_capture_on_commit_callbacks):
    return dealt_5x_game(
        django_capture_on_commit_callbacks, names=("ann", "bob", "cat"), organizer="ann",
        deal=DEAL, name="Marks",
    )  # fmt: skip


@pytest.mark.parametrize(
    "text",
    ["\u200fPASS CAESAR\u200f", "\u200ePASS CAESAR", "PASS CAESAR\u200f", "\u202ePASS CAE\u2066SAR",
     "\u061cPASS\u200f CAESAR", "\u2067PASS CAESAR\u2069"],
)  # fmt: skip
def test_api_order_with_direction_marks_is_read_without_them(game, text):
    # Regression (bad-input audit): "PASS GENGHIS\u200f" was refused as "'GENGHIS\u200f'
    # is not a 5X card"; the README says invisible characters are dropped.
    client = token_client(game.seats.get(name="ann").user)
    answer = client.post(f"/api/games/{game.pk}/orders/", {"text": text}, format="json")
    assert answer.status_code == 201, answer.content
    assert SealedOrder.objects.get(prompt__game=game, seat_name="ann").text == "PASS CAESAR"


def test_api_refusal_never_echoes_a_bidi_control(game):
    # Regression (bad-input audit): a leading U+202E came back in the 422's message, and
    # the rest of the line displayed reversed.
    client = token_client(game.seats.get(name="ann").user)
    answer = client.post(
        f"/api/games/{game.pk}/orders/", {"text": f"\u202ePASS GEN{BIDI}GHIS\u200f"}, format="json"
    )
    assert answer.status_code == 422, answer.content
    message = answer.json()["message"]
    assert message.startswith("you were not dealt GENGHIS;"), message
    assert not set(BIDI) & set(message)
    assert not SealedOrder.objects.filter(prompt__game=game).exists()


def test_web_order_with_direction_marks_is_read_and_refusal_is_clean(client, game):
    # Regression (bad-input audit): the web form read "\u200ePASS" as an unknown order.
    client.force_login(game.seats.get(name="ann").user)
    url = reverse("games:order", args=[game.pk])
    refused = client.post(url, {"text": "\u202ePASS GENGHIS\u200f", "typed": "1"}, follow=True)
    page = refused.content.decode()
    said = " ".join(str(m) for m in refused.context["messages"])
    assert "You were not dealt GENGHIS;" in said
    assert not set(BIDI) & set(said + page)
    client.post(url, {"text": "\u200ePASS CAESAR\u200f"})
    assert SealedOrder.objects.get(prompt__game=game, seat_name="ann").text == "PASS CAESAR"


def test_game_names_keep_dropping_bidi_controls_as_orders_do():
    # One definition of the invisible characters for names and orders.
    from games.notes import order_text
    from games.presentation import one_line

    assert one_line(f"Cup{BIDI}") == "Cup" and order_text(f"PASS{BIDI} QIN") == "PASS QIN"


def test_a_refusal_of_text_not_cleaned_first_still_carries_no_bidi_control(game):
    # Every entry point cleans the text; the application error's message is the last
    # guard (a message quoting a player's words, however it reached the service).
    from games.errors import OrderRefused
    from games.services.orders import order_submit

    with pytest.raises(OrderRefused) as refused:
        order_submit(seat=game.seats.get(name="ann"), text="\u202ePASS CAESAR", source="api")
    assert refused.value.message.startswith("PASS is not an order of the"), refused.value.message
    assert not set(BIDI) & set(refused.value.message + str(refused.value))


def _order_box(page: str) -> str:
    """The text in the game page's order box (``<textarea id="id_text">``)."""
    import re

    found = re.search(r'<textarea name="text" id="id_text"[^>]*>(.*?)</textarea>', page, re.S)
    assert found, "no order box on the page"
    return found.group(1)


def test_a_typed_text_refused_by_the_form_comes_back_without_direction_marks(client, game):
    # Regression: the form's refusal (an order of notes only) kept the raw text as the
    # draft, its marks and override included, while the service's refusal dropped them.
    client.force_login(game.seats.get(name="ann").user)
    refused = client.post(
        reverse("games:order", args=[game.pk]),
        {"text": f"\u202e# keep CAESAR{BIDI} for later\u200f", "typed": "1"}, follow=True,
    )  # fmt: skip
    page = refused.content.decode()
    assert "The order is empty: lines starting with # are your notes, not orders." in page
    assert _order_box(page) == "# keep CAESAR for later"
    assert not set(BIDI) & set(page)


def test_a_typed_text_over_the_rate_limit_comes_back_without_direction_marks(client, game, settings):
    # Regression: the rate limit's refusal kept the raw text as the draft, marks included.
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"orders": "1/min", "games_create": "1/hour"},
    }  # fmt: skip
    client.force_login(game.seats.get(name="ann").user)
    url = reverse("games:order", args=[game.pk])
    client.post(url, {"text": "PASS GANDHI"})
    refused = client.post(url, {"text": f"\u202ePASS CAE{BIDI}SAR  # my note\u200f", "typed": "1"}, follow=True)
    page = refused.content.decode()
    assert "Too many orders at once (at most 1 a minute)" in page
    assert _order_box(page) == "PASS CAESAR  # my note"
    assert not set(BIDI) & set(page)
    assert SealedOrder.objects.get(prompt__game=game, seat_name="ann", is_current=True).text == "PASS GANDHI"
