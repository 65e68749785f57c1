"""Passkeys and security keys (allauth.mfa's WebAuthn) as the pages show them, with the
Django test client (the ceremony itself, in Chromium with a virtual authenticator:
test_browser_passkeys.py): the site-styled pages, no inline script to run (allauth's script
is a static file: the CSP needs no exception), removing a key says so by email (allauth's
security notice), and the log-in offers the key after the password only to a player who
has one."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from allauth.mfa.models import Authenticator

from tests.site.mail_support import sent_account_mail
from tests.site.test_two_factor import PASSWORD, log_in, player, with_two_factor

pytestmark = pytest.mark.django_db


#: What Chromium's virtual authenticator answered when a passkey was added on
#: http://localhost (test_browser_passkeys.py), as allauth keeps it: a real registration.
REGISTRATION = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures/webauthn/passkey_registration.json").read_text()
)


def _key(user, name: str = "Ann's phone", resident: bool = True) -> Authenticator:  # noqa: ANN001
    """A key as allauth stores one: its name and the browser's registration (a security
    key's said not to be resident)."""
    credential = json.loads(json.dumps(REGISTRATION))
    credential["clientExtensionResults"] = {"credProps": {"rk": resident}}
    return Authenticator.objects.create(user=user, type="webauthn", data={"name": name, "credential": credential})


def _scripts_that_would_run(html: str) -> list[str]:
    """<script> elements with neither a src nor a data type: inline code the CSP refuses."""
    return [tag for tag in re.findall(r"<script\b[^>]*>", html)
            if "src=" not in tag and "application/json" not in tag]  # fmt: skip


def test_the_pages_are_the_sites_and_run_no_inline_script(client) -> None:
    ann = player()
    _key(ann)
    _key(ann, "Blue key", resident=False)
    client.force_login(ann)
    client.post("/accounts/reauthenticate/", {"password": PASSWORD})
    index = client.get("/accounts/2fa/").content.decode()
    assert "<strong>2</strong> keys: Ann&#x27;s phone, Blue key." in index
    listing = client.get("/accounts/2fa/webauthn/")
    html = listing.content.decode()
    assert listing.status_code == 200 and "<h1>Passkeys and security keys</h1>" in html
    assert "Passkey (logs in alone)" in html and "Security key (after the password)" in html
    assert 'aria-current="true">Two-factor authentication</a>' in html  # in the account's links
    add = client.get("/accounts/2fa/webauthn/add/")
    html = add.content.decode()
    assert add.status_code == 200 and "<h1>Add a passkey or security key</h1>" in html
    assert '<script src="/static/mfa/js/webauthn.js"></script>' in html
    assert '<script id="js_data" type="application/json">' in html  # the options, as data
    assert _scripts_that_would_run(html) == []
    assert "'unsafe-inline'" not in add["Content-Security-Policy"].split("script-src")[1].split(";")[0]
    key = Authenticator.objects.filter(user=ann, type="webauthn").first()
    edit = client.get(f"/accounts/2fa/webauthn/keys/{key.pk}/edit/")
    assert edit.status_code == 200 and "<h1>Rename a key</h1>" in edit.content.decode()
    done = client.post(f"/accounts/2fa/webauthn/keys/{key.pk}/edit/", {"name": "Ann's old phone"})
    assert done.status_code == 302
    assert Authenticator.objects.get(pk=key.pk).wrap().name == "Ann's old phone"


def test_removing_a_key_sends_the_security_notice(client) -> None:
    ann = player()
    key = _key(ann)
    client.force_login(ann)
    client.post("/accounts/reauthenticate/", {"password": PASSWORD})
    page = client.get(f"/accounts/2fa/webauthn/keys/{key.pk}/remove/")
    assert "Remove “Ann&#x27;s phone”" in page.content.decode()
    done = client.post(f"/accounts/2fa/webauthn/keys/{key.pk}/remove/")
    assert done.status_code == 302
    assert not Authenticator.objects.filter(pk=key.pk).exists()
    (notice,) = [m for m in sent_account_mail() if "removed" in m.subject]
    assert notice.to == [ann.email]
    assert notice.subject == "[FiveX] A passkey or security key was removed from your account"
    assert "A passkey or security key has been removed from your account." in notice.body


def test_the_log_in_offers_a_key_after_the_password_only_to_who_has_one(client) -> None:
    ann = player()
    with_two_factor(ann)
    log_in(client, ann)
    html = client.get("/accounts/2fa/authenticate/").content.decode()
    assert "mfa_webauthn_authenticate" not in html  # the app's code only
    _key(ann)
    html = client.get("/accounts/2fa/authenticate/").content.decode()
    assert 'id="mfa_webauthn_authenticate"' in html and "Use a passkey or security key" in html
    assert _scripts_that_would_run(html) == []
    login = client.__class__().get("/accounts/login/").content.decode()
    assert "Log in with a passkey" in login and _scripts_that_would_run(login) == []


def test_a_player_with_keys_and_no_app_is_told_what_protects_the_log_in(client) -> None:
    # Guards against the pages saying "the log-in asks for your password only" and "enter
    # the code your authenticator app shows" to a player whose keys are the second step.
    from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes

    ann = player()
    _key(ann)
    RecoveryCodes.activate(ann)
    log_in(client, ann)
    html = client.get("/accounts/2fa/authenticate/").content.decode()
    assert "Use one of your passkeys or security keys (below), or enter" in html
    assert "code your authenticator app shows" not in html
    mine = client.__class__()
    mine.force_login(ann)
    index = mine.get("/accounts/2fa/").content.decode()
    assert "no authenticator app; your passkeys and security keys below protect the log-in" in index
    assert "the log-in asks for your password only" not in index


def test_turning_the_app_off_says_the_keys_still_protect_the_log_in(client) -> None:
    ann = player()
    with_two_factor(ann)
    _key(ann)
    client.force_login(ann)
    client.post("/accounts/reauthenticate/", {"password": PASSWORD})
    html = client.get("/accounts/2fa/totp/deactivate/").content.decode()
    assert "the log-in still asks for one of your passkeys" in html
    assert "the log-in asks for your password only" not in html
    assert client.post("/accounts/2fa/totp/deactivate/").status_code == 302
    # allauth keeps the recovery codes while a key is left.
    assert set(Authenticator.objects.filter(user=ann).values_list("type", flat=True)) == {
        "webauthn", "recovery_codes"
    }


def test_a_keys_name_is_at_most_100_characters_when_added_or_renamed(client) -> None:
    """allauth's forms take a name of any length (a page of text listed on the account's
    pages); the site's say at most 100 characters, as other names on the site do."""
    ann = player()
    key = _key(ann)
    client.force_login(ann)
    client.post("/accounts/reauthenticate/", {"password": PASSWORD})
    edit = f"/accounts/2fa/webauthn/keys/{key.pk}/edit/"
    refused = client.post(edit, {"name": "x" * 101})
    assert refused.status_code == 200
    assert "at most 100 characters" in refused.content.decode()
    assert Authenticator.objects.get(pk=key.pk).wrap().name == "Ann's phone"
    assert client.post(edit, {"name": "y" * 100}).status_code == 302
    assert Authenticator.objects.get(pk=key.pk).wrap().name == "y" * 100
    add = client.get("/accounts/2fa/webauthn/add/").content.decode()
    assert re.search(r'<input[^>]*name="name"[^>]*maxlength="100"', add), add
