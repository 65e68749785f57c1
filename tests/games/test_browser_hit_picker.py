"""4X Dice's eXterminate prompt in real headless Chromium: the per-hit picker composes
the HIT order, sends it through the order form, and the receipt and the stored order
are exactly that order; with JavaScript off the long list is still there to use.

The game is the one of ``test_4x_dice_hit_picker``: ann has 2 ships on eXterminate;
bob's dice show 1/1, 0/0, 2/2 and cat's 1/0, 0/2, 0/0."""

from __future__ import annotations

import re

import pytest

from games.models import SealedOrder
from tests.games.test_4x_dice_hit_picker import exterminate_game
from tests.games.test_browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def option_texts(page, selector: str) -> list[str]:
    return [t.strip() for t in page.locator(f"{selector} option").all_inner_texts()]


def test_the_hit_picker_composes_and_sends_two_hits(browser_page, live_server, settings):
    from games.services.resolution import prompt_resolve

    settings.GAMES_PAGE_POLL_SECONDS = 600  # no reload racing with the clicks
    game = exterminate_game()
    url = f"{live_server.url}/games/{game.pk}/"
    page = browser_page
    log_in(page, live_server.url, "ann")
    page.goto(url)
    assert "Your order — exterminate" in page.inner_text("#prompt")
    # With JavaScript the picker stands in for the long list of every hit order.
    assert page.is_visible("#hit-picker") and page.is_hidden("#legal-orders")
    rows = page.locator("#hit-picker [data-hit-row]")
    assert rows.count() == 2
    assert page.inner_text("#hit-order") == "PASS"
    first, second = rows.nth(0), rows.nth(1)
    assert first.locator('[data-hit="die"]').is_disabled()

    first.locator('[data-hit="seat"]').select_option("bob")
    # bob's die 2 shows nothing: only dice 1 and 3, with what they show.
    assert [t.strip() for t in first.locator('[data-hit="die"] option').all_inner_texts()] == [
        "1: 1 ship, 1 asteroid", "3: 2 ships, 2 asteroids",
    ]  # fmt: skip
    first.locator('[data-hit="die"]').select_option("3")
    first.locator('[data-hit="kind"]').select_option("SHIP")
    assert page.inner_text("#hit-order") == "HIT bob 3 SHIP"

    second.locator('[data-hit="seat"]').select_option("cat")
    second.locator('[data-hit="die"]').select_option("1")
    # cat's die 1 shows a ship and no asteroid; its die 2 asteroids only.
    kinds = second.locator('[data-hit="kind"] option')
    assert [t.strip() for t in kinds.all_inner_texts()] == ["SHIP"]
    second.locator('[data-hit="die"]').select_option("2")
    assert [t.strip() for t in kinds.all_inner_texts()] == ["ASTEROID"]
    assert second.locator('[data-hit="kind"]').input_value() == "ASTEROID"
    assert page.inner_text("#hit-order") == "HIT bob 3 SHIP; HIT cat 2 ASTEROID"

    page.locator("#hit-picker button[type='submit']").click()
    page.wait_for_selector("#receipt")
    receipt = page.inner_text("#receipt")
    assert "Order sealed: HIT bob 3 SHIP; HIT cat 2 ASTEROID" in receipt
    assert re.search(r"[0-9a-f]{64}", receipt)
    stored = SealedOrder.objects.get(prompt__game=game, prompt__number=2, seat_name="ann", is_current=True)
    assert stored.text == "HIT bob 3 SHIP; HIT cat 2 ASTEROID"
    # The page offers the sealed hits again, chosen.
    rows = page.locator("#hit-picker [data-hit-row]")
    assert [rows.nth(0).locator(f'[data-hit="{p}"]').input_value() for p in ("seat", "die", "kind")] == [
        "bob", "3", "SHIP",
    ]  # fmt: skip
    assert page.inner_text("#hit-order") == "HIT bob 3 SHIP; HIT cat 2 ASTEROID"

    # Resolved, the hits land on the dice the table numbers 3 (bob) and 2 (cat).
    assert prompt_resolve(game_id=game.pk, prompt_number=2)
    page.goto(url)
    for seat, die, face in (("bob", 3, "1/2"), ("cat", 2, "0/1"), ("bob", 1, "1/1")):
        row = page.locator("table tbody tr", has=page.locator(f"strong:text-is('{seat}')"))
        cell = row.locator("td", has=page.locator(".die")).first  # the Dice column
        number = cell.locator(".die-no").nth(die - 1)
        assert number.inner_text() == str(die)
        assert cell.locator(".die").nth(die - 1).inner_text() == face, (seat, die)


