"""axe-core (Deque's accessibility engine, bundled by the ``axe-playwright-python`` package)
in headless Chromium on the key pages an anonymous visitor, a player and an organizer see:
no serious or critical violation of the WCAG 2.0/2.1/2.2 A and AA rules or axe's best
practices. Also: an order sent with the keyboard alone, and a refused one read out."""

from __future__ import annotations

import pytest

from tests.games.test_4x_dice_hit_picker import exterminate_game
from tests.games.test_6x5_hex_picker import blue_line_game
from tests.games.test_browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": [
        "wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]},
    "resultTypes": ["violations"],
}  # fmt: skip
BLOCKING = {"serious", "critical"}


def _world() -> dict[str, object]:
    """A 6x5 game at zoe's turn (the hex picker), a 4X Dice game at ann's eXterminate (the
    hit picker), a 5X game at a prompt for ann (the order buttons) with table talk, a
    forming game and an open tournament ann organizes."""
    from games.models import Game
    from games.services import games as game_services
    from games.services.talk import message_post
    from tests.games.core_support import play_defaults
    from tournaments.services import tournaments as tsvc

    hexes = blue_line_game()  # its seat "ann" becomes the player zoe: the next game makes ann
    zoe = hexes.seats.get(name="ann").user
    zoe.username, zoe.email = "zoe", "zoe@example.test"
    zoe.set_password("pw-zoe")
    zoe.save()
    dice = exterminate_game()
    ann, bob, cat = (dice.seats.get(name=n).user for n in ("ann", "bob", "cat"))
    five = game_services.game_create_seated(
        organizer=ann, ruleset="5x", users=[ann, bob, cat], is_private=False
    )
    play_defaults(five, 3)
    message_post(game=five, user=bob, text="Good luck, all!")
    forming = game_services.game_create(organizer=bob, ruleset="5x", seats_count=3, name="Forming")
    t = tsvc.tournament_create(organizer=ann, name="Axe cup", ruleset="4x-dice", table_sizes=[2],
                               rounds_count=2)  # fmt: skip
    tsvc.tournament_open(tournament=t, by=ann)
    tsvc.registration_add(tournament=t, user=bob)
    five = Game.objects.get(pk=five.pk)
    return {
        "hexes": hexes.pk,
        "dice": dice.pk,
        "five": five.pk,
        "forming": forming.pk,
        "cup": t.slug,
    }


