"""Players' two-factor authenticators in the admin: staff see which a player has and remove
a lost one (the player lost their phone and their recovery codes), never the key that makes
the codes: not on a page, in a search or through a lookup in the address (allauth's own
admin showed and edited it, and took any lookup on it)."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from allauth.mfa.models import Authenticator
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret
from django.contrib.auth import get_user_model

pytestmark = pytest.mark.django_db

LIST = "/admin/mfa/authenticator/"


@pytest.fixture
def ann():  # noqa: ANN201
    """ann, with an authenticator app and recovery codes (made by allauth's functions)."""
    user = get_user_model().objects.create_user(
        username="ann", email="ann@example.test", password="pw-ann-98765"
    )
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    user.secret = generate_totp_secret()
    user.app = TOTP.activate(user, user.secret).instance
    user.codes = RecoveryCodes.activate(user)
    return user


def _secrets(ann) -> list[str]:  # noqa: ANN001
    seed = Authenticator.objects.get(user=ann, type="recovery_codes").data["seed"]
    return [ann.secret, seed, *ann.codes.generate_codes()]


def test_staff_see_who_has_which_never_the_key(admin_client, ann) -> None:
    listing = admin_client.get(LIST)
    assert listing.status_code == 200
    html = listing.content.decode()
    assert "ann" in html and "TOTP Authenticator" in html and "Recovery codes" in html
    page = admin_client.get(f"{LIST}{ann.app.pk}/change/")
    assert page.status_code == 200
    assert "TOTP Authenticator" in page.content.decode()
    for answer in (listing, page):
        text = answer.content.decode()
        for secret in _secrets(ann):
            assert secret not in text, secret
    # Nothing is added or edited here.
    assert admin_client.get(f"{LIST}add/").status_code == 403
    admin_client.post(f"{LIST}{ann.app.pk}/change/", {"type": "totp", "data": '{"secret": "A"}'})
    assert Authenticator.objects.get(pk=ann.app.pk).data == ann.app.data  # unchanged


def test_the_key_is_not_a_lookup_nor_a_search(admin_client, ann) -> None:
    """Regression guard: a filter on ``data`` in the address answered how many rows match
    a prefix: the key, one character at a time."""
    for lookup in (f"data__secret__startswith={ann.secret[:1]}", "data__icontains=secret",
                   "user__password__startswith=m"):  # fmt: skip
        assert admin_client.get(f"{LIST}?{lookup}").status_code == 400, lookup
    assert admin_client.get(f"{LIST}?type__exact=totp").status_code == 200  # its own filter
    found = admin_client.get(f"{LIST}?q={ann.secret}").context["cl"].result_count
    assert found == 0
    assert admin_client.get(f"{LIST}?q=ann").context["cl"].result_count == 2


def test_staff_remove_a_lost_authenticator_and_its_recovery_codes_go_too(admin_client, ann, client):
    answer = admin_client.post(f"{LIST}{ann.app.pk}/delete/", {"post": "yes"})
    assert answer.status_code == 302
    # No recovery codes left alone: they would still count as two-factor being on.
    assert not Authenticator.objects.filter(user=ann).exists()
    logged = client.post("/accounts/login/", {"login": ann.email, "password": "pw-ann-98765"})
    assert logged.status_code == 302 and logged["Location"] == "/"  # no code asked


def test_removing_several_at_once_keeps_the_codes_of_a_player_who_still_has_an_app(admin_client, ann):
    bob = get_user_model().objects.create_user(username="bob", email="bob@example.test", password="x")
    bob_app = TOTP.activate(bob, generate_totp_secret()).instance
    RecoveryCodes.activate(bob)
    codes_only = Authenticator.objects.get(user=bob, type="recovery_codes")
    answer = admin_client.post(LIST, {
        "action": "delete_selected", "_selected_action": [ann.app.pk, codes_only.pk], "post": "yes",
    })  # fmt: skip
    assert answer.status_code == 302
    assert not Authenticator.objects.filter(user=ann).exists()
    assert list(Authenticator.objects.filter(user=bob)) == [bob_app]  # bob's app stays on
