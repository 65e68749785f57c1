"""The rules pages on a 375 px phone, in real headless Chromium: every table reads in
the width of the screen (a newcomer's walk found the Great Leaders' powers squeezed into
a column a few words wide, the rest behind a sideways scroll), and nothing widens the
page."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTH = 375


def test_every_rules_table_reads_on_a_375_px_phone(phone_page, live_server):
    page = phone_page
    page.set_viewport_size({"width": WIDTH, "height": 812})
    for ruleset in ("5x", "4x-dice", "6x5"):
        page.goto(f"{live_server.url}/games/rules/{ruleset}/")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= WIDTH, ruleset
        tables = page.locator("main table")
        assert tables.count() >= 1, ruleset
        for i in range(tables.count()):
            table = tables.nth(i)
            box = table.bounding_box()
            # wide enough to read, and inside the screen
            assert box["width"] >= 200 and box["x"] >= 0 and box["x"] + box["width"] <= WIDTH, (ruleset, i, box)
            # nothing of it hidden behind a sideways scroll
            region = table.locator("xpath=..")
            assert region.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1"), (ruleset, i)
            # a cell of prose gets a readable width: at least 10 average characters a line
            narrow = table.evaluate("""(t) => Array.from(t.querySelectorAll('td'))
                .filter(td => td.innerText.length > 40)
                .map(td => [td.innerText.slice(0, 30), Math.round(td.getBoundingClientRect().width)])
                .filter(([, w]) => w < 160)""")
            assert narrow == [], (ruleset, i, narrow)
