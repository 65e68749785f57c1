"""Wording on the game pages that a newcomer could not read without the rulebook, or
that contradicted the rest of the page (QA journey, finding 8 and part of 12): what a
5X draft pass means, the 4X Dice table's "first", VP and score, the set-up panel, 6x5's
turn numbers and pawn legend, how a typed order was read, and where a refused typed
order's error is shown.

Expected values come from the rules (shared/spec/*.md), from the seating stored for the
seats, from what the engine did afterwards, or from the tests' own moves."""

from __future__ import annotations

import html as html_lib
import random
import re

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Game, Seat
from tests.games.web_support import (
    DEAL,
    DRAFT,
    NAMES,
    dealt_5x_game,
    eager_celery,
    make_user,
    page_for,
    submit_orders,
    visible_text,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]


def element(html: str, element_id: str) -> str | None:
    """The visible text of the element with this id (none: None)."""
    found = re.search(rf'<(\w+)[^>]*\bid="{element_id}"[^>]*>(.*?)</\1>', html, re.S)
    return visible_text(html_lib.unescape(found.group(2))).strip() if found else None


@pytest.fixture
def fivex(django_capture_on_commit_callbacks) -> Game:
    return dealt_5x_game(
        django_capture_on_commit_callbacks, names=NAMES, organizer="org", deal=DEAL, name="Draft"
    )


# --- 1. the 5X draft ---------------------------------------------------------------


def test_the_draft_prompt_says_what_passing_a_leader_means(
    fivex, client, django_capture_on_commit_callbacks
) -> None:
    # The seating is the seats' stored positions; the left neighbour is the next seat
    # (the spec: the draft passes to the left).
    seating = list(Seat.objects.filter(game=fivex).order_by("position").values_list("name", flat=True))
    assert sorted(seating) == sorted(NAMES)
    told = {}
    for i, name in enumerate(seating):
        left, right = seating[(i + 1) % 3], seating[(i - 1) % 3]
        html = page_for(client, fivex, name)
        note = element(html, "draft-note")
        assert note is not None, name
        assert f"to the seat on your left ({left})" in note, note
        assert f"receive one from the seat on your right ({right})" in note, note
        assert "you keep the other" in note
        # The line stands above the PASS buttons it explains.
        assert html.index('id="draft-note"') < html.index(">PASS ")
        told[name] = (left, right)
    assert element(page_for(client, fivex, None), "draft-note") is None  # spectator: no prompt

    # What the engine did with the passes agrees with the neighbours the line named.
    submit_orders(fivex, django_capture_on_commit_callbacks, DRAFT)
    for name in NAMES:
        text = visible_text(page_for(client, fivex, name))
        passed_to = re.search(r"you passed .*? to (\w+)", text).group(1)
        received_from = re.search(r"you received .*? from (\w+)", text).group(1)
        assert (passed_to, received_from) == told[name], (name, text)
        assert "draft-note" not in page_for(client, fivex, name)  # the draft is over


# --- 2. the 4X Dice table ------------------------------------------------------------

# The rules' scoring (shared/spec/4x-dice.md, "Scoring"): VP + counter × weight.
SPEC_WEIGHTS = {"explore": 1, "expand": 3, "extract": 2, "exterminate": 1}
FACES = [[1, 0], [2, 0], [0, 1], [0, 2], [1, 1], [2, 2]]


def fourx_game(prompts: int) -> Game:
    """A 3-seat 4X Dice game (ann first) with rolls and choices drawn by a seeded test
    RNG, played for ``prompts`` prompts (0: still at the set-up)."""
    import engine
    from games.selectors import current_prompt, current_state
    from games.services.games import game_create_seated
    from games.services.orders import order_submit
    from games.services.resolution import prompt_resolve

    rng = random.Random(4)
    users = [make_user(n) for n in NAMES]
    game = game_create_seated(
        organizer=users[0], ruleset="4x-dice", users=users, is_private=False,
        setup={"first": "ann", "rolls": [rng.choice(FACES) for _ in range(900)]},
    )  # fmt: skip
    rules = engine.get("4x-dice")
    for _ in range(prompts):
        prompt = current_prompt(game=game)
        state = current_state(game=game)
        for name in prompt.pending:
            if name not in prompt.forced:
                text = rng.choice(rules.legal_orders(state, name))
                order_submit(seat=game.seats.get(name=name), text=text, source="web")
        assert prompt_resolve(game_id=game.pk, prompt_number=prompt.number)
    game.refresh_from_db()
    return game


