"""The game log page in real headless Chromium: an "Orders revealed" row of a 3-seat game
stays a few lines tall (its 64-hex commitments are shown shortened, not one character
per line), on a desktop and on a phone, while the game runs and once it is over."""

from __future__ import annotations

import pytest

from tests.games.test_4x_dice_hit_picker import exterminate_game
from tests.games.test_browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A few lines of text with three seats' orders; the bug made such a row 1,500 px tall.
# On a phone each seat's order is a card of a few lines (the table of five columns had to
# be scrolled sideways, an audit): the entry's line, then at most 150 px a seat.
MAX_ROW_HEIGHT = {1280: 200, 390: 60 + 3 * 150}


def revealed_row_heights(page, url: str) -> list[float]:
    page.goto(url)
    rows = page.locator("table.log > tbody > tr").filter(has_text="Orders revealed")
    assert rows.count() >= 1
    return [rows.nth(i).bounding_box()["height"] for i in range(rows.count())]


def words_broken(cell) -> list[str]:
    """The words of an element's text that the browser laid out over more than one line."""
    return cell.evaluate(
        """(el) => {
            const text = el.firstChild && el.firstChild.nodeType === 3 ? el.firstChild : null;
            if (!text) return ["no text node"];
            const broken = [];
            const re = /\\S+/g;
            let m;
            while ((m = re.exec(text.data))) {
                const range = document.createRange();
                range.setStart(text, m.index);
                range.setEnd(text, m.index + m[0].length);
                const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
                if (tops.size > 1) broken.push(m[0]);
            }
            return broken;
        }"""
    )


@pytest.mark.parametrize("width,height", [(1280, 900), (390, 844)])
def test_an_orders_revealed_row_is_a_few_lines_tall(browser_page, live_server, width, height):
    from games.services.organizer import game_end

    game = exterminate_game()  # 3 seats, the set-up prompt resolved: one "Orders revealed"
    page = browser_page
    page.set_viewport_size({"width": width, "height": height})
    log_in(page, live_server.url, "ann")
    url = f"{live_server.url}/games/{game.pk}/log/"

    # While the game runs ann sees her own order and salt, the others' commitments.
    heights = revealed_row_heights(page, url)
    assert max(heights) <= MAX_ROW_HEIGHT[width], heights
    # The entry's number, time and kind are not broken inside a word ("1 / 3", "reveale / d").
    row = page.locator("table.log > tbody > tr").filter(has_text="Orders revealed").first
    for cell in ("td.seq", "td.when", "td.kind"):
        assert words_broken(row.locator(cell)) == [], cell

    # Over, every seat's text, salt and commitment are in the row.
    game_end(game=game, by=game.organizer, reason="testing the log layout")
    heights = revealed_row_heights(page, url)
    assert max(heights) <= MAX_ROW_HEIGHT[width], heights


def test_game_created_values_sit_beside_their_labels_on_a_phone(phone_page, live_server):
    # Guards against the phone log's "Game created" labels keeping their help line on one
    # line, pushing every value ~240 px right into a sideways-scrolling cell.
    game = exterminate_game(resolve=False)
    page = phone_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/log/")
    width = page.evaluate("window.innerWidth")
    assert width <= 400
    row = page.locator("table.log > tbody > tr").filter(has_text="Game created").first
    cells = row.locator("td.details table.kv > tbody > tr > td")
    assert cells.count() >= 3
    for i in range(cells.count()):
        box = cells.nth(i).bounding_box()
        assert box is not None
        assert box["x"] >= 0 and box["x"] + min(box["width"], 40) <= width, (i, box, width)
        assert box["x"] + box["width"] <= width + 1, (i, box, width)


def _label_tops(row, labels: list[str]) -> list[float]:
    """The tops of the fields named ``labels`` in a log entry's details (outermost first)."""
    return row.evaluate(
        """(row, labels) => labels.map((label) => {
            const th = [...row.querySelectorAll("td.details table.kv th")]
                .find((th) => th.firstChild && th.firstChild.textContent.trim() === label);
            return th ? Math.round(th.getBoundingClientRect().top) : null;
        })""",
        labels,
    )


def test_on_a_phone_an_entrys_fields_share_lines(phone_page, live_server):
    # Guards against the phone log's one-field-a-line details: "Seat ann", "Prompt 1",
    # "Source web" each a line under the sentence saying the same, which made a 4-seat
    # game's log some 14,000 px tall on a phone.
    game = exterminate_game()
    page = phone_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/log/")
    width = page.evaluate("window.innerWidth")
    assert width <= 400
    sealed = page.locator("table.log > tbody > tr").filter(has_text="Order sealed").first
    tops = _label_tops(sealed, ["Seat", "Prompt", "Source"])
    assert None not in tops and len(set(tops)) == 1, tops
    resolved = page.locator("table.log > tbody > tr").filter(has_text="Prompt resolved").first
    tops = _label_tops(resolved, ["Phase", "Round"])
    assert None not in tops and len(set(tops)) == 1, tops
    # Nothing sticks out of the phone's screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for row in (sealed, resolved):
        box = row.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1, box
