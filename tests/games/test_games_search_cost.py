"""Finding games by name or player (``?q=`` on the games page, anyone's, unthrottled; ``q``
over the API) reads each game once: the player's games are a subquery of their seats, not
a join of every listed game to its seats made distinct again (review finding: with 40,000
finished games the page took 2.0 s for ?q=League and 0.7 s for a player's name against
0.2 s unsearched; 0.3 s now). What it finds is unchanged (a handed-over seat counts)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import Game, Seat
from tests.games.core_support import make_users
from tests.games.web_support import token_client

pytestmark = pytest.mark.django_db


def test_a_search_reads_each_game_once_and_finds_by_name_or_player():
    ann, bob, cat = make_users(["ann", "bob", "cat"])
    now = timezone.now()
    spring = Game.objects.create(organizer=ann, ruleset="5x", seats_count=3, name="Spring league",
                                 status="finished", started_at=now, finished_at=now)  # fmt: skip
    other = Game.objects.create(organizer=ann, ruleset="5x", seats_count=3, name="Autumn",
                                status="finished", started_at=now, finished_at=now)  # fmt: skip
    Seat.objects.create(game=spring, user=bob, name="bob", position=0)
    Seat.objects.create(game=other, user=bob, name="bob", position=0, status=Seat.Status.REPLACED)
    Seat.objects.create(game=other, user=cat, name="bob", position=0)
    visitor = Client()
    for q, found, missing in (
        ("league", ["Spring league"], ["Autumn"]),
        ("BOB", ["Spring league", "Autumn"], []),  # bob's seat in Autumn was handed over
        ("cat", ["Autumn"], ["Spring league"]),
    ):
        with CaptureQueriesContext(connection) as ctx:
            page = visitor.get("/games/", {"q": q}).content.decode()
        for title in found:
            assert title in page, (q, title)
        for title in missing:
            assert title not in page, (q, title)
        joined = [s["sql"] for s in ctx.captured_queries if "DISTINCT" in s["sql"].upper()]
        assert not joined, joined
    api = token_client(bob)
    with CaptureQueriesContext(connection) as ctx:
        answer = api.get("/api/games/", {"q": "bob"})
    assert sorted(g["name"] for g in answer.json()) == ["Autumn", "Spring league"]
    assert not [s["sql"] for s in ctx.captured_queries if "DISTINCT" in s["sql"].upper()]