def table_rows(html: str) -> dict[str, list[str]]:
    """Each seat's table cells as text."""
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = {}
    for row in body.split("</tr>"):
        if "<strong>" not in row:
            continue
        cells = [visible_text(html_lib.unescape(c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        rows[re.search(r"<strong>(\w+)</strong>", row).group(1)] = cells
    return rows


def test_the_4x_table_explains_first_vp_and_the_score(client) -> None:
    game = fourx_game(40)
    html = page_for(client, game, "bob")
    legend = element(html, "score-legend")
    assert legend is not None
    weights = re.search(
        r"VP \+ eXplore × (\d+) \+ eXpand × (\d+) \+ eXtract × (\d+) \+ eXterminate × (\d+)", legend
    )
    assert weights, legend
    shown = dict(zip(SPEC_WEIGHTS, map(int, weights.groups()), strict=True))
    assert shown == SPEC_WEIGHTS
    assert "VP: victory points, scored on eXtract" in legend
    header = re.search(r"<thead>(.*?)</thead>", html, re.S).group(1)
    assert re.search(r'<th title="victory points[^"]*">VP</th>', header)

    # The legend's sum is what the table's SCORE column shows, for every seat.
    rows = table_rows(html)
    assert sorted(rows) == sorted(NAMES)
    scored = False
    for name, cells in rows.items():
        score, vp = int(cells[1]), int(cells[2])
        counters = [int(c) for c in cells[4:8]]
        assert score == vp + sum(w * c for w, c in zip(shown.values(), counters, strict=True)), (name, cells)
        scored = scored or vp > 0
    assert scored, rows  # the game got far enough for VP to count

    # "first" is the first-player marker, said as such, under ann's name only.
    assert "plays first" in rows["ann"][0]
    assert all("first" not in rows[n][0] for n in ("bob", "cat"))
    assert re.search(r'title="turns go in seating order from this seat">plays first<', html)


def test_the_4x_set_up_panel_says_it_comes_before_round_1(client) -> None:
    game = fourx_game(0)
    html = page_for(client, game, "cat")
    headings = [visible_text(h).strip() for h in re.findall(r"<h2>(.*?)</h2>", html, re.S)]
    assert any(h.startswith("Set-up, before round 1") for h in headings), headings
    note = element(html, "setup-note")
    assert note and "first turn" in note and "Round 1" in note and "ann first" in note


def test_the_4x_round_1_panel_is_no_longer_the_set_up(client) -> None:
    played = page_for(client, fourx_game(1), "cat")  # the set-up resolved: round 1
    assert "Set-up" not in played and element(played, "setup-note") is None
    assert re.search(r"<h2>\s*Round 1\b", played)


# --- 3. 6x5: turn numbers and pawns --------------------------------------------------


def sixbyfive_game(orders: list[str]) -> Game:
    from tests.games.test_6x5_hex_picker import played_game

    return played_game(("ann", "amy", "bob"), orders)


def test_6x5_history_counts_turns_as_the_board_does(client) -> None:
    orders = ["PLACE BLUE 1,0", "PLACE RED -1,0", "PLACE YELLOW 0,1"]
    game = sixbyfive_game(orders)
    html = page_for(client, game, "amy")
    # Three turns were played: the board shows turn 4, the history turns 3, 2, 1.
    assert re.search(r"<h2>\s*Turn 4\b", html)
    history = html.split('id="history"', 1)[1].split("Full game log", 1)[0]
    headings = [visible_text(h).strip() for h in re.findall(r"<h3[^>]*>(.*?)</h3>", history)]
    assert headings == ["Turn 3 (decision 3)", "Turn 2 (decision 2)", "Turn 1 (decision 1)"]
    assert "Round" not in visible_text(history)


def test_6x5_pawn_legend_on_turn_1_has_no_pawn(client) -> None:
    html = page_for(client, sixbyfive_game([]), "ann")
    assert "data-pawn-legend" not in html and 'data-pawn="' not in html
    assert "Pawns: none on the board yet." in visible_text(html)
    unplaced = element(html, "pawns-unplaced")
    assert unplaced and all(n in unplaced for n in ("ann", "amy", "bob")) and "Not placed yet" in unplaced


def test_6x5_pawn_legend_adds_a_pawn_once_its_seat_played(client) -> None:
    html = page_for(client, sixbyfive_game(["PLACE BLUE 1,0"]), "ann")  # ann played: her pawn
    assert re.findall(r'data-pawn-legend="(\w+)"', html) == ["ann"]
    assert re.findall(r'<g class="pawn" data-pawn="(\w+)"', html) == ["ann"]
    unplaced = element(html, "pawns-unplaced")
    assert unplaced and "amy" in unplaced and "bob" in unplaced and "ann" not in unplaced


# --- 4. how a typed order was read ---------------------------------------------------


def post_order(client: Client, game: Game, text: str, *, typed: bool) -> str:
    from games.selectors import current_prompt

    data = {"text": text, "prompt": current_prompt(game=game).number}
    if typed:
        data["typed"] = "1"
    answer = client.post(reverse("games:order", args=[game.pk]), data, follow=True)
    assert answer.status_code == 200
    return answer.content.decode()


def test_a_typed_order_shows_how_it_was_understood(fivex, client) -> None:
    client.force_login(fivex.seats.get(name="ann").user)
    html = post_order(client, fivex, "# keep Cleopatra\npass   caesar", typed=True)
    assert element(html, "receipt").startswith("Order sealed: pass caesar")
    assert element(html, "order-reading") == "Understood as: PASS CAESAR"
    # The reading is ann's alone: another seat and a spectator see neither.
    for viewer in ("bob", None):
        other = page_for(client, fivex, viewer)
        assert "order-reading" not in other and "CAESAR" not in other.split('id="prompt"')[-1]
    client.force_login(fivex.seats.get(name="ann").user)
    # A button (another order: "PASS CAESAR" would be the order sealed already, the rules
    # read it the same) has nothing to add.
    html = post_order(client, fivex, "PASS CLEOPATRA", typed=False)
    assert "Order sealed:" in visible_text(html) and element(html, "order-reading") is None


def test_a_typed_6x5_order_shows_its_canonical_reading(client) -> None:
    from tests.games.test_6x5_hex_picker import played_game

    game = played_game(("ann", "amy"), [], {"change_goal": True})
    client.force_login(game.seats.get(name="ann").user)
    html = post_order(client, game, "change 1\nplace y 0 , -1", typed=True)
    reading = element(html, "order-reading")
    assert reading is not None, html
    assert re.fullmatch(r"Understood as: CHANGE 1\s+PLACE YELLOW 0,-1", reading), reading
    assert "order-reading" not in page_for(client, game, "amy")


# --- 5. a refused typed order's error, next to the text box ---------------------------


def test_a_refused_typed_order_shows_its_error_next_to_the_box(fivex, client) -> None:
    client.force_login(fivex.seats.get(name="bob").user)
    html = post_order(client, fivex, "pass cleopatra", typed=True)  # not one of bob's leaders
    flashed = [visible_text(html_lib.unescape(m)).strip() for m in re.findall(r'<li class="message error[^"]*"[^>]*>(.*?)</li>', html, re.S)]
    # the order box (the page also holds the no-order notice's read-only box, empty)
    box = re.search(r'<textarea[^>]*name="text"[^>]*>.*?</textarea>', html, re.S).group(0)
    assert ">pass cleopatra</textarea>" in box  # the typed text is kept
    assert 'aria-invalid="true"' in box
    described = re.search(r'aria-describedby="([^"]*)"', box).group(1).split()
    assert "id_text_error" in described
    error = element(html, "id_text_error")
    assert error and "CLEOPATRA" in error.upper()
    assert flashed and any(error in f for f in flashed), (error, flashed)
    # The error sits right after the box, inside the opened free-text form.
    assert re.search(r"<details open>", html)
    assert html.index(box) + len(box) < html.index('id="id_text_error"') < html.index("Send order")

    # A refused order from a button (not the text box): no error next to the box.
    html = post_order(client, fivex, "PASS CLEOPATRA", typed=False)
    assert flashed_errors(html) and element(html, "id_text_error") is None
    assert 'aria-invalid' not in html
    # The next page, after a good order, has no stale error.
    html = post_order(client, fivex, "pass qin", typed=True)
    assert element(html, "id_text_error") is None and "Order sealed" in visible_text(html)


def flashed_errors(html: str) -> list[str]:
    return re.findall(r'<li class="message error[^"]*"[^>]*>(.*?)</li>', html, re.S)


@pytest.mark.parametrize(
    ("typed", "parsed", "reading"),
    [
        ("pass elizabeth i", {"pass": "ELIZABETH"}, "PASS ELIZABETH"),  # a leader's full name
        ("play qin shi huang", {"play": "QIN"}, "PLAY QIN"),
        ("bid  2", {"bid": 2}, "BID 2"),
        ("take erik the red from bob", {"take": "ERIK", "from": "bob"}, "TAKE ERIK FROM bob"),
        ("build  a", {"build": "A"}, "BUILD A"),
        ("build", {"dido": "BUILD"}, "BUILD"),
    ],
)
def test_a_5x_order_reads_as_the_order_language_writes_it(typed, parsed, reading) -> None:
    """Typed with a leader's full name (not in the legal list as written), the reading was
    the parse's summary: "pass: ELIZABETH"."""
    from games.order_presentation import order_reading

    assert order_reading(text=typed, legal_orders=[], parsed=parsed, ruleset="5x") == reading
    assert order_reading(text=reading, legal_orders=[], parsed=parsed, ruleset="5x") == ""


def test_the_seed_commitment_on_a_seats_page_says_what_it_is(client):
    # Guards against "Seed commitment: db15…" on every seat page with no word of what it is.
    from tests.games.core_support import make_game

    game, seats = make_game(["ann", "bob", "cat"])
    client.force_login(seats["ann"].user)
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    (note,) = re.findall(r'<details class="seed-note[^"]*">(.*?)</details>', page, re.S)
    text = visible_text(note)
    assert "What is this?" in text
    assert "seed" in text and "revealed when the game ends" in text and "check" in text
    assert f'href="{reverse("games:log", args=[game.pk])}?page=1"' in note


def test_the_order_panel_leads_to_what_happened_last(client) -> None:
    # Guards against the phone walk's lost result: after a prompt resolved, the panel at
    # the top said only what to order (or "Waiting for Bob"), and what happened was some
    # three screens down a phone, past the board and the seats.
    from tests.games.test_4x_dice_hit_picker import exterminate_game

    game = exterminate_game()  # the set-up (prompt 1) resolved: ann must eXterminate
    for name in ("ann", "bob"):  # asked for an order, and not
        client.force_login(game.seats.get(name=name).user)
        html = client.get(reverse("games:detail", args=[game.pk])).content.decode()
        panel = re.search(r'<div class="panel prompt[^"]*" id="prompt">(.*?)\n</div>', html, re.S)
        assert panel is not None, name
        link = re.search(r'<a href="#history"[^>]*>(.*?)</a>', panel.group(1), re.S)
        assert link is not None, name
        heading = re.search(r'id="history">\s*<h2>What happened</h2>\s*<h3[^>]*>(.*?)</h3>', html, re.S)
        assert heading is not None
        assert "decision 1" in heading.group(1).lower()
        assert visible_text(html_lib.unescape(link.group(1))).strip() == (
            # the heading's words (it links to the prompt's review)
            "What happened last: " + html_lib.unescape(visible_text(heading.group(1))).strip()
        )


def test_the_history_shows_the_newest_prompts_and_folds_the_earlier_ones(client) -> None:
    # Guards against the phone walk's endless game page: "What happened" listed up to 40
    # prompts in full (a 4X Dice duel of 11 prompts: some 3,000 px of a phone's page under
    # the table). The newest three stay open; the earlier ones fold under one summary.
    from games.services import games as game_services
    from tests.games.core_support import play_defaults

    users = [make_user(n) for n in ("ann", "bob", "cat")]
    game = game_services.game_create(organizer=users[0], ruleset="5x", seats_count=3)
    for user in users:
        game_services.game_join(game=game, user=user)
    play_defaults(game, 7)
    client.force_login(users[0])
    html = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    history = html.split('id="history">', 1)[1].split("Full game log", 1)[0]
    headings = re.findall(r"<h3[^>]*>(.*?)</h3>", history, re.S)
    assert len(headings) >= 6, headings
    shown, folded = history.split("<details", 1)
    assert len(re.findall(r"<h3", shown)) == 3
    summary = re.search(r"<summary[^>]*>(.*?)</summary>", folded, re.S)
    assert summary is not None
    assert visible_text(summary.group(1)).strip() == f"Earlier decisions ({len(headings) - 3})"
    assert len(re.findall(r"<h3", folded)) == len(headings) - 3
    assert "</details>" in folded
