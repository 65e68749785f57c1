"""Migration operations the apps' migrations share. Migrations import from here, so what is
here stays as it is: a change would change what old migrations do."""

from __future__ import annotations

from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations


class AddIndexConcurrentlyOnPostgres(AddIndexConcurrently):
    """CREATE INDEX CONCURRENTLY on PostgreSQL: a big table keeps taking writes while the
    index builds (a plain CREATE INDEX blocks every write to it); a plain index on other
    databases. The migration using it needs ``atomic = False`` (CONCURRENTLY cannot run
    inside a transaction). If a concurrent build fails, PostgreSQL leaves an INVALID index
    behind: drop it (DROP INDEX CONCURRENTLY <name>) and migrate again."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):  # noqa: ANN001, ANN201
        if schema_editor.connection.vendor == "postgresql":
            return super().database_forwards(app_label, schema_editor, from_state, to_state)
        return migrations.AddIndex.database_forwards(self, app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):  # noqa: ANN001, ANN201
        if schema_editor.connection.vendor == "postgresql":
            return super().database_backwards(app_label, schema_editor, from_state, to_state)
        return migrations.AddIndex.database_backwards(self, app_label, schema_editor, from_state, to_state)
