"""The rules pages and the explanations on the game pages (from a new-player walk: nothing
said what the games, the cards, the leaders or a bid were)."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from engine.fivex import data as D
from games.rules_text import CARD_ACTIONS, GAME_SUMMARIES, LEADER_POWERS, PHASE_HINTS
from tests.games.web_support import make_user

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("ruleset,words", [
    ("5x", ["Great Leader", "BID", "PASS", "Wonder", "Caesar"]),
    ("4x-dice", ["ALLOCATE", "HIT", "asteroid", "19"]),
    ("6x5", ["PLACE", "SWITCH", "MOVE BLACK", "black tile", "mirror"]),
])  # fmt: skip
def test_every_game_has_a_public_rules_page(client, ruleset, words):
    page = client.get(reverse("games:rules", args=[ruleset]))
    assert page.status_code == 200
    text = page.content.decode()
    for word in words:
        assert word in text, word
    assert GAME_SUMMARIES[ruleset] in text
    assert client.get("/games/rules/chess/").status_code == 404


def test_the_5x_rules_name_every_leader_and_the_texts_cover_every_card_and_phase():
    """The data the pages use is complete against the engine: every 5X card has a power,
    every phase in which a player is asked has a hint (from the engine's own lists)."""
    from django.template.loader import render_to_string

    from engine.fivex import rules as R

    leaders = {c.id for c in D.CARDS if c.leader}
    actions = {c.id for c in D.CARDS if not c.leader}
    assert set(LEADER_POWERS) == leaders and set(CARD_ACTIONS) == actions
    page = render_to_string("games/rules/5x.html")
    for card in D.CARDS:
        assert card.name in page, card.name
    phases = {v for k, v in vars(R).items() if k.isupper() and isinstance(v, str)
              and re.fullmatch(r"[a-z]+(-[a-z]+)?", v)} - {"over"}  # fmt: skip
    assert {("5x", p) for p in phases} <= set(PHASE_HINTS), phases
    assert {("4x-dice", "allocate"), ("4x-dice", "exterminate"), ("6x5", "turn")} <= set(PHASE_HINTS)


def test_the_game_page_explains_the_prompt_and_the_cards(client):
    from games.services import games as game_services
    from tests.games.core_support import play_defaults

    users = [make_user(n) for n in ("ria", "sam", "tov")]
    game = game_services.game_create_seated(organizer=users[0], ruleset="5x", users=users,
                                            setup={"deal": {"ria": ["GENGHIS", "QIN"],
                                                            "sam": ["CAESAR", "BOUDICCA"],
                                                            "tov": ["ELIZABETH", "TOKUGAWA"]}})  # fmt: skip
    client.force_login(users[0])
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert 'href="/games/rules/5x/"' in page
    assert 'id="draft-note"' in page and 'id="phase-hint"' not in page  # the draft's own note
    # A card's tooltip says what it does, and so does the list under the hand.
    assert f'title="Genghis Khan: {LEADER_POWERS["GENGHIS"]}"' in page
    powers = page.split('id="card-powers"', 1)[1].split("</details>", 1)[0]
    assert CARD_ACTIONS["EXPLOIT"] in powers and LEADER_POWERS["QIN"] in powers
    play_defaults(game, 1)  # the draft resolves: round 1's play
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    hint = re.search(r'<p class="small" id="phase-hint">(.*?) <a', page).group(1)
    assert html.unescape(hint) == PHASE_HINTS[("5x", "play")]


def test_the_create_form_and_the_invitation_say_what_each_game_is(client):
    from games.services import games as game_services

    ann = make_user("una")
    client.force_login(ann)
    form = client.get(reverse("games:create")).content.decode()
    for ruleset, summary in GAME_SUMMARIES.items():
        box = form.split(f'data-ruleset-options="{ruleset}"', 1)[1].split("</fieldset>", 1)[0]
        assert summary in box and f'href="/games/rules/{ruleset}/"' in box
    assert 'data-min-players="2" data-max-players="5"' in form.split('data-ruleset-options="6x5"', 1)[1][:80]
    game = game_services.game_create(organizer=ann, ruleset="6x5", seats_count=2, is_private=True)
    invite = client.get(reverse("games:invite", args=[game.pk, game.invite_token])).content.decode()
    assert GAME_SUMMARIES["6x5"] in invite and 'href="/games/rules/6x5/"' in invite


def test_the_6x5_rules_page_gives_the_default_orders_tie_breaks(client):
    """The page said only "the colour with most tiles left on the free hex nearest to
    0,0" (an audit: a timeout played PLACE RED -1,1 among four nearest hexes, which the
    page did not let a player predict). The sentence names both tie-breaks, and the
    engine's default order follows it in positions with ties (worked out by hand)."""
    import engine

    page = html.unescape(client.get(reverse("games:rules", args=["6x5"])).content.decode())
    said = re.sub(r"<[^>]+>", "", re.search(r'<li id="default-order">(.*?)</li>', page, re.S).group(1))
    assert said == (
        "If you miss a deadline, the default order places a tile of the colour with most tiles "
        "left (on a tie: blue, then red, then yellow) on the free hex touching a tile that is "
        "nearest to 0,0 (on a tie: the smaller q, then the smaller r)."
    )
    rules = engine.get("6x5")
    line, zigzag = [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]], [[0, 0], [0, 1], [1, 1], [1, 2], [2, 2]]
    state = rules.new_game(players=["ann", "bob"], options={}, seed=1,
                           setup={"first": "ann", "goals": {"ann": [line], "bob": [zigzag]}})
    cases = [
        # the black tile alone, 8 of each colour: six hexes at 1; q -1 twice; r -1 < 1
        ({"0,0": "K"}, {"BLUE": 8, "RED": 8, "YELLOW": 8}, "PLACE BLUE -1,0"),
        # the audit's reserve: red and yellow tie at 8; blue 1,0 takes no hex at 1 with q -1
        ({"0,0": "K", "1,0": "B"}, {"BLUE": 7, "RED": 8, "YELLOW": 8}, "PLACE RED -1,0"),
        # -1,0 and -1,1 taken: q 0 is smallest (0,-1 and 0,1), then r -1
        ({"0,0": "K", "-1,0": "B", "-1,1": "Y"}, {"BLUE": 6, "RED": 5, "YELLOW": 7},
         "PLACE YELLOW 0,-1"),
        # 2,0 is free but at 2; the hexes at 1 left: 1,-1 and 0,1, q 0 first
        ({"0,0": "K", "-1,0": "B", "-1,1": "R", "0,-1": "B", "1,0": "Y"},
         {"BLUE": 6, "RED": 7, "YELLOW": 7}, "PLACE RED 0,1"),
    ]  # fmt: skip
    for board, reserve, expected in cases:
        state = {**state, "board": board, "reserve": reserve}
        assert rules.default_order(state, "ann") == expected, board


