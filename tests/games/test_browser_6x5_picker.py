"""6x5's order picker in real headless Chromium on a phone (390 x 844, touch): the
player taps an action, a colour and a hex of the board, the page sends the order it
composed, and the stored order is exactly that; the board's hexes stay large enough to
tap and their labels large enough to read; with JavaScript off the list still works.

The games are those of ``test_6x5_hex_picker``: in ``blue_line_game`` ann and amy laid
the 8 BLUE tiles on 1,0 .. 8,0 (ann's pawn on 7,0, amy's on 8,0) and it is ann's turn."""

from __future__ import annotations

import re

import pytest

from games.models import SealedOrder
from tests.conftest import PHONE
from tests.games.test_6x5_hex_picker import (
    SWAP_CELLS,
    blue_line_game,
    frontier,
    open_swap_game,
    played_game,
)
from tests.games.test_browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LINE_BOARD = {"0,0": "K", **{f"{q},0": "B" for q in range(1, 9)}}


def choose(page, value: str) -> None:
    """Tap the picker's choice (action or colour) whose value is ``value``; a tap's click
    comes a moment later, so wait for the choice to be taken."""
    from playwright.sync_api import expect

    page.locator(f'#hex-picker label.pick:has(input[value="{value}"])').tap()
    expect(page.locator(f'#hex-picker input[value="{value}"]')).to_be_checked()


def highlighted(page) -> set[str]:
    return set(page.eval_on_selector_all("#hex-board g.hex-target", "gs => gs.map(g => g.dataset.hex)"))


def tap_hex(page, key: str) -> None:
    """Tap hex ``key`` of the board and wait until the click the tap makes has reached
    the document (counted by a listener of this test's own, which runs after the
    board's), so whatever the picker does with the tap is done."""
    count = page.evaluate(
        """() => {
            if (window.clicksSeen === undefined) {
                window.clicksSeen = 0;
                document.addEventListener("click", () => { window.clicksSeen += 1; });
            }
            return window.clicksSeen;
        }"""
    )
    page.locator(f'#hex-board g[data-hex="{key}"]').tap()
    page.wait_for_function(f"() => window.clicksSeen > {count}")


def test_a_tapped_order_is_composed_and_sent(phone_page, live_server, settings):
    settings.GAMES_PAGE_POLL_SECONDS = 600  # no reload racing with the taps
    game = blue_line_game()
    page = phone_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    assert "Your order — turn" in page.inner_text("#prompt")
    # The picker stands in for the long list, with the board right inside it.
    assert page.is_visible("#hex-picker") and page.is_hidden("#legal-orders")
    assert page.locator("#hex-picker #hex-board svg.hexmap").count() == 1
    hex_field = page.locator('#hex-picker [data-hex-pick="hex"]')
    send = page.locator("#hex-picker button[type='submit']")
    assert send.is_disabled()

    # SWITCH: any tile but the black one and those under a pawn, to a colour left in
    # the reserve (no BLUE: all 8 are on the board).
    choose(page, "SWITCH")
    colours = page.eval_on_selector_all(
        '#hex-picker [data-hex-pick="colour"]:not(:disabled)', "rs => rs.map(r => r.value)"
    )
    assert colours == ["RED", "YELLOW"]
    # No colour yet: the tile may be tapped first (every tile some colour can take).
    assert highlighted(page) == {f"{q},0" for q in range(1, 7)}
    tap_hex(page, "2,0")
    assert hex_field.input_value() == "2,0" and send.is_disabled()
    assert page.inner_text("#hex-hint") == "Choose a colour for 2,0."
    choose(page, "RED")
    assert page.inner_text("#hex-order") == "SWITCH 2,0 TO RED"
    choose(page, "YELLOW")  # 2,0 can take yellow too: it stays picked
    assert page.inner_text("#hex-order") == "SWITCH 2,0 TO YELLOW"
    assert highlighted(page) == {f"{q},0" for q in range(1, 7)}
    tap_hex(page, "8,0")  # under amy's pawn: not a target, nothing happens
    assert hex_field.input_value() == "2,0"
    tap_hex(page, "3,0")
    assert hex_field.input_value() == "3,0"
    assert page.inner_text("#hex-order") == "SWITCH 3,0 TO YELLOW"
    assert send.is_enabled()

    # PLACE instead: 3,0 holds a tile, so the pick is dropped until a hex is tapped.
    choose(page, "PLACE")
    assert hex_field.input_value() == "" and send.is_disabled()
    choose(page, "RED")
    assert highlighted(page) == frontier(LINE_BOARD)
    tap_hex(page, "4,-1")
    assert hex_field.input_value() == "4,-1"
    assert page.inner_text("#hex-order") == "PLACE RED 4,-1"
    send.tap()
    page.wait_for_selector("#receipt")
    assert "Order sealed: PLACE RED 4,-1" in page.inner_text("#receipt")
    stored = SealedOrder.objects.get(prompt__game=game, prompt__number=9, seat_name="ann", is_current=True)
    assert stored.text == "PLACE RED 4,-1"
    # The page offers the sealed order again, chosen and highlighted.
    assert page.locator('#hex-picker input[value="PLACE"]').is_checked()
    assert page.locator('#hex-picker input[value="RED"]').is_checked()
    assert hex_field.input_value() == "4,-1"
    assert page.eval_on_selector_all("#hex-board g.hex-picked", "gs => gs.map(g => g.dataset.hex)") == ["4,-1"]


