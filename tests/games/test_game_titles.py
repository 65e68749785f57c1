"""A game without a name is called by its ruleset's own name and number everywhere:
its page, the lists, the emails' subjects and bodies."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games.models import OutboxMessage
from games.services.games import game_create, game_join
from tests.games.web_support import make_user

pytestmark = pytest.mark.django_db


def test_an_unnamed_game_is_called_by_its_rulesets_name_and_number(client):
    users = [make_user(n) for n in ("ann", "bob")]
    game = game_create(organizer=users[0], ruleset="4x-dice", options={}, seats_count=2)
    for user in users:
        game_join(game=game, user=user)
    title = f"4X Dice game {game.pk}"
    assert str(game) == title
    client.force_login(users[0])
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert f"<h1>{title}</h1>" in page
    for url in (reverse("home"), reverse("games:list")):
        listing = client.get(url).content.decode()
        # The ruleset's id is no word of the page (the games filter's option values hold it)
        shown = re.sub(r"<[^>]+>", " ", listing)
        assert title in listing and ">4X Dice</td>" in listing and "4x-dice" not in shown
    started = OutboxMessage.objects.filter(game=game, kind="game_started")
    assert started.count() == 2
    for message in started:
        assert message.subject.startswith(f"[{title}] ")
        assert message.body.startswith(f"{title} — ")


def test_a_named_game_keeps_its_name():
    (ann,) = [make_user("ann")]
    game = game_create(organizer=ann, ruleset="5x", options={}, seats_count=3, name="Tuesday league")
    assert str(game) == game.title == "Tuesday league"


def test_a_5x_turn_email_reads_as_the_table_and_keeps_others_leaders_secret():
    """The 5X emails show the seat's hand, its leaders, the Wonders and each player in
    words (not the view's keys); another seat's dealt leaders never appear."""
    deal = {"ann": ["GANDHI", "CAESAR"], "bob": ["QIN", "DIDO"], "cat": ["NAPOLEON", "TOKUGAWA"]}
    users = [make_user(n) for n in ("ann", "bob", "cat")]
    game = game_create(organizer=users[0], ruleset="5x", options={}, seats_count=3, setup={"deal": deal})
    for user in users:
        game_join(game=game, user=user)
    for name in deal:
        body = OutboxMessage.objects.get(game=game, kind="game_started", to=f"{name}@example.test").body
        assert "Great Leader draft." in body
        assert "Your hand: EXPLOIT, EXTERMINATE, EXPAND, EXPLORE, EXCAVATE" in body
        dealt = re.search(r"^Leaders dealt to you: (.*)$", body, re.M).group(1)
        # Each leader as orders name it, with its full name and the action it counts as,
        # as the game page shows them (the email gave the bare ids).
        assert sorted(re.findall(r"\b([A-Z]+) \(", dealt)) == sorted(deal[name])
        if name == "ann":
            assert "GANDHI (Gandhi, an " in dealt and "CAESAR (Caesar, an " in dealt
        if name == "bob":
            assert "QIN (Qin Shi Huang, an Exploit)" in dealt
        # The spec's Wonder table.
        assert "  A the Pyramids, 1.5 VP (+2 resources when built): up for bids now" in body
        assert "  B the Great Wall, 2 VP (+1 resource when built): to come" in body
        assert "  G the Rocket, 4.5 VP: to come" in body
        assert f"  {name} (you): 1 VP, 3 resources, no Wonder, 5 cards in hand; discard pile: empty" in body
        assert "hand_size" not in body and "resources: 3" not in body
        for other, leaders in deal.items():
            if other != name:
                assert not any(leader in body for leader in leaders), (name, other)


def test_a_4x_dice_turn_email_lists_the_dice_and_tracks_in_words():
    users = [make_user(n) for n in ("ann", "bob")]
    game = game_create(
        organizer=users[0], ruleset="4x-dice", options={}, seats_count=2,
        setup={"first": "bob", "rolls": [[2, 0], [1, 1], [0, 2], [1, 0], [2, 2], [0, 1]]},
    )  # fmt: skip
    for user in users:
        game_join(game=game, user=user)
    body = OutboxMessage.objects.get(game=game, kind="game_started", to="ann@example.test").body
    assert "Set-up: every seat allocates its first roll. bob moves first each round." in body
    seats = {line.split(":")[0].strip(): line for line in body.splitlines() if "eXplore 0" in line}
    assert set(seats) == {"ann (you)", "bob"}
    # Each seat's three dice come from the fixed rolls, in seating order: one seat has
    # 2/0, 1/1, 0/2 and the other 1/0, 2/2, 0/1, none allocated yet.
    dice = sorted(line.split("; dice ")[1] for line in seats.values())
    # Numbered as HIT orders number them (an email-only player counted positions).
    assert dice == ["die 1: 1/0 -> ?, die 2: 2/2 -> ?, die 3: 0/1 -> ?",
                    "die 1: 2/0 -> ?, die 2: 1/1 -> ?, die 3: 0/2 -> ?"]
    mine = seats["ann (you)"].split("; dice ")[1]
    assert f"Your dice (ships/asteroids -> area): {mine}" in body
    assert "explore: 0" not in body


def test_a_6x5_turn_email_lists_tiles_by_colour_and_only_the_seats_own_goal():
    goals = {"ann": [[[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]]], "bob": [[[0, 0], [0, 1], [0, 2], [0, 3], [1, 2]]]}
    users = [make_user(n) for n in ("ann", "bob")]
    game = game_create(
        organizer=users[0], ruleset="6x5", options={}, seats_count=2, setup={"first": "bob", "goals": goals}
    )
    for user in users:
        game_join(game=game, user=user)
    ann = OutboxMessage.objects.get(game=game, kind="game_started", to="ann@example.test").body
    bob = OutboxMessage.objects.get(game=game, kind="game_started", to="bob@example.test").body
    assert "Turn 1: bob to move." in ann and "Turn 1: your move." in bob
    for body in (ann, bob):
        assert "  black: 0,0\n  blue: none\n  red: none\n  yellow: none\n" in body
        assert "Reserve: 8 blue, 8 red, 8 yellow." in body
    # Each seat sees its own goal (as the state holds it: canonical form; the straight
    # line is 0,0 0,1 0,2 0,3 0,4), never the other's.
    from games.models import StateSnapshot

    state = StateSnapshot.objects.get(game=game, prompt_number=1).state
    own = {s: " ".join(f"{q},{r}" for q, r in state["goals"][s][0]) for s in ("ann", "bob")}
    assert own["ann"] == "0,0 0,1 0,2 0,3 0,4"
    assert f"Your goal (any rotation, never mirrored):\n  1. {own['ann']}\n" in ann
    assert f"Your goal (any rotation, never mirrored):\n  1. {own['bob']}\n" in bob
    assert own["bob"] not in ann and own["ann"] not in bob


def test_the_game_lists_say_where_the_players_order_is_needed(client):
    """Home and the games list flag the games waiting for this player's order, until
    it is sent."""
    users = [make_user(n) for n in ("ann", "bob")]
    game = game_create(organizer=users[0], ruleset="6x5", options={}, seats_count=2, setup={"first": "ann"})
    for user in users:
        game_join(game=game, user=user)
    from games.services.orders import order_submit

    for url in (reverse("home"), reverse("games:list")):
        client.force_login(users[0])
        assert "your order is needed" in client.get(url).content.decode(), url
        client.force_login(users[1])  # bob moves second: nothing is asked of him yet
        assert "your order is needed" not in client.get(url).content.decode(), url
    order_submit(seat=game.seats.get(name="ann"), text="PLACE RED 0,1", source="web")
    client.force_login(users[0])
    assert "your order is needed" not in client.get(reverse("home")).content.decode()


def test_the_api_game_list_says_which_prompt_waits_for_the_callers_order():
    from games.services.orders import order_submit
    from tests.games.web_support import token_client

    users = [make_user(n) for n in ("ann", "bob")]
    game = game_create(organizer=users[0], ruleset="6x5", options={}, seats_count=2, setup={"first": "ann"})
    for user in users:
        game_join(game=game, user=user)
    [ann_game] = token_client(users[0]).get("/api/games/").json()
    [bob_game] = token_client(users[1]).get("/api/games/").json()
    assert (ann_game["id"], ann_game["order_needed"]) == (game.pk, 1)
    assert bob_game["order_needed"] is None
    order_submit(seat=game.seats.get(name="ann"), text="PLACE RED 0,1", source="api")
    assert token_client(users[0]).get("/api/games/").json()[0]["order_needed"] is None


def test_one_resource_is_singular_in_the_5x_email_view():
    from games.email_views import fivex

    view = {"round": 2, "phase": "play", "players": {
        "ann": {"vp": 0, "resources": 1, "hand_size": 1, "wonders": []},
        "bob": {"vp": 1, "resources": 0, "hand_size": 2, "wonders": ["A"]}}}  # fmt: skip
    text = fivex(view, "ann")
    assert "ann (you): 0 VP, 1 resource, no Wonder, 1 card in hand" in text
    assert "bob: 1 VP, 0 resources, Wonder A, 2 cards in hand" in text


def test_a_4x_dice_email_says_the_turn_order():
    """An email-only player: "Seating: Eve, Cat, Dan" and "Cat moves first" left the order
    of turns to work out (it is Cat, Dan, Eve)."""
    from games.services.games import game_start

    users = [make_user(n) for n in ("eve", "cat", "dan")]
    game = game_create(organizer=users[0], ruleset="4x-dice", options={}, seats_count=4,
                       setup={"first": "cat"})  # fmt: skip
    for user in users:
        game_join(game=game, user=user)
    game_start(game=game, user=users[0], fixed_order=["eve", "cat", "dan"])
    body = OutboxMessage.objects.get(game=game, kind="game_started", to="eve@example.test").body
    assert "cat moves first each round. Turn order: cat, dan, eve (you)." in body
