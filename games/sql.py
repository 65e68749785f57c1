"""Column values read by hand-written SQL, made what the ORM would give: SQLite hands
back JSON and datetimes as text, psycopg hands back JSON as text (Django loads it)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from django.utils import timezone
from django.utils.dateparse import parse_datetime


def db_json(value: Any) -> Any:
    """A JSON column's value."""
    return json.loads(value) if isinstance(value, str | bytes) else value


def db_datetime(value: Any) -> datetime | None:
    """A datetime column's value, aware (UTC)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = parse_datetime(value)
    if value is not None and timezone.is_naive(value):
        value = timezone.make_aware(value, UTC)
    return value


def field_order(model: type, names: set[str]) -> tuple[str, ...]:
    """Column names (attnames) in the model's field order, the order ``instance`` and
    ``Model.from_db`` expect."""
    return tuple(f.attname for f in model._meta.concrete_fields if f.attname in names)


def instance(model: type, names: tuple[str, ...], values: Any) -> Any:
    """A model instance from a hand-written SELECT of ``names`` (in ``field_order``):
    values converted as the ORM would (JSON, datetimes, booleans), the other fields
    deferred (they load on access)."""
    from django.db import connection, models

    fields = {f.attname: f for f in model._meta.concrete_fields}
    out = []
    for name, value in zip(names, values, strict=True):
        field = fields[name]
        if value is not None:
            if isinstance(field, models.JSONField):
                value = db_json(value)
            elif isinstance(field, models.DateTimeField):
                value = db_datetime(value)
            elif isinstance(field, models.BooleanField):
                value = bool(value)
        out.append(value)
    return model.from_db(connection.alias, names, out)
