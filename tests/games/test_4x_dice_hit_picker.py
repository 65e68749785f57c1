"""4X Dice on the game page: dice carry their numbers (the numbers HIT orders use), and
the eXterminate prompt offers one row of choices per hit to the acting seat only.

The game (fixed seating ann, bob, cat; ann first; set-up rolls below): ann allocates her
[2, 0] die to EXTERMINATE, so on her first turn she has 2 ships to hit with. bob's die 2
and cat's die 3 show nothing and cat's die 1 shows a ship only. bob and cat have ships on
eXterminate too, but it is not their turn: they are offered no picker."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.urls import reverse

from games.models import Game
from tests.games.web_support import make_user, page_for

pytestmark = pytest.mark.django_db

ROLLS = [
    [2, 0], [1, 0], [0, 1],  # ann
    [1, 1], [0, 0], [2, 2],  # bob
    [1, 0], [0, 2], [0, 0],  # cat
]  # fmt: skip
SETUP_ORDERS = {
    "ann": "ALLOCATE EXTERMINATE EXPLORE EXPAND",
    "bob": "ALLOCATE EXPLORE EXPAND EXTERMINATE",
    "cat": "ALLOCATE EXTERMINATE EXPAND EXTRACT",
}


def exterminate_game(*, resolve: bool = True) -> Game:
    """The 3-seat game above; with ``resolve`` the set-up is played, so ann is asked to
    eXterminate (prompt 2)."""
    from games.services.games import game_create_seated
    from games.services.orders import order_submit
    from games.services.resolution import prompt_resolve

    users = [make_user(n) for n in ("ann", "bob", "cat")]
    game = game_create_seated(
        organizer=users[0], ruleset="4x-dice", users=users, is_private=False,
        setup={"first": "ann", "rolls": ROLLS},
    )  # fmt: skip
    if resolve:
        for name, text in SETUP_ORDERS.items():
            order_submit(seat=game.seats.get(name=name), text=text, source="web")
        assert prompt_resolve(game_id=game.pk, prompt_number=1)
    game.refresh_from_db()
    return game


def die_numbers(html: str) -> list[str]:
    return re.findall(r'class="die-no"[^>]*>\s*(\d+)\s*<', html)


def table_rows(html: str) -> dict[str, str]:
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return {
        re.search(r"<strong>(\w+)</strong>", row).group(1): row
        for row in body.split("</tr>")
        if "<strong>" in row
    }


def picker_targets(html: str) -> Any:
    script = re.search(r'<script id="hit-targets" type="application/json">(.*?)</script>', html, re.S)
    return json.loads(script.group(1)) if script else None


def test_every_die_shows_its_number_in_the_table_and_in_your_dice(client):
    game = exterminate_game()
    for name in ("ann", "bob", None):
        html = page_for(client, game, name)
        rows = table_rows(html)
        assert sorted(rows) == ["ann", "bob", "cat"]
        for seat, row in rows.items():
            # Numbered from 1 before each die, in the order the seat allocated them.
            assert die_numbers(row) == ["1", "2", "3"], (name, seat)
            numbered = re.findall(r'die-no[^>]*>(\d)</span><span class="die"[^>]*>(\d+/\d+)<', row)
            assert len(numbered) == 3
        assert re.findall(r'die-no[^>]*>(\d)</span><span class="die"[^>]*>(\d+/\d+)<', rows["bob"]) == [
            ("1", "1/1"), ("2", "0/0"), ("3", "2/2"),
        ]  # fmt: skip
        if name is None:
            assert 'id="my-dice"' not in html
        else:
            mine = html.split('id="my-dice"', 1)[1].split("</p>", 1)[0]
            assert die_numbers(mine) == ["1", "2", "3"]


def test_the_hit_picker_is_offered_to_the_acting_seat_only(client):
    game = exterminate_game()
    ann = page_for(client, game, "ann")
    assert "Your order — exterminate" in ann
    form = ann.split('id="hit-picker"', 1)[1].split("</form>", 1)[0]
    # One row per ship on ann's eXterminate dice: she has one [2, 0] die there.
    assert form.count("data-hit-row") == 2
    seats = re.findall(r'<select data-hit="seat"[^>]*>(.*?)</select>', form, re.S)
    assert len(seats) == 2
    for options in seats:
        assert re.findall(r'<option value="(\w*)"', options) == ["", "bob", "cat"]
        assert ">no hit</option>" in options
    # Only the other seats' dice that show something, each with what it shows.
    assert picker_targets(ann) == [
        {"seat": "bob", "dice": [{"n": 1, "ships": 1, "asteroids": 1}, {"n": 3, "ships": 2, "asteroids": 2}]},
        {"seat": "cat", "dice": [{"n": 1, "ships": 1, "asteroids": 0}, {"n": 2, "ships": 0, "asteroids": 2}]},
    ]
    # Nothing chosen yet: the order is PASS; the picker posts to the order form.
    assert '<input type="hidden" name="text" value="PASS" data-hit-text>' in form
    # Without JavaScript the picker stays hidden and the list and the text field work.
    opening = re.search(r'<form method="post" action="([^"]+)"[^>]*id="hit-picker" hidden>', ann)
    assert opening and opening.group(1) == reverse("games:order", args=[game.pk])
    assert '<select name="text" aria-label="Legal orders">' in ann and 'id="id_text"' in ann
    for name in ("bob", "cat", "zed", None):  # the other seats, a signed-in spectator, anyone
        html = page_for(client, game, name)
        assert "hit-picker" not in html and "hit-targets" not in html and "data-hit" not in html, name


def test_no_hit_picker_while_allocating_or_in_other_games(client):
    game = exterminate_game(resolve=False)
    html = page_for(client, game, "ann")
    assert "Your order — allocate" in html
    assert "hit-picker" not in html and "hit-targets" not in html
    from games.services import games as game_services

    users = [make_user(n) for n in ("pa", "pb")]
    other = game_services.game_create_seated(organizer=users[0], ruleset="6x5", users=users, is_private=False)
    for user in users:
        client.force_login(user)
        assert "hit-picker" not in client.get(reverse("games:detail", args=[other.pk])).content.decode()


def test_the_picker_shows_the_sealed_hits_chosen(client):
    from games.services.orders import order_submit

    game = exterminate_game()
    order_submit(seat=game.seats.get(name="ann"), text="hit cat 2 asteroid; BOB 1 SHIP", source="web")
    html = page_for(client, game, "ann")
    form = html.split('id="hit-picker"', 1)[1].split("</form>", 1)[0]
    chosen = re.findall(r'<option value="(\w+)" selected>', form)
    assert chosen == ["cat", "2", "ASTEROID", "bob", "1", "SHIP"]
    assert "Replace my order" in form
    # Die and kind choices are those of the chosen die: cat's die 2 shows asteroids only.
    first_row = form.split("data-hit-row")[1]
    kinds = re.search(r'<select data-hit="kind"[^>]*>(.*?)</select>', first_row, re.S).group(1)
    assert re.findall(r'<option value="(\w+)"', kinds) == ["ASTEROID"]


def test_hit_rows_follow_the_ships_and_what_the_other_dice_can_take():
    """Rows come from the seat's view (its eXterminate ships, the other dice), not from
    how many legal orders there are."""
    from games.pickers import hit_picker

    def view(ann_dice: list, bob_dice: list, phase: str = "exterminate", pending: str = "ann") -> dict:
        return {
            "phase": phase, "pending": [pending],
            "players": {
                "ann": {"dice": [{"face": f, "area": a} for f, a in ann_dice]},
                "bob": {"dice": [{"face": f, "area": "EXPLORE"} for f in bob_dice]},
                "cat": {"dice": [{"face": [0, 0], "area": "EXPAND"}]},
            },
        }  # fmt: skip

    four_ships = [([2, 0], "EXTERMINATE"), ([2, 2], "EXTERMINATE"), ([1, 1], "EXPLORE")]
    one = hit_picker(ruleset="4x-dice", view=view(four_ships, [[0, 0], [1, 0]]), seat_name="ann")
    assert one["ships"] == 4 and len(one["rows"]) == 1  # bob's one ship is all there is to hit
    assert one["targets"] == [{"seat": "bob", "dice": [{"n": 2, "ships": 1, "asteroids": 0}]}]
    three = hit_picker(ruleset="4x-dice", view=view(four_ships, [[2, 2], [0, 1]]), seat_name="ann")
    assert [r["number"] for r in three["rows"]] == [1, 2, 3, 4] and not three["cut"]
    many = hit_picker(ruleset="4x-dice", view=view([([40, 0], "EXTERMINATE")], [[40, 40]]), seat_name="ann")
    assert many["cut"] and 1 < len(many["rows"]) < 40
    for args in (
        {"ruleset": "4x-dice", "view": view(four_ships, [[2, 2]], phase="allocate"), "seat_name": "ann"},
        {"ruleset": "4x-dice", "view": view(four_ships, [[2, 2]], pending="bob"), "seat_name": "ann"},
        {"ruleset": "5x", "view": view(four_ships, [[2, 2]]), "seat_name": "ann"},
        {"ruleset": "4x-dice", "view": view(four_ships, [[0, 0]]), "seat_name": "ann"},
    ):
        assert hit_picker(**args) is None, args


def test_a_sealed_order_hitting_one_die_twice_shows_each_row_what_is_left(client):
    """Row 2 of the page (JavaScript or not) offers the dice as row 1 leaves them: after
    a SHIP hit on cat's die 1 (it shows 1/0) that die is gone from row 2, and cat's die
    2 (0/2) after one ASTEROID hit shows 0/1."""
    from games.services.orders import order_submit

    game = exterminate_game()
    order_submit(
        seat=game.seats.get(name="ann"), text="HIT cat 1 SHIP; HIT cat 2 ASTEROID", source="web"
    )
    html = page_for(client, game, "ann")
    form = html.split('id="hit-picker"', 1)[1].split("</form>", 1)[0]
    first, second = form.split("data-hit-row")[1:3]

    def dice_offered(row: str) -> list[str]:
        dice = re.search(r'<select data-hit="die"[^>]*>(.*?)</select>', row, re.S).group(1)
        return [t.strip() for t in re.findall(r"<option[^>]*>([^<]*)</option>", dice)]

    assert dice_offered(first) == ["1: 1 ship", "2: 2 asteroids"]
    assert dice_offered(second) == ["2: 2 asteroids"]
    assert re.findall(r'<option value="(\w+)" selected>', second) == ["cat", "2", "ASTEROID"]

    order_submit(
        seat=game.seats.get(name="ann"), text="HIT cat 2 ASTEROID; HIT cat 2 ASTEROID", source="web"
    )
    form = page_for(client, game, "ann").split('id="hit-picker"', 1)[1].split("</form>", 1)[0]
    first, second = form.split("data-hit-row")[1:3]
    assert dice_offered(second) == ["1: 1 ship", "2: 1 asteroid"]


def test_the_picker_text_is_the_hits_its_rows_keep():
    """A preselected hit that the rows above leave nothing for is shown as "no hit", and
    the order the picker would send (its "text") leaves it out too."""
    from games.pickers import hit_picker

    view = {
        "phase": "exterminate", "pending": ["ann"],
        "players": {
            "ann": {"dice": [{"face": [3, 0], "area": "EXTERMINATE"}]},
            "bob": {"dice": [{"face": [1, 0], "area": "EXPLORE"}, {"face": [0, 2], "area": "EXPAND"}]},
        },
    }  # fmt: skip
    picker = hit_picker(
        ruleset="4x-dice", view=view, seat_name="ann",
        current_order="HIT bob 1 SHIP; HIT bob 1 SHIP; HIT bob 2 ASTEROID",
    )  # fmt: skip
    assert [(r["seat"], r["die"], r["kind"]) for r in picker["rows"]] == [
        ("bob", 1, "SHIP"), ("", 0, ""), ("bob", 2, "ASTEROID"),
    ]  # fmt: skip
    assert picker["text"] == "HIT bob 1 SHIP; HIT bob 2 ASTEROID"
    only_dropped = hit_picker(
        ruleset="4x-dice", view={**view, "players": {**view["players"], "bob": {"dice": [
            {"face": [1, 0], "area": "EXPLORE"}, {"face": [1, 0], "area": "EXPAND"}]}}},
        seat_name="ann", current_order="HIT bob 1 SHIP; HIT bob 1 SHIP",
    )  # fmt: skip
    assert [r["seat"] for r in only_dropped["rows"]] == ["bob", ""]
    assert only_dropped["text"] == "HIT bob 1 SHIP"
    assert hit_picker(ruleset="4x-dice", view=view, seat_name="ann")["text"] == "PASS"


@pytest.mark.parametrize(
    ("resolve", "typed", "reading"),
    [
        (False, "allocate exterminate, explore,expand", "ALLOCATE EXTERMINATE EXPLORE EXPAND"),
        (True, "hit bob 1 ship;hit  cat 1 ship", "HIT bob 1 SHIP; HIT cat 1 SHIP"),
        (True, "pass\n# nothing to hit", "PASS"),
    ],
)
def test_an_order_typed_otherwise_reads_back_in_the_order_language(client, resolve, typed, reading):
    """"Understood as" gave the parse's fields ("kind: allocate; areas: EXTERMINATE
    EXPLORE EXPAND") for an ALLOCATE typed with commas."""
    from games.services.orders import order_submit

    game = exterminate_game(resolve=resolve)
    order_submit(seat=game.seats.get(name="ann"), text=typed, source="web")
    html = page_for(client, game, "ann")
    said = re.search(r'id="order-reading">Understood as: <code>([^<]*)</code>', html)
    assert (said.group(1) if said else "") == reading
    assert "kind:" not in html and "areas:" not in html


