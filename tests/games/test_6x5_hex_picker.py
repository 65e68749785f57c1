"""6x5 on the game page: the acting seat alone gets the order picker (action, colour,
then a hex of the board), built from what it may see; pawns carry labels that tell
"ann" and "amy" apart.

The games (fixed seating, first seat fixed, goals fixed so that no move below realizes
one): ``table_game`` seats ann, amy and bob, who place BLUE 1,0, RED -1,0 and YELLOW 0,1,
so it is ann's turn with every tile under a pawn; ``blue_line_game`` seats ann and amy,
who lay all 8 BLUE tiles in a line 1,0 .. 8,0, so the reserve has no BLUE left;
``open_swap_game`` (open game) has them lay all 24 tiles on rows 0 and -1, no two of a
colour side by side, so ann may only MOVE BLACK or SWAP."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.urls import reverse

from games.models import Game
from tests.games.web_support import make_user, page_for

pytestmark = pytest.mark.django_db

GOALS = {  # none of them is the straight line the blue tiles make
    "ann": [[[0, 0], [1, 0], [2, 0], [0, 1], [1, 1]]],
    "amy": [[[0, 0], [0, 1], [0, 2], [1, 2], [2, 2]]],
    "bob": [[[0, 0], [1, 0], [2, 0], [3, 0], [1, 1]]],
}
TABLE_ORDERS = ["PLACE BLUE 1,0", "PLACE RED -1,0", "PLACE YELLOW 0,1"]
BLUE_LINE = [f"PLACE BLUE {q},0" for q in range(1, 9)]
COLOUR_AT = ("BLUE", "RED", "YELLOW")  # (q - r) mod 3: neighbours never share a colour
SWAP_CELLS = [(q, 0) for q in range(1, 13)] + [(q, -1) for q in range(2, 14)]
ALL_TILES = [f"PLACE {COLOUR_AT[(q - r) % 3]} {q},{r}" for q, r in SWAP_CELLS]
NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))


def played_game(names: tuple[str, ...], orders: list[str], options: dict | None = None) -> Game:
    """A 6x5 game seated ``names`` (first to play: names[0]) where ``orders`` were
    played one turn each, in seating order."""
    from games.services.games import game_create_seated
    from games.services.orders import order_submit
    from games.services.resolution import prompt_resolve

    users = [make_user(n) for n in names]
    game = game_create_seated(
        organizer=users[0], ruleset="6x5", users=users, is_private=False, options=options or {},
        setup={"first": names[0], "goals": {n: GOALS[n] for n in names}},
    )  # fmt: skip
    for number, text in enumerate(orders, start=1):
        mover = names[(number - 1) % len(names)]
        order_submit(seat=game.seats.get(name=mover), text=text, source="web")
        assert prompt_resolve(game_id=game.pk, prompt_number=number), text
    game.refresh_from_db()
    assert game.status == "active"
    return game


def table_game() -> Game:
    return played_game(("ann", "amy", "bob"), TABLE_ORDERS)


def blue_line_game(options: dict | None = None) -> Game:
    return played_game(("ann", "amy"), BLUE_LINE, options)


def open_swap_game() -> Game:
    return played_game(("ann", "amy"), ALL_TILES, {"open_game": True})


def picker_form(html: str) -> str:
    return html.split('id="hex-picker"', 1)[1].split("</form>", 1)[0]


def picker_data(html: str) -> Any:
    script = re.search(r'<script id="hex-picker-data" type="application/json">(.*?)</script>', html, re.S)
    return json.loads(script.group(1)) if script else None


def radio_values(form: str, name: str) -> list[str]:
    return re.findall(rf'<input type="radio" name="{name}" value="([^"]+)"', form)


def cell(key: str) -> tuple[int, int]:
    q, r = key.split(",")
    return int(q), int(r)


def key(q: int, r: int) -> str:
    return f"{q},{r}"


def frontier(board: dict[str, str], *, besides_black: bool = False) -> set[str]:
    """Empty hexes touching a tile (a tile other than the black one): the spec's rule
    for PLACE (and MOVE BLACK), worked out here from the board alone."""
    touching = [cell(k) for k, t in board.items() if not (besides_black and t == "K")]
    return {key(q + dq, r + dr) for q, r in touching for dq, dr in NEIGHBOURS} - set(board)


def test_the_picker_is_offered_to_the_acting_seat_only(client):
    game = table_game()
    html = page_for(client, game, "ann")
    assert "Your order — turn" in html
    form = picker_form(html)
    # It posts to the order form, hidden until game.js shows it: without JavaScript the
    # list of legal orders and the text field are still there to use.
    opening = re.search(r'<form method="post" action="([^"]+)"[^>]*id="hex-picker" hidden>', html)
    assert opening and opening.group(1) == reverse("games:order", args=[game.pk])
    assert 'name="text" aria-label="Legal orders"' in html and 'id="id_text"' in html
    assert '<input type="hidden" name="text" value="" data-hex-text>' in form
    # The spec's action words, for the actions legal now: every tile is under a pawn, so
    # no SWITCH; the black tile is free, so MOVE BLACK.
    assert radio_values(form, "pick_action") == ["PLACE", "MOVE BLACK"]
    assert radio_values(form, "pick_colour") == ["BLUE", "RED", "YELLOW"]
    assert 'data-hex-pick="change"' not in form  # change_goal is off
    board = {"0,0": "K", "1,0": "B", "-1,0": "R", "0,1": "Y"}
    data = picker_data(html)
    targets = {a["verb"]: a["targets"] for a in data["actions"]}
    for colour in ("BLUE", "RED", "YELLOW"):
        assert set(targets["PLACE"][colour]) == frontier(board), colour
    assert set(targets["MOVE BLACK"][""]) == frontier(board, besides_black=True)
    # Every target is a hex the board draws, so it can be tapped.
    drawn = set(re.findall(r'<g class="hex[^"]*" data-hex="(-?\d+,-?\d+)"', html))
    assert set(targets["PLACE"]["BLUE"]) <= drawn and set(targets["MOVE BLACK"][""]) <= drawn
    for name in ("amy", "bob", "zed", None):  # the other seats, a signed-in spectator, anyone
        other = page_for(client, game, name)
        assert "hex-picker" not in other and "data-hex-pick" not in other, name
        assert 'data-hex="0,0"' in other, name  # the board itself is drawn for everyone


def test_no_other_seats_hidden_goal_anywhere_in_the_acting_seats_page(client):
    import engine
    from engine.base import dumps
    from games import selectors

    game = table_game()
    state = selectors.current_state(game=game)
    rules = engine.get("6x5")
    html = page_for(client, game, "ann")
    assert picker_data(html) is not None
    mine = rules.secrets(state, "ann")
    assert mine and html.count('aria-label="goal: ') == 1  # ann's own goal only
    assert 'data-card="1"><svg' in html and ">goal 1<" not in html  # one goal: no number
    [own] = state["goals"]["ann"]  # named by its cells, for a screen reader
    assert 'aria-label="goal: ' + " ".join(f"{q},{r}" for q, r in own) + '"' in html
    for seat in ("amy", "bob"):
        for goal in state["goals"][seat]:
            for text in (dumps(goal), json.dumps(goal), " ".join(f"{q},{r}" for q, r in goal)):
                assert text not in html, (seat, text)
        for fragment in rules.secrets(state, seat):
            assert fragment not in html
    # The picker's data: actions and the hexes they may target, nothing about goals.
    data = picker_data(html)
    assert set(data) == {"actions", "black"}
    for action in data["actions"]:
        assert set(action) == {"verb", "hint", "template", "by", "targets"}
    assert "goal" not in json.dumps(data).lower()
    attributes = " ".join(re.findall(r'data-[\w-]+="[^"]*"', html))
    assert "[[" not in attributes and "goal" not in attributes.lower()


def test_colours_with_no_tile_left_are_not_offered(client):
    game = blue_line_game()
    html = page_for(client, game, "ann")
    assert re.search(r"blue: 0\b", html)  # the reserve as the page shows it
    form = picker_form(html)
    assert radio_values(form, "pick_colour") == ["RED", "YELLOW"]
    assert radio_values(form, "pick_action") == ["PLACE", "SWITCH", "MOVE BLACK"]
    data = picker_data(html)
    targets = {a["verb"]: a["targets"] for a in data["actions"]}
    assert sorted(targets["PLACE"]) == ["RED", "YELLOW"]
    assert sorted(targets["SWITCH"]) == ["RED", "YELLOW"]
    # Tiles under a pawn (ann's at 7,0, amy's at 8,0) and the black tile stay put.
    assert set(targets["SWITCH"]["RED"]) == {f"{q},0" for q in range(1, 7)}


def test_with_the_reserve_empty_the_open_game_offers_swap_pairs(client):
    game = open_swap_game()
    html = page_for(client, game, "ann")
    assert re.search(r"blue: 0\b", html) and re.search(r"yellow: 0\b", html)
    form = picker_form(html)
    assert radio_values(form, "pick_action") == ["MOVE BLACK", "SWAP"]
    assert radio_values(form, "pick_colour") == []
    swaps = next(a for a in picker_data(html)["actions"] if a["verb"] == "SWAP")
    # Any two tiles (the black one too) but those under ann's (12,-1) and amy's (13,-1) pawns.
    free = {"0,0"} | {key(q, r) for q, r in SWAP_CELLS} - {"12,-1", "13,-1"}
    assert set(swaps["targets"]) == free
    for first, seconds in swaps["targets"].items():
        assert set(seconds) == free - {first}, first


def test_change_goal_is_offered_when_the_option_is_on(client):
    game = played_game(("ann", "amy"), [], {"change_goal": True})
    form = picker_form(page_for(client, game, "ann"))
    options = re.search(r'<select data-hex-pick="change"[^>]*>(.*?)</select>', form, re.S).group(1)
    assert re.findall(r'<option value="(\d*)"', options) == ["", "1"]  # ann holds one goal


def test_the_picker_shows_the_sealed_order_chosen(client):
    from games.services.orders import order_submit

    game = played_game(("ann", "amy"), [], {"change_goal": True})
    # Any spelling of the order language: the picker shows the choices it stands for.
    order_submit(seat=game.seats.get(name="ann"), text="change 1\nplace y 0 , -1", source="web")
    form = picker_form(page_for(client, game, "ann"))
    assert re.findall(r'value="(\w[\w ]*)" data-hex-pick="(?:action|colour)" checked', form) == [
        "PLACE", "YELLOW",
    ]  # fmt: skip
    assert 'data-hex-pick="hex" value="0,-1"' in form
    assert re.search(r'<option value="1" selected>', form)
    assert "Replace my order" in form


def test_pawns_of_ann_and_amy_are_told_apart(client):
    game = table_game()
    for viewer in ("ann", "bob", None):
        html = page_for(client, game, viewer)
        pawns = dict(
            re.findall(r'<g class="pawn" data-pawn="(\w+)".*?<text[^>]*>\s*([^<]+?)\s*</text>', html, re.S)
        )
        legend = dict(
            re.findall(r'data-pawn-legend="(\w+)"><span class="pawn-key"[^>]*>\s*([^<]+?)\s*</span>', html)
        )
        assert sorted(pawns) == sorted(legend) == ["amy", "ann", "bob"], viewer
        assert pawns == legend, viewer  # the same label on the board and in the legend
        assert pawns["ann"] != pawns["amy"], viewer
        assert len(set(pawns.values())) == 3 and all(len(v) <= 3 for v in pawns.values())


def test_pawn_labels_stay_distinct_when_letters_cannot_tell_seats_apart():
    """A name that begins another one, or two names equal but for case: numbers."""
    from games.templatetags.board_extras import pawn_labels

    for seats in (["ann", "amy", "bob"], ["al", "alice", "bo"], ["Ann", "ann"], ["anna1", "anna2"]):
        labels = pawn_labels(seats)
        assert sorted(labels) == sorted(seats), seats
        assert len(set(labels.values())) == len(seats), (seats, labels)
        assert all(1 <= len(v) <= 3 for v in labels.values()), labels


def test_goals_are_numbered_as_change_names_them_and_the_board_note_fits_the_picker(client):
    """With two goals the CHANGE picker offers "my goal 1" and "my goal 2": the goal
    pictures say which is which (one goal: no number). The board note said hexes to play
    on were dashed, while the picker shows them highlighted."""
    from games.services.games import game_create_seated

    users = [make_user(n) for n in ("ann", "amy")]
    goals = {"ann": GOALS["ann"] + GOALS["amy"], "amy": GOALS["bob"] + GOALS["ann"]}
    game = game_create_seated(
        organizer=users[0], ruleset="6x5", users=users, is_private=False,
        options={"goals": 2, "change_goal": True}, setup={"first": "ann", "goals": goals},
    )  # fmt: skip
    html = page_for(client, game, "ann")
    players = html.split('aria-label="Players"', 1)[1]
    mine = players.split("<strong>ann</strong>", 1)[1].split("</tr>", 1)[0]
    assert 'aria-label="goal 2: ' in mine
    assert re.findall(r'data-card="(\d)"><span class="small muted">goal (\d)</span>', mine) == [("1", "1"), ("2", "2")]
    assert "while you choose where to play, the hexes you may pick are drawn solid, in light blue" in html  # ann's turn: the picker
    theirs = page_for(client, game, "amy").split('aria-label="Players"', 1)[1]
    assert "2 hidden" in theirs.split("<strong>ann</strong>", 1)[1].split("</tr>", 1)[0]
    assert "while you choose where to play, the hexes you may pick are drawn solid, in light blue" not in page_for(client, game, "amy")


def test_each_coloured_tile_says_its_colour_in_a_letter_too(client):
    """An accessibility audit (WCAG 1.4.1): red, blue and yellow tiles differed by their
    fill alone; each now carries R, B or Y (the black tile and empty places none)."""
    html = page_for(client, table_game(), None)
    letters = dict(re.findall(r'<g class="hex" data-hex="([-\d,]+)">.*?(?:class="hex-letter"[^>]*>(\w)</text>|</g>)', html, re.S))
    assert (letters.get("1,0"), letters.get("-1,0"), letters.get("0,1")) == ("B", "R", "Y")
    assert not letters.get("0,0")  # the black tile
    assert html.count('class="hex-letter"') == 3
