"""A garbled passkey answer (the credential the browser posts, JSON text anyone may forge)
is refused as a wrong key is, never a server error: on the log-in with a passkey (no
account needed), the log-in's second step, re-authentication and adding a key."""

from __future__ import annotations

import json

import pytest
from allauth.mfa.models import Authenticator

from tests.site.test_passkeys import _key
from tests.site.test_two_factor import PASSWORD, log_in, player, with_two_factor

pytestmark = pytest.mark.django_db

GARBLED = {
    # JSON fido2 cannot read: a missing rawId was a KeyError (500)
    "no_raw_id": json.dumps({"id": 1}),
    "bad_response": json.dumps({"id": "AAAA", "rawId": "AAAA", "type": "public-key", "response": 7}),
    # a number past Python's 4300 digits (ValueError) and nesting past its recursion limit
    "huge_number": "9" * 5000,
    "deep": "[" * 100_000 + "]" * 100_000,
}


@pytest.fixture(params=list(GARBLED), ids=list(GARBLED))
def garbled(request) -> str:  # noqa: ANN001
    return GARBLED[request.param]


def test_the_passkey_log_in_refuses_a_garbled_credential(client, garbled) -> None:
    client.raise_request_exception = False
    answer = client.post("/accounts/2fa/webauthn/login/", {"credential": garbled})
    assert answer.status_code == 302 and answer["Location"] == "/accounts/login/"
    assert "_auth_user_id" not in client.session


def test_the_second_step_refuses_a_garbled_credential(client, garbled) -> None:
    client.raise_request_exception = False
    ann = player()
    with_two_factor(ann)
    _key(ann)
    log_in(client, ann)
    answer = client.post("/accounts/2fa/authenticate/", {"credential": garbled})
    assert answer.status_code == 200  # the page again, the key refused
    assert "_auth_user_id" not in client.session


def test_re_authenticating_and_adding_a_key_refuse_a_garbled_credential(client, garbled) -> None:
    client.raise_request_exception = False
    ann = player()
    _key(ann)
    client.force_login(ann)
    again = client.post("/accounts/2fa/webauthn/reauthenticate/", {"credential": garbled})
    assert again.status_code in (200, 302) and again.status_code != 500
    client.post("/accounts/reauthenticate/", {"password": PASSWORD})
    added = client.post("/accounts/2fa/webauthn/add/", {"name": "Mine", "credential": garbled})
    assert added.status_code == 200  # the form again, with the reason
    assert Authenticator.objects.filter(user=ann, type="webauthn").count() == 1


def test_starting_passkey_log_ins_is_limited_per_address(db) -> None:
    """Regression: each start of a passkey log-in (a GET asking for the challenge, as the
    log-in page's script does, no account needed) stores the challenge in a new session,
    a database row, and allauth limits the POST only: anyone could write rows without
    end. Now 20 a minute from one address, as its log-ins (10) and more."""
    from django.contrib.sessions.models import Session
    from django.core.cache import cache
    from django.test import Client

    cache.clear()
    ajax = {"HTTP_X_REQUESTED_WITH": "XMLHttpRequest"}
    starts = [Client().get("/accounts/2fa/webauthn/login/", **ajax) for _ in range(20)]
    assert {s.status_code for s in starts} == {200}
    assert "request_options" in starts[0].json()
    rows = Session.objects.count()
    refused = Client().get("/accounts/2fa/webauthn/login/", **ajax)
    assert refused.status_code == 429
    assert Session.objects.count() == rows  # no row more
