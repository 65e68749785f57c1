"""Text contrast of the pages as Chromium renders them, in the light scheme and the dark
one (``prefers-color-scheme``): every visible text against the background behind it meets
WCAG AA (4.5:1, 3:1 for large text). The checker is ``contrast.js`` beside this file.
The API docs page is left out: Swagger UI (drf-spectacular-sidecar) draws it after the
page loads, with colours of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.games.test_4x_dice_hit_picker import exterminate_game
from tests.games.test_6x5_hex_picker import blue_line_game
from tests.games.test_browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CHECK = (Path(__file__).parent / "contrast.js").read_text()


def _world():
    """Games of the three rulesets at a prompt for ann, a finished 5X game, a running
    tournament; returns the paths to look at."""
    from games.models import Game
    from games.services import games as game_services
    from games.services.organizer import game_end
    from tests.games.core_support import play_defaults
    from tests.games.web_support import make_user
    from tournaments.services import rounds
    from tournaments.services import tournaments as tsvc

    hexes = blue_line_game()  # seat ann's turn: the hex picker; its player becomes zoe
    zoe = hexes.seats.get(name="ann").user
    zoe.username, zoe.email = "zoe", "zoe@example.test"
    zoe.set_password("pw-zoe")
    zoe.save()
    dice = exterminate_game()  # ann, bob, cat; ann's eXterminate
    ann, bob, cat = (dice.seats.get(name=n).user for n in ("ann", "bob", "cat"))
    five = game_services.game_create_seated(organizer=ann, ruleset="5x", users=[ann, bob, cat])
    play_defaults(five, 3)
    from games.services.talk import message_post

    message_post(game=five, user=bob, text="Good luck, all!")  # the talk page shows a message
    done = game_services.game_create_seated(organizer=ann, ruleset="5x", users=[ann, bob, cat])
    play_defaults(done, 4)
    game_end(game=Game.objects.get(pk=done.pk), by=ann, reason="contrast check")
    dan = make_user("dan")
    t = tsvc.tournament_create(organizer=ann, name="Contrast cup", ruleset="6x5", table_sizes=[2],
                               rounds_count=2)  # fmt: skip
    tsvc.tournament_open(tournament=t, by=ann)
    for user in (bob, cat, dan, hexes.seats.get(name="amy").user):
        tsvc.registration_add(tournament=t, user=user)
    rounds.round_start(rnd=rounds.round_pair(tournament=t, by=ann), by=ann)
    bob_entry = t.registrations.get(user=bob).pk
    return [
        ("zoe", f"/games/{hexes.pk}/"), *(("ann", path) for path in (
        "/", "/games/", "/games/new/", f"/games/{dice.pk}/",
        f"/games/{five.pk}/", f"/games/{five.pk}/log/", f"/games/{done.pk}/",
        f"/games/{done.pk}/log/", "/tournaments/", "/tournaments/new/", f"/tournaments/{t.slug}/",
        f"/tournaments/{t.slug}/manage/", f"/tournaments/{t.slug}/rounds/1/",
        f"/tournaments/{t.slug}/players/{bob_entry}/", "/games/rules/5x/", "/games/rules/4x-dice/", "/games/rules/6x5/",
        "/account/api-tokens/", "/account/settings/", "/account/calendar/", "/account/close/", "/account/data/",
        "/ratings/", f"/games/{five.pk}/talk/", "/players/bob/",
        "/accounts/email/", "/accounts/password/change/", "/accounts/2fa/", "/accounts/sessions/",
        "/accounts/2fa/webauthn/", "/accounts/2fa/webauthn/add/",
    ))]


SCHEMES = ("light", "dark")


def _check_each_scheme(page) -> dict[str, list]:
    """contrast.js on the page as loaded, once with each ``prefers-color-scheme``: the
    media query applies at once (no page load; site.css has no colour transition), and
    contrast.js reads the computed styles anew."""
    found = {}
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme)
        assert page.evaluate(f"matchMedia('(prefers-color-scheme: {scheme})').matches")
        found[scheme] = page.evaluate(CHECK)
    return found


def test_every_text_meets_the_contrast_minimum_in_both_schemes(browser_page, live_server):
    # Each page loaded once and checked in the light scheme and the dark one (it was
    # loaded once for each: the same checks, twice the page loads and the world built twice).
    paths = _world()
    page = browser_page
    page.goto(f"{live_server.url}/accounts/login/")
    failures = {"/accounts/login/": _check_each_scheme(page)}
    for user, path in paths:
        if user != getattr(page, "_who", None):
            page.context.clear_cookies()
            log_in(page, live_server.url, user)
            page._who = user
        response = page.goto(f"{live_server.url}{path}")
        assert response.status == 200, path
        page.wait_for_load_state()
        failures[path] = _check_each_scheme(page)
    lines = [f"{path} ({scheme}): {f['tag']}.{f['cls']} {f['text']!r} {f['ratio']}:1 < "
             f"{f['needed']} ({f['fg']} on {f['bg']})"
             for path, schemes in failures.items() for scheme, found in schemes.items()
             for f in found]  # fmt: skip
    assert lines == []


def test_the_checker_finds_low_contrast(browser_page, live_server):
    """contrast.js itself: grey on white and white on yellow are found, with their ratios;
    large text needs 3:1 only; dark ink on a dark-scheme card passes."""
    page = browser_page
    page.goto(f"{live_server.url}/accounts/login/")
    page.evaluate("""() => document.querySelector("main").insertAdjacentHTML("beforeend",
        '<div style="background:#fff"><p style="color:#999">grey</p>'
        + '<p style="color:#fff;background:#e0b000">on yellow</p>'
        + '<p style="color:#949494;font-size:24px">large grey</p></div>'
        + '<div style="background:#1a1f2a"><p style="color:#e6e9f0">light on dark</p></div>')""")
    found = {f["text"]: (f["ratio"], f["needed"]) for f in page.evaluate(CHECK)}
    assert found == {"grey": (2.85, 4.5), "on yellow": (2.02, 4.5)}  # WCAG formula, by hand
