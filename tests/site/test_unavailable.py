"""From a failure-mode audit: while PostgreSQL restarted, every request answered a bug's
500 (and logged a traceback each). The database away is a 503 with Retry-After: try again,
an order sent again is never doubled."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

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



@contextmanager
def _database_stopped() -> Iterator[None]:
    """PostgreSQL stops answering: the connection is closed and the next one is made to
    a port where nothing listens (a server restarting, as psycopg sees it)."""
    import socket

    from django.db import connection

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = str(sock.getsockname()[1])
    saved = connection.settings_dict["HOST"], connection.settings_dict["PORT"]
    connection.close()
    connection.settings_dict["HOST"], connection.settings_dict["PORT"] = "127.0.0.1", port
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict["HOST"], connection.settings_dict["PORT"] = saved


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", ["api", "page"])
def test_a_503_of_a_database_outage_is_logged_once_as_a_warning(kind, caplog, settings) -> None:
    """A resilience audit: each 503 of an outage was logged twice (the API's warning
    naming the database's error, then Django's ``django.request`` ERROR "Service
    Unavailable"); a page's was that ERROR with a whole traceback. Once: a warning with
    the path and the database's error, no traceback, no ERROR (so never mailed)."""
    settings.ADMINS = ["ops@example.org"]
    game, seats = start_fixed(["ann", "bob", "cat"])
    if kind == "api":
        client, path = token_client(seats["ann"].user), f"/api/games/{game.pk}/"
    else:
        client, path = Client(raise_request_exception=False), f"/games/{game.pk}/"
        client.force_login(seats["ann"].user)
    with _database_stopped(), caplog.at_level(logging.INFO):
        answer = client.get(path)
    assert answer.status_code == 503 and answer["Retry-After"] == "30"
    logged = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [(r.levelname, r.exc_info) for r in logged] == [("WARNING", None)], [
        (r.name, r.levelname, r.getMessage()) for r in logged
    ]
    message = logged[0].getMessage()
    assert path in message and "database unavailable" in message
    assert "Connection refused" in message  # the database's own words


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_outage_warning_masks_a_token_in_the_path(caplog) -> None:
    """A calendar feed's address is its key: the warning names the path, token masked
    (as Django's request lines are)."""
    token = "Zq3" * 12
    with _database_stopped(), caplog.at_level(logging.INFO):
        answer = Client(raise_request_exception=False).get(f"/calendar/{token}.ics")
    assert answer.status_code == 503
    assert token not in caplog.text
    assert "/calendar/********.ics" in caplog.text


def test_the_schema_declares_the_503_body_and_header_the_api_sends(monkeypatch) -> None:
    """An API audit (schemathesis): every operation's 503 was declared with no body, while
    the API sends the JSON Error with Retry-After; a generated client could not read it."""
    import jsonschema

    game, seats = start_fixed(["ann", "bob", "cat"])
    client = token_client(seats["ann"].user)
    schema = client.get("/api/schema/", {"format": "json"}).json()
    operations = [
        (route, method, op)
        for route, ops in schema["paths"].items()
        for method, op in ops.items()
        if isinstance(op, dict) and "responses" in op
    ]
    assert len(operations) > 30
    for route, method, op in operations:
        declared = op["responses"]["503"]
        assert declared["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/Error"
        }, (route, method)
        assert declared["headers"]["Retry-After"]["schema"]["type"] == "integer", (route, method)
    monkeypatch.setattr("games.api.game_views.selectors_hot.seat_view_for_user", _database_gone)
    answer = client.get(f"/api/games/{game.pk}/")
    assert answer.status_code == 503 and int(answer["Retry-After"]) >= 1
    declared = schema["paths"]["/api/games/{game_id}/"]["get"]["responses"]["503"]
    root = {**declared["content"]["application/json"]["schema"], "components": schema["components"]}
    jsonschema.Draft202012Validator(root).validate(answer.json())
