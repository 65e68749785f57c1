"""Helpers shared by the web, API, secrecy and browser tests of the games room."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

# A 3-seat 5X game with a fixed deal in which everybody keeps its first leader. Every seat
# starts with 3 resources, so CLEOPATRA and NAPOLEON (minimum bid 3) can only bid 3 in
# round 1.
NAMES = ("ann", "bob", "cat")
DEAL = {"ann": ["CLEOPATRA", "CAESAR"], "bob": ["QIN", "DIDO"], "cat": ["NAPOLEON", "ERIK"]}
DRAFT = {"ann": "PASS CAESAR", "bob": "PASS DIDO", "cat": "PASS ERIK"}


def page_for(client: Any, game: Any, name: str | None) -> str:
    """The game page's HTML as ``name`` sees it: a seat's player, ``"zed"`` (a new user
    with no seat) or ``None`` (nobody logged in)."""
    from django.urls import reverse

    client.logout()
    if name is not None:
        client.force_login(make_user(name) if name == "zed" else game.seats.get(name=name).user)
    response = client.get(reverse("games:detail", args=[game.pk]))
    assert response.status_code == 200
    return response.content.decode()


def make_user(name: str) -> Any:
    """A user whose username (and so seat name) is ``name``."""
    return get_user_model().objects.create_user(
        username=name, email=f"{name}@example.test", password="pw-" + name
    )


def dealt_5x_game(capture, *, names: tuple[str, ...], organizer: str, deal: dict, name: str) -> Any:
    """A started 3-seat 5X game with a fixed deal, joined by ``names`` (``organizer``
    is one of them or a user of its own); ``capture`` is django_capture_on_commit_callbacks."""
    from games.models import Game
    from games.services import games as game_services

    users = {n: make_user(n) for n in dict.fromkeys((organizer, *names))}
    game = game_services.game_create(
        organizer=users[organizer], ruleset="5x", seats_count=len(names), name=name,
        setup={"deal": deal},
    )  # fmt: skip
    with capture(execute=True):
        for player in names:
            game_services.game_join(game=game, user=users[player])
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    return game


def submit_orders(game: Any, capture, orders: dict[str, str]) -> None:
    """Each seat's order through ``order_submit`` (web), on-commit callbacks run."""
    from games.services.orders import order_submit

    for seat_name, text in orders.items():
        with capture(execute=True):
            order_submit(seat=game.seats.get(name=seat_name), text=text, source="web")


_KEYS: dict[int, str] = {}  # user id -> the key of the token made for it (kept: only its hash is stored)


def token_client(user: Any) -> APIClient:
    """An API client authenticated with the user's API token (a real header); the same
    token for every client of one user, made the first time."""
    from games.models import ApiToken
    from games.services.tokens import api_token_create, api_token_digest

    key = _KEYS.get(user.pk)
    if key is None or not ApiToken.objects.filter(user=user, digest=api_token_digest(key)).exists():
        key = _KEYS[user.pk] = api_token_create(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@pytest.fixture
def eager_celery() -> Iterator[None]:
    """Run tasks in-process when they are enqueued (on commit)."""
    from fivex_site.celery import app

    saved = (app.conf.task_always_eager, app.conf.task_eager_propagates)
    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    try:
        yield
    finally:
        app.conf.task_always_eager, app.conf.task_eager_propagates = saved


def body_text(response: Any) -> str:
    """The whole body of a response as text (JSON bodies unescaped)."""
    raw = response.content.decode("utf-8", errors="replace")
    if response.get("Content-Type", "").startswith("application/json"):
        try:
            return json.dumps(json.loads(raw), ensure_ascii=False)
        except ValueError:
            return raw
    return raw


def visible_text(html: str) -> str:
    """Rough visible text of a page (tags dropped), for messages assertions."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