def test_without_javascript_the_list_and_the_text_field_still_work(browser_page, live_server):
    game = exterminate_game()
    context = browser_page.context.browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.set_default_timeout(10_000)
        log_in(page, live_server.url, "ann")
        page.goto(f"{live_server.url}/games/{game.pk}/")
        assert page.is_hidden("#hit-picker") and page.is_visible("#legal-orders select")
        page.select_option("#legal-orders select", "HIT bob 1 ASTEROID; HIT cat 1 SHIP")
        page.locator("#legal-orders button[type='submit']").click()
        page.wait_for_selector("#receipt")
        assert "HIT bob 1 ASTEROID; HIT cat 1 SHIP" in page.inner_text("#receipt")
        page.locator("#prompt details > summary").click()
        page.fill("#id_text", "HIT cat 3 SHIP")
        page.locator("#prompt details button[type='submit']").click()
        page.wait_for_load_state()
        # The engine's own reason; the sealed order is unchanged.
        assert "cat's die 3 shows no ship" in page.inner_text("main")
        stored = SealedOrder.objects.get(prompt__game=game, prompt__number=2, seat_name="ann", is_current=True)
        assert stored.text == "HIT bob 1 ASTEROID; HIT cat 1 SHIP"
    finally:
        context.close()


def test_each_hit_row_offers_only_what_the_rows_above_leave(browser_page, live_server, settings):
    settings.GAMES_PAGE_POLL_SECONDS = 600
    game = exterminate_game()
    page = browser_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    rows = page.locator("#hit-picker [data-hit-row]")
    first, second = rows.nth(0), rows.nth(1)

    def options(row, part: str) -> list[str]:
        return [t.strip() for t in row.locator(f'[data-hit="{part}"] option').all_inner_texts()]

    # cat's die 1 shows one ship (1/0): once hit 1 takes it, hit 2 no longer offers that die.
    first.locator('[data-hit="seat"]').select_option("cat")
    first.locator('[data-hit="die"]').select_option("1")
    assert first.locator('[data-hit="kind"]').input_value() == "SHIP"
    second.locator('[data-hit="seat"]').select_option("cat")
    assert options(second, "die") == ["2: 2 asteroids"]
    # bob's die 1 (1/1) after a SHIP hit above shows 0/1: only an ASTEROID is left on it.
    first.locator('[data-hit="seat"]').select_option("bob")
    first.locator('[data-hit="die"]').select_option("1")
    first.locator('[data-hit="kind"]').select_option("SHIP")
    second.locator('[data-hit="seat"]').select_option("bob")
    assert options(second, "die") == ["1: 1 asteroid", "3: 2 ships, 2 asteroids"]
    second.locator('[data-hit="die"]').select_option("1")
    assert options(second, "kind") == ["ASTEROID"]
    assert page.inner_text("#hit-order") == "HIT bob 1 SHIP; HIT bob 1 ASTEROID"

    # Changing a row above updates the rows below: hit 2 holds cat's die 1 SHIP, then hit 1
    # takes that ship; hit 2 becomes "no hit" (not some other hit), and then offers cat's
    # die 2 only; the order is one the server accepts.
    second.locator('[data-hit="seat"]').select_option("cat")
    second.locator('[data-hit="die"]').select_option("1")
    assert page.inner_text("#hit-order") == "HIT bob 1 SHIP; HIT cat 1 SHIP"
    first.locator('[data-hit="seat"]').select_option("cat")
    first.locator('[data-hit="die"]').select_option("1")
    assert first.locator('[data-hit="kind"]').input_value() == "SHIP"
    assert second.locator('[data-hit="seat"]').input_value() == ""
    assert page.inner_text("#hit-order") == "HIT cat 1 SHIP"
    second.locator('[data-hit="seat"]').select_option("cat")
    assert options(second, "die") == ["2: 2 asteroids"]
    order = page.inner_text("#hit-order")
    assert order == "HIT cat 1 SHIP; HIT cat 2 ASTEROID"
    page.locator("#hit-picker button[type='submit']").click()
    page.wait_for_selector("#receipt")
    assert f"Order sealed: {order}" in page.inner_text("#receipt")
    stored = SealedOrder.objects.get(
        prompt__game=game, prompt__number=2, seat_name="ann", is_current=True
    )
    assert stored.text == order
    # The page offers the sealed hits again, each row with what is left for it.
    rows = page.locator("#hit-picker [data-hit-row]")
    assert options(rows.nth(1), "die") == ["2: 2 asteroids"]
    assert rows.nth(1).locator('[data-hit="die"]').input_value() == "2"


