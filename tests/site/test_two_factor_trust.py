"""'Trust this browser' (allauth's MFA_TRUST_ENABLED): after the code, the log-in asks
whether this browser may skip it; trusted, the next log-in in that browser takes the
password alone for two weeks, another browser still asks, and changing the password voids
it. Not trusted, the code is asked every time. Passkeys, the data download and closing
the account: test_browser_passkeys.py, test_account_export.py, test_account_close.py."""

from __future__ import annotations

import time

import pytest
from django.test import Client

from tests.site.test_two_factor import log_in, player, signed_in, with_two_factor

pytestmark = pytest.mark.django_db

TRUST = "/accounts/2fa/trust/"


def _code_then(client: Client, code: str, action: str):  # noqa: ANN202
    answer = client.post("/accounts/2fa/authenticate/", {"code": code})
    assert answer.status_code == 302 and answer["Location"] == TRUST
    assert not signed_in(client)  # not before the question is answered
    return client.post(TRUST, {"action": action})


def test_a_trusted_browser_skips_the_code_and_another_still_asks(client) -> None:
    ann = player()
    _, codes = with_two_factor(ann)
    log_in(client, ann)
    page = client.post("/accounts/2fa/authenticate/", {"code": codes[0]})
    assert page["Location"] == TRUST
    html = client.get(TRUST).content.decode()
    assert "<h1>Trust this browser?</h1>" in html
    assert "Trust this browser for 2\xa0weeks" in html and "Not this browser" in html
    answer = client.post(TRUST, {"action": "trust"})
    assert answer.status_code == 302 and answer["Location"] == "/" and signed_in(client)
    cookie = answer.cookies["mfa_trusted"]
    assert cookie["httponly"] and cookie["max-age"] == 14 * 24 * 3600 and cookie["samesite"] == "Lax"

    client.post("/accounts/logout/")
    again = log_in(client, ann)
    assert again.status_code == 302 and again["Location"] == "/" and signed_in(client)

    other = Client()
    asked = log_in(other, ann)
    assert asked["Location"] == "/accounts/2fa/authenticate/" and not signed_in(other)


def test_not_trusted_the_code_is_asked_every_time(client) -> None:
    ann = player()
    _, codes = with_two_factor(ann)
    log_in(client, ann)
    answer = _code_then(client, codes[0], "skip")
    assert answer["Location"] == "/" and signed_in(client)
    assert "mfa_trusted" not in answer.cookies
    client.post("/accounts/logout/")
    assert log_in(client, ann)["Location"] == "/accounts/2fa/authenticate/"


def test_a_password_change_voids_the_trust(client) -> None:
    ann = player()
    _, codes = with_two_factor(ann)
    log_in(client, ann)
    _code_then(client, codes[0], "trust")
    ann.set_password("another-horse-battery-8")
    ann.save()
    client.post("/accounts/logout/")
    answer = log_in(client, ann, "another-horse-battery-8")
    assert answer["Location"] == "/accounts/2fa/authenticate/" and not signed_in(client)


def test_the_trust_ends_after_its_two_weeks(client, settings) -> None:
    from datetime import timedelta

    ann = player()
    _, codes = with_two_factor(ann)
    log_in(client, ann)
    _code_then(client, codes[0], "trust")
    client.post("/accounts/logout/")
    settings.MFA_TRUST_COOKIE_AGE = timedelta(seconds=1)  # the note's age, as when it was read
    time.sleep(1.1)
    assert log_in(client, ann)["Location"] == "/accounts/2fa/authenticate/"


def test_a_key_rotation_keeps_trusted_browsers_trusted(client, settings) -> None:
    """README (Rotating SECRET_KEY): a browser trusted under the old key skips the code
    through the rotation, the secrets' re-encryption included (allauth's own note was
    keyed on SECRET_KEY alone and on the recovery codes' stored ciphertext: both asked
    again); once the old key leaves SECRET_KEY_FALLBACKS, its notes are void."""
    from django.core.management import call_command
    from django.test import Client

    old, new = "k-old-" + "o" * 40, "k-new-" + "n" * 40
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = old, []
    ann = player()
    _, codes = with_two_factor(ann)
    log_in(client, ann)
    _code_then(client, codes[0], "trust")
    client.post("/accounts/logout/")
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = new, [old]
    assert log_in(client, ann)["Location"] == "/" and signed_in(client)
    client.post("/accounts/logout/")
    call_command("mfa_secrets_reencrypt", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert log_in(client, ann)["Location"] == "/" and signed_in(client)
    client.post("/accounts/logout/")
    # Trusted during the rotation, under the new key: stays trusted once the old goes.
    later = Client()
    log_in(later, ann)
    _code_then(later, codes[1], "trust")
    later.post("/accounts/logout/")
    settings.SECRET_KEY_FALLBACKS = []
    assert log_in(later, ann)["Location"] == "/"
    answer = log_in(client, ann)  # trusted under the old key alone
    assert answer["Location"] == "/accounts/2fa/authenticate/" and not signed_in(client)


def test_new_recovery_codes_still_void_the_trust(client) -> None:
    # allauth's note covers the recovery codes' seed (now read decrypted): codes made
    # again (a leaked sheet replaced) ask every trusted browser for the code once more.
    from allauth.mfa.models import Authenticator
    from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes

    ann = player()
    _, codes = with_two_factor(ann)
    log_in(client, ann)
    _code_then(client, codes[0], "trust")
    client.post("/accounts/logout/")
    assert log_in(client, ann)["Location"] == "/"
    client.post("/accounts/logout/")
    Authenticator.objects.filter(user=ann, type=Authenticator.Type.RECOVERY_CODES).delete()
    RecoveryCodes.activate(ann)
    assert log_in(client, ann)["Location"] == "/accounts/2fa/authenticate/"
