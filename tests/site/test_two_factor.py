"""Two-factor authentication (allauth.mfa: an authenticator app and recovery codes): turned
on through the pages (the code computed as an app would, with allauth's own TOTP functions,
from the key the page shows), asked at the log-in after the password, a wrong code refused,
a recovery code taken once, turned off; the admin's login does not skip it; the API's
tokens are not affected."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from allauth.account.models import EmailAddress
from allauth.mfa.models import Authenticator
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import (
    SECRET_SESSION_KEY,
    TOTP,
    format_hotp_value,
    generate_totp_secret,
    hotp_value,
)
from django.contrib.auth import get_user_model

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "correct-horse-battery-7"
WRONG_CODE = "That code is not right."


def player(name: str = "ann", *, verified: bool = True):  # noqa: ANN201
    email = f"{name}@example.test"
    user = get_user_model().objects.create_user(username=name, email=email, password=PASSWORD)
    EmailAddress.objects.create(user=user, email=email, verified=verified, primary=True)
    return user


def app_code(secret: str) -> str:
    """The code an authenticator app shows now for ``secret`` (allauth's HOTP over the
    30-second step), never in the step's last second (it could be a step old on arrival)."""
    if time.time() % 30 > 29:
        time.sleep(1.1)
    return format_hotp_value(hotp_value(secret, int(time.time()) // 30))


def with_two_factor(user) -> tuple[str, list[str]]:  # noqa: ANN001
    """``user`` with an authenticator app and recovery codes, made by allauth's own
    functions (as its pages make them); returns the app's key and the codes."""
    secret = generate_totp_secret()
    TOTP.activate(user, secret)
    codes = RecoveryCodes.activate(user).generate_codes()
    return secret, codes


def log_in(client, user, password: str = PASSWORD):  # noqa: ANN001, ANN201
    return client.post("/accounts/login/", {"login": user.email, "password": password})


def enter_code(client, code: str):  # noqa: ANN001, ANN201
    """The log-in's code step; once taken, "Trust this browser?" answered no (the trust
    stage: test_two_factor_trust.py). Returns the last answer."""
    answer = client.post("/accounts/2fa/authenticate/", {"code": code})
    if answer.status_code == 302 and answer["Location"] == "/accounts/2fa/trust/":
        return client.post("/accounts/2fa/trust/", {"action": "skip"})
    return answer


def signed_in(client) -> bool:  # noqa: ANN001
    return "_auth_user_id" in client.session


def test_turning_it_on_shows_a_qr_code_and_takes_a_code_from_the_app(client) -> None:
    ann = player()
    log_in(client, ann)
    index = client.get("/accounts/2fa/")
    assert index.status_code == 200
    html = index.content.decode()
    assert "<h1>Two-factor authentication</h1>" in html and "<strong>Off</strong>" in html
    assert 'aria-current="page">Two-factor authentication</a>' in html  # in the account's links
    # Turning it on asks for the password again first (allauth's reauthentication).
    first = client.get("/accounts/2fa/totp/activate/")
    assert first.status_code == 302 and first["Location"].startswith("/accounts/reauthenticate/")
    client.post("/accounts/reauthenticate/", {"password": PASSWORD})
    page = client.get("/accounts/2fa/totp/activate/")
    assert page.status_code == 200
    html = page.content.decode()
    secret = client.session[SECRET_SESSION_KEY]
    assert re.search(r'<img class="totp-qr" id="totp-qr" src="data:image/svg\+xml;base64,', html)
    assert f'value="{secret}"' in html  # the key, to type in
    # What the QR code holds (allauth's otpauth URL): the site's name, the player's address.
    assert page.context["totp_url"] == f"otpauth://totp/ann%40example.test?secret={secret}&issuer=FiveX"
    assert 'inputmode="numeric"' in html and 'autocomplete="one-time-code"' in html

    right = app_code(secret)
    wrong = client.post("/accounts/2fa/totp/activate/", {"code": "000000" if right != "000000" else "111111"})
    assert wrong.status_code == 200
    assert WRONG_CODE in wrong.content.decode()
    assert "clock is right" in wrong.content.decode()  # said for the set-up, not the log-in
    assert not Authenticator.objects.filter(user=ann).exists()

    done = client.post("/accounts/2fa/totp/activate/", {"code": app_code(secret)})
    assert done.status_code == 302 and done["Location"] == "/accounts/2fa/recovery-codes/"
    assert set(Authenticator.objects.filter(user=ann).values_list("type", flat=True)) == {
        "totp", "recovery_codes"
    }
    codes = client.get(done["Location"])
    html = codes.content.decode()
    assert "10 of 10 codes unused" in html
    assert re.search(r"<textarea id=\"recovery_codes\"[^>]*>\d{8}\n", html)
    assert "<strong>On</strong> since" in client.get("/accounts/2fa/").content.decode()


def test_the_log_in_asks_for_the_code_after_the_password_and_refuses_a_wrong_one(client) -> None:
    ann = player()
    secret, _ = with_two_factor(ann)
    answer = log_in(client, ann)
    assert answer.status_code == 302 and answer["Location"] == "/accounts/2fa/authenticate/"
    assert not signed_in(client)  # the password alone does not log in
    page = client.get("/accounts/2fa/authenticate/")
    html = page.content.decode()
    assert "Enter the 6-digit code your authenticator app shows now" in html
    assert "<button type=\"submit\">Log in</button>" in html

    right = app_code(secret)
    wrong = enter_code(client, "123456" if right != "123456" else "654321")
    assert wrong.status_code == 200
    assert WRONG_CODE in wrong.content.decode()
    assert 'aria-invalid="true"' in wrong.content.decode()
    assert not signed_in(client)

    done = enter_code(client, right)
    assert done.status_code == 302 and done["Location"] == "/"
    assert signed_in(client) and int(client.session["_auth_user_id"]) == ann.pk
    # The same code again, in another browser, within its 30 seconds: refused (taken once).
    other = client.__class__()
    log_in(other, ann)
    again = enter_code(other, right)
    assert again.status_code == 200 and not signed_in(other)


def test_wrong_codes_count_as_failed_logins(client) -> None:
    """allauth's limit on failed logins (five an account in five minutes) covers the codes."""
    ann = player()
    secret, _ = with_two_factor(ann)
    log_in(client, ann)
    right = app_code(secret)
    wrong = "000000" if right != "000000" else "111111"
    for _ in range(5):
        assert WRONG_CODE in enter_code(client, wrong).content.decode()
    limited = enter_code(client, right)
    assert "Too many failed login attempts" in limited.content.decode()
    assert not signed_in(client)


def test_a_recovery_code_logs_in_once(client) -> None:
    ann = player()
    _, codes = with_two_factor(ann)
    log_in(client, ann)
    done = enter_code(client, codes[3])
    assert done.status_code == 302 and signed_in(client)
    assert "9 of your 10 recovery codes are unused" in client.get("/accounts/2fa/").content.decode()
    client.post("/accounts/logout/")
    assert not signed_in(client)

    log_in(client, ann)
    again = enter_code(client, codes[3])
    assert again.status_code == 200 and WRONG_CODE in again.content.decode()
    assert not signed_in(client)
    assert enter_code(client, codes[4]).status_code == 302
    assert signed_in(client)


def test_cancelling_the_code_leaves_the_log_in(client) -> None:
    ann = player()
    with_two_factor(ann)
    log_in(client, ann)
    html = client.get("/accounts/2fa/authenticate/").content.decode()
    assert 'form="logout-from-stage"' in html
    client.post("/accounts/logout/", {"next": "/accounts/login/"})
    # The half-done log-in is gone: the code page sends back to the log-in.
    answer = client.get("/accounts/2fa/authenticate/")
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/")


def test_turning_it_off_asks_for_the_password_only_again(client) -> None:
    ann = player()
    secret, _ = with_two_factor(ann)
    log_in(client, ann)
    enter_code(client, app_code(secret))
    page = client.get("/accounts/2fa/totp/deactivate/")
    assert page.status_code == 302 and "/reauthenticate/" in page["Location"]
    client.post(page["Location"], {"password": PASSWORD})
    page = client.get("/accounts/2fa/totp/deactivate/")
    assert "Turn off two-factor authentication" in page.content.decode()
    done = client.post("/accounts/2fa/totp/deactivate/")
    assert done.status_code == 302 and done["Location"] == "/accounts/2fa/"
    assert not Authenticator.objects.filter(user=ann).exists()  # the recovery codes too
    assert "Two-factor authentication is off" in client.get("/accounts/2fa/").content.decode()
    client.post("/accounts/logout/")
    assert log_in(client, ann)["Location"] == "/" and signed_in(client)


def test_an_unconfirmed_address_cannot_turn_it_on(client) -> None:
    """allauth's rule: with an address not confirmed, whoever signed up with someone
    else's address could lock its owner out for good."""
    dan = player("dan", verified=False)
    log_in(client, dan)
    answer = client.get("/accounts/2fa/totp/activate/", follow=True)
    assert "Confirm your email address first" in answer.content.decode()
    assert not Authenticator.objects.filter(user=dan).exists()


def test_an_address_cannot_be_added_while_it_is_on(client) -> None:
    ann = player()
    secret, _ = with_two_factor(ann)
    log_in(client, ann)
    enter_code(client, app_code(secret))
    answer = client.post("/accounts/email/", {"action_add": "", "email": "ann2@example.test"})
    assert "An address cannot be added while two-factor authentication is on" in answer.content.decode()
    assert not EmailAddress.objects.filter(email="ann2@example.test").exists()


def test_the_admin_login_does_not_skip_the_code(client) -> None:
    """The admin's own form asks no code: an account with two-factor authentication on is
    sent to the site's log-in (which asks it); the admin then takes that session."""
    boss = player("boss")
    boss.is_staff = boss.is_superuser = True
    boss.save()
    secret, _ = with_two_factor(boss)
    answer = client.post("/admin/login/?next=/admin/", {"username": boss.email, "password": PASSWORD})
    assert answer.status_code == 200
    assert "This account uses two-factor authentication" in answer.content.decode()
    assert not signed_in(client)
    log_in(client, boss)
    enter_code(client, app_code(secret))
    assert client.get("/admin/").status_code == 200


def test_the_api_token_works_as_before(client) -> None:
    from games.services.tokens import api_token_create

    ann = player()
    with_two_factor(ann)
    key = api_token_create(user=ann)
    answer = client.get("/api/account/export/", headers={"Authorization": f"Token {key}"})
    assert answer.status_code == 200
    assert answer.json()["account"]["two_factor"]["enabled"] is True


def test_a_password_reset_does_not_skip_the_code(client) -> None:
    """The reset logs in (ACCOUNT_LOGIN_ON_PASSWORD_RESET) through the same stage: whoever
    reads the player's mail still needs the code."""
    from tests.site.mail_support import sent_account_mail

    ann = player()
    secret, _ = with_two_factor(ann)
    client.post("/accounts/password/reset/", {"email": ann.email})
    link = re.search(r"https?://[^/\s]+(/accounts/password/reset/key/\S+/)", sent_account_mail()[-1].body)
    form = client.get(link.group(1))["Location"]
    answer = client.post(form, {"password1": "new-horse-battery-9", "password2": "new-horse-battery-9"})
    assert answer.status_code == 302 and answer["Location"] == "/accounts/2fa/authenticate/"
    assert not signed_in(client)
    assert enter_code(client, app_code(secret)).status_code == 302
    assert signed_in(client)


def test_the_pages_holding_a_key_or_codes_are_never_cached(client) -> None:
    ann = player()
    log_in(client, ann)
    client.post("/accounts/reauthenticate/", {"password": PASSWORD})
    assert "no-store" in client.get("/accounts/2fa/totp/activate/")["Cache-Control"]
    with_two_factor(ann)
    assert "no-store" in client.get("/accounts/2fa/recovery-codes/")["Cache-Control"]
    client.logout()
    log_in(client, ann)
    assert "no-store" in client.get("/accounts/2fa/authenticate/")["Cache-Control"]


def test_the_reauthentication_offers_the_code_as_another_way_on_a_line_of_its_own(client) -> None:
    # Guards against allauth's bare <div> running "Send me a sign-in code" and "Use
    # authenticator app or code" together, read as one link.
    ann = player()
    secret, _ = with_two_factor(ann)
    log_in(client, ann)
    enter_code(client, app_code(secret))
    html = client.get("/accounts/reauthenticate/").content.decode()
    (group,) = re.findall(r'<div class="button-group">(.*?)</div>', html, re.S)
    assert 'href="/accounts/2fa/reauthenticate/' in group and 'href="/accounts/reauthenticate/code/' in group
    css = (ROOT / "fivex_site/static/fivex/site.css").read_text()
    assert re.search(r"\.button-group \{[^}]*flex-direction: column", css)
