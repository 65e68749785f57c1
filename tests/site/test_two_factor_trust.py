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


def test_a_key_rotation_asks_trusted_browsers_for_the_code_once_more(client, settings) -> None:
    """README (Rotating SECRET_KEY): allauth's trust note is keyed on SECRET_KEY alone (its
    fallbacks are not tried), so a rotation voids it: the code is asked once more, and
    nothing fails, before or after the secrets are re-encrypted."""
    from django.core.management import call_command

    old, new = "k-old-" + "o" * 40, "k-new-" + "n" * 40
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = old, []
    ann = player()
    _, codes = with_two_factor(ann)
    log_in(client, ann)
    _code_then(client, codes[0], "trust")
    client.post("/accounts/logout/")
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = new, [old]
    answer = log_in(client, ann)
    assert answer["Location"] == "/accounts/2fa/authenticate/" and not signed_in(client)
    assert _code_then(client, codes[1], "trust")["Location"] == "/" and signed_in(client)
    client.post("/accounts/logout/")
    assert log_in(client, ann)["Location"] == "/"  # trusted again, under the new key
    client.post("/accounts/logout/")
    call_command("mfa_secrets_reencrypt", stdout=open("/dev/null", "w"))  # noqa: SIM115
    # The trust covers the stored recovery codes: re-encrypted, they ask once more too.
    assert log_in(client, ann)["Location"] == "/accounts/2fa/authenticate/"
    assert _code_then(client, codes[2], "skip")["Location"] == "/" and signed_in(client)
