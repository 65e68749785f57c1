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


@pytest.mark.django_db(transaction=True)
def test_seats_left_before_left_at_was_recorded_get_its_time(django_capture_on_commit_callbacks) -> None:
    """A seat resigned or handed over before ``left_at`` was recorded: the migration takes
    the time from the game's log (the resignation) or from the successor's seat (the
    handover, made in the same transaction)."""
    from django.contrib.auth import get_user_model

    from games.models import LogEntry, Seat
    from games.services import games as game_services
    from games.services.handover import seat_replace

    before, after = ("games", "0020_player_webhook"), ("games", "0021_seat_left_at_backfill")
    User = get_user_model()
    users = {n: User.objects.create_user(n, f"{n}@example.test", "pw") for n in ("ann", "bob", "cat", "dan", "eve", "org")}
    staff = User.objects.create_user("staff", "staff@example.test", "pw", is_staff=True)
    game = game_services.game_create(organizer=users["org"], ruleset="5x", seats_count=3, name="Old league")
    with django_capture_on_commit_callbacks(execute=True):
        for name in ("ann", "bob", "cat"):
            game_services.game_join(game=game, user=users[name])
    seat_of = {s.user.username: s for s in Seat.objects.filter(game=game).select_related("user")}
    with django_capture_on_commit_callbacks(execute=True):
        game_services.seat_resign(seat=seat_of["bob"])  # then handed over: left when it resigned
        seat_replace(seat=Seat.objects.get(pk=seat_of["bob"].pk), new_user=users["eve"], by=staff)
        seat_replace(seat=Seat.objects.get(pk=seat_of["ann"].pk), new_user=users["dan"], by=staff)
    executor = MigrationExecutor(connection)
    try:
        executor.migrate([before])
        # The tables as they were then: the models of that migration (today's Seat has
        # columns added since).
        old_seat = executor.loader.project_state([before]).apps.get_model("games", "Seat")
        old_seat.objects.update(left_at=None)  # as the rows were
        migrated = MigrationExecutor(connection)
        migrated.migrate([after])
        seat_then = migrated.loader.project_state([after]).apps.get_model("games", "Seat")
        rows = {s.user.username: s for s in seat_then.objects.filter(game_id=game.pk).select_related("user")}
        resigned_at = LogEntry.objects.get(game=game, kind="seat_resigned").created_at
        assert rows["bob"].left_at == resigned_at
        assert rows["ann"].left_at == rows["dan"].joined_at
        assert [rows[n].left_at for n in ("cat", "dan", "eve")] == [None, None, None]
    finally:
        MigrationExecutor(connection).migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_tables_of_games_nobody_played_recorded_before_are_marked_scoreless() -> None:
    """``Table.scoreless`` is set when a game nobody played is collected; the migration
    sets it on tables recorded before (the game nobody played, not the one a seat played,
    nor a table a forfeit was entered for by hand)."""
    from tests.tournaments.test_pairing_after_no_show import _cup
    from tournaments.models import Table

    before, after = ("tournaments", "0009_table_scoreless"), ("tournaments", "0010_table_scoreless_backfill")
    t, _organizer, _reg = _cup()
    Table.objects.update(scoreless=False)  # as the rows were
    executor = MigrationExecutor(connection)
    try:
        executor.migrate([before])
        MigrationExecutor(connection).migrate([after])
        got = dict(Table.objects.filter(round__tournament=t).values_list("number", "scoreless"))
        assert got == {1: True, 2: False}
    finally:
        MigrationExecutor(connection).migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