def test_change_goal_comes_first_in_the_composed_order(phone_page, live_server, settings):
    settings.GAMES_PAGE_POLL_SECONDS = 600
    game = played_game(("ann", "amy"), [], {"change_goal": True})
    page = phone_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    # The first turn can only place: that action is already chosen.
    assert page.locator('#hex-picker input[value="PLACE"]').is_checked()
    page.select_option('#hex-picker [data-hex-pick="change"]', "1")
    choose(page, "BLUE")
    assert highlighted(page) == frontier({"0,0": "K"})
    tap_hex(page, "1,-1")
    assert page.inner_text("#hex-order").splitlines() == ["CHANGE 1", "PLACE BLUE 1,-1"]
    assert page.input_value("#hex-picker [data-hex-text]") == "CHANGE 1\nPLACE BLUE 1,-1"
    page.locator("#hex-picker button[type='submit']").tap()
    page.wait_for_selector("#receipt")
    stored = SealedOrder.objects.get(prompt__game=game, prompt__number=1, seat_name="ann", is_current=True)
    # Browsers send a form's line breaks as CRLF (the HTML form encoding), as they do
    # for the text field and the list; the lines are the composed ones.
    assert stored.text.replace("\r\n", "\n") == "CHANGE 1\nPLACE BLUE 1,-1"


def test_a_swap_takes_two_taps(phone_page, live_server, settings):
    settings.GAMES_PAGE_POLL_SECONDS = 600
    game = open_swap_game()
    page = phone_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    assert page.is_hidden('#hex-picker [data-hex-step="colour"]')  # the reserve is empty
    choose(page, "SWAP")
    free = {"0,0"} | {f"{q},{r}" for q, r in SWAP_CELLS} - {"12,-1", "13,-1"}  # no pawned tile
    assert highlighted(page) == free
    tap_hex(page, "13,-1")  # amy's pawn stands there
    assert page.input_value('#hex-picker [data-hex-pick="hex"]') == ""
    tap_hex(page, "3,0")
    assert highlighted(page) == free - {"3,0"}
    assert page.inner_text("#hex-order") != "SWAP 3,0"  # not an order yet
    assert page.locator("#hex-picker button[type='submit']").is_disabled()
    tap_hex(page, "5,-1")
    assert page.input_value('#hex-picker [data-hex-pick="hex2"]') == "5,-1"
    assert page.inner_text("#hex-order") == "SWAP 3,0 5,-1"
    page.locator("#hex-picker button[type='submit']").tap()
    page.wait_for_selector("#receipt")
    stored = SealedOrder.objects.get(prompt__game=game, prompt__number=25, seat_name="ann", is_current=True)
    assert stored.text == "SWAP 3,0 5,-1"


