"""Migrations: they match the models, and the outbox index builds without blocking
writes on PostgreSQL."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import CaptureQueriesContext

INDEX = "games_outbox_status_created"
BEFORE = ("games", "0010_player_email_default")
AFTER = ("games", "0011_outbox_status_created")


@pytest.mark.django_db
def test_the_models_need_no_new_migration() -> None:
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)  # exits 1 otherwise


def _index_state() -> tuple[bool, bool] | None:
    """(exists, valid) of the outbox index, None when it is not there."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "WHERE c.relname = %s",
            [INDEX],
        )
        row = cursor.fetchone()
    return None if row is None else (True, bool(row[0]))


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_outbox_index_is_built_concurrently_on_postgresql() -> None:
    """A plain CREATE INDEX on a big outbox blocks every email written while it builds."""
    executor = MigrationExecutor(connection)
    try:
        executor.migrate([BEFORE])
        assert _index_state() is None
        executor = MigrationExecutor(connection)
        with CaptureQueriesContext(connection) as ctx:
            executor.migrate([AFTER])
        built = [q["sql"] for q in ctx.captured_queries if INDEX in q["sql"]]
        assert built and all("CONCURRENTLY" in sql for sql in built), built
        assert _index_state() == (True, True)
    finally:
        MigrationExecutor(connection).migrate(
            MigrationExecutor(connection).loader.graph.leaf_nodes()
        )
    assert _index_state() == (True, True)


@pytest.mark.django_db(transaction=True)
def test_account_emails_sent_before_keep_no_link() -> None:
    """Code review: account emails sent before their texts were dropped on sending (the
    ones a mail server had refused first) kept their one-time links in the outbox."""
    before, after = ("games", "0015_fk_indexes_covered"), ("games", "0016_drop_sent_account_email_text")
    executor = MigrationExecutor(connection)
    try:
        executor.migrate([before])
        old = executor.loader.project_state([before]).apps.get_model("games", "OutboxMessage")
        link = "https://fivex.example.org/accounts/password/reset/key/abc-def/"
        sent = old.objects.create(to="a@example.test", subject="s", body=link, kind="account", status="sent")
        waiting = old.objects.create(to="b@example.test", subject="s", body=link, kind="account", status="queued")
        game = old.objects.create(to="c@example.test", subject="s", body="Your hand", kind="game", status="sent")
        executor = MigrationExecutor(connection)
        executor.migrate([after])
        new = executor.loader.project_state([after]).apps.get_model("games", "OutboxMessage")
        assert "reset/key" not in new.objects.get(pk=sent.pk).body
        assert new.objects.get(pk=waiting.pk).body == link  # still to be sent
        assert new.objects.get(pk=game.pk).body == "Your hand"
    finally:
        MigrationExecutor(connection).migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
