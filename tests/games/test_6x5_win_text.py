"""6x5: the end of the game names the hexes of the board that make the winner's goal,
on the page, in the end email and in STATUS (a player's journey: the engine's text
names the goal card's own cells, which were a red tile and two empty hexes on the
board). The engine's text stays as it is in the log and the API (``engine verify``
compares it)."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from engine.sixbyfive_shapes import canonical, to_json
from games.mail.command_texts import status_text
from games.models import LogEntry, OutboxMessage
from games.services.games import game_create_seated
from games.services.orders import order_submit
from games.services.resolution import prompt_resolve
from tests.games.web_support import make_user

pytestmark = pytest.mark.django_db

LINE = [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)]  # the black tile at 0,0 and four blue
ORDERS = ["PLACE BLUE 1,0", "PLACE RED -1,0", "PLACE BLUE 2,0", "PLACE RED -2,0",
          "PLACE BLUE 3,0", "PLACE RED -3,0", "PLACE BLUE 4,0"]  # fmt: skip
SAID = "ann wins: the black tile at 0,0 and the blue tiles at 1,0 2,0 3,0 4,0 make ann's goal"


def test_the_win_names_the_hexes_that_make_the_goal(client):
    card = to_json(canonical(LINE))
    card_cells = " ".join(f"{q},{r}" for q, r in card)
    assert card_cells != "0,0 1,0 2,0 3,0 4,0"  # the card's cells are not the board's
    ann, amy = make_user("ann"), make_user("amy")
    game = game_create_seated(
        organizer=ann, ruleset="6x5", users=[ann, amy], is_private=False,
        setup={"first": "ann", "goals": {"ann": [card], "amy": [[[0, 0], [0, 1], [0, 2], [1, 2], [2, 2]]]}},
    )  # fmt: skip
    for number, text in enumerate(ORDERS, start=1):
        mover = ("ann", "amy")[(number - 1) % 2]
        order_submit(seat=game.seats.get(name=mover), text=text, source="web")
        assert prompt_resolve(game_id=game.pk, prompt_number=number), text
    game.refresh_from_db()
    assert game.status == "finished" and game.ranking == [["ann"], ["amy"]]
    # The turn emails ask for the order at the top (4X Dice's hits and 6x5's CHANGE take
    # several lines: "as the first line" misled a player's journey).
    first = OutboxMessage.objects.filter(to="ann@example.test").order_by("id").first()  # asked first
    assert "Reply to this email with your order at the top (lines starting with # are ignored)" in first.body
    engine_text = f"ann wins: ann's goal {card_cells} is complete"
    # The log keeps the engine's own text (its hashes and engine verify compare it).
    logged = LogEntry.objects.filter(game=game, kind="prompt_resolved").order_by("-seq").first()
    assert engine_text in logged.payload["events"]

    client.force_login(amy)
    page = html.unescape(client.get(reverse("games:detail", args=[game.pk])).content.decode())
    assert page.count(SAID) == 2, "the banner and the last prompt's events"
    assert engine_text not in page
    last = OutboxMessage.objects.filter(to="amy@example.test", subject__endswith="Game over: ann wins").get()
    assert SAID in last.body and engine_text not in last.body
    # The seat's name keeps its case at the start of the sentence ("Ann wins" for seat
    # ann, an audit: names are case-significant in orders).
    assert f"Game over after turn 7. {SAID}." in last.body
    status = status_text(game.seats.get(name="amy"))
    assert SAID in status and engine_text not in status
