"""Markup a screen reader relies on, from an accessibility walk: every aria-describedby
names an element on the page, form fields have labels (not placeholders only), and
per-row controls say which row they belong to."""

from __future__ import annotations

import re

import pytest

from tests.games.core_support import make_game
from tests.tournaments.test_tournament_services import _open_cup

pytestmark = pytest.mark.django_db


def dangling_descriptions(html: str) -> list[str]:
    ids = set(re.findall(r'\bid="([^"]+)"', html))
    refs = [r for group in re.findall(r'aria-describedby="([^"]*)"', html) for r in group.split()]
    return [r for r in refs if r not in ids]


def unlabelled_inputs(html: str) -> list[str]:
    """Text inputs with neither a <label for> nor an aria-label (a placeholder is no label)."""
    labelled = set(re.findall(r'<label[^>]*\bfor="([^"]+)"', html))
    out = []
    for tag in re.findall(r'<input\b[^>]*type="text"[^>]*>', html):
        field_id = re.search(r'\bid="([^"]+)"', tag)
        if "aria-label=" in tag or (field_id and field_id.group(1) in labelled):
            continue
        out.append(tag)
    return out


def test_help_texts_are_tied_to_their_fields(client):
    game, seats = make_game(["ann", "bob", "cat"])
    client.force_login(seats["ann"].user)
    for path in ("/games/new/", "/tournaments/new/"):
        html = client.get(path).content.decode()
        assert 'aria-describedby="' in html, path
        assert dangling_descriptions(html) == [], path
    # A refused form: help and error both named, both present.
    html = client.post("/games/new/", {"ruleset": "5x", "seats_count": "99"}).content.decode()
    assert dangling_descriptions(html) == []


def test_the_organizer_tools_label_every_field(client):
    game, seats = make_game(["ann", "bob", "cat"])
    client.force_login(game.organizer)
    html = client.get(f"/games/{game.pk}/").content.decode()
    assert "Deadline, pause, replace, table talk, end" in html
    assert unlabelled_inputs(html) == []
    # Each field its own name (an accessibility pass: two fields read the same "Reason").
    for label in ("Reason for the extension (told to the players, shown in the log)",
                  "Reason for pausing (told to the players, shown in the log)",
                  "New player's name", "Reason for ending the game"):
        assert f">{label}</label>" in html, label
    labels = re.findall(r"<label[^>]*>([^<]+)</label>", html)
    assert len(labels) == len(set(labels)), sorted(label for label in labels if labels.count(label) > 1)


def test_the_panels_result_fields_name_their_table(client):
    from tournaments.services import rounds

    organizer, _users, t, _regs = _open_cup("ax", 4)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    client.force_login(organizer)
    html = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    for n in (1, 2):
        assert f'aria-label="Table {n}: ranking, best first"' in html
        assert f'aria-label="Save table {n}\'s result"' in html


def test_the_sign_up_password_rules_are_read_with_the_field(client):
    html = client.get("/accounts/signup/").content.decode()
    help_id = re.search(r'name="password1"[^>]*aria-describedby="([^"]+)"', html).group(1).split()[0]
    rules = re.search(rf'<span[^>]*id="{help_id}"[^>]*>(.*?)</span>', html, re.S).group(1)
    assert "<ul>" not in rules and "<li>" not in rules  # no block list inside the paragraph
    assert "at least 8 characters" in rules and "entirely numeric" in rules
    # One sentence: "...; your password ...", not "...; Your password ..." (a first-time walk).
    assert "; Your" not in rules and "; your password" in rules.replace("&#x27;", "'")


def test_the_change_password_rules_are_read_with_the_field(client):
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user("pw", "pw@example.com", "An-old-pass-123")
    client.force_login(user)
    html = client.get("/accounts/password/change/").content.decode()
    help_id = re.search(r'name="password1"[^>]*aria-describedby="([^"]+)"', html).group(1).split()[0]
    rules = re.search(rf'<span[^>]*id="{help_id}"[^>]*>(.*?)</span>', html, re.S).group(1)
    assert "<ul>" not in rules and "at least 8 characters" in rules
    # The form still works.
    response = client.post("/accounts/password/change/", {
        "oldpassword": "An-old-pass-123", "password1": "A-new-pass-456", "password2": "A-new-pass-456",
    })
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password("A-new-pass-456")


@pytest.mark.parametrize("ruleset", ["5x", "4x-dice", "6x5"])
def test_wide_tables_of_the_rules_pages_scroll_in_a_named_region_a_keyboard_reaches(client, ruleset):
    """An accessibility audit (axe, 400 % zoom): the rules' tables made the page scroll
    sideways; now each scrolls in its own region, focusable and named after its heading."""
    html = client.get(f"/games/rules/{ruleset}/").content.decode()
    tables = html.count('<table class="view-table')
    regions = re.findall(
        r'<div class="scroll" tabindex="0" role="region" aria-label="([^"]+)"><table class="view-table[ "]', html
    )
    assert tables and len(regions) == tables
    assert len(set(regions)) == len(regions)  # each named apart (landmark-unique)


def test_the_6x5_board_scrolls_in_a_region_a_keyboard_reaches(client):
    from tests.games.test_6x5_hex_picker import table_game
    from tests.games.web_support import page_for

    html = page_for(client, table_game(), None)  # a spectator: no hex to tab to
    assert re.search(r'<div class="hexmap-box" tabindex="0" role="region" aria-label="Board[^"]*">', html)


def test_messages_are_a_list_inside_a_live_region(client):
    """role="status" on the <ul> itself took its list role away (axe: listitem)."""
    from tests.games.web_support import make_user

    client.force_login(make_user("ann"))
    from django.contrib.messages import constants
    from django.contrib.messages.storage.cookie import CookieStorage

    response = client.get("/games/")  # no message: no region
    assert 'class="messages-box"' not in response.content.decode()
    storage = CookieStorage(response.wsgi_request)
    storage.add(constants.SUCCESS, "Done.")
    storage.update(response)
    client.cookies.update(response.cookies)
    html = client.get("/games/").content.decode()
    assert re.search(r'<div class="messages-box" role="status">\s*<ul class="messages">\s*<li class="message success">Done\.</li>', html)


def test_a_seats_page_reads_seats_before_the_history_in_its_own_section(client):
    # Guards against a phone showing "Seats" above "What happened" (CSS order) while the
    # keyboard and screen readers reached the history first, with "Seats" an H3 under
    # the H2 "What happened" in the outline.
    from tests.games.core_support import play_defaults

    game, seats = make_game(["ann", "bob", "cat"])
    play_defaults(game, 3)
    client.force_login(seats["ann"].user)
    html = client.get(f"/games/{game.pk}/").content.decode()
    outline = [
        (int(level), re.sub(r"<[^>]+>", "", text).strip())
        for level, text in re.findall(r"<h([1-6])[^>]*>(.*?)</h\1>", html, re.S)
    ]
    names = [text for _level, text in outline]
    assert names.index("Seats") < names.index("What happened"), outline
    assert (2, "Seats") in outline, outline
    # Its links come before the history's in the tab order too.
    assert html.index('class="plain seats"') < html.index('id="history"')