def blocking_violations(page, within: str | None = None, impacts=BLOCKING) -> list[str]:
    """axe's violations of those ``impacts`` (serious and critical) on the page as it is now
    (in the element ``within`` selects, or all of it): 'rule (impact): targets'."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page, context=within, options=AXE_OPTIONS).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:3]}"
        for v in found
        if v["impact"] in impacts
    ]


EVERY_IMPACT = {"minor", "moderate", "serious", "critical"}


def test_the_key_pages_have_no_serious_accessibility_violations(browser_page, live_server):
    w = _world()
    page, base = browser_page, live_server.url
    # (who is logged in, path, a selector the page must show: the state under test is there);
    # the API docs are the last test's.
    visits = [
        (None, "/accounts/login/", "form input[name=login]"),
        (None, "/", "main h1"),
        (None, "/games/", "main h1"),
        (None, f"/games/{w['five']}/", ".seats"),  # a spectator
        (None, f"/games/{w['forming']}/", "main h2"),
        (None, f"/tournaments/{w['cup']}/", "main h1"),
        (None, "/no-such-page/", "main h1"),
        (None, f"/games/{w['five']}/review/1/", "#step-heading"),
        (None, "/players/", "main h1"),
        ("ann", f"/games/{w['five']}/", "#legal-orders button"),
        ("ann", f"/games/{w['dice']}/", "#hit-picker:not([hidden])"),
        ("ann", f"/games/{w['five']}/log/", "main table"),
        ("ann", f"/games/{w['five']}/talk/", "main textarea"),
        ("ann", "/games/new/", "#id_ruleset"),
        ("ann", "/account/api-tokens/", "main h1"),
        ("ann", "/account/settings/", "#away input[type=date]"),
        ("ann", "/accounts/2fa/", "#mfa-totp"),  # the 2FA pages' walk: test_browser_two_factor
        ("ann", "/accounts/2fa/webauthn/", "#webauthn-keys"),  # adding one: test_browser_passkeys
        ("ann", "/accounts/sessions/", "#sessions"),
        ("ann", f"/tournaments/{w['cup']}/manage/", "main h1"),
        ("zoe", f"/games/{w['hexes']}/", "#hex-picker:not([hidden])"),
        ("bob", f"/games/{w['forming']}/", "#invite-players input"),
    ]
    failures = {}
    who = None
    for user, path, shows in visits:
        if user != who:
            page.context.clear_cookies()
            if user:
                log_in(page, base, user)
            who = user
        page.goto(base + path)
        page.wait_for_selector(shows, state="attached")
        found = blocking_violations(page)
        if found:
            failures[f"{user or 'anonymous'} {path}"] = found
    assert failures == {}


def test_an_order_is_sent_with_the_keyboard_alone_and_a_refusal_is_read_out(
    browser_page, live_server
):
    """The order form from the page's top: Tab to it, Enter sends; a refused typed order
    comes back with the reader on the message and the box marked invalid, tied to its error.
    The deadline's countdown is in no live region."""
    from games.models import SealedOrder

    w = _world()
    ann_sealed = SealedOrder.objects.filter(
        prompt__game_id=w["five"], prompt__resolved_at__isnull=True, seat_name="ann"
    )
    page, base = browser_page, live_server.url
    log_in(page, base, "ann")
    page.goto(f"{base}/games/{w['five']}/")
    # The countdown, rewritten by the page's script as time passes, is in no live region:
    # it is not read out at each change.
    countdown = page.locator("[data-countdown]")
    page.wait_for_function("() => document.querySelector('[data-countdown]').innerText !== ''")
    live = "[aria-live], [role=status], [role=alert], [role=log], [role=timer], [role=marquee]"
    assert countdown.evaluate("(el, live) => el.closest(live)", live) is None

    def tab_to(selector: str) -> int:
        for presses in range(1, 60):
            page.keyboard.press("Tab")
            if page.evaluate("s => document.activeElement.matches(s)", selector):
                return presses
        raise AssertionError(f"Tab never reached {selector}")

    # A typed order that is refused: the summary opens with Enter, the box takes the text.
    tab_to("#prompt summary")
    page.keyboard.press("Enter")
    tab_to("#id_text")
    page.keyboard.type("PLAY NOTHING")
    page.keyboard.press("Tab")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    page.wait_for_load_state()
    focused = page.evaluate("document.activeElement.className")
    assert "messages-box" in focused  # a role=status box with the focus: read first
    assert "NOTHING" in page.inner_text(".messages-box")
    box = page.locator("#id_text")
    assert box.get_attribute("aria-invalid") == "true"
    assert "id_text_error" in box.get_attribute("aria-describedby").split()
    assert not ann_sealed.exists()

    # The first legal order's button: Tab reaches it with a visible focus, Enter sends it.
    tab_to("#legal-orders button")
    chosen = page.evaluate("document.activeElement.innerText").strip()
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"
    with page.expect_navigation():
        page.keyboard.press("Enter")
    page.wait_for_load_state()
    assert chosen in page.inner_text("#receipt")
    assert ann_sealed.count() == 1


def test_the_api_docs_have_no_accessibility_violations_as_they_are_used(browser_page, live_server):
    """Swagger UI's page, none of any impact (the page mends what Swagger UI draws): its
    Authorize dialog; an operation opened, tried out and executed: its parameters' lists of
    values (no name), its examples (sideways scrolling, highlighted at 3.45:1), its Cancel,
    Execute, copy and Download buttons, its parts' headings."""
    page = browser_page
    page.goto(f"{live_server.url}/api/docs/")
    page.locator(".btn.authorize").click()
    page.wait_for_selector(".modal-ux button.close-modal")
    assert blocking_violations(page, impacts=EVERY_IMPACT) == []
    page.locator(".modal-ux button.close-modal").click()
    page.locator("#operations-games-games_list .opblock-summary-control").click()
    page.locator("#operations-games-games_list .try-out__btn").click()
    page.wait_for_selector("#operations-games-games_list select:not([disabled])")
    # The path's copy button, shown on hover (and to the keyboard), once it has grown.
    copy = "#operations-games-games_list .opblock-summary .copy-to-clipboard button"
    page.hover("#operations-games-games_list .opblock-summary")
    page.wait_for_function(
        "s => document.querySelector(s).getBoundingClientRect().width >= 24", arg=copy
    )
    assert blocking_violations(page, impacts=EVERY_IMPACT) == []
    # Executed: the answer, its curl command with a copy button, the Download button.
    page.locator("#operations-games-games_list .execute").click()
    page.wait_for_selector("#operations-games-games_list .curl-command")
    page.hover("#operations-games-games_list .opblock-summary")  # not caught shrinking
    page.wait_for_function(
        "s => document.querySelector(s).getBoundingClientRect().width >= 24", arg=copy
    )
    assert (
        blocking_violations(page, within="#operations-games-games_list", impacts=EVERY_IMPACT) == []
    )
    # The path's copy button is seen by a keyboard: it has a width when it has the focus.
    page.mouse.move(0, 0)
    page.focus(copy)
    page.wait_for_function(
        "s => document.querySelector(s).getBoundingClientRect().width >= 24", arg=copy
    )
