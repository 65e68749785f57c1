"""Token authentication with one hand-written statement (token and user together):
every API call pays for it, and the ORM's query building cost more than the query. The
key is looked up by its SHA-256 (``games.ApiToken`` keeps nothing else of it)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from games.models import ApiToken as Token
from games.services.tokens import api_token_digest
from games.sql import instance


class FastTokenAuthentication(TokenAuthentication):
    """DRF's ``TokenAuthentication`` (same header, same answers) reading the token and
    its user in one SQL statement."""

    model = Token

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        user_model = get_user_model()
        token_columns = tuple(f.attname for f in Token._meta.concrete_fields)
        user_columns = tuple(f.attname for f in user_model._meta.concrete_fields)
        columns = ", ".join(
            [f"t.{c}" for c in token_columns] + [f"u.{c}" for c in user_columns]
        )  # fmt: skip
        sql = (
            f"SELECT {columns} FROM {Token._meta.db_table} t"
            f" JOIN {user_model._meta.db_table} u ON u.{user_model._meta.pk.column} = t.user_id"
            " WHERE t.digest = %s"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [api_token_digest(key)])
            row = cursor.fetchone()
        if row is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        token = instance(Token, token_columns, row[: len(token_columns)])
        user = instance(user_model, user_columns, row[len(token_columns) :])
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        token.user = user
        return user, token