@pytest.mark.parametrize("viewer", ["ann", "amy"])
def test_hexes_are_large_enough_to_tap_and_labels_to_read(phone_page, live_server, viewer):
    """Measured as drawn at 390 px (getBoundingClientRect), on a board 11 hexes wide,
    for the acting seat (the board inside the picker) and the other one."""
    game = blue_line_game()
    page = phone_page
    log_in(page, live_server.url, viewer)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    sizes = page.eval_on_selector_all(
        "#hex-board g[data-hex]",
        """gs => gs.map(g => {
            const hex = g.querySelector("polygon").getBoundingClientRect();
            const label = g.querySelector("text");
            const box = label.getBoundingClientRect();
            const svg = g.ownerSVGElement;
            const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            return {key: g.dataset.hex, w: hex.width, h: hex.height, text: label.textContent,
                    textH: box.height, fontPx: parseFloat(getComputedStyle(label).fontSize) * scale};
        })""",
    )
    assert len(sizes) == len(LINE_BOARD) + len(frontier(LINE_BOARD))
    for s in sizes:
        assert s["text"] == s["key"]  # each hex shows its own q,r
        assert s["w"] >= 32 and s["h"] >= 32, s
        assert s["textH"] >= 12 and s["fontPx"] >= 11, s
    # The wide board scrolls inside its own box; the page itself does not scroll sideways.
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390


def test_without_javascript_the_list_and_the_board_still_work(browser_page, live_server):
    game = blue_line_game()
    context = browser_page.context.browser.new_context(java_script_enabled=False, **PHONE)
    try:
        page = context.new_page()
        page.set_default_timeout(10_000)
        log_in(page, live_server.url, "ann")
        page.goto(f"{live_server.url}/games/{game.pk}/")
        assert page.is_hidden("#hex-picker") and page.is_visible("#legal-orders select")
        assert page.locator("#hex-picker #hex-board").count() == 0 and page.is_visible("#hex-board svg")
        page.select_option("#legal-orders select", "MOVE BLACK TO 1,-1")
        page.locator("#legal-orders button[type='submit']").click()
        page.wait_for_selector("#receipt")
        assert re.search(r"Order sealed:\s*MOVE BLACK TO 1,-1", page.inner_text("#receipt"))
        stored = SealedOrder.objects.get(prompt__game=game, prompt__number=9, seat_name="ann", is_current=True)
        assert stored.text == "MOVE BLACK TO 1,-1"
    finally:
        context.close()


def test_the_arrow_keys_move_between_the_hexes_that_can_be_picked(browser_page, live_server, settings):
    """With a keyboard: the arrows move the focus to the nearest highlighted hex in that
    direction (none there: it stays), Enter picks the focused hex."""
    settings.GAMES_PAGE_POLL_SECONDS = 600
    game = blue_line_game()
    page = browser_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    assert page.is_visible(".keyboard-hint")  # a mouse and keyboard: the hint is shown
    page.locator('#hex-picker label.pick:has(input[value="SWITCH"])').click()
    page.locator('#hex-picker label.pick:has(input[value="YELLOW"])').click()
    assert highlighted(page) == {f"{q},0" for q in range(1, 7)}  # one row, 1,0 .. 6,0

    def focused() -> str | None:
        return page.evaluate("() => document.activeElement.getAttribute('data-hex')")

    page.locator('#hex-board g[data-hex="3,0"]').focus()
    page.keyboard.press("ArrowRight")
    assert focused() == "4,0"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert focused() == "2,0"
    page.keyboard.press("ArrowUp")  # no highlighted hex above the row
    assert focused() == "2,0"
    for _ in range(8):
        page.keyboard.press("ArrowRight")
    assert focused() == "6,0"  # the last one: 7,0 and 8,0 are under pawns
    page.keyboard.press("Enter")
    assert page.locator('#hex-picker [data-hex-pick="hex"]').input_value() == "6,0"
    assert page.inner_text("#hex-order") == "SWITCH 6,0 TO YELLOW"
    # The board is one Tab stop (an accessibility audit: every highlighted hex was one,
    # 22 in a row on a grown board): the picked hex; Tab from it leaves the board.
    stops = page.evaluate(
        "() => Array.from(document.querySelectorAll('#hex-board [data-hex][tabindex=\"0\"]')).map(g => g.getAttribute('data-hex'))"
    )
    assert stops == ["6,0"]
    assert page.locator('#hex-board [data-hex][role="button"]').count() == 6
    page.keyboard.press("Tab")
    assert focused() is None  # out of the board
    # ... straight to Send: the read-only fields echoing the picked hexes are no Tab stops
    # (they were two on the way; the order line above Send says the same).
    assert page.evaluate("() => document.activeElement.matches('#hex-picker button[type=submit]')")


