"""The API's token authentication (one SQL statement for the token and its user) gives
DRF's TokenAuthentication answers: the right user, refusals with DRF's messages."""

from __future__ import annotations

from datetime import datetime

import pytest
from rest_framework.test import APIClient

from games.api.authentication import FastTokenAuthentication
from games.models import ApiToken
from games.services.tokens import api_token_create, api_token_digest, api_token_revoke
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
    key = api_token_create(user=bob)
    api_token_create(user=ann)
    user, token = FastTokenAuthentication().authenticate_credentials(key)
    assert user.pk == bob.pk and user.username == "bob" and user.email == "bob@example.com"
    assert user.is_staff is True and user.is_active is True and user.is_superuser is False
    assert isinstance(user.date_joined, datetime) and user.date_joined.tzinfo is not None
    assert user.date_joined == type(bob).objects.get(pk=bob.pk).date_joined
    assert token.user is user and key.startswith(token.prefix)
    assert client_with(key).get("/api/games/").status_code == 200


def test_unknown_revoked_and_inactive_tokens_are_refused() -> None:
    (ann,) = make_users(["ann"])
    answer = client_with("0" * 40).get("/api/games/")
    assert answer.status_code == 401 and answer.json()["message"] == "Invalid token."
    key = api_token_create(user=ann)
    assert client_with(key).get("/api/games/").status_code == 200
    assert api_token_revoke(user=ann)  # revoked: refused at once
    assert client_with(key).get("/api/games/").status_code == 401
    key = api_token_create(user=ann)
    ann.is_active = False
    ann.save()
    answer = client_with(key).get("/api/games/")
    assert answer.status_code == 401 and answer.json()["message"] == "User inactive or deleted."


def test_only_the_tokens_hash_is_stored_and_a_new_token_replaces_the_old() -> None:
    import hashlib

    (ann,) = make_users(["ann"])
    key = api_token_create(user=ann)
    row = ApiToken.objects.get(user=ann)
    assert row.digest == hashlib.sha256(key.encode()).hexdigest() == api_token_digest(key)
    assert key not in {str(v) for v in ApiToken.objects.values_list().get()}
    assert len(key) == 40 and row.prefix == key[:8]
    newer = api_token_create(user=ann)
    assert client_with(key).get("/api/games/").status_code == 401
    assert client_with(newer).get("/api/games/").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_the_migration_carries_clear_tokens_over_as_hashes_and_deletes_them() -> None:
    """Tokens DRF's authtoken app kept in clear keep working after the upgrade, and the
    clear keys are gone from its table."""
    import importlib

    from django.apps import apps
    from django.db import connection

    (ann,) = make_users(["ann"])
    key = "0123456789abcdef0123456789abcdef01234567"
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, "
                       "created timestamp with time zone NOT NULL, user_id integer NOT NULL)")  # fmt: skip
        cursor.execute("INSERT INTO authtoken_token VALUES (%s, %s, %s)",
                       [key, "2026-01-02T03:04:05+00:00", ann.pk])  # fmt: skip
    try:
        migration = importlib.import_module("games.migrations.0009_api_token_hashed")
        with connection.schema_editor() as editor:
            migration.carry_over(apps, editor)
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM authtoken_token")
            assert cursor.fetchone()[0] == 0
        token = ApiToken.objects.get(user=ann)
        assert token.prefix == "01234567" and token.created.year == 2026
        assert client_with(key).get("/api/games/").status_code == 200
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE authtoken_token")


@pytest.mark.parametrize("header", ["Bearer abc123", "Basic YTpi", "bearer", "abc123"])
def test_another_authorization_scheme_is_told_the_one_the_api_takes(header) -> None:
    # Regression (API fuzzing): `Authorization: Bearer <key>` (what most APIs take) was told
    # "Authentication credentials were not provided", as if the header were missing.
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    answer = client.get("/api/games/")
    assert answer.status_code == 401 and answer["WWW-Authenticate"] == "Token"
    body = answer.json()
    assert body["error"] == "not_authenticated"
    assert body["message"] == (
        "The Authorization header holds no token as this API takes it: send "
        "'Authorization: Token <key>', with a key from /account/api-tokens/."
    )
    # Without the header, the usual words.
    assert APIClient().get("/api/games/").json()["message"] == (
        "Authentication credentials were not provided."
    )
