"""Server time and SQL queries of the pages people read, in process.

    .venv/bin/python bench/pages.py [--prompts 20] [--repeat 30] [--only 6x5] [--profile TEXT]

Creates a throw-away PostgreSQL database (127.0.0.1:5432, user postgres) and, for each
ruleset (5X with 5 seats, a 4X Dice duel, a 6x5 duel), a started public game played for
``--prompts`` resolved prompts (seeded random legal orders, through the services), its
organizer a user without a seat. Then times with Django's test client (DEBUG off): the
game page as the first seat's player, the organizer, a signed-in spectator and an
anonymous visitor; the review page of an early prompt (1) and of the latest resolved one;
the log page; status.json; the API's seat view (token, as API clients use). Prints per
request the median wall-clock milliseconds over ``--repeat`` requests, the median CPU
milliseconds of this process (``time.process_time``: PostgreSQL's own CPU not counted),
the SQL statements, the Python function calls of one request (cProfile's count: the
machine's load does not move it) and the response's size. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from load import in_process_site  # noqa: E402

GAMES = {"5x": 5, "4x-dice": 2, "6x5": 2}


def _sixbyfive() -> tuple[dict, list[str]]:
    """6x5: the secrecy tests' goals and their 24 orders that realize none (a long game)."""
    from tests.games.test_6x5_option_secrecy import LINE, OPEN_ORDERS, ZIG

    return {"setup": {"goals": {"p0": [LINE], "p1": [ZIG]}}}, OPEN_ORDERS[:23]


def play(game, prompts: int, rng: random.Random, script: list[str] | None = None) -> int:
    """Resolve up to ``prompts`` prompts with random legal orders (``script``: these
    orders in turn instead, one per prompt); the number resolved."""
    from games.models import Game, Prompt, Seat
    from games.selectors import legal_orders
    from games.services.orders import order_submit
    from games.services.resolution import prompt_resolve

    done = 0
    while done < prompts and (script is None or done < len(script)):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        prompt = Prompt.objects.filter(game=game, status="open").order_by("-number").first()
        if prompt is None:
            break
        for seat in Seat.objects.filter(game=game, name__in=prompt.pending).select_related("game"):
            legal = legal_orders(seat=seat)
            if script:
                order_submit(seat=seat, text=script[done], source="web")
            elif legal:
                order_submit(seat=seat, text=rng.choice(legal), source="web")
        assert prompt_resolve(game_id=game.pk, prompt_number=prompt.number)
        done += 1
    return done


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=30, help="requests per figure")
    parser.add_argument("--only", choices=list(GAMES), action="append")
    parser.add_argument("--sql", action="store_true", help="print each request's SQL")
    parser.add_argument(
        "--profile", metavar="TEXT",
        help="cProfile (CPU time) of the requests whose label contains TEXT; PSTATS=N lines",
    )  # fmt: skip
    args = parser.parse_args()

    database = f"fivex_pagebench_{os.getpid()}"
    with in_process_site(database, CELERY_TASK_ALWAYS_EAGER="false"):
        from django.contrib.auth import get_user_model
        from django.db import connection
        from django.test import Client

        from games.services.games import game_create_seated
        from games.services.tokens import api_token_create


        six_setup, six_orders = _sixbyfive()
        SETUP, SCRIPTS = {"6x5": six_setup}, {"6x5": six_orders}
        User = get_user_model()
        users = [User.objects.create_user(username=f"p{s}", email=f"p{s}@bench.test") for s in range(5)]
        organizer = User.objects.create_user(username="org", email="org@bench.test")
        spectator = User.objects.create_user(username="zed", email="zed@bench.test")

        def logged_in(user) -> Client:
            client = Client(HTTP_HOST="127.0.0.1")
            if user is not None:
                client.force_login(user)
            return client

        def counted(run) -> int:
            statements: list[str] = []

            def count(execute, sql, params, many, context):
                statements.append(sql)
                return execute(sql, params, many, context)

            with connection.execute_wrapper(count):
                run()
            if args.sql:
                for sql in statements:
                    print("    ", sql[:150])
            return len(statements)

        print(f"{'game, page':46} {'ms':>8} {'CPU ms':>8} {'queries':>8} {'calls':>8} {'bytes':>8}")
        for ruleset, seats in GAMES.items():
            if args.only and ruleset not in args.only:
                continue
            limit = args.prompts
            for _attempt in range(6):  # a game still running after its prompts
                game = game_create_seated(
                    organizer=organizer, ruleset=ruleset, users=users[:seats], is_private=False,
                    name=f"bench {ruleset}", deadline_hours=240, **SETUP.get(ruleset, {}),
                )  # fmt: skip
                resolved = play(game, limit, random.Random(7), SCRIPTS.get(ruleset))
                game.refresh_from_db()
                if game.status == "active":
                    break
                limit = resolved - 1
            gid = game.pk
            player, org, zed, anon = (logged_in(u) for u in (users[0], organizer, spectator, None))
            token = api_token_create(user=users[0])
            api = Client(HTTP_AUTHORIZATION=f"Token {token}", HTTP_HOST="127.0.0.1")
            cases = [
                ("game page, seat's player", player, f"/games/{gid}/"),
                ("game page, organizer", org, f"/games/{gid}/"),
                ("game page, spectator", zed, f"/games/{gid}/"),
                ("game page, anonymous", anon, f"/games/{gid}/"),
                ("review 1, seat's player", player, f"/games/{gid}/review/1/"),
                (f"review {resolved}, seat's player", player, f"/games/{gid}/review/{resolved}/"),
                ("log page, seat's player", player, f"/games/{gid}/log/"),
                ("status.json", anon, f"/games/{gid}/status.json"),
                ("API seat view", api, f"/api/games/{gid}/"),
            ]
            print(f"{ruleset}: {seats} seats, {resolved} prompts resolved, game {game.status}")
            for label, client, path in cases:

                def run(client=client, path=path) -> int:
                    response = client.get(path)
                    assert response.status_code == 200, (path, response.status_code)
                    return len(response.content)

                for _ in range(3):
                    size = run()
                queries = counted(run)
                calls = cProfile.Profile()
                calls.runcall(run)
                calls = pstats.Stats(calls).total_calls  # the machine's load does not move it
                wall, cpu = [], []
                for _ in range(args.repeat):
                    started, cpu_started = time.perf_counter(), time.process_time()
                    run()
                    cpu.append(time.process_time() - cpu_started)
                    wall.append(time.perf_counter() - started)
                print(f"  {label:44} {statistics.median(wall) * 1000:8.2f} "
                      f"{statistics.median(cpu) * 1000:8.2f} {queries:8d} {calls:8d} {size:8d}")  # fmt: skip
                if args.profile and args.profile in label:
                    profiler = cProfile.Profile(time.process_time)
                    profiler.runcall(lambda: [run() for _ in range(args.repeat)])  # noqa: B023
                    pstats.Stats(profiler).sort_stats("cumulative").print_stats(
                        int(os.environ.get("PSTATS", 40))
                    )
        return 0


if __name__ == "__main__":
    sys.exit(main())
