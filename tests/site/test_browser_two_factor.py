"""Two-factor authentication in real headless Chromium, as a player walks it: turned on
(the QR code drawn under the Content-Security-Policy), the recovery codes shown, logging
out and in again with the code asked after the password, a wrong one refused, a recovery
code taken. Every page with no policy refusal and no serious axe violation."""

from __future__ import annotations

import pytest

from tests.games.test_browser import log_in_by_form
from tests.games.web_support import make_user
from tests.site.test_browser_axe import blocking_violations
from tests.site.test_browser_csp import _watch
from tests.site.test_two_factor import WRONG_CODE, app_code

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _submit(page, form: str) -> None:
    page.locator(f"{form} button[type=submit]").first.click()
    page.wait_for_load_state()


def test_turning_it_on_and_logging_in_with_it(browser_page, live_server) -> None:
    from allauth.account.models import EmailAddress
    from allauth.mfa.models import Authenticator

    ann = make_user("ann")
    EmailAddress.objects.create(user=ann, email=ann.email, verified=True, primary=True)
    page, base = browser_page, live_server.url
    refused = _watch(page)
    axe: dict[str, list[str]] = {}

    def check(name: str) -> None:
        found = blocking_violations(page)
        if found:
            axe[name] = found

    log_in_by_form(page, base, "ann")
    page.goto(f"{base}/accounts/2fa/")
    check("index")
    page.get_by_role("link", name="Turn two-factor authentication on").click()
    page.wait_for_load_state()
    assert "/accounts/reauthenticate/" in page.url  # the password again first
    page.fill('input[name="password"]', "pw-ann")
    _submit(page, "main form")
    assert page.url.endswith("/accounts/2fa/totp/activate/")
    # The QR code is drawn (a data: image the policy's img-src allows).
    page.wait_for_function("() => document.getElementById('totp-qr').complete")
    assert page.evaluate("document.getElementById('totp-qr').naturalWidth") > 0
    check("activate")
    secret = page.input_value("#authenticator_secret")
    right = app_code(secret)
    page.fill("#id_code", "000000" if right != "000000" else "111111")
    _submit(page, "#totp-activate-form")
    assert WRONG_CODE in page.inner_text("#totp-activate-form")
    assert page.get_attribute("#id_code", "aria-invalid") == "true"
    check("activate, wrong code")
    page.fill("#id_code", app_code(secret))
    _submit(page, "#totp-activate-form")
    assert page.url.endswith("/accounts/2fa/recovery-codes/")
    assert "Two-factor authentication is on" in page.inner_text(".messages-box")
    codes = page.input_value("#recovery_codes").split()
    assert len(codes) == 10
    check("recovery codes")

    page.get_by_role("button", name="Log out").click()
    page.wait_for_load_state()
    log_in_by_form(page, base, "ann")
    assert page.url.endswith("/accounts/2fa/authenticate/")
    check("log-in code")
    page.fill("#id_code", "12345678")
    _submit(page, "#mfa-authenticate-form")
    assert WRONG_CODE in page.inner_text("#mfa-authenticate-form")
    check("log-in code, wrong")
    page.fill("#id_code", codes[0])
    _submit(page, "#mfa-authenticate-form")
    assert page.url.endswith("/accounts/2fa/trust/")
    check("trust this browser")
    page.get_by_role("button", name="Not this browser").click()
    page.wait_for_load_state()
    assert "Signed in as" in page.inner_text(".site-header")
    page.goto(f"{base}/accounts/2fa/")
    assert "9 of your 10 recovery codes are unused" in page.inner_text("#mfa-recovery-codes")
    assert Authenticator.objects.filter(user=ann, type="totp").exists()
    assert axe == {}
    assert refused == []
