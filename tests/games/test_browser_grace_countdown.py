"""The countdown and the grace period, in real headless Chromium (a time audit): after the
deadline the page said "deadline passed — resolving soon" while orders were still taken
for the grace period; it now counts to the grace period's end, then says that the
missing orders are the default ones."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Prompt
from tests.games.core_support import start_fixed
from tests.games.test_browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_countdown_counts_the_grace_period_after_the_deadline(browser_page, live_server, settings):
    settings.GAMES_PAGE_POLL_SECONDS = 600
    game, seats = start_fixed(["ann", "bob", "cat"], deadline_hours=24, grace_minutes=30)
    prompt = Prompt.objects.get(game=game, number=1)
    Prompt.objects.filter(pk=prompt.pk).update(deadline=timezone.now() - timedelta(minutes=5))
    page = browser_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    countdown = page.locator("[data-countdown]")
    page.wait_for_function("() => document.querySelector('[data-countdown]').textContent !== ''")
    text = countdown.inner_text()
    assert text.startswith("deadline passed — orders still taken: 24 min"), text
    assert text.endswith("left in the grace period"), text
    # Without a grace period the deadline passed is just that, and the missing orders
    # are the seats' default ones (the page does not ask its reader for an order).
    other, _seats = start_fixed(["dan", "eve", "fay"], deadline_hours=24)
    Prompt.objects.filter(game=other, number=1).update(deadline=timezone.now() - timedelta(minutes=5))
    # (A visitor's page: the form log-in this test used once failed for these users, who
    # have no password, so this is what it checked; dan's own page says it of his seat.)
    page.context.clear_cookies()
    page.goto(f"{live_server.url}/games/{other.pk}/")
    page.wait_for_function("() => document.querySelector('[data-countdown]').textContent !== ''")
    assert page.locator("[data-countdown]").inner_text() == (
        "deadline passed — seats without an order get their default order (resolving soon)"
    )
    log_in(page, live_server.url, "dan")
    page.goto(f"{live_server.url}/games/{other.pk}/")
    page.wait_for_function("() => document.querySelector('[data-countdown]').textContent !== ''")
    assert page.locator("[data-countdown]").inner_text() == (
        "deadline passed — your seat's default order will be played (resolving soon)"
    )