def test_an_email_lists_each_hit_once_and_says_how_many_may_be_joined():
    """An email-only player: the eXterminate email listed every combination of hits (80
    lines and "... and 902 more" with 8 ships) and never said how many were allowed."""
    from games.models import Prompt
    from games.services.notifications import _seat_context
    from games.services.orders import prompt_state

    game = exterminate_game()
    prompt = Prompt.objects.get(game=game, number=2)
    context = _seat_context(game=game, seat=game.seats.get(name="ann"), state=prompt_state(prompt=prompt),
                            prompt=prompt)  # fmt: skip
    lines = context["legal_orders"]
    assert not any(";" in line for line in lines[:-1])  # one hit a line
    assert "PASS" in lines and any(line.startswith("HIT bob ") for line in lines)
    assert lines[-1].startswith("or up to 2 of these hits (one per ship) joined by ';', e.g. HIT ")


def test_help_and_status_by_email_list_the_hits_the_same_way():
    from games.mail.command_texts import status_text
    from games.mail.reply_texts import legal_orders_text

    game = exterminate_game()
    seat = game.seats.get(name="ann")
    for text in (legal_orders_text(seat), status_text(seat)):
        listed = text.split("Legal orders now:", 1)[1]
        assert "or up to 2 of these hits (one per ship) joined by ';'" in listed
        assert not any(";" in line for line in listed.splitlines() if line.startswith("    HIT"))


def test_a_die_number_python_calls_a_digit_but_int_refuses_preselects_nothing():
    """'²' passes str.isdigit() and makes int() raise: the picker reads such an order as
    one it cannot show (nothing preselected), never a 500 on the game page."""
    from games.pickers import _offered_hits

    targets = [{"seat": "cat", "dice": [{"n": 2, "ships": 0, "asteroids": 1}]}]
    assert _offered_hits("HIT cat 2 ASTEROID", targets) == [("cat", 2, "ASTEROID")]
    assert _offered_hits("HIT cat ² ASTEROID", targets) == []
