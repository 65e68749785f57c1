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
    monkeypatch.setattr("games.api.views.selectors_hot.seat_view_for_user", _database_gone)
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
