"""An order the engine refuses, as the player reads it: a sentence (a capital letter, a
full stop), on the game page and in the email answer. A newcomer's walk read "you cannot
hit your own dice" under the order box. A reason that opens with a seat's name keeps the
name as it is written. The API's ``message`` stays the engine's reason, as it was (a client may match it)."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client
from django.urls import reverse

from tests.games.test_4x_dice_hit_picker import exterminate_game
from tests.games.web_support import token_client

pytestmark = pytest.mark.django_db


def _refused_on_the_page(game, text: str) -> tuple[list[str], str]:
    client = Client()
    client.force_login(game.seats.get(name="ann").user)
    answer = client.post(reverse("games:order", args=[game.pk]), {"text": text, "typed": "1"}, follow=True)
    page = html.unescape(answer.content.decode())
    said = [str(m) for m in answer.context["messages"]]
    box = re.search(r'<ul class="errorlist" id="id_text_error"><li>(.*?)</li>', page, re.S)
    return said, box.group(1) if box else ""


def test_a_refused_order_reads_as_a_sentence_on_the_game_page():
    game = exterminate_game()  # ann is asked to eXterminate, with 2 ships
    said, box = _refused_on_the_page(game, "HIT ann 1 SHIP")
    assert said == ["You cannot hit your own dice."], said
    assert box == "You cannot hit your own dice."
    # bob's die 2 shows nothing: the reason opens with a seat's name, left as written
    said, box = _refused_on_the_page(game, "HIT bob 2 SHIP")
    assert len(said) == 1 and said[0].startswith("bob's die 2 shows no ship") and said[0].endswith("."), said
    assert box == said[0]


def test_the_api_keeps_the_engines_reason():
    game = exterminate_game()
    api = token_client(game.seats.get(name="ann").user)
    answer = api.post(f"/api/games/{game.pk}/orders/", {"text": "HIT ann 1 SHIP"}, format="json")
    assert answer.status_code == 422
    assert answer.json()["message"] == "you cannot hit your own dice"


@pytest.mark.parametrize(
    ("reason", "names", "expected"),
    [
        ("you have 3 dice: name 3 areas", [], "You have 3 dice: name 3 areas."),
        ("it is bob's turn, not ann's", ["ann", "bob"], "It is bob's turn, not ann's."),
        ("bob's die 2 shows no ship", ["bob"], "bob's die 2 shows no ship."),
        ("cat is not pending", ["cat"], "cat is not pending."),
        # no stop glued to an order to copy
        ("'NOBODY' is not a 5X card; you can pass: ELIZABETH", [], "'NOBODY' is not a 5X card; you can pass: ELIZABETH"),
        ("write the order on one line: PLACE BLUE 1,0", [], "Write the order on one line: PLACE BLUE 1,0"),
        ("Already a sentence.", [], "Already a sentence."),
        ("1,0 already holds a tile", [], "1,0 already holds a tile."),
        ("write PLACE <colour> <q>,<r> (e.g. 1,0)", [], "Write PLACE <colour> <q>,<r> (e.g. 1,0)."),
        ("", [], ""),
    ],
)
def test_refusal_sentence(reason, names, expected):
    from games.presentation import refusal_sentence

    assert refusal_sentence(reason, names=names) == expected

