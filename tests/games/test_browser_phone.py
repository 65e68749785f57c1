"""Phone-sized pages in real headless Chromium, from a phone walk of every page: nothing
widens the page, wide tables scroll inside their box (and can be scrolled), the Join
button of an open game is on screen, and a long player name wraps in the header."""

from __future__ import annotations

import pytest

from games.models import Game
from games.services import games as game_services
from tests.games.core_support import play_defaults
from tests.games.test_browser import log_in
from tests.games.web_support import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def _started(ruleset: str, names: list[str]) -> Game:
    users = [make_user(n) for n in names]
    game = game_services.game_create(organizer=users[0], ruleset=ruleset, seats_count=len(names))
    for user in users:
        game_services.game_join(game=game, user=user)
    game.refresh_from_db()
    return game


def _page_width(page) -> int:
    return page.evaluate("() => document.documentElement.scrollWidth")


def test_a_5x_page_with_cards_played_does_not_widen_the_phone_page(phone_page, live_server):
    game = _started("5x", ["ann", "bob", "cat", "dan", "bartholomew_featherstonehaugh"])
    play_defaults(game, 14)  # rounds of play: cards in the played and discard columns
    page = phone_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    assert page.locator(".gx .scroll .pip").count() > 0  # the cards whose hidden names escaped
    assert _page_width(page) <= 390
    # A wider players table (longer names, more cards: a finished 5X game's is ~830 px):
    # its cards' screen-reader names sit at the table's right end and must stay inside the
    # table's scrolling box, as the visible cards do.
    page.evaluate("""() => {
        const row = document.querySelector('.gx .scroll table tbody tr');
        const cell = row.insertCell();
        cell.innerHTML = '<span class="pip" style="margin-left: 800px">1'
            + '<span class="visually-hidden"> (Exploit)</span></span>';
    }""")
    assert page.evaluate("() => document.querySelector('.gx .scroll').scrollWidth") > 800
    assert _page_width(page) <= 390
    page.goto(f"{live_server.url}/games/{game.pk}/log/")
    assert _page_width(page) <= 390


def test_the_standings_show_their_last_column_on_a_phone(browser_page, live_server):
    from tournaments.services.tournaments import (
        registration_add,
        tournament_create,
        tournament_open,
    )

    org = make_user("org")
    t = tournament_create(organizer=org, name="Phone cup", ruleset="5x", table_sizes=[4],
                          rounds_count=3, tiebreaks=["buchholz", "buchholz_cut1", "sonneborn_berger",
                                                     "average_opponent", "wins", "direct_encounter"])
    tournament_open(tournament=t, by=org)
    for n in ("maximilian_wolfeschlegelstein", "bartholomew_featherstonehaugh", "cat", "dan"):
        registration_add(tournament=t, user=make_user(n))
    page = browser_page
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/tournaments/{t.slug}/")
    # Six tie-breaks and long names: each player's row is a card on a phone, every value
    # on screen without scrolling the box sideways (it once scrolled to its last column).
    region = page.locator('.scroll-x[aria-label="Standings"]')
    assert region.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1")
    rows = region.locator("tbody tr")
    assert rows.count() == 4
    for i in range(4):
        box = rows.nth(i).locator("td").last.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390 + 1, box
    assert _page_width(page) <= 390


def test_the_join_button_of_an_open_game_is_on_a_phone_screen(browser_page, live_server):
    organizer = make_user("org")
    game_services.game_create(
        organizer=organizer, ruleset="4x-dice", seats_count=6,
        name="A game with a rather long name for a small screen",
    )
    make_user("zed")
    page = browser_page
    page.set_viewport_size(PHONE)
    log_in(page, live_server.url, "zed")
    page.goto(f"{live_server.url}/games/")
    join = page.get_by_role("button", name="Join A game with a rather long name")
    box = join.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert _page_width(page) <= 390


def test_the_games_lists_are_cards_on_a_phone(browser_page, live_server):
    """The accessibility/phone pass: the games list's tables scrolled sideways on a phone
    (Created and Started out of sight). Each game is a card now, every field labelled."""
    organizer = make_user("cardorg")
    game = game_services.game_create(organizer=organizer, ruleset="5x", seats_count=3,
                                     name="Cards for phones")  # fmt: skip
    page = browser_page
    page.set_viewport_size(PHONE)
    log_in(page, live_server.url, "cardorg")
    page.goto(f"{live_server.url}/games/")
    assert _page_width(page) <= 390
    box = page.locator('#my-games [role=region]')
    assert box.evaluate("b => b.scrollWidth <= b.clientWidth + 1")  # nothing to scroll to
    assert box.get_attribute("tabindex") is None  # so no keyboard stop either
    row = page.locator("#my-games tbody tr").first
    assert row.evaluate("r => getComputedStyle(r).display") == "grid"
    labels = row.evaluate("r => Array.from(r.cells).map(c => getComputedStyle(c, '::before').content)")
    assert labels[1:] == ['"Ruleset"', '"Status"', '"Seats"', '"Created"'], labels
    assert game.name in row.inner_text()
    # On a desktop screen it is a table with its header row.
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/games/")
    assert page.locator("#my-games thead").is_visible()
    assert page.locator("#my-games tbody tr").first.evaluate("r => getComputedStyle(r).display") == "table-row"


