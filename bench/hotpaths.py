"""Server CPU and SQL queries per request of the games room's hot paths, in process.

    .venv/bin/python bench/hotpaths.py [--repeat 200] [--profile post|view|poll|resolve|send]
    .venv/bin/python bench/hotpaths.py --sweep 2000

Creates a throw-away PostgreSQL database (127.0.0.1:5432, user postgres), one started
5-seat 5X game, and times with Django's test client (DEBUG off, token auth as the API
clients use): the trivial view (/api/ping/), the public poll (status.json, plain and
with If-None-Match), the seat view (GET /api/games/{id}/) and an order submission
(POST /api/games/{id}/orders/, alternating two legal orders so each one is stored).
Prints CPU milliseconds per request (``time.process_time``: this process's CPU, the
Python side of PostgreSQL round trips included, PostgreSQL's own CPU not), the CPU the
PostgreSQL backend serving it spent (``PG ms``, read from its /proc entry: the server must
run on this machine; 10 ms clock ticks, so use a --repeat of a few hundred) and the SQL
statements per request. Then the Celery worker's two hot jobs: resolving one prompt
(``prompt_resolve``, every seat's order filled untimed first) and sending that
resolution's emails (``send_outbox_batch``, dummy email backend). ``--profile`` prints
a cProfile of one kind of request or job (``resolve``, ``send``; wall-clock time, or
CPU time with PSTATS_CPU=1; PSTATS=N lines, PSTATS_DUMP=path to keep the stats).
``--sweep N`` times only the reminder sweep (``send_reminders``) over N open prompts
of which 10 are in their reminder window (``reminder_sweep``).
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from load import in_process_site  # noqa: E402


def report(profiler: cProfile.Profile, title: str, lines: int) -> None:
    """Print a profile by cumulative time (PSTATS=N lines instead of ``lines``;
    PSTATS_DUMP=path also keeps the raw stats)."""
    print(f"profile of {title}")
    if os.environ.get("PSTATS_DUMP"):
        profiler.dump_stats(os.environ["PSTATS_DUMP"])
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(
        int(os.environ.get("PSTATS", lines))
    )


def reminder_sweep(*, users: list, new_game, open_prompts: int, rounds: int) -> int:
    """The beat's reminder sweep (``send_reminders``, every 5 minutes) over ``open_prompts``
    open prompts of active games (10-day deadlines, a league's), 10 of them inside their
    reminder window: once to send those reminders, then the time of a sweep with nothing
    left to send (every sweep after), the rows its statements return and their count."""
    from datetime import timedelta

    from django.db import connection
    from django.utils import timezone

    from games.models import Game, Prompt, new_public_id, new_token
    from games.services.deadlines import send_reminders

    now = timezone.now()
    due = [new_game() for _ in range(10)]
    Prompt.objects.filter(game__in=due).update(deadline=now + timedelta(hours=1))
    model = Game.objects.get(pk=due[0].pk)  # started (its in-memory copy is still forming)
    prompt = Prompt.objects.get(game=model, status="open")
    fields = [f.attname for f in Game._meta.concrete_fields if not f.primary_key]
    clones = Game.objects.bulk_create(
        Game(**{**{f: getattr(model, f) for f in fields}, "public_id": new_public_id(),
                "invite_token": new_token(), "create_key": ""})
        for _ in range(open_prompts - len(due))
    )  # fmt: skip
    Prompt.objects.bulk_create(
        Prompt(game=g, number=prompt.number, round=prompt.round, phase=prompt.phase,
               pending=prompt.pending, forced=prompt.forced,
               deadline=now + timedelta(days=2 + i % 8, minutes=i))
        for i, g in enumerate(clones)
    )  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    sent = send_reminders(now=now)
    rows: list[int] = []

    def count(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        rows.append(context["cursor"].rowcount)
        return result

    with connection.execute_wrapper(count):
        assert send_reminders(now=now) == 0
    wall, cpu = [], []
    for _ in range(rounds * 4):
        started, cpu_started = time.perf_counter(), time.process_time()
        send_reminders(now=now)
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - cpu_started)
    print(f"reminder sweep: {open_prompts} open prompts, {len(due)} in their window "
          f"({sent} reminders sent by the first sweep)")  # fmt: skip
    print(f"{'sweep with nothing left to send':40} {'wall ms':>8} {'CPU ms':>8} {'queries':>8} rows")
    print(f"{'':40} {statistics.median(wall) * 1000:8.2f} {statistics.median(cpu) * 1000:8.2f} "
          f"{len(rows):8d} {rows}")  # fmt: skip
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--sql", action="store_true", help="print each request's SQL")
    parser.add_argument("--rounds", type=int, default=5, help="median of this many loops")
    parser.add_argument(
        "--profile", choices=["post", "view", "poll", "ping", "resolve", "send"], default=None
    )
    parser.add_argument(
        "--sweep", type=int, default=0, metavar="N",
        help="only the reminder sweep, with N open prompts of which 10 in their reminder window",
    )  # fmt: skip
    args = parser.parse_args()

    database = f"fivex_reqbench_{os.getpid()}"
    with in_process_site(
        database,
        **{
            "CELERY_TASK_ALWAYS_EAGER": "false",
            # Limits no loop here reaches: their cost is measured, nothing is refused.
            "API_ORDERS_RATE": "1000000/min",
            "API_GAMES_CREATE_RATE": "1000000/min",
        },
    ):
        from django.contrib.auth import get_user_model
        from django.db import connection
        from django.test import Client

        from games.services import games as game_services
        from games.services.tokens import api_token_create

        users = [
            get_user_model().objects.create_user(username=f"r{s}", email=f"r{s}@bench.test")
            for s in range(5)
        ]
        game = game_services.game_create(
            organizer=users[0], ruleset="5x", seats_count=5, name="req bench", deadline_hours=240
        )
        for user in users:
            game_services.game_join(game=game, user=user)
        game.refresh_from_db()
        token = api_token_create(user=users[1])
        client = Client(HTTP_AUTHORIZATION=f"Token {token}", HTTP_HOST="127.0.0.1")
        gid = game.pk
        view = client.get(f"/api/games/{gid}/").json()
        legal = view["legal_orders"]
        assert len(legal) >= 2, view
        status = client.get(f"/games/{gid}/status.json")
        etag = status["ETag"]

        counter = [0]

        def counted(run) -> list[str]:
            """Run once, returning the SQL statements it sent."""
            statements: list[str] = []

            def count(execute, sql, params, many, context):
                statements.append(sql)
                return execute(sql, params, many, context)

            with connection.execute_wrapper(count):
                run()
            return statements

        def post() -> None:
            counter[0] += 1
            response = client.post(
                f"/api/games/{gid}/orders/",
                {"text": legal[counter[0] % 2]},
                content_type="application/json",
            )
            assert response.status_code == 201, response.content

        def check(path: str, code: int = 200, **headers: str):
            def run() -> None:
                response = client.get(path, **headers)
                assert response.status_code == code, (path, response.status_code)

            return run

        from games.models import Prompt, Seat
        from games.selectors import legal_orders
        from games.services import orders as order_services
        from games.services.resolution import prompt_resolve

        resolving = {"game": None}
        rng = __import__("random").Random(7)

        def new_game():
            g = game_services.game_create(
                organizer=users[0], ruleset="5x", seats_count=5, name="res", deadline_hours=240
            )
            for user in users:
                game_services.game_join(game=g, user=user)
            return g

        def fill() -> int:
            """Orders for every pending seat of the open prompt (not timed)."""
            g = resolving["game"]
            prompt = Prompt.objects.filter(game=g, status="open").first()
            if prompt is None:
                g = resolving["game"] = new_game()
                prompt = Prompt.objects.get(game=g, status="open")
            for seat in Seat.objects.filter(game=g, name__in=prompt.pending).select_related("game"):
                text = rng.choice(legal_orders(seat=seat))
                order_services.order_submit(seat=seat, text=text, source="api")
            return prompt.number

        def resolve_timed(number: int) -> None:
            assert prompt_resolve(game_id=resolving["game"].pk, prompt_number=number)

        cases = {
            "ping": ("GET /api/ping/", check("/api/ping/")),
            "poll": ("GET status.json", check(f"/games/{gid}/status.json")),
            "poll304": (
                "GET status.json (If-None-Match)",
                check(f"/games/{gid}/status.json", 304, HTTP_IF_NONE_MATCH=etag),
            ),
            "view": ("GET /api/games/{id}/ (seat view)", check(f"/api/games/{gid}/")),
            "post": ("POST /api/games/{id}/orders/", post),
        }
        if args.sweep:
            return reminder_sweep(users=users, new_game=new_game, open_prompts=args.sweep,
                                  rounds=args.rounds)  # fmt: skip
        if args.profile in ("resolve", "send"):
            from games.models import OutboxMessage
            from games.tasks import send_outbox_batch

            # PSTATS_CPU=1: CPU time (time.process_time) instead of wall-clock time.
            timer = (time.process_time,) if os.environ.get("PSTATS_CPU") else ()
            profiler = cProfile.Profile(*timer)
            for _ in range(args.repeat):
                number = fill()
                if args.profile == "resolve":
                    profiler.enable()
                    resolve_timed(number)
                    profiler.disable()
                    continue
                resolve_timed(number)
                ids = list(
                    OutboxMessage.objects.filter(status="queued").values_list("pk", flat=True)
                )
                profiler.enable()
                send_outbox_batch.run(ids)
                profiler.disable()
            report(profiler, f"{args.repeat} x {args.profile}", lines=60)
            return 0
        if args.profile:
            label, run = cases[args.profile]
            for _ in range(20):
                run()
            profiler = cProfile.Profile()
            profiler.enable()
            for _ in range(args.repeat):
                run()
            profiler.disable()
            report(profiler, f"{args.repeat} x {label}", lines=45)
            return 0

        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            backend = cursor.fetchone()[0]

        def backend_cpu() -> float | None:
            """Seconds of CPU the PostgreSQL backend serving this process has used (its
            /proc entry: the server on this machine), None when it cannot be read."""
            try:
                fields = Path(f"/proc/{backend}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                return None
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

        print(f"{'request':40} {'CPU ms':>8} {'PG ms':>8} {'queries':>8}")
        for label, run in cases.values():
            for _ in range(20):  # warm up
                run()
            statements = counted(run)
            figures, pg = [], []
            for _ in range(args.rounds):
                started, pg_started = time.process_time(), backend_cpu()
                for _ in range(args.repeat):
                    run()
                figures.append((time.process_time() - started) / args.repeat * 1000)
                if pg_started is not None:
                    pg.append((backend_cpu() - pg_started) / args.repeat * 1000)
            pg_ms = f"{statistics.median(pg):8.2f}" if pg else f"{'?':>8}"
            print(f"{label:40} {statistics.median(figures):8.2f} {pg_ms} {len(statements):8d}")
            if args.sql:
                for sql in statements:
                    print("    ", sql[:150])
        # Resolution of a prompt (the Celery task's work), orders filled untimed.
        spent, statements = [], []
        for i in range(args.repeat):
            number = fill()
            started = time.process_time()
            if i == args.repeat - 1:
                statements = counted(lambda: resolve_timed(number))  # noqa: B023
            else:
                resolve_timed(number)
            spent.append(time.process_time() - started)
        print(f"{'prompt_resolve (one prompt, 5 seats)':40} {statistics.median(spent) * 1000:8.2f} "
              f"{'':8} {len(statements):8d}")
        if args.sql:
            for sql in statements:
                print("    ", sql[:150])
        # The emails of one resolution (the mail worker's send_outbox_batch).
        from games.models import OutboxMessage
        from games.tasks import send_outbox_batch

        spent = []
        for i in range(args.repeat):
            resolve_timed(fill())
            ids = list(OutboxMessage.objects.filter(status="queued").values_list("pk", flat=True))
            started = time.process_time()
            if i == args.repeat - 1:
                statements = counted(lambda: send_outbox_batch.run(ids))  # noqa: B023
            else:
                send_outbox_batch.run(ids)
            spent.append(time.process_time() - started)
        print(f"{'send_outbox_batch (its 5 emails)':40} {statistics.median(spent) * 1000:8.2f} "
              f"{'':8} {len(statements):8d}")
        if args.sql:
            for sql in statements:
                print("    ", sql[:150])
        return 0


if __name__ == "__main__":
    sys.exit(main())
