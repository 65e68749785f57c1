"""Passkeys and security keys (allauth.mfa's WebAuthn) in real headless Chromium, with a
virtual authenticator (Chrome DevTools' WebAuthn domain: a platform passkey that verifies
its user): added from the account's two-factor page, then logging in with it alone (no
password), and as the second step after the password, this browser then trusted (the next
log-in takes the password alone; another browser still asks); a browser with no passkey
is told so. allauth's WebAuthn script is a
static file: the pages run under the site's Content-Security-Policy with no refusal and no
serious axe violation."""

from __future__ import annotations

import pytest

from tests.games.test_browser import log_in_by_form
from tests.games.web_support import make_user
from tests.site.test_browser_axe import blocking_violations
from tests.site.test_browser_csp import _watch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def virtual_authenticator(page) -> tuple[object, str]:  # noqa: ANN001
    """A passkey authenticator in ``page``'s browser (CTAP2, built in, keeps resident
    keys, verifies its user): returns the DevTools session and its id."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    added = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
        "hasUserVerification": True, "isUserVerified": True, "automaticPresenceSimulation": True,
    }})  # fmt: skip
    return cdp, added["authenticatorId"]


def test_a_passkey_is_added_then_logs_in_alone_and_as_the_second_step(browser_page, live_server) -> None:
    from allauth.account.models import EmailAddress
    from allauth.mfa.models import Authenticator

    from games.models import OutboxMessage

    ann = make_user("ann")
    EmailAddress.objects.create(user=ann, email=ann.email, verified=True, primary=True)
    page, base = browser_page, live_server.url
    assert base.startswith("http://localhost:")  # a secure context without TLS
    refused = _watch(page)
    axe: dict[str, list[str]] = {}

    def check(name: str) -> None:
        found = blocking_violations(page)
        if found:
            axe[name] = found

    cdp, authenticator_id = virtual_authenticator(page)
    log_in_by_form(page, base, "ann")
    page.goto(f"{base}/accounts/2fa/")
    assert "None." in page.inner_text("#mfa-webauthn")
    page.get_by_role("link", name="Add a passkey or security key").click()
    page.wait_for_load_state()
    if "/accounts/reauthenticate/" in page.url:  # the password again (allauth's rule)
        page.fill('input[name="password"]', "pw-ann")
        page.locator("main form button[type=submit]").first.click()
        page.wait_for_load_state()
    assert page.url.endswith("/accounts/2fa/webauthn/add/")
    check("add")
    page.fill("#id_name", "Ann's laptop")
    page.check("#id_passwordless")
    page.click("#mfa_webauthn_add")
    page.wait_for_url("**/accounts/2fa/recovery-codes/")  # the first key: recovery codes made
    (key,) = Authenticator.objects.filter(user=ann, type="webauthn")
    assert key.wrap().name == "Ann's laptop" and key.wrap().is_passwordless is True
    credentials = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator_id})["credentials"]
    assert len(credentials) == 1 and credentials[0]["isResidentCredential"] is True
    # The security notice (allauth's notification) to the account's address.
    notice = OutboxMessage.objects.filter(to=ann.email, kind="account").order_by("-pk").first()
    assert notice is not None and "added" in notice.subject.lower(), notice and notice.subject
    page.goto(f"{base}/accounts/2fa/webauthn/")
    assert "Ann's laptop" in page.inner_text("#webauthn-keys")
    assert "Passkey (logs in alone)" in page.inner_text("#webauthn-keys")
    check("list")
    page.goto(f"{base}/accounts/2fa/")
    assert "Ann's laptop" in page.inner_text("#mfa-webauthn")
    check("index with a key")

    # Logged out: the passkey alone logs in (no password typed).
    page.get_by_role("button", name="Log out").click()
    page.wait_for_load_state()
    page.goto(f"{base}/accounts/login/")
    check("log-in page")
    page.click("#passkey_login")
    page.wait_for_url(f"{base}/")
    assert "Signed in as" in page.inner_text(".site-header")
    assert Authenticator.objects.get(pk=key.pk).last_used_at is not None

    # The password first: the key stands in for the app's code.
    page.get_by_role("button", name="Log out").click()
    page.wait_for_load_state()
    log_in_by_form(page, base, "ann")
    assert page.url.endswith("/accounts/2fa/authenticate/")
    check("log-in second step")
    page.click("#mfa_webauthn_authenticate")
    page.wait_for_url("**/accounts/2fa/trust/")
    check("trust this browser")
    page.get_by_role("button", name="Trust this browser for 2 weeks").click()
    page.wait_for_url(f"{base}/")
    assert "Signed in as" in page.inner_text(".site-header")
    # Trusted: the next log-in here takes the password alone.
    page.get_by_role("button", name="Log out").click()
    page.wait_for_load_state()
    log_in_by_form(page, base, "ann")
    assert page.url == f"{base}/" and "Signed in as" in page.inner_text(".site-header")

    # Another browser with no passkey: the attempt is said on the page, nobody is logged in.
    other = page.context.browser.new_context()
    try:
        stranger = other.new_page()
        _, empty_id = virtual_authenticator(stranger)
        # Not trusted here: the password is not enough.
        log_in_by_form(stranger, base, "ann")
        assert stranger.url.endswith("/accounts/2fa/authenticate/")
        stranger.get_by_role("button", name="Cancel").click()
        stranger.wait_for_load_state()
        stranger.goto(f"{base}/accounts/login/")
        stranger.click("#passkey_login")
        stranger.wait_for_selector("#webauthn-error", timeout=20_000)
        assert "was not used" in stranger.inner_text("#webauthn-error")
        assert "Signed in as" not in stranger.inner_text(".site-header")
    finally:
        other.close()
    assert axe == {}
    assert refused == []
