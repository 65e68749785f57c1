"""tests/db_snapshot.py: a build's rows taken once (the build rolled back) and put back
as they were before each test that wants them."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import override_settings

from games.models import Game, LogEntry, OutboxMessage, Seat
from tests.db_snapshot import DatabaseSnapshot
from tests.mail.conftest import ORDERS_SETTINGS, make_table

pytestmark = pytest.mark.django_db


def _state() -> dict[str, list]:
    return {
        "games": list(Game.objects.values_list("pk", "public_id", "name", "created_at", "status")),
        "seats": list(Seat.objects.order_by("pk").values_list("pk", "name", "mail_token", "user__username")),
        "log": list(LogEntry.objects.order_by("pk").values_list("pk", "seq", "kind", "hash", "created_at")),
        "outbox": list(OutboxMessage.objects.order_by("pk").values_list("pk", "to", "headers", "created_at")),
    }


def test_a_snapshot_leaves_nothing_behind_and_puts_back_the_same_rows() -> None:
    built = {}

    def build() -> int:
        table = make_table()
        built.update(_state())
        return table.game.pk

    with override_settings(**ORDERS_SETTINGS):
        snapshot, game_pk = DatabaseSnapshot.take(build)
    assert built["games"] and built["seats"] and built["log"] and built["outbox"]
    assert not Game.objects.exists() and not Seat.objects.exists()  # rolled back

    snapshot.restore()
    # The same rows: primary keys, tokens, hashes and timestamps as written (not "now").
    assert _state() == built
    assert Game.objects.get(pk=game_pk).status == "active"
    # New rows take ids after the snapshot's.
    late = OutboxMessage.objects.create(to="dan@example.com", subject="s", body="b")
    assert late.pk > max(row[0] for row in built["outbox"])


def test_a_snapshot_is_put_back_only_into_empty_tables() -> None:
    snapshot, _pk = DatabaseSnapshot.take(lambda: make_table().game.pk)
    make_table(name="Left behind")
    with pytest.raises(AssertionError, match="rows left over"):
        snapshot.restore()


def test_a_build_may_not_change_the_rows_that_were_there_before() -> None:
    def build() -> None:
        Permission.objects.filter(codename="add_game").update(name="changed")

    with pytest.raises(AssertionError, match="auth_permission"):
        DatabaseSnapshot.take(build)
