"""Play again in real headless Chromium: a player asks on the finished game's page, the
others follow the old page's link to the invitation, join, and the rematch starts."""

from __future__ import annotations

import pytest

from games.models import Game
from games.services.games import game_create, game_join
from tests.games.core_support import play_defaults
from tests.games.test_browser import log_in
from tests.games.web_support import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_ask_join_and_the_rematch_starts(browser_page, live_server):
    users = [make_user(n) for n in ("ida", "jon", "kim")]
    game = game_create(organizer=users[0], ruleset="5x", seats_count=3, name="Friday 5X")
    for user in users:
        game_join(game=game, user=user)
    assert play_defaults(game)
    page = browser_page
    log_in(page, live_server.url, "ida")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.locator("#rematch-ask button").click()
    page.wait_for_url("**/games/*/")
    new = Game.objects.get(rematch_of=game)
    assert page.url.endswith(f"/games/{new.pk}/")
    assert "The rematch is made" in page.locator("main").inner_text()
    assert "Friday 5X (rematch)" in page.locator("h1").inner_text()
    for name in ("jon", "kim"):
        page.context.clear_cookies()
        log_in(page, live_server.url, name)
        page.goto(f"{live_server.url}/games/{game.pk}/")
        note = page.locator("#rematch")
        assert "Played again" in note.inner_text() and "take your seat there" in note.inner_text()
        note.locator("a").click()
        page.wait_for_load_state()
        page.locator("main form button[type=submit]").first.click()  # the invitation's Join
        page.wait_for_url(f"**/games/{new.pk}/")
    new.refresh_from_db()
    assert new.status == "active"
    assert set(new.seats.values_list("user__username", flat=True)) == {"ida", "jon", "kim"}
    # The old page now says the rematch is being played, with a link to the seat.
    page.goto(f"{live_server.url}/games/{game.pk}/")
    assert "(being played)" in page.locator("#rematch").inner_text()
