"""The test suite's flush after a transactional test (tests/conftest.py) leaves every table
empty, as Django's TRUNCATE did, whatever the tables the test wrote (and foreign keys
between them)."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection


def flush() -> None:
    """The flush that ends a transactional test (``TransactionTestCase._fixture_teardown``:
    sequences not reset; ``call_command("flush")`` alone resets them, with TRUNCATE)."""
    call_command("flush", verbosity=0, interactive=False, reset_sequences=False)


@pytest.mark.django_db(transaction=True)
def test_the_flush_empties_every_table_a_test_wrote() -> None:
    from django.contrib.auth.models import Permission

    from tests.games.core_support import make_game

    game, _seats = make_game(["ann", "bob", "cat"])  # users, a game, seats, prompts, log
    assert game.prompts.exists()
    flush()
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    with connection.cursor() as cursor:
        left = {}
        for table in tables:
            cursor.execute(f"SELECT COUNT(*) FROM {connection.ops.quote_name(table)}")  # noqa: S608
            left[table] = cursor.fetchone()[0]
    # Content types and permissions are made again after a flush (post_migrate), as before.
    assert Permission.objects.filter(codename="add_registration").exists()
    remade = {"django_content_type", "auth_permission"}
    assert {t: n for t, n in left.items() if n and t not in remade} == {}


@pytest.mark.postgres  # the DELETE flush (tests/conftest.py) is PostgreSQL's
@pytest.mark.django_db(transaction=True)
def test_the_flush_keeps_content_types_and_permissions_unless_a_test_changed_them() -> None:
    """What ``post_migrate`` writes is deleted and written again only when a test changed
    it (~60 queries a flush otherwise); a permission a test removed, added or renamed is
    put right by the next flush all the same."""
    from django.contrib.auth.models import Permission
    from django.contrib.contenttypes.models import ContentType

    def rows() -> tuple[list, list]:
        return (
            list(ContentType.objects.order_by("pk").values_list("pk", "app_label", "model")),
            list(Permission.objects.order_by("pk").values_list("pk", "codename", "name", "content_type_id")),
        )

    flush()
    remade = rows()
    flush()
    assert rows() == remade  # the same rows, not made again (new ids)

    Permission.objects.filter(codename="add_registration").delete()
    flush()
    assert Permission.objects.filter(codename="add_registration").exists()

    Permission.objects.filter(codename="add_registration").update(name="renamed")
    Permission.objects.create(
        codename="left_behind", name="left behind", content_type=ContentType.objects.first()
    )
    flush()
    assert not Permission.objects.filter(codename="left_behind").exists()
    assert Permission.objects.get(codename="add_registration").name != "renamed"
    assert not ContentType.objects.filter(model="nothing_here").exists()
