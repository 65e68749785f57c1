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
    assert "Deadline, pause, replace, end" in html
    assert unlabelled_inputs(html) == []
    for label in ("Reason (told to the players, shown in the log)", "New player's name",
                  "Reason for ending the game"):
        assert f">{label}</label>" in html, label


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
