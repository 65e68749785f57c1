"""The organizer's round on a phone, in real headless Chromium: one card a table, each
value under its column's name, the result form inside the screen."""

from __future__ import annotations

import pytest

from tests.games.test_browser import log_in
from tests.games.web_support import make_user
from tournaments.services import rounds
from tournaments.services import tournaments as tsvc

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _started_round(name: str, players: tuple[str, ...]):
    """Tournament ``name`` of 6x5 duels organized by olga, with ``players``, its round 1
    started."""
    org = make_user("olga")
    users = [make_user(n) for n in players]
    t = tsvc.tournament_create(organizer=org, name=name, ruleset="6x5", table_sizes=[2],
                               rounds_count=2)  # fmt: skip
    tsvc.tournament_open(tournament=t, by=org)
    for user in users:
        tsvc.registration_add(tournament=t, user=user)
    rnd = rounds.round_pair(tournament=t, by=org)
    rounds.round_start(rnd=rnd, by=org)
    return t


def test_the_round_is_one_card_a_table_on_a_phone(phone_page, live_server):
    """A first-time organizer's walk: at 390 px the round's table squeezed the result
    into fragments ("an fay bo (en by ha...") and left the result form off-screen."""
    t = _started_round("Phone cup", ("annabel", "bartholomew", "cordelia", "desmond"))
    page = phone_page
    log_in(page, live_server.url, "olga")
    page.goto(f"{live_server.url}/tournaments/{t.slug}/manage/")
    width = page.evaluate("() => document.documentElement.clientWidth")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width  # no sideways page
    for field in ("ranking", "reason"):
        box = page.locator(f'main input[name="{field}"]').first.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, (field, box)
    save = page.get_by_role("button", name="Save table 1's result")
    save_box = save.bounding_box()
    assert save_box["x"] + save_box["width"] <= width
    # Each value says which column it is; the players' names are whole, on one line each card.
    label = page.evaluate(
        "() => getComputedStyle(document.querySelector('table.cards td[data-label=\"Players\"]'), '::before').content"
    )
    assert label == '"Players: "'
    cell = page.locator('table.cards td[data-label="Players"]').first
    assert cell.bounding_box()["width"] > width * 0.7
    # The result form's cell is named too: its column head is hidden on a phone, and the
    # placeholders ("why") go once typed over.
    form_cell = page.locator("table.cards td:has(input[name=ranking])").first
    assert form_cell.get_attribute("data-label") == "Enter or correct the result"


def test_the_extend_forms_labels_stay_with_their_fields(phone_page, live_server):
    """An accessibility pass: on a phone the round's extend form wrapped so that "Reason
    (told to the players)" sat beside the hours field, above the reason field."""
    t = _started_round("Extend cup", ("annabel", "bartholomew"))
    page = phone_page
    log_in(page, live_server.url, "olga")
    for width in (390, 640, 700):  # a phone; a desktop at 200 % zoom
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(f"{live_server.url}/tournaments/{t.slug}/manage/")
        _reason_label_is_with_its_field(page)


def _reason_label_is_with_its_field(page) -> None:
    label = page.locator('label[for="extend-reason"]').bounding_box()
    reason = page.locator("#extend-reason").bounding_box()
    beside = abs((label["y"] + label["height"] / 2) - (reason["y"] + reason["height"] / 2)) < 12
    if beside:  # on one line: the label just before its field
        assert 0 <= reason["x"] - (label["x"] + label["width"]) < 40, (label, reason)
    else:  # above its field, nothing between them (the hours field was)
        assert 0 <= reason["y"] - (label["y"] + label["height"]) < 12, (label, reason)
