"""Column values read by hand-written SQL, made what the ORM would give: SQLite hands
back JSON and datetimes as text, psycopg hands back JSON as text (Django loads it)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from functools import lru_cache
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
    from django.db import connection

    out = [
        value if value is None or convert is None else convert(value)
        for convert, value in zip(_converters(model, tuple(names)), values, strict=True)
    ]
    return model.from_db(connection.alias, names, out)


@lru_cache(maxsize=256)
def _converters(model: type, names: tuple[str, ...]) -> tuple[Any, ...]:
    """Per column of ``names``, what ``instance`` applies to a value that is not None
    (None: taken as it is). Worked out once per process for each (model, columns): the
    hot reads build a few instances per request."""
    from django.db import models

    fields = {f.attname: f for f in model._meta.concrete_fields}
    out: list[Any] = []
    for name in names:
        field = fields[name]
        if isinstance(field, models.JSONField):
            out.append(db_json)
        elif isinstance(field, models.DateTimeField):
            out.append(db_datetime)
        elif isinstance(field, models.BooleanField):
            out.append(bool)
        else:
            out.append(None)
    return tuple(out)


def _columns(model: type, names: tuple[str, ...]) -> list[Any]:
    fields = {f.attname: f for f in model._meta.concrete_fields}
    return [fields[name] for name in names]


@lru_cache(maxsize=64)
def _insert_sql(model: type, names: tuple[str, ...], returning: bool) -> tuple[str, list[Any]]:
    from django.db import connection

    fields = _columns(model, names)
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    sql = (
        f"INSERT INTO {model._meta.db_table} ({columns})"
        f" VALUES ({', '.join(['%s'] * len(fields))})"
    )
    if returning:
        sql += f" RETURNING {model._meta.pk.column}"
    return sql, fields


def insert_row(model: type, values: dict[str, Any]) -> int:
    """INSERT one row by hand (``values`` by attname, converted for the database as the
    ORM saves them) and return its primary key: what ``Model.objects.create`` writes,
    without the query building (the hot paths write a few rows each)."""
    from django.db import connection

    returning = connection.features.can_return_columns_from_insert
    sql, fields = _insert_sql(model, tuple(values), returning)
    params = [f.get_db_prep_save(v, connection) for f, v in zip(fields, values.values(), strict=True)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0] if returning else cursor.lastrowid


@lru_cache(maxsize=64)
def _update_sql(model: type, names: tuple[str, ...]) -> tuple[str, list[Any]]:
    from django.db import connection

    fields = _columns(model, names)
    assignments = ", ".join(f"{connection.ops.quote_name(f.column)} = %s" for f in fields)
    return f"UPDATE {model._meta.db_table} SET {assignments} WHERE {model._meta.pk.column} = %s", fields


def update_row(model: type, pk: Any, values: dict[str, Any]) -> None:
    """UPDATE one row by primary key by hand (``values`` by attname, converted as the ORM
    saves them): ``Model.objects.filter(pk=pk).update(**values)`` without the query
    building."""
    from django.db import connection

    sql, fields = _update_sql(model, tuple(values))
    params = [f.get_db_prep_save(v, connection) for f, v in zip(fields, values.values(), strict=True)]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, pk])


def insert_values(obj: Any) -> dict[str, Any]:
    """The column values (by attname, primary key left out) ``obj.save(force_insert=True)``
    would write for a new instance: defaults and ``auto_now_add`` applied."""
    return {f.attname: f.pre_save(obj, True) for f in obj._meta.concrete_fields if not f.primary_key}


def insert_instance(obj: Any, overrides: dict[str, Any] | None = None) -> Any:
    """``obj.save(force_insert=True)`` for a new instance of a model without save hooks
    or signals that matter: the same row (defaults, ``auto_now_add``) from a hand-written
    INSERT (``insert_row``); ``overrides`` (by attname) win over them, ``auto_now_add``
    too, and are set on ``obj``. Returns ``obj``, its primary key set, as saved."""
    from django.db import connection

    values = insert_values(obj)
    for name, value in (overrides or {}).items():
        values[name] = value
        setattr(obj, name, value)
    obj.pk = insert_row(type(obj), values)
    obj._state.adding, obj._state.db = False, connection.alias
    return obj


def insert_order_and_log(
    order_model: type,
    order_values: dict[str, Any],
    previous_pk: int | None,
    log_model: type,
    log_values: dict[str, Any],
) -> tuple[int, int]:
    """PostgreSQL: in one statement, mark ``previous_pk`` (the seat's current order, if
    any) replaced by the new order, insert the new order and insert its log entry; return
    ``(order pk, log entry pk)``. The same rows as ``update_row`` + ``insert_row`` +
    ``update_row`` + ``insert_row`` (one round trip instead of up to four).

    The new order's id is drawn first (``n``) so the previous order can point at it
    (the foreign key is checked at commit); reading ``r`` inside the new order's id makes
    PostgreSQL finish that UPDATE before the INSERT, so the one-current-order index never
    sees two current orders."""
    from django.db import connection

    sql, order_fields, log_fields = _order_and_log_sql(
        order_model, tuple(order_values), log_model, tuple(log_values)
    )
    params = [
        f.get_db_prep_save(v, connection)
        for fields, values in ((order_fields, order_values), (log_fields, log_values))
        for f, v in zip(fields, values.values(), strict=True)
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, [previous_pk, *params])
        log_pk, order_pk = cursor.fetchone()
    return order_pk, log_pk


@lru_cache(maxsize=8)
def _order_and_log_sql(
    order_model: type, order_names: tuple[str, ...], log_model: type, log_names: tuple[str, ...]
) -> tuple[str, list[Any], list[Any]]:
    from django.db import connection

    q = connection.ops.quote_name
    order_t, log_t = order_model._meta.db_table, log_model._meta.db_table
    order_fields, log_fields = _columns(order_model, order_names), _columns(log_model, log_names)
    pk = order_model._meta.pk.column
    sql = (
        f"WITH n AS (SELECT nextval(pg_get_serial_sequence('{order_t}', '{pk}')) AS id),"
        f" r AS (UPDATE {order_t} SET is_current = false, replaced_by_id = (SELECT id FROM n)"
        f" WHERE {pk} = %s RETURNING {pk}),"
        f" o AS (INSERT INTO {order_t} ({pk}, {', '.join(q(f.column) for f in order_fields)})"
        f" VALUES ((SELECT n.id FROM n, (SELECT count(*) FROM r) AS done),"
        f" {', '.join(['%s'] * len(order_fields))}) RETURNING {pk})"
        f" INSERT INTO {log_t} ({', '.join(q(f.column) for f in log_fields)})"
        f" VALUES ({', '.join(['%s'] * len(log_fields))})"
        f" RETURNING {log_model._meta.pk.column}, (SELECT {pk} FROM o)"
    )
    return sql, order_fields, log_fields
