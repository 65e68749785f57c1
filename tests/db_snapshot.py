"""Build a test's starting rows once, put them back before each test that wants them.

Building a game through the services (users, the game, its seats, the emails, the log,
a resolved round) costs ~0.5 s a test; inserting the same rows again costs a few
milliseconds. ``DatabaseSnapshot.take(build)`` runs ``build()`` inside a transaction
that is rolled back (nothing is left in the database, and no ``on_commit`` hook runs)
and keeps the rows it wrote, table by table; ``restore()`` inserts them again, as they
were (same primary keys, same timestamps: ``raw`` inserts, as ``loaddata`` does), in
a transaction of its own (committed at once in a ``transaction=True`` test, so that
another thread's connection, the SMTP gateway's, sees them).

Each test still starts from the same state and ends as before: a transactional test's
flush deletes the rows, an ordinary test's transaction is rolled back. ``restore()``
first checks that none of the snapshot's tables has a row (something a test left
behind would otherwise mix with the snapshot's rows).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.core.management.color import no_style
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.models import Model, sql


def _models() -> list[type[Model]]:
    """Every model with a table of its own (many-to-many tables included)."""
    return [
        m for m in apps.get_models(include_auto_created=True)
        if m._meta.managed and not m._meta.proxy
    ]  # fmt: skip


def _columns(model: type[Model]) -> list[str]:
    return [f.attname for f in model._meta.local_concrete_fields]


def _with_rows(models: list[type[Model]], using: str) -> set[type[Model]]:
    """The models whose table has a row (one query)."""
    connection = connections[using]
    quote = connection.ops.quote_name
    tables = [m._meta.db_table for m in models]
    with connection.cursor() as cursor:
        cursor.execute(
            " UNION ALL ".join(f"SELECT %s WHERE EXISTS (SELECT 1 FROM {quote(t)})" for t in tables),
            tables,
        )
        found = {row[0] for row in cursor.fetchall()}
    return {m for m in models if m._meta.db_table in found}


def _rows(model: type[Model], using: str) -> list[tuple]:
    return list(
        model._base_manager.using(using).order_by("pk").values_list(*_columns(model))
    )


@dataclass(frozen=True)
class DatabaseSnapshot:
    rows: dict[type[Model], list[tuple]]
    using: str = DEFAULT_DB_ALIAS

    @classmethod
    def take(cls, build: Callable[[], Any], using: str = DEFAULT_DB_ALIAS) -> tuple[DatabaseSnapshot, Any]:
        """Run ``build()`` in a transaction rolled back afterwards; the rows it added
        and what it returned. A table that had rows before (what ``post_migrate`` writes:
        content types, permissions) must come out unchanged: the snapshot holds only
        the tables the build filled."""
        models = _models()
        with transaction.atomic(using=using):
            before = {m: _rows(m, using) for m in _with_rows(models, using)}
            result = build()
            after = {m: _rows(m, using) for m in _with_rows(models, using)}
            transaction.set_rollback(True, using=using)
        changed = [m._meta.db_table for m in before if before[m] != after.get(m)]
        if changed:
            raise AssertionError(f"the build changed tables that had rows before: {changed}")
        order = {m: i for i, m in enumerate(models)}
        rows = {m: after[m] for m in sorted(after, key=order.__getitem__) if m not in before}
        return cls(rows, using), result

    @functools.cached_property
    def _statements(self) -> list[tuple[str, tuple]]:
        """The INSERTs of the snapshot's rows (raw: the values as they are, no
        ``auto_now``) and the sequence resets after them, compiled once."""
        connection = connections[self.using]
        statements: list[tuple[str, tuple]] = []
        for model, rows in self.rows.items():
            columns = _columns(model)
            fields = list(model._meta.local_concrete_fields)
            objs = [model(**dict(zip(columns, row, strict=True))) for row in rows]
            size = max(1, connection.ops.bulk_batch_size(fields, objs))
            for start in range(0, len(objs), size):
                query = sql.InsertQuery(model)
                query.insert_values(fields, objs[start : start + size], raw=True)
                statements += [(s, tuple(p)) for s, p in query.get_compiler(using=self.using).as_sql()]
        resets = connection.ops.sequence_reset_sql(no_style(), list(self.rows))
        return statements + [(reset, ()) for reset in resets]

    def restore(self) -> None:
        """Insert the snapshot's rows (into tables that must be empty), then move the
        tables' id sequences past them."""
        connection = connections[self.using]
        statements = self._statements
        with transaction.atomic(using=self.using):
            not_empty = _with_rows(list(self.rows), self.using)
            if not_empty:
                tables = sorted(m._meta.db_table for m in not_empty)
                raise AssertionError(f"rows left over from elsewhere in {tables}")
            with connection.cursor() as cursor:
                if connection.vendor == "postgresql":  # all of them in one round trip
                    cursor.execute(
                        ";\n".join(s.rstrip(";") for s, _p in statements),
                        [param for _s, params in statements for param in params],
                    )
                else:
                    for statement, params in statements:
                        cursor.execute(statement, params)
