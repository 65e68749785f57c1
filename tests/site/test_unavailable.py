"""From a failure-mode audit: while PostgreSQL restarted, every request answered a bug's
500 (and logged a traceback each). The database away is a 503 with Retry-After: try again,
an order sent again is never doubled."""

from __future__ import annotations

import pytest
from django.db import OperationalError
from django.test import Client

from tests.games.core_support import start_fixed
from tests.games.web_support import token_client

pytestmark = pytest.mark.django_db


def _database_gone(*args, **kwargs):
    raise OperationalError("connection to server at 127.0.0.1, port 5432 failed: Connection refused")


def test_the_api_answers_503_with_retry_after(monkeypatch) -> None:
    game, seats = start_fixed(["ann", "bob", "cat"])
    client = token_client(seats["ann"].user)
    monkeypatch.setattr("games.api.game_views.selectors_hot.seat_view_for_user", _database_gone)
    answer = client.get(f"/api/games/{game.pk}/")
    assert answer.status_code == 503
    assert answer["Retry-After"] == "30"
    assert answer.json()["error"] == "unavailable"
    assert "never doubled" in answer.json()["message"]


def test_a_page_answers_503_with_retry_after(monkeypatch) -> None:
    game, seats = start_fixed(["ann", "bob", "cat"])
    client = Client(raise_request_exception=False)
    client.force_login(seats["ann"].user)
    monkeypatch.setattr("games.views.pages.detail_context", _database_gone)
    answer = client.get(f"/games/{game.pk}/")
    assert answer.status_code == 503
    assert answer["Retry-After"] == "30"
    assert "FiveX is briefly unavailable" in answer.content.decode()


def test_a_bug_is_still_a_500(monkeypatch) -> None:
    game, seats = start_fixed(["ann", "bob", "cat"])
    client = Client(raise_request_exception=False)
    client.force_login(seats["ann"].user)

    def bug(*args, **kwargs):
        raise KeyError("oops")

    monkeypatch.setattr("games.views.pages.detail_context", bug)
    answer = client.get(f"/games/{game.pk}/")
    assert answer.status_code == 500 and "Retry-After" not in answer


def test_only_a_database_that_is_away_is_a_503() -> None:
    """From a review: every OperationalError was a 503, so a release that skipped
    ``migrate`` ('no such table') answered 'try again' for ever, without a traceback."""
    import psycopg
    from django.db import InterfaceError

    from fivex_site.views import database_away

    def wrapped(text: str, cause: BaseException | None = None) -> OperationalError:
        try:
            raise OperationalError(text) from cause
        except OperationalError as exc:
            return exc

    assert database_away(wrapped("terminating connection", psycopg.errors.lookup("57P01")()))
    assert database_away(wrapped("too many clients", psycopg.errors.lookup("53300")()))
    assert database_away(wrapped("connection failure", psycopg.errors.lookup("08006")()))
    assert database_away(wrapped("connection to server at 127.0.0.1, port 5432 failed"))
    assert database_away(wrapped("database is locked"))
    assert database_away(InterfaceError("connection already closed"))
    assert not database_away(wrapped("deadlock detected", psycopg.errors.lookup("40P01")()))
    assert not database_away(wrapped("canceling statement", psycopg.errors.lookup("57014")()))
    assert not database_away(wrapped("no such table: games_apitoken"))
    assert not database_away(KeyError("x"))


def test_a_missing_table_is_a_500_not_a_retry(monkeypatch) -> None:
    game, seats = start_fixed(["ann", "bob", "cat"])
    client = token_client(seats["ann"].user)

    def no_table(*args, **kwargs):
        raise OperationalError("no such table: games_prompt")

    monkeypatch.setattr("games.api.game_views.selectors_hot.seat_view_for_user", no_table)
    answer = client.get(f"/api/games/{game.pk}/")
    assert answer.status_code == 500 and "Retry-After" not in answer
