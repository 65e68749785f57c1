"""Every link the site writes for players (emails, the calendar feed, API paging, account
emails, the invitation link) is at FIVEX_BASE_URL, also when the site is served under a
path (a script prefix, e.g. https://example.org/fivex/): the prefix is written once."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import set_script_prefix

from fivex_site.links import public_reverse, public_url, site_path
from games.models import Game
from games.services import games as game_services
from games.services.notifications import game_url, rules_url
from tournaments.services import tournaments as tsvc

BASE = "https://example.org/fivex"


@pytest.fixture
def prefixed(settings):
    """The site served under /fivex/: the prefix Django's WSGI handler sets from a request's
    SCRIPT_NAME (the test client does not set it)."""
    settings.FIVEX_BASE_URL = BASE
    set_script_prefix("/fivex/")
    try:
        yield
    finally:
        set_script_prefix("/")


def test_links_under_a_script_prefix_name_it_once(prefixed) -> None:
    assert public_reverse("games:detail", 7) == "https://example.org/fivex/games/7/"
    assert public_reverse("tournaments:detail", "spring-cup") == (
        "https://example.org/fivex/tournaments/spring-cup/"
    )
    assert game_url(Game(pk=7)) == "https://example.org/fivex/games/7/"
    assert rules_url("6x5") == "https://example.org/fivex/games/rules/6x5/"
    assert site_path("/fivex/api/games/") == "/api/games/"
    assert site_path("/other/") == "/other/"  # not under the prefix: left alone
    assert public_url("/api/games/") == "https://example.org/fivex/api/games/"


def test_links_at_the_root(settings) -> None:
    settings.FIVEX_BASE_URL = "https://play.example.org"
    assert public_reverse("games:detail", 7) == "https://play.example.org/games/7/"
    assert public_url("games/7/") == "https://play.example.org/games/7/"


@pytest.mark.django_db
def test_account_emails_under_a_script_prefix(client, prefixed) -> None:
    get_user_model().objects.create_user("pat", "pat@example.com", "a-long-pass-phrase-1")
    response = client.post(
        "/accounts/password/reset/", {"email": "pat@example.com"}, SCRIPT_NAME="/fivex"
    )
    assert response.status_code == 302
    from tests.site.mail_support import sent_account_mail

    body = sent_account_mail()[0].body
    assert "https://example.org/fivex/accounts/password/reset/key/" in body
    assert "/fivex/fivex/" not in body


@pytest.mark.django_db
def test_api_paging_links_under_a_script_prefix(prefixed) -> None:
    organizer = get_user_model().objects.create_user("org", "org@example.com", "pw")
    for name in ("One", "Two"):
        tournament = tsvc.tournament_create(
            organizer=organizer, name=name, ruleset="5x", table_sizes=[3], rounds_count=1
        )
        tsvc.tournament_open(tournament=tournament, by=organizer)
    page = Client().get("/api/tournaments/?limit=1", SCRIPT_NAME="/fivex")
    assert page.status_code == 200
    assert page["Link"] == f'<{BASE}/api/tournaments/?limit=1&offset=1>; rel="next"'


@pytest.mark.django_db
def test_the_invitation_link_is_the_public_address(settings) -> None:
    """Behind a proxy the request's Host and scheme are internal ones; the organizer copies
    this link to friends."""
    settings.FIVEX_BASE_URL = "https://play.example.org"
    organizer = get_user_model().objects.create_user("org", "org@example.com", "pw")
    game = game_services.game_create(
        organizer=organizer, ruleset="5x", seats_count=3, name="Club", is_private=True
    )
    client = Client()
    client.force_login(organizer)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert f"https://play.example.org/games/{game.pk}/invite/{game.invite_token}/" in page
    assert "testserver" not in page
