"""The API's token authentication (one SQL statement for the token and its user) gives
DRF's TokenAuthentication answers: the right user, refusals with DRF's messages."""

from __future__ import annotations

from datetime import datetime

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games.api.authentication import FastTokenAuthentication
from tests.games.core_support import make_users

pytestmark = [pytest.mark.django_db]


def client_with(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_token_reads_the_right_user_with_orm_values() -> None:
    ann, bob = make_users(["ann", "bob"])
    bob.is_staff = True
    bob.save()
    key = Token.objects.create(user=bob).key
    Token.objects.create(user=ann)
    user, token = FastTokenAuthentication().authenticate_credentials(key)
    assert user.pk == bob.pk and user.username == "bob" and user.email == "bob@example.com"
    assert user.is_staff is True and user.is_active is True and user.is_superuser is False
    assert isinstance(user.date_joined, datetime) and user.date_joined.tzinfo is not None
    assert user.date_joined == type(bob).objects.get(pk=bob.pk).date_joined
    assert token.key == key and token.user is user
    assert client_with(key).get("/api/games/").status_code == 200


def test_unknown_revoked_and_inactive_tokens_are_refused() -> None:
    (ann,) = make_users(["ann"])
    answer = client_with("0" * 40).get("/api/games/")
    assert answer.status_code == 401 and answer.json()["message"] == "Invalid token."
    token = Token.objects.create(user=ann)
    assert client_with(token.key).get("/api/games/").status_code == 200
    token.delete()  # revoked: refused at once
    assert client_with(token.key).get("/api/games/").status_code == 401
    token = Token.objects.create(user=ann)
    ann.is_active = False
    ann.save()
    answer = client_with(token.key).get("/api/games/")
    assert answer.status_code == 401 and answer.json()["message"] == "User inactive or deleted."
