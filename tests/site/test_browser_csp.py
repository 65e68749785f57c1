"""Content-Security-Policy: every page works under it in real Chromium (no script, style
or image refused), an injected inline script would not run, and the confirmations that
were inline handlers still ask."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _watch(page) -> list[str]:
    """Console messages about the policy (Chromium reports every refusal there)."""
    refused: list[str] = []
    page.on(
        "console",
        lambda msg: refused.append(msg.text) if "Content Security Policy" in msg.text else None,
    )
    return refused


def _click_and_answer(page, button: str, accept: bool, asked: list[str]) -> None:
    """Click the button named ``button`` and answer its confirmation dialog (accept or
    dismiss), noting the question in ``asked``."""

    def answer(dialog) -> None:
        asked.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    page.once("dialog", answer)
    page.get_by_role("button", name=button).click()
    if accept:
        page.wait_for_load_state()
    page.wait_for_timeout(300)


def test_the_pages_run_under_the_policy(browser_page, live_server) -> None:
    from games.services import games as game_services
    from tests.games.test_browser import click_first_order, log_in_by_form
    from tests.games.web_support import make_user
    from tournaments.services import tournaments as tsvc

    page = browser_page
    refused = _watch(page)
    users = [make_user(n) for n in ("ann", "bob", "cat")]
    game = game_services.game_create(organizer=users[0], ruleset="5x", seats_count=3)
    for user in users:
        game_services.game_join(game=game, user=user)
    cup = tsvc.tournament_create(organizer=users[0], name="Cup", ruleset="5x",
                                 table_sizes=[3], rounds_count=2)  # fmt: skip
    tsvc.tournament_open(tournament=cup, by=users[0])
    tsvc.registration_add(tournament=cup, user=users[1])

    base = live_server.url
    page.goto(f"{base}/accounts/signup/")
    assert page.evaluate("Intl.DateTimeFormat().resolvedOptions().timeZone") != ""
    log_in_by_form(page, base, "ann")  # the log-in page runs under the policy too
    for path in ("/", "/games/", "/games/new/", f"/games/{game.pk}/", "/tournaments/new/",
                 f"/tournaments/{cup.slug}/", f"/tournaments/{cup.slug}/manage/",
                 "/account/settings/", "/account/api-tokens/", "/account/calendar/", "/account/close/", "/account/data/",
                 "/accounts/2fa/", "/accounts/2fa/webauthn/", "/accounts/2fa/webauthn/add/",
                 "/accounts/sessions/", "/ratings/"):  # fmt: skip
        response = page.goto(base + path)
        assert response.status == 200, path
        assert "script-src 'self'" in response.headers["content-security-policy"]
    # The game page's scripts run: the order buttons submit and the receipt shows.
    page.goto(f"{base}/games/{game.pk}/")
    click_first_order(page)
    assert page.locator("#receipt").is_visible()
    # The API docs' set-up script runs with the page's nonce: Swagger UI draws itself.
    page.goto(f"{base}/api/docs/")
    page.wait_for_selector(".swagger-ui .info", timeout=45_000)  # the schema is built on first use: seconds on a loaded machine
    assert refused == []

    # An inline script (what an injection would be) is refused.
    page.goto(f"{base}/")
    page.evaluate(
        "() => { const s = document.createElement('script');"
        " s.textContent = 'window.injected = 1'; document.body.appendChild(s); }"
    )
    assert page.evaluate("window.injected === undefined")
    assert any("script-src" in text for text in refused)


def test_withdrawing_still_asks_first(browser_page, live_server) -> None:
    from tests.games.test_browser import log_in
    from tests.games.web_support import make_user
    from tournaments.models import Registration
    from tournaments.services import tournaments as tsvc

    organizer, bob = make_user("org"), make_user("bob")
    cup = tsvc.tournament_create(organizer=organizer, name="Cup", ruleset="5x",
                                 table_sizes=[3], rounds_count=2)  # fmt: skip
    tsvc.tournament_open(tournament=cup, by=organizer)
    registration = tsvc.registration_add(tournament=cup, user=bob)
    page = browser_page
    log_in(page, live_server.url, "bob")
    page.goto(f"{live_server.url}/tournaments/{cup.slug}/")
    asked: list[str] = []
    _click_and_answer(page, "Withdraw", False, asked)
    assert asked == ["Withdraw from Cup? You may register again until round 1 is paired."]
    registration.refresh_from_db()
    assert registration.status == Registration.Status.ACTIVE
    _click_and_answer(page, "Withdraw", True, asked)
    registration.refresh_from_db()
    assert len(asked) == 2 and registration.status == Registration.Status.WITHDRAWN


def test_a_form_sent_back_with_errors_puts_the_focus_on_the_first_one(browser_page, live_server):
    from tests.games.web_support import make_user

    make_user("taken")
    page = browser_page
    page.goto(f"{live_server.url}/accounts/signup/")
    page.fill("input[name=email]", "new@example.com")
    page.fill("input[name=username]", "taken")
    page.fill("input[name=password1]", "correct-horse-battery-7")
    page.fill("input[name=password2]", "correct-horse-battery-7")
    page.locator(".account-card button[type=submit]").click()
    page.wait_for_load_state()
    assert page.get_attribute("input[name=username]", "aria-invalid") == "true"
    page.wait_for_function("() => document.activeElement.name === 'username'")


def test_a_failed_log_in_puts_the_focus_on_its_error(browser_page, live_server):
    from tests.games.web_support import make_user

    make_user("ann")
    page = browser_page
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill('input[name="login"]', "ann@example.test")
    page.fill('input[name="password"]', "not-the-password")
    page.locator('main form button[type="submit"]').click()
    page.wait_for_load_state()
    page.wait_for_function("() => document.activeElement.matches('.errorlist.nonfield')")
    assert "password" in page.inner_text(".errorlist.nonfield").lower()
    # Still a list (an accessibility pass: role=alert on the <ul> orphaned its items).
    assert page.get_attribute(".errorlist.nonfield", "role") is None


def test_the_skip_link_and_a_message_take_the_reader_to_the_content(browser_page, live_server):
    from tests.games.test_browser import log_in_by_form
    from tests.games.web_support import make_user

    make_user("ann")
    page = browser_page
    page.goto(f"{live_server.url}/")
    page.keyboard.press("Tab")  # the first stop of every page
    assert page.evaluate("document.activeElement.textContent") == "Skip to the content"
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement.id === 'main'")
    log_in_by_form(page, live_server.url, "ann")  # "Logged in as ann.": a message
    page.wait_for_function("() => document.activeElement.matches('.messages-box')")
    # A live region around the list: a role on the <ul> itself took its list role away
    # (axe: listitem), so its items were in no list.
    assert page.get_attribute(".messages-box", "role") == "status"
    assert page.get_attribute("ul.messages", "role") is None
    assert page.locator(".messages-box > ul.messages > li.message").count() >= 1


def test_revoking_the_api_token_asks_first(browser_page, live_server) -> None:
    from games.models import ApiToken
    from games.services.tokens import api_token_create
    from tests.games.test_browser import log_in
    from tests.games.web_support import make_user

    bob = make_user("bob")
    api_token_create(user=bob)
    page = browser_page
    log_in(page, live_server.url, "bob")
    page.goto(f"{live_server.url}/account/api-tokens/")
    asked: list[str] = []
    _click_and_answer(page, "Revoke", False, asked)
    assert asked == ["Revoke your API token? Programs using it stop working at once."]
    assert ApiToken.objects.filter(user=bob).exists()
    _click_and_answer(page, "Revoke", True, asked)
    assert len(asked) == 2 and not ApiToken.objects.filter(user=bob).exists()


def test_the_invitation_link_is_copied_with_one_click(browser_page, live_server) -> None:
    from games.services import games as game_services
    from tests.games.test_browser import log_in
    from tests.games.web_support import make_user

    ann = make_user("ann")
    game = game_services.game_create(organizer=ann, ruleset="5x", seats_count=3, is_private=True)
    page = browser_page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    link = page.input_value("#invite-url")
    assert link.endswith(f"/games/{game.pk}/invite/{game.invite_token}/")
    page.get_by_role("button", name="Copy the link").click()
    page.wait_for_timeout(300)
    assert page.evaluate("navigator.clipboard.readText()") == link
    assert page.inner_text('[data-copied="invite-url"]') == "Copied."
