"""What a first-time visitor found missing in a walk of the site (h7): the rules of the
games out of reach before a game page, the email panel not saying what to write, and the
home page of a player whose games are all over offering no way to find the next one."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games.selectors import OVER
from games.services import games as game_services
from games.services import organizer as organizer_services
from tests.games.web_support import (
    DEAL,
    NAMES,
    dealt_5x_game,
    eager_celery,
    make_user,
    visible_text,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]

# The three games of the site, as their rules pages are addressed.
RULES_PAGES = ("/games/rules/5x/", "/games/rules/6x5/", "/games/rules/4x-dice/")


def _hrefs(html: str) -> set[str]:
    return set(re.findall(r'href="([^"]+)"', html))


def test_the_welcome_page_links_the_rules_of_every_game(client) -> None:
    # Regression: a visitor who never heard of 5X could not read its rules before signing
    # up and joining a game (only game pages and the create form linked them).
    html = client.get(reverse("home")).content.decode()
    assert set(RULES_PAGES) <= _hrefs(html)
    for page in RULES_PAGES:
        assert client.get(page).status_code == 200


def test_the_open_games_list_links_each_games_rules(client) -> None:
    # Regression: the open games table named the game ("5X") with no way to learn it.
    organizer = make_user("org")
    game_services.game_create(organizer=organizer, ruleset="5x", seats_count=3, name="Open one")
    client.force_login(make_user("newbie"))
    html = client.get(reverse("games:list")).content.decode()
    open_games = html.split('id="open-games"', 1)[1].split("</table>", 1)[0]
    assert 'href="/games/rules/5x/"' in open_games


def test_the_email_panel_says_what_to_write(client, django_capture_on_commit_callbacks) -> None:
    # Regression: the game page gave the reply address but not what a message holds.
    game = dealt_5x_game(
        django_capture_on_commit_callbacks, names=NAMES, organizer="org", deal=DEAL, name="Mail"
    )
    client.force_login(game.seats.get(name="ann").user)
    html = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    panel = visible_text(html.split('id="reply-address"', 1)[1].split("</div>", 1)[0])
    assert "one order in the body" in panel
    assert "HELP" in panel


def test_home_with_only_finished_games_points_to_the_games_list(
    client, django_capture_on_commit_callbacks
) -> None:
    # Regression: once a player's games were all over, the home page said "None of your
    # games is being played now." and offered only "New game", not the games to join.
    game = dealt_5x_game(
        django_capture_on_commit_callbacks, names=NAMES, organizer="org", deal=DEAL, name="Done"
    )
    with django_capture_on_commit_callbacks(execute=True):
        organizer_services.game_end(game=game, by=game.organizer)
    game.refresh_from_db()
    assert game.status in OVER
    client.force_login(game.seats.get(name="ann").user)
    html = client.get(reverse("home")).content.decode()
    paragraph = re.search(r"<p[^>]*>None of your games is being played now\.(.*?)</p>", html, re.S)
    assert paragraph is not None
    assert 'href="/games/"' in paragraph.group(1)


def test_a_game_nobody_has_joined_says_so_under_seats(client) -> None:
    # Regression: an open game whose organizer does not play showed a "Seats" heading
    # with nothing under it but the talk and log links.
    game = game_services.game_create(
        organizer=make_user("org"), ruleset="5x", seats_count=3, name="Empty table"
    )
    assert not game.seats.exists()
    html = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    seats = visible_text(html.split("<h2>Seats</h2>", 1)[1].split("</ul>", 1)[0])
    assert "Nobody has taken a seat yet." in seats


def test_the_headers_sign_up_comes_back_to_the_page_like_its_log_in(client) -> None:
    # Regression: on a game's invitation page a visitor who took the header's "Sign up"
    # (not the page's own button) landed on the home page after signing up and lost the
    # invitation; the header's "Log in" next to it already came back.
    game = game_services.game_create(
        organizer=make_user("org"), ruleset="5x", seats_count=3, name="Come back"
    )
    invite = reverse("games:invite", args=[game.pk, game.invite_token])
    html = client.get(invite).content.decode()
    header = html.split('<ul class="nav-account">', 1)[1].split("</ul>", 1)[0]
    signup = re.search(r'<a class="button small" href="([^"]+)">Sign up</a>', header)
    assert signup is not None
    assert signup.group(1).startswith("/accounts/signup/?next=")
    answer = client.post(signup.group(1), {
        "email": "neo@example.test", "username": "neo",
        "password1": "a-long-Passw0rd!", "password2": "a-long-Passw0rd!",
    })  # fmt: skip
    assert answer.status_code == 302
    assert answer["Location"] == invite
    # The sign-up page itself, and the home page, need no way back.
    client.logout()
    for page in ("/", "/accounts/signup/"):
        header = client.get(page).content.decode().split('<ul class="nav-account">', 1)[1]
        assert '<a class="button small" href="/accounts/signup/">Sign up</a>' in header


def test_an_error_page_rendered_without_a_request_still_links_log_in_and_sign_up() -> None:
    # The 500 and 503 pages are rendered with no request (no context processors): the
    # header's links must not be empty addresses.
    from django.template.loader import render_to_string

    for template in ("500.html", "503.html"):
        header = render_to_string(template).split('<ul class="nav-account">', 1)[1].split("</ul>", 1)[0]
        assert '<a href="/accounts/login/">Log in</a>' in header, template
        assert '<a class="button small" href="/accounts/signup/">Sign up</a>' in header, template


def test_a_visitor_on_an_open_games_page_is_told_how_to_take_a_seat(client) -> None:
    # Regression: signed out, an open game's page said "0 of 3 seats taken" and "Playing in
    # this game? Log in to see your seat": nothing on how a newcomer joins it.
    game = game_services.game_create(
        organizer=make_user("org"), ruleset="5x", seats_count=3, name="Open door"
    )
    url = reverse("games:detail", args=[game.pk])
    html = client.get(url).content.decode()
    join = re.search(r'<p id="sign-up-to-join">(.*?)</p>', html, re.S)
    assert join is not None
    assert "take a seat" in visible_text(join.group(1))
    assert {f"/accounts/signup/?next=%2Fgames%2F{game.pk}%2F",
            f"/accounts/login/?next=%2Fgames%2F{game.pk}%2F"} <= _hrefs(join.group(1))  # fmt: skip
    # Signed in, the page has its Join button instead.
    client.force_login(make_user("newbie"))
    html = client.get(url).content.decode()
    assert 'id="sign-up-to-join"' not in html and "Join this game" in html


def test_the_email_panel_of_a_game_not_started_names_no_email_yet(client) -> None:
    # Regression: right after creating or joining a game, its page said "Reply to the
    # newest game email" although the game had sent none yet.
    organizer = make_user("org")
    game = game_services.game_create(organizer=organizer, ruleset="5x", seats_count=3, name="Soon")
    game_services.game_join(game=game, user=organizer)
    client.force_login(organizer)
    html = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    panel = visible_text(html.split("<h3>Orders by email</h3>", 1)[1].split('id="reply-address"', 1)[0])
    assert "newest game email" not in panel
    assert "Once the game starts" in panel


def test_a_new_players_empty_home_page_links_the_rules_too(client) -> None:
    # Regression: signed up and in no game yet, the home page offered "Find a game to join"
    # but no word on what the games are (the welcome page's rules links were gone).
    client.force_login(make_user("newbie"))
    html = client.get(reverse("home")).content.decode()
    assert "You are not in any game yet." in visible_text(html)
    assert set(RULES_PAGES) <= _hrefs(html)


def test_the_password_reset_sent_page_is_no_dead_end(client) -> None:
    # Regression: after asking for a new password the page said "Otherwise contact us",
    # with no contact anywhere and no link onwards.
    make_user("lost")
    answer = client.post(reverse("account_reset_password"), {"email": "lost@example.test"}, follow=True)
    assert answer.status_code == 200
    html = answer.content.decode()
    assert "contact us" not in visible_text(html)
    main = html.split('id="main"', 1)[1]
    assert {reverse("account_reset_password"), reverse("account_login")} <= _hrefs(main)