def test_a_hit_taken_by_a_row_above_leaves_the_row_below_with_no_hit(
    browser_page, live_server, settings
):
    """When a row above takes the die or the kind a row below had chosen, that row becomes
    "no hit" (as the server's picker shows it), not another hit the player never picked.
    bob's die 1 shows 1/1 and cat's die 1 shows 1/0; bob's die 3 shows 2/2."""
    settings.GAMES_PAGE_POLL_SECONDS = 600
    game = exterminate_game()
    page = browser_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    rows = page.locator("#hit-picker [data-hit-row]")
    first, second = rows.nth(0), rows.nth(1)

    def chosen(row) -> list[str]:
        return [row.locator(f'[data-hit="{p}"]').input_value() for p in ("seat", "die", "kind")]

    def pick(row, seat: str, die: str, kind: str) -> None:
        row.locator('[data-hit="seat"]').select_option(seat)
        row.locator('[data-hit="die"]').select_option(die)
        row.locator('[data-hit="kind"]').select_option(kind)

    # The kind taken: bob's die 1 keeps its asteroid, but hit 2 chose its ship.
    pick(second, "bob", "1", "SHIP")
    assert page.inner_text("#hit-order") == "HIT bob 1 SHIP"
    pick(first, "bob", "1", "SHIP")
    assert chosen(first) == ["bob", "1", "SHIP"]
    assert chosen(second) == ["", "", ""]
    assert second.locator('[data-hit="die"]').is_disabled()
    assert second.locator('[data-hit="kind"]').is_disabled()
    assert page.inner_text("#hit-order") == "HIT bob 1 SHIP"
    assert page.input_value("#hit-picker [data-hit-text]") == "HIT bob 1 SHIP"

    # The die taken: cat's die 1 has one ship only.
    pick(second, "cat", "1", "SHIP")
    assert page.inner_text("#hit-order") == "HIT bob 1 SHIP; HIT cat 1 SHIP"
    first.locator('[data-hit="seat"]').select_option("cat")  # die 1 and SHIP come first
    assert chosen(first) == ["cat", "1", "SHIP"]
    assert chosen(second) == ["", "", ""]
    assert page.inner_text("#hit-order") == "HIT cat 1 SHIP"

    # A hit still there after the change above is kept as chosen.
    pick(second, "bob", "3", "ASTEROID")
    pick(first, "bob", "3", "SHIP")
    assert chosen(second) == ["bob", "3", "ASTEROID"]
    assert page.inner_text("#hit-order") == "HIT bob 3 SHIP; HIT bob 3 ASTEROID"

    page.locator("#hit-picker button[type='submit']").click()
    page.wait_for_selector("#receipt")
    stored = SealedOrder.objects.get(
        prompt__game=game, prompt__number=2, seat_name="ann", is_current=True
    )
    assert stored.text == "HIT bob 3 SHIP; HIT bob 3 ASTEROID"


def test_hits_picked_when_the_page_holds_come_back_after_a_reload(browser_page, live_server, settings):
    """Regression: the page held its reload over hits being picked (the deadline was
    extended meanwhile), but a reload put every row back to "no hit". Each row's seat,
    die and kind come back, each row offering what the rows above leave."""
    from games.services.organizer import deadline_extend

    settings.GAMES_PAGE_POLL_SECONDS = 1
    game = exterminate_game()
    page = browser_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    rows = page.locator("#hit-picker [data-hit-row]")
    first, second = rows.nth(0), rows.nth(1)
    first.locator('[data-hit="seat"]').select_option("bob")
    first.locator('[data-hit="die"]').select_option("3")
    first.locator('[data-hit="kind"]').select_option("SHIP")
    second.locator('[data-hit="seat"]').select_option("cat")
    second.locator('[data-hit="die"]').select_option("2")
    assert page.inner_text("#hit-order") == "HIT bob 3 SHIP; HIT cat 2 ASTEROID"
    deadline_extend(game=game, by=game.organizer, hours=2)
    page.wait_for_selector("#moved-on:not([hidden])", timeout=10_000)
    assert "Your choice is kept below: it was not sent" in page.inner_text("#moved-on")
    page.locator("#moved-on a").click()
    page.wait_for_load_state()
    page.wait_for_selector("#page-updated:not([hidden])")
    assert page.inner_text("#page-updated") == "Your choice was not sent: it is kept in the form below. Go to the form"
    assert page.inner_text("#hit-order") == "HIT bob 3 SHIP; HIT cat 2 ASTEROID"
    assert [second.locator(f'[data-hit="{part}"]').input_value() for part in ("seat", "die", "kind")] == [
        "cat", "2", "ASTEROID",
    ]  # fmt: skip
    assert [t.strip() for t in second.locator('[data-hit="kind"] option').all_inner_texts()] == ["ASTEROID"]