def test_a_phone_is_not_told_about_arrow_keys(phone_page, live_server, settings):
    settings.GAMES_PAGE_POLL_SECONDS = 600
    game = blue_line_game()
    log_in(phone_page, live_server.url, "ann")
    phone_page.goto(f"{live_server.url}/games/{game.pk}/")
    assert phone_page.is_visible("#hex-picker") and phone_page.is_hidden(".keyboard-hint")


def test_a_tile_tapped_first_leaves_only_the_colours_it_can_take(phone_page, live_server, settings):
    """SWITCH with the tile first (a new player's natural order): only the colours that
    tile can become stay offered (not its own)."""
    settings.GAMES_PAGE_POLL_SECONDS = 600
    # BLUE 1,0 and RED -1,0 free; YELLOW 2,0 and RED -2,0 under the pawns; ann's turn.
    game = played_game(("ann", "amy"), ["PLACE BLUE 1,0", "PLACE RED -1,0", "PLACE YELLOW 2,0",
                                        "PLACE RED -2,0"])  # fmt: skip
    page = phone_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    choose(page, "SWITCH")
    assert highlighted(page) == {"1,0", "-1,0"}
    tap_hex(page, "-1,0")
    enabled = page.eval_on_selector_all(
        '#hex-picker [data-hex-pick="colour"]:not(:disabled)', "rs => rs.map(r => r.value)"
    )
    assert sorted(enabled) == ["BLUE", "YELLOW"]
    choose(page, "BLUE")
    assert page.inner_text("#hex-order") == "SWITCH -1,0 TO BLUE"


def test_a_choice_held_by_the_page_comes_back_in_the_picker_after_a_reload(phone_page, live_server, settings):
    """Regression: the page held its reload over a move being picked (the deadline was
    extended meanwhile), but a reload emptied the picker. The action, colour and hex come
    back, the board showing the hex picked, and the page says so."""
    from games.services.organizer import deadline_extend

    settings.GAMES_PAGE_POLL_SECONDS = 1
    game = blue_line_game()
    page = phone_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    choose(page, "SWITCH")
    tap_hex(page, "2,0")
    choose(page, "RED")
    assert page.inner_text("#hex-order") == "SWITCH 2,0 TO RED"
    deadline_extend(game=game, by=game.organizer, hours=2)
    page.wait_for_selector("#moved-on:not([hidden])", timeout=10_000)
    assert "Your choice is kept below: it was not sent" in page.inner_text("#moved-on")
    page.locator("#moved-on a").tap()
    page.wait_for_load_state()
    page.wait_for_selector("#page-updated:not([hidden])")
    assert page.inner_text("#page-updated") == (
        "Your choice was not sent: it is kept in the form below. Go to the form"
    )
    page.locator("#to-kept").click()  # to the picker's first field, focused
    assert page.evaluate("() => document.activeElement.closest('#hex-picker') !== null")
    assert page.locator('#hex-picker input[value="SWITCH"]').is_checked()
    assert page.locator('#hex-picker input[value="RED"]').is_checked()
    assert page.locator('#hex-picker [data-hex-pick="hex"]').input_value() == "2,0"
    assert page.inner_text("#hex-order") == "SWITCH 2,0 TO RED"
    assert page.eval_on_selector_all("#hex-board g.hex-picked", "gs => gs.map(g => g.dataset.hex)") == ["2,0"]
    assert page.locator("#hex-picker button[type='submit']").is_enabled()
