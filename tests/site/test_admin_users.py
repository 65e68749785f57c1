"""Accounts edited in the admin keep the site's rules (a staff-support audit: the stock
user form took a player name that differed from another only by case, or held "@" or
letters of two alphabets, and an address changed there left the old one the account's
verified address, which the mail gateway's sender check and login by email still took)."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model

from games.mail.decisions import sender_matches

pytestmark = pytest.mark.django_db


def _user(name: str, email: str | None = None):  # noqa: ANN202
    email = email or f"{name.lower()}@example.com"
    user = get_user_model().objects.create_user(username=name, email=email, password="pw-x-123456")
    EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
    return user


def _change(admin_client, user, **changes):  # noqa: ANN001, ANN202
    data = {
        "username": user.username, "email": user.email, "first_name": "", "last_name": "",
        "is_active": "on", "date_joined_0": "2025-01-01", "date_joined_1": "00:00:00",
        **changes,
    }  # fmt: skip
    return admin_client.post(f"/admin/auth/user/{user.pk}/change/", data)


def _errors(answer) -> str:  # noqa: ANN001
    assert answer.status_code == 200, answer.status_code  # the form again, not a redirect
    return str(answer.context["adminform"].form.errors)


def test_a_player_name_set_in_the_admin_keeps_the_sites_rules(admin_client):
    _user("bob")
    cat = _user("cat")
    for bad, said in (("Bob", "taken"), ("cat@home", "cannot contain"), ("\u0430lice", "alphabet"),
                      ("c", "at least")):  # fmt: skip
        assert said in _errors(_change(admin_client, cat, username=bad)), bad
        cat.refresh_from_db()
        assert cat.username == "cat"
    assert _change(admin_client, cat, username="Cat").status_code == 302  # its own name's case
    cat.refresh_from_db()
    assert cat.username == "Cat"
    # A new account too (Django's own add form refused "Bob" already, but took "@").
    answer = admin_client.post("/admin/auth/user/add/", {
        "username": "dan@home", "password1": "pw-dan-98765x", "password2": "pw-dan-98765x",
        "usable_password": "true",
    })  # fmt: skip
    assert "cannot contain" in _errors(answer)
    assert not get_user_model().objects.filter(username="dan@home").exists()


def test_an_address_changed_in_the_admin_becomes_the_accounts_address(admin_client):
    ann = _user("ann")
    _user("bob")
    # An address another account has is refused (sign-up keeps one account an address).
    for taken in ("bob@example.com", "BOB@example.com"):
        assert "already" in _errors(_change(admin_client, ann, email=taken)), taken
    assert _change(admin_client, ann, email="ann@new.example").status_code == 302
    ann.refresh_from_db()
    assert ann.email == "ann@new.example"
    [address] = EmailAddress.objects.filter(user=ann)
    assert (address.email, address.primary) == ("ann@new.example", True)
    assert address.verified is False  # staff typed it: the player confirms it
    seat_like = type("SeatLike", (), {"user": ann})()
    assert not sender_matches(seat=seat_like, sender="ann@example.com")
    assert sender_matches(seat=seat_like, sender="ann@new.example")
    # Back to an address the account had verified as a second one: it stays verified.
    EmailAddress.objects.create(user=ann, email="ann@work.example", verified=True)
    assert _change(admin_client, ann, email="ann@work.example").status_code == 302
    rows = {a.email: (a.primary, a.verified) for a in EmailAddress.objects.filter(user=ann)}
    assert rows == {"ann@work.example": (True, True)}


def test_an_account_with_a_name_from_before_the_rules_can_still_be_deactivated(admin_client):
    """A code review: every save checked the name, so an account named before these
    rules (or by createsuperuser, which takes "@") could not even be deactivated."""
    old = _user("old@name", email="old@example.com")
    data = {"is_active": ""}  # unticked
    answer = _change(admin_client, old, **data)
    assert answer.status_code == 302, _errors(answer)
    old.refresh_from_db()
    assert old.is_active is False and old.username == "old@name"



def test_an_account_deactivated_in_the_admin_is_sent_nothing_already_queued(admin_client):
    """A code review: emails queued before the deactivation still went out."""
    from games.models import OutboxMessage
    from games.services.outbox import outbox_enqueue

    ann = _user("ann")
    queued = outbox_enqueue(to=ann.email, subject="Your order", body="b", kind="test")
    other = outbox_enqueue(to="bob@example.com", subject="Your order", body="b", kind="test")
    answer = _change(admin_client, ann, is_active="")
    assert answer.status_code == 302, _errors(answer)
    queued.refresh_from_db()
    other.refresh_from_db()
    assert (queued.status, queued.last_error) == (OutboxMessage.Status.FAILED, "account deactivated")
    assert other.status == OutboxMessage.Status.QUEUED
    # The address changed in the same save: the emails to the old one are dropped too.
    bea = _user("bea")
    old = outbox_enqueue(to=bea.email, subject="Your order", body="b", kind="test")
    answer = _change(admin_client, bea, is_active="", email="bea.new@example.com")
    assert answer.status_code == 302, _errors(answer)
    old.refresh_from_db()
    assert (old.status, old.last_error) == (OutboxMessage.Status.FAILED, "account deactivated")
