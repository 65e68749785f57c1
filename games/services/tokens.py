"""Personal API tokens: made (shown once), revoked, and revoked when the password changes
(a password reset after a takeover must lock the other side out of the API too)."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.db import transaction

from games.models import ApiToken


def api_token_digest(key: str) -> str:
    """What is stored of a key, and looked up when a request carries one."""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def api_token_create(*, user: Any) -> str:
    """A new token for ``user`` (its old one stops working); returns the key, which is
    not stored and cannot be shown again."""
    key = secrets.token_hex(20)
    with transaction.atomic():
        ApiToken.objects.filter(user=user).delete()
        ApiToken.objects.create(user=user, digest=api_token_digest(key), prefix=key[:8])
    return key


def api_token_revoke(*, user: Any) -> bool:
    """Delete ``user``'s token; False when it had none."""
    deleted, _ = ApiToken.objects.filter(user=user).delete()
    return bool(deleted)
