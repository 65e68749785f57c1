"""Finding games (``?q=`` on the games page, ``q`` on the API's game lists) on a site of
many games, in process.

    .venv/bin/python bench/search.py [--games 40000] [--repeat 10] [--trigram]

Creates a throw-away PostgreSQL database (127.0.0.1:5432, user postgres) holding
``--games`` finished public games (a tenth named "League …", three seats each among 2,000
players) and a few forming ones, then times with Django's test client (DEBUG off) the
games page anonymously without a search, searching a word of many names, a player's name
and a word of none; and the API's ``GET /api/games/open/?q=``. Prints per request the
median wall-clock milliseconds over ``--repeat`` requests, the SQL statements of one
request and their time (as the database driver saw it) and the answer's size. ``--trigram``: the same again after a pg_trgm GIN index on the
games' upper-cased names (what Django's ``icontains`` compares). Not part of the test
suite.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from load import in_process_site  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40_000)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--trigram", action="store_true")
    args = parser.parse_args()

    database = f"fivex_searchbench_{os.getpid()}"
    with in_process_site(database, stub_resolution=False):
        from django.conf import settings
        from django.contrib.auth import get_user_model
        from django.db import connection
        from django.test import Client
        from django.test.utils import CaptureQueriesContext
        from django.utils import timezone

        from games.models import Game, Seat
        from games.services.tokens import api_token_create

        settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = {}  # time the work, not the 429
        User = get_user_model()
        players = User.objects.bulk_create(
            [User(username=f"player{i:04d}", email=f"p{i}@bench.test") for i in range(2000)]
        )
        now = timezone.now()
        games = Game.objects.bulk_create(
            [
                Game(organizer=players[i % 2000], ruleset="5x", seats_count=3,
                     name=f"League game {i}" if i % 10 == 0 else f"Friendly {i}",
                     status="finished", started_at=now, finished_at=now)
                for i in range(args.games)
            ]
            + [Game(organizer=players[i], ruleset="5x", seats_count=3, name=f"League open {i}")
               for i in range(20)],
            batch_size=2000,
        )  # fmt: skip
        Seat.objects.bulk_create(
            [
                Seat(game=g, user=players[(n * 7 + k * 13) % 2000], name=f"s{k}", position=k)
                for n, g in enumerate(games[: args.games])
                for k in range(3)
            ],
            batch_size=5000,
        )
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        token = api_token_create(user=players[0])
        anonymous = Client(HTTP_HOST="127.0.0.1")
        api = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Token {token}")

        cases = [
            ("games page", anonymous, "/games/", {}),
            ("games page ?q=League", anonymous, "/games/", {"q": "League"}),
            ("games page ?q=<player>", anonymous, "/games/", {"q": "player0042"}),
            ("games page ?q=<none>", anonymous, "/games/", {"q": "nothing-named-so"}),
            ("API open ?q=League", api, "/api/games/open/", {"q": "League"}),
        ]

        def run(label: str) -> None:
            print(f"\n{label}: {args.games} finished public games")
            print(f"{'request':<26} {'ms':>8} {'SQL':>4} {'SQL ms':>7} {'bytes':>8}")
            for name, client, path, query in cases:
                assert client.get(path, query).status_code == 200
                times = []
                for _ in range(args.repeat):
                    start = time.perf_counter()
                    client.get(path, query)
                    times.append((time.perf_counter() - start) * 1000)
                with CaptureQueriesContext(connection) as ctx:
                    size = len(client.get(path, query).content)
                sql_ms = sum(float(q["time"]) for q in ctx.captured_queries) * 1000
                print(f"{name:<26} {statistics.median(times):8.1f} {len(ctx):4d} {sql_ms:7.1f} "
                      f"{size:8d}")

        run("plain (icontains: a sequential scan of the names)")
        if args.trigram:
            with connection.cursor() as cursor:
                cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
                cursor.execute(
                    "CREATE INDEX bench_game_name_trgm ON games_game "
                    "USING gin (UPPER(name::text) gin_trgm_ops)"
                )
                cursor.execute("ANALYZE")
            run("with a pg_trgm GIN index on UPPER(name)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
