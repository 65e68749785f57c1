"""The account pages in real headless Chromium: the account links are targets a finger
can hit on a phone, and a secondary button (allauth's Cancel) does not look like the
primary one."""

from __future__ import annotations

import re

import pytest

from tests.games.test_browser import log_in_by_form
from tests.games.web_support import make_user
from tests.site.mail_support import sent_account_mail

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_account_links_are_tall_enough_to_tap_on_a_phone(phone_page, live_server):
    # Guards against ~16 px tall links in the account pages' navigation (24 px at least).
    make_user("kit")
    page = phone_page
    log_in_by_form(page, live_server.url, "kit")
    page.goto(f"{live_server.url}/account/settings/")
    links = page.locator('nav[aria-label="Account"] a')
    assert links.count() == 9
    for i in range(links.count()):
        box = links.nth(i).bounding_box()
        assert box["height"] >= 24, (links.nth(i).inner_text(), box)
        assert box["x"] + box["width"] <= 390, (links.nth(i).inner_text(), box)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_the_reset_forms_cancel_is_outlined_not_a_second_primary_button(browser_page, live_server):
    # Guards against allauth's Cancel looking exactly like "Change Password" beside it.
    make_user("lou")
    page = browser_page
    page.goto(f"{live_server.url}/accounts/password/reset/")
    page.fill('input[name="email"]', "lou@example.test")
    page.locator('main form button[type="submit"]').first.click()
    page.wait_for_load_state()
    link = re.search(r"https?://[^/\s]+(/accounts/password/reset/key/\S+/)", sent_account_mail()[-1].body)
    page.goto(live_server.url + link.group(1))
    page.wait_for_load_state()
    primary = page.get_by_role("button", name="Change Password")
    cancel = page.get_by_role("button", name="Cancel")

    def look(button) -> tuple[str, str]:
        return button.evaluate(
            "(b) => [getComputedStyle(b).backgroundColor, getComputedStyle(b).color]"
        )

    assert look(primary) != look(cancel), (look(primary), look(cancel))
    background, _color = look(cancel)
    border = cancel.evaluate("(b) => getComputedStyle(b).borderTopColor")
    assert border != background  # an outline, not a filled button


def test_the_calendar_page_makes_renews_and_turns_off_the_address(browser_page, live_server):
    """Account → Calendar in Chromium: the address shown once with its webcal:// link, the
    feed it opens (no login), New address and Turn it off each asked first (data-confirm),
    the old address a 404 after each; no serious axe violation with the address shown."""
    import urllib.error
    import urllib.request
    from urllib.parse import urlsplit

    from tests.site.test_browser_axe import blocking_violations

    make_user("cal")
    page, base = browser_page, live_server.url
    log_in_by_form(page, base, "cal")
    page.goto(f"{base}/account/calendar/")
    page.get_by_role("button", name="Make my calendar address").click()
    page.wait_for_load_state()
    shown = page.locator("#new-calendar-url").inner_text().strip()
    webcal = page.locator("#new-calendar-webcal").get_attribute("href")
    assert webcal == "webcal://" + shown.split("://", 1)[1]
    assert blocking_violations(page) == []
    feed = base + urlsplit(shown).path

    def fetch(url: str):  # as a calendar app does: no cookie, no login
        try:
            with urllib.request.urlopen(url, timeout=10) as answer:
                answer.body = answer.read()
                return answer
        except urllib.error.HTTPError as refused:
            return refused

    answer = fetch(feed)
    assert answer.status == 200 and answer.headers["Content-Type"].startswith("text/calendar")
    assert b"BEGIN:VCALENDAR" in answer.body
    questions = []
    page.on("dialog", lambda dialog: (questions.append(dialog.message), dialog.accept()))
    page.get_by_role("button", name="New address (the old one stops working)").click()
    page.wait_for_load_state()
    renewed = page.locator("#new-calendar-url").inner_text().strip()
    assert renewed != shown and "stops working" in questions[-1]
    assert fetch(feed).status == 404
    assert fetch(base + urlsplit(renewed).path).status == 200
    page.reload()
    assert page.locator("#new-calendar-url").count() == 0  # shown once
    page.get_by_role("button", name="Turn it off").click()
    page.wait_for_load_state()
    assert "Turn your calendar address off?" in questions[-1]
    assert page.get_by_text("You have no calendar address.").is_visible()
    assert fetch(base + urlsplit(renewed).path).status == 404
