"""A creation asked again answers what the first made (an API client's retry with its
``Idempotency-Key``, a form sent twice): games and tournaments keep the request's
``create_key`` and a ``create_fingerprint`` of what it asked for, unique per organizer."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from django.db.models import QuerySet

from games.errors import KeyReused


def request_fingerprint(asked: Any) -> str:
    """A digest of what a creation asks for (its parameters, as JSON with sorted keys)."""
    return hashlib.sha256(json.dumps(asked, sort_keys=True, default=str).encode()).hexdigest()


def created_before(
    rows: QuerySet, *, organizer: Any, create_key: str, fingerprint: str | None,
    reused: Callable[[Any], str],
) -> Any | None:
    """The row of ``rows`` that ``organizer`` created with ``create_key`` (``created``
    False on it), or None. Created with other parameters (another ``fingerprint``; None
    checks none): KeyReused, saying ``reused(row)``."""
    row = rows.filter(organizer=organizer, create_key=create_key).first()
    if row is None:
        return None
    if fingerprint is not None and row.create_fingerprint != fingerprint:
        raise KeyReused(reused(row))
    row.created = False
    return row
