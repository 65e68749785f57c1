"""README, *Rotating SECRET_KEY*: with the new key as SECRET_KEY and the old one in
SECRET_KEY_FALLBACKS, what the old key signed keeps working: a signed-in session, a
password-reset link, an email confirmation link (the two-factor secrets: test_two_factor_
secrets.py; trusted browsers: test_two_factor_trust.py; seats' reply addresses:
tests/mail/test_key_rotation.py)."""

from __future__ import annotations

import pytest

from tests.site.test_two_factor import log_in, player

pytestmark = pytest.mark.django_db

OLD, NEW = "k-old-" + "o" * 44, "k-new-" + "n" * 44
SIGNED_IN_PAGE = "/accounts/email/"


def _signed_in(client) -> bool:  # noqa: ANN001
    # The session's user is checked against its password hash, signed with the key.
    return client.get(SIGNED_IN_PAGE).status_code == 200


def test_a_session_signed_in_under_the_old_key_stays_signed_in(client, settings) -> None:
    from django.test import Client

    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = OLD, []
    log_in(client, player())
    other = Client()
    log_in(other, player("bob"))
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = NEW, [OLD]
    assert _signed_in(client)
    # A visit during the rotation moved the session to the new key: dropping the old
    # key later keeps it; a session not seen meanwhile ends with it.
    settings.SECRET_KEY_FALLBACKS = []
    assert _signed_in(client)
    assert not _signed_in(other)


def test_a_password_reset_link_sent_under_the_old_key_still_opens(client, settings) -> None:
    from allauth.account.forms import default_token_generator
    from allauth.account.utils import user_pk_to_url_str

    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = OLD, []
    ann = player()
    link = f"/accounts/password/reset/key/{user_pk_to_url_str(ann)}-{default_token_generator.make_token(ann)}/"
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = NEW, [OLD]
    opened = client.get(link, follow=True)
    assert opened.status_code == 200
    assert 'name="password1"' in opened.content.decode()  # the new password's form
    settings.SECRET_KEY_FALLBACKS = []
    refused = client.get(link, follow=True).content.decode()
    assert 'name="password1"' not in refused  # the old key gone: the link is void


def test_an_email_confirmation_link_sent_under_the_old_key_still_confirms(client, settings) -> None:
    from allauth.account.models import EmailAddress, EmailConfirmationHMAC

    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = OLD, []
    ann = player(verified=False)
    address = EmailAddress.objects.get(user=ann)
    key = EmailConfirmationHMAC(address).key
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = NEW, [OLD]
    assert client.post(f"/accounts/confirm-email/{key}/").status_code == 302
    address.refresh_from_db()
    assert address.verified