@pytest.mark.parametrize("width", [390, 320])
def test_a_long_player_name_wraps_in_the_header(browser_page, live_server, width):
    game = _started("6x5", ["maximilian_wolfeschlegelstein", "bob"])
    page = browser_page
    page.set_viewport_size({"width": width, "height": 700})
    log_in(page, live_server.url, "maximilian_wolfeschlegelstein")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    assert _page_width(page) <= width
    log_out = page.get_by_role("button", name="Log out")
    box = log_out.bounding_box()
    assert box["x"] + box["width"] <= width and box["height"] < 40, box  # on one line


def test_on_a_phone_the_seats_come_before_the_history(phone_page, live_server):
    """One column: the seats list (who has sealed an order) follows the table and comes
    before the history and the side panels; on a wide screen it is beside the table."""
    game = _started("5x", ["ann", "bob", "cat"])
    play_defaults(game, 3)
    page = phone_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")

    def top(selector: str) -> float:
        return page.locator(selector).first.bounding_box()["y"]

    seats, history = top("ul.seats"), top("#history")
    assert top(".gx .panel.prompt") < seats < history < top("#reply-address")
    assert _page_width(page) <= 390
    page.set_viewport_size({"width": 1280, "height": 900})
    box, table = page.locator("ul.seats").bounding_box(), page.locator("#history").bounding_box()
    assert box["x"] > table["x"] + table["width"]  # the side column
    # The wide layout as before the seats moved up the page: the seats panel at the top of
    # the side column, the side panels right under it, the history right under the table.
    seats_panel = page.locator(".side-seats .panel").bounding_box()
    main = page.locator(".layout-main").bounding_box()
    side = page.locator("#reply-address").locator("xpath=ancestor::div[contains(@class,'panel')][1]")
    assert abs(seats_panel["y"] - main["y"]) < 2
    assert 0 <= side.bounding_box()["y"] - (seats_panel["y"] + seats_panel["height"]) < 20
    assert 0 <= table["y"] - (main["y"] + main["height"]) < 20


@pytest.mark.parametrize("ruleset,names", [("5x", ["ann", "bob", "cat"]), ("4x-dice", ["ann", "bob"])])
def test_every_players_value_is_on_a_phone_screen_labelled(phone_page, live_server, ruleset, names):
    """The players' table was eight columns in a 313 px box: Hand, Played, Bid and the
    discard pile (4X Dice's counters) sat behind a sideways scroll with a faint hint. On a
    phone each player is a card of labelled values, all on screen."""
    game = _started(ruleset, names)
    play_defaults(game, 4)
    page = phone_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    cells = page.locator('.scroll[aria-label="Players"] table.stack tbody td[data-label]')
    assert cells.count() >= len(names) * 4
    for i in range(cells.count()):
        cell = cells.nth(i)
        box = cell.bounding_box()
        assert box["width"] > 0 and box["x"] >= 0 and box["x"] + box["width"] <= 390, (i, box)
        label = cell.evaluate("(el) => getComputedStyle(el, '::before').content")
        assert label.strip('"') == cell.get_attribute("data-label")
    box = page.locator('.scroll[aria-label="Players"]')
    assert box.evaluate("(el) => el.scrollWidth <= el.clientWidth")
    assert _page_width(page) <= 390
    # A desktop at 200 % zoom lays out 640 px: cards too (an accessibility pass found the
    # 4X Dice table scrolling sideways, "EXTERMI..." cut).
    page.set_viewport_size({"width": 640, "height": 800})
    assert box.evaluate("(el) => el.scrollWidth <= el.clientWidth")
    assert page.locator('.scroll[aria-label="Players"] table.stack > thead').evaluate(
        "(el) => getComputedStyle(el).position") == "absolute"


@pytest.mark.parametrize("signed_in", [True, False])
def test_the_header_takes_little_of_a_phone_screen(phone_page, live_server, signed_in):
    """A player's journey: on a 390 px phone the header's three wrapped rows (the brand,
    the site's links, the account's) took ~150 px of every page."""
    make_user("ann")
    page = phone_page
    if signed_in:
        log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/")
    height = page.evaluate("() => document.querySelector('.site-header').getBoundingClientRect().height")
    assert height <= 100, height
    assert _page_width(page) <= 390
    # Everything is still there, and reachable by a finger.
    names = ["Home", "Games", "Tournaments", *(["Account"] if signed_in else ["Log in", "Sign up"])]
    for name in names:
        link = page.locator(".site-header").get_by_role("link", name=name, exact=True)
        box = link.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, name
    if signed_in:
        assert page.get_by_role("button", name="Log out").is_visible()
        # who is signed in, said in full to a screen reader
        assert page.locator(".site-header .who").text_content() == "Signed in as ann"


