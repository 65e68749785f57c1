"""Table talk in real headless Chromium: a message written by another player appears on
the open page without a reload, as text, and what the reader is typing stays."""

from __future__ import annotations

import pytest

from games.services.games import game_create, game_join
from games.services.talk import message_post
from tests.games.test_browser import log_in
from tests.games.web_support import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_new_message_appears_and_the_draft_stays(browser_page, live_server, settings):
    settings.TALK_POLL_SECONDS = 1
    users = [make_user(n) for n in ("ida", "jon", "kim")]
    game = game_create(organizer=users[0], ruleset="5x", seats_count=3, name="Chatty")
    for user in users:
        game_join(game=game, user=user)
    message_post(game=game, user=users[1], text="Hello from jon")
    page = browser_page
    log_in(page, live_server.url, "ida")
    page.clock.install()  # Playwright's clock (it runs as a clock does): a poll can be run at once
    page.goto(f"{live_server.url}/games/{game.pk}/talk/")
    assert "Hello from jon" in page.locator("#talk-list").inner_text()
    page.fill("#talk-text", "half-typed reply")
    said = message_post(game=game, user=users[2], text="<b>kim</b> here\nsecond line")
    page.wait_for_selector(f"#m{said.pk}", timeout=10_000)
    row = page.locator(f"#m{said.pk}")
    assert "kim" in row.locator("strong").inner_text()
    assert row.locator(".talk-text").inner_text() == "<b>kim</b> here\nsecond line"  # text, not HTML
    assert row.locator("b").count() == 0
    assert page.locator("#talk-news").inner_text() == "1 new message."
    assert page.locator("#talk-text").input_value() == "half-typed reply"
    # Sent, it shows once (the page reloads after a send; the poll does not add it again).
    page.locator("#talk-form button[type=submit]").click()
    page.wait_for_load_state()
    # The next poll run at once, and its answer awaited (it was a 1.5 s sleep, which a
    # slow poll could outlast).
    with page.expect_response(lambda response: "after=" in response.url) as polled:
        page.clock.run_for(1000)  # TALK_POLL_SECONDS
    polled.value.finished()
    page.evaluate("() => 0")  # the page's handling of it done
    assert page.locator("#talk-list .talk-text", has_text="half-typed reply").count() == 1


def test_the_game_page_says_new_messages_until_the_talk_page_is_seen(browser_page, live_server):
    users = [make_user(n) for n in ("lea", "max", "ned")]
    game = game_create(organizer=users[0], ruleset="5x", seats_count=3, name="Marked")
    for user in users:
        game_join(game=game, user=user)
    page = browser_page
    log_in(page, live_server.url, "lea")
    flag = page.locator("#talk-link .talk-new")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    assert not flag.is_visible()  # nothing written yet
    message_post(game=game, user=users[1], text="Anyone for a deal?")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    assert flag.is_visible() and flag.inner_text() == "1 new message"  # counted, signed in
    page.goto(f"{live_server.url}/games/{game.pk}/talk/")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    assert not flag.is_visible()  # seen
    message_post(game=game, user=users[2], text="No deals.")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    assert flag.is_visible()


def test_the_remove_button_sits_on_its_messages_author_line(phone_page, live_server):
    # Guards against a form inside the author line's <p>: the browser closed the paragraph
    # before the form, so the organizer's Remove button stood on a line of its own between
    # the author and the text, and an empty paragraph after it (the phone walk).
    users = [make_user(n) for n in ("ida", "jon", "kim")]
    game = game_create(organizer=users[0], ruleset="5x", seats_count=3, name="Tidy")
    for user in users:
        game_join(game=game, user=user)
    said = message_post(game=game, user=users[1], text="Hello from jon")
    page = phone_page
    log_in(page, live_server.url, "ida")  # the organizer: may remove any message
    page.goto(f"{live_server.url}/games/{game.pk}/talk/")
    row = page.locator(f"#m{said.pk}")
    author = row.locator("strong").bounding_box()
    button = row.get_by_role("button", name="Remove this message").bounding_box()
    # The same line: the button's box spans the author's middle.
    middle = author["y"] + author["height"] / 2
    assert button["y"] <= middle <= button["y"] + button["height"], (author, button)
    assert row.evaluate("(li) => [...li.children].filter((c) => !c.textContent.trim()).length") == 0


def test_a_message_removed_meanwhile_is_greyed_out_without_a_reload(browser_page, live_server, settings):
    # The talk page said "reload to see removals": a removed message stayed on an open
    # page, text and Remove button included, until then.
    from games.services.talk import message_remove

    settings.TALK_POLL_SECONDS = 1
    users = [make_user(n) for n in ("ida", "jon", "kim")]
    game = game_create(organizer=users[0], ruleset="5x", seats_count=3, name="Tidied")
    for user in users:
        game_join(game=game, user=user)
    kept = message_post(game=game, user=users[1], text="Hello from jon")
    rude = message_post(game=game, user=users[2], text="something rude")
    page = browser_page
    log_in(page, live_server.url, "ida")  # the organizer: a Remove button on each
    page.goto(f"{live_server.url}/games/{game.pk}/talk/")
    row = page.locator(f"#m{rude.pk}")
    assert row.get_by_role("button", name="Remove this message").count() == 1
    message_remove(message=rude, by=users[2])  # its author, from another browser
    page.wait_for_selector(f"#m{rude.pk}[data-removed]", timeout=10_000)
    assert "something rude" not in row.inner_text()
    assert "(removed by its author)" in row.inner_text()
    assert row.get_by_role("button", name="Remove this message").count() == 0
    assert "Hello from jon" in page.locator(f"#m{kept.pk}").inner_text()