def test_the_6x5_change_goal_examples_are_both_forms_the_engine_takes(client):
    # Regression (a review): the rules page showed only "CHANGE 2" then the action on the
    # next line, though the engine (and the turn email's example) take it on one line too.
    import engine

    page = client.get(reverse("games:rules", args=["6x5"])).content.decode()
    row = re.search(r"<tr[^>]*><td[^>]*>Change goal \(option\)</td>.*?</tr>", page).group()
    order, example = re.findall(r"<td[^>]*>(.*?)</td>", row)[1:]
    assert "on the same line or the next" in order
    codes = [html.unescape(c) for c in re.findall(r"<code>(.*?)</code>", example)]
    one_line = [c for c in codes if c.startswith("CHANGE ") and " " in c[len("CHANGE "):]]
    assert len(one_line) == 1, codes
    change_alone = codes.index("CHANGE 2")
    two_lines = "CHANGE 2\n" + codes[change_alone + 1]
    rules = engine.get("6x5")
    state = rules.new_game(players=["ann", "bob"], options={"change_goal": True, "goals": 2}, seed=7,
                           setup={"first": "ann"})
    for text in (one_line[0], two_lines):
        order_read = rules.parse_order(state, "ann", text)
        assert order_read["change"] == 2, text
    assert rules.parse_order(state, "ann", one_line[0]) == rules.parse_order(state, "ann", two_lines)