def test_the_home_pages_games_are_cards_on_a_phone(phone_page, live_server):
    # Guards against the home page's five-column table at 390 px: names broken one word a
    # line and the last column's header cut. Each game is a labelled card, as on /games/.
    game = _started("5x", ["ann", "bob", "cat"])
    game.name = "The long winter campaign of the northern provinces"
    game.save(update_fields=["name"])
    page = phone_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/")
    width = page.evaluate("window.innerWidth")
    assert width == 390 and _page_width(page) <= width
    box = page.get_by_role("region", name="Your games")
    assert box.evaluate("b => b.scrollWidth <= b.clientWidth + 1")  # nothing to scroll to
    row = box.locator("tbody tr").first
    assert row.evaluate("r => getComputedStyle(r).display") == "grid"
    labels = row.evaluate("r => Array.from(r.cells).map(c => getComputedStyle(c, '::before').content)")
    assert labels[1:] == ['"Rules"', '"Status"', '"You"', '"Started"'], labels
    outside = row.evaluate(
        """(r) => Array.from(r.querySelectorAll('*')).filter((el) => {
            const b = el.getBoundingClientRect();
            return b.width && (b.left < 0 || b.right > window.innerWidth + 0.5);
        }).map((el) => el.outerHTML.slice(0, 80))"""
    )
    assert outside == []
    # The game's name keeps whole words on a line: its cell is the card's width.
    name_box = row.locator("td").first.bounding_box()
    assert name_box["width"] > 300, name_box
    # On a desktop screen it stays a table with its header row.
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/")
    assert box.locator("thead").is_visible()
    assert box.locator("tbody tr").first.evaluate("r => getComputedStyle(r).display") == "table-row"


def test_the_logs_reveal_table_is_cards_on_a_phone(phone_page, live_server):
    """The log's reveal tables (seat, salt, text, source, commitment: 813 px) scrolled
    sideways inside their cell at 390 px, TEXT and SOURCE out of sight (an audit): each
    revealed order is a card of labelled values, as the game page's players are."""
    game = _started("4x-dice", ["ann", "bob"])
    assert play_defaults(game)  # a game over: every order's text and salt are shown
    page = phone_page
    page.goto(f"{live_server.url}/games/{game.pk}/log/")
    assert _page_width(page) <= 390
    tables = page.locator("td.details table:has(> thead th:text-is('Salt'))")
    assert tables.count() > 0
    table = tables.first
    for cell in table.locator("tbody td").all():
        box = cell.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, cell.inner_text()
    # the cell around it no longer scrolls sideways
    widths = table.evaluate("(t) => [t.closest('td.details').scrollWidth, t.closest('td.details').clientWidth]")
    assert widths[0] <= widths[1] + 1, widths
    labels = table.locator("tbody tr").first.evaluate(
        "(row) => [...row.cells].map((td) => getComputedStyle(td, '::before').content)"
    )
    assert labels == ["none", '"Salt"', '"Text"', '"Source"', '"Commitment"'], labels  # seat first


def test_a_refused_typed_order_says_where_its_box_is_on_a_phone(phone_page, live_server):
    # Guards against the phone walk's refusal at the top with its text a screen and more
    # below: a 6x5 order typed and refused came back in the box under the hex picker's
    # board, 1,500 px down, the page at the top showing only the reason.
    from tests.games.test_6x5_hex_picker import table_game

    game = table_game()  # three turns played: ann's turn
    page = phone_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.locator("#prompt details > summary").tap()
    typed = "PLACE RED 9,9  # far away"
    page.fill("#id_text", typed)
    with page.expect_navigation():
        page.locator("#prompt details form button[type=submit]").tap()
    page.wait_for_load_state()
    assert page.input_value("#id_text") == typed
    box_top = page.evaluate("() => document.getElementById('id_text').getBoundingClientRect().top")
    assert box_top > page.viewport_size["height"]  # below the screen: what the link is for
    message = page.locator(".messages .message.error").first
    assert "9,9" in message.inner_text()
    link = message.get_by_role("link", name="Go to the order box")
    link.tap()
    assert page.evaluate("() => document.activeElement && document.activeElement.id") == "id_text"
    box = page.evaluate("""() => { const r = document.getElementById('id_text').getBoundingClientRect();
        return [r.top, r.bottom, window.innerHeight]; }""")
    assert 0 <= box[0] and box[1] <= box[2], box
    assert page.input_value("#id_text") == typed
