"""The test suite's flush after a transactional test (tests/conftest.py) leaves every table
empty, as Django's TRUNCATE did, whatever the tables the test wrote (and foreign keys
between them)."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection


@pytest.mark.django_db(transaction=True)
def test_the_flush_empties_every_table_a_test_wrote() -> None:
    from django.contrib.auth.models import Permission

    from tests.games.core_support import make_game

    game, _seats = make_game(["ann", "bob", "cat"])  # users, a game, seats, prompts, log
    assert game.prompts.exists()
    call_command("flush", verbosity=0, interactive=False)
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
