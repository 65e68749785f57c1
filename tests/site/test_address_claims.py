"""Only a confirmed address is an account's. Anyone may add any address to their account
at /accounts/email/, unverified: that must not block its owner's sign-up, nor get its
owner mailed a password reset link for that account (a security review), and confirming
it takes it from the account that only added it."""

import re

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model

from tests.site.mail_support import sent_account_mail

PASSWORD = "correct-horse-battery-7"
OWNER = "owner@example.com"
CONFIRM = r"https?://[^/\s]+(/accounts/confirm-email/\S+/)"
RESET = r"https?://[^/\s]+(/accounts/password/reset/key/\S+/)"


def sign_up(client, *, email: str, username: str):
    return client.post(
        "/accounts/signup/",
        {"email": email, "username": username, "password1": PASSWORD, "password2": PASSWORD},
    )


def squatter_adds(client, email: str = OWNER):
    """A player (``sam``) signs up with an address of their own, confirms it, and adds
    ``email``, unverified, at /accounts/email/."""
    assert sign_up(client, email="sam@example.com", username="sam").status_code == 302
    confirm(client, to="sam@example.com")  # logs sam in, mandatory verification or not
    added = client.post("/accounts/email/", {"email": email, "action_add": ""})
    assert added.status_code == 302, added.content.decode()[:2000]
    assert EmailAddress.objects.filter(user__username="sam", email=email, verified=False).exists()
    client.logout()
    three_minutes_later()
    return get_user_model().objects.get(username="sam")


def three_minutes_later() -> None:
    """allauth mails an address at most one confirmation link every three minutes (its
    ``confirm_email`` limit, kept in the cache), whichever account asked: the squatter's
    used it."""
    from django.core.cache import caches

    for cache in caches.all():
        cache.clear()


def last_link(pattern: str, *, to: str) -> str:
    (message,) = [m for m in sent_account_mail() if m.to == [to]][-1:]
    link = re.search(pattern, message.body)
    assert link, message.body
    return link.group(1)


def confirm(client, *, to: str) -> None:
    path = last_link(CONFIRM, to=to)
    assert client.post(path).status_code == 302


def verified_user(username: str, email: str):
    user = get_user_model().objects.create_user(username, email, PASSWORD)
    EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
    return user


@pytest.mark.django_db
def test_an_address_another_account_only_added_does_not_block_its_owners_sign_up(client) -> None:
    # Regression: allauth counted the squatter's unverified row as taken ("A user is
    # already registered with this email address.").
    sam = squatter_adds(client)
    response = sign_up(client, email=OWNER, username="olga")
    assert response.status_code == 302 and response["Location"] == "/", response.content[:3000]
    olga = get_user_model().objects.get(username="olga")
    assert olga.email == OWNER
    assert EmailAddress.objects.filter(user=olga, email=OWNER, primary=True).exists()
    # Confirming it makes it olga's alone: sam's unverified claim is gone, sam keeps his own.
    confirm(client, to=OWNER)
    assert EmailAddress.objects.get(user=olga, email=OWNER).verified is True
    assert not EmailAddress.objects.filter(user=sam, email=OWNER).exists()
    sam.refresh_from_db()
    assert sam.email == "sam@example.com"
    assert list(EmailAddress.objects.filter(user=sam).values_list("email", "primary")) == [
        ("sam@example.com", True)
    ]


@pytest.mark.django_db
def test_mandatory_verification_makes_the_owners_account_not_a_feigned_one(client, settings) -> None:
    # Regression: with mandatory verification allauth feigned success and mailed the owner
    # "an account already exists" (the squatter's), creating nothing.
    settings.ACCOUNT_EMAIL_VERIFICATION = "mandatory"
    squatter_adds(client)
    sent_account_mail().clear()
    response = sign_up(client, email=OWNER, username="olga")
    assert response.status_code == 302 and response["Location"] == "/accounts/confirm-email/"
    assert get_user_model().objects.filter(username="olga").exists()
    (mail,) = sent_account_mail()
    assert mail.to == [OWNER] and "/accounts/confirm-email/" in mail.body
    confirm(client, to=OWNER)
    login = client.post("/accounts/login/", {"login": OWNER, "password": PASSWORD})
    assert login.status_code == 302 and login["Location"] == "/"
    assert client.get("/").context["user"].username == "olga"


@pytest.mark.django_db
def test_confirming_an_address_takes_it_from_an_account_that_signed_up_with_it(client) -> None:
    """sam signed up with olga's address as his account's (optional verification lets him
    in); once olga signs up with it and confirms it, it is no longer sam's account address:
    sam is not mailed for it and does not log in with it."""
    sams = {"password1": "sams-horse-battery-1", "password2": "sams-horse-battery-1"}
    client.post("/accounts/signup/", {"email": OWNER, "username": "sam", **sams})
    client.post("/accounts/email/", {"email": "sam@example.com", "action_add": ""})
    client.logout()
    three_minutes_later()
    assert sign_up(client, email=OWNER, username="olga").status_code == 302
    confirm(client, to=OWNER)
    client.logout()
    sam = get_user_model().objects.get(username="sam")
    assert sam.email == "sam@example.com"
    assert list(EmailAddress.objects.filter(user=sam).values_list("email", "primary")) == [
        ("sam@example.com", True)
    ]
    refused = client.post("/accounts/login/", {"login": OWNER, "password": sams["password1"]})
    assert refused.status_code == 200 and "_auth_user_id" not in client.session
    ok = client.post("/accounts/login/", {"login": "sam@example.com", "password": sams["password1"]})
    assert ok.status_code == 302  # sam keeps his account, by his own address


@pytest.mark.django_db
def test_a_reset_for_an_address_only_added_unverified_mails_no_link(client) -> None:
    # Regression: the owner was mailed a reset link for the squatter's account.
    squatter_adds(client)
    sent_account_mail().clear()
    squatted = client.post("/accounts/password/reset/", {"email": OWNER})
    unknown = client.post("/accounts/password/reset/", {"email": "nobody@example.com"})
    # The page tells a stranger nothing: the same answer as for an address nobody has.
    assert squatted.status_code == unknown.status_code == 302
    assert squatted["Location"] == unknown["Location"]
    to_owner, to_nobody = sent_account_mail()
    assert to_owner.to == [OWNER]
    assert "/accounts/password/reset/key/" not in to_owner.body
    assert to_owner.subject == to_nobody.subject == "[FiveX] No account has confirmed this address"
    assert "/accounts/signup/" in to_owner.body


@pytest.mark.django_db
def test_a_reset_for_an_unconfirmed_account_address_mails_no_link(client) -> None:
    """The account whose address it is gets no link either while it is unconfirmed: a
    squatter's own account address (signed up with somebody else's) would be reset by the
    address's owner."""
    assert sign_up(client, email=OWNER, username="sam").status_code == 302
    client.logout()
    sent_account_mail().clear()
    client.post("/accounts/password/reset/", {"email": OWNER})
    (message,) = sent_account_mail()
    assert "/accounts/password/reset/key/" not in message.body


@pytest.mark.django_db
def test_a_reset_for_a_confirmed_address_links_its_account_only(client) -> None:
    olga = verified_user("olga", OWNER)
    squatter_adds(client)  # after olga confirmed it: allauth lets it be added, never confirmed
    sent_account_mail().clear()
    client.post("/accounts/password/reset/", {"email": OWNER.upper()})
    (message,) = sent_account_mail()
    assert message.to == [OWNER.upper()] or message.to == [OWNER]
    path = last_link(RESET, to=message.to[0])
    form = client.get(path, follow=True)
    done = client.post(form.redirect_chain[-1][0], {
        "password1": "new-horse-battery-8", "password2": "new-horse-battery-8"})  # fmt: skip
    assert done.status_code == 302
    olga.refresh_from_db()
    assert olga.check_password("new-horse-battery-8")
    assert get_user_model().objects.get(username="sam").check_password(PASSWORD)


@pytest.mark.django_db
def test_a_confirmed_address_still_refuses_a_second_sign_up(client) -> None:
    verified_user("olga", OWNER)
    response = sign_up(client, email=OWNER.upper(), username="sam")
    assert response.status_code == 200
    assert "A user is already registered with this email address." in response.content.decode()
    assert not get_user_model().objects.filter(username="sam").exists()


@pytest.mark.django_db
def test_a_confirmed_address_with_mandatory_verification_is_answered_as_before(
    client, settings
) -> None:
    settings.ACCOUNT_EMAIL_VERIFICATION = "mandatory"
    verified_user("olga", OWNER)
    response = sign_up(client, email=OWNER, username="sam")
    assert response.status_code == 302 and response["Location"] == "/accounts/confirm-email/"
    assert not get_user_model().objects.filter(username="sam").exists()
    (message,) = sent_account_mail()
    assert message.subject == "[FiveX] An account already exists for this address"


@pytest.mark.django_db
def test_adding_and_confirming_a_free_address_still_works(client) -> None:
    assert sign_up(client, email="ada@example.com", username="ada").status_code == 302
    confirm(client, to="ada@example.com")
    added = client.post("/accounts/email/", {"email": "ada@work.example", "action_add": ""})
    assert added.status_code == 302
    confirm(client, to="ada@work.example")
    ada = get_user_model().objects.get(username="ada")
    assert set(EmailAddress.objects.filter(user=ada, verified=True).values_list("email", flat=True)) == {
        "ada@example.com", "ada@work.example"}  # fmt: skip
    ada.refresh_from_db()
    assert ada.email == "ada@example.com"

