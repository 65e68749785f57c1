"""Load benchmark of the games room: N concurrent 5-player 5X games over HTTP.

    .venv/bin/python bench/load.py [N] [--port 8765] [--web-workers 3] [--threads 4]
                                       [--prompts K] [--think SECONDS] [--pool solo]
                                       [--concurrency 1] [--access-log PATH]
                                       [--submit-seconds 10]

Starts, as subprocesses bound to 127.0.0.1 only: gunicorn (gthread) on a fresh
PostgreSQL database (persistent connections, as the settings default on PostgreSQL), two Celery worker
processes on Redis (``--pool``/``--concurrency``, solo by default; private queues: one
worker dedicated to prompt resolution, the other taking mail, the default queue and
resolution too), then plays
N games of 5 seats at once. Each game is driven by one thread that plays its 5 seats:
it reads the public status (GET /games/{id}/status.json: prompt number, pending seats),
then each pending seat's view (GET /api/games/{id}/), submits one of its legal orders
(POST /api/games/{id}/orders/) and, after the last order of a prompt, polls the status
every 100 ms until the next prompt is visible (with If-None-Match, as a browser
revalidates: 304 Not Modified while nothing changed). Every loop is bounded; the run
stops by itself (``--prompts K`` stops each game after K prompts: a shorter run of the
same steady state). By default the players answer at once, which saturates the server
(the figures are its capacity); ``--think S`` makes each game's thread pause S seconds
on average (uniform 0..2S) before each order, so the figures are the latencies at that
offered load.

Before the games are played, the same server's capacity for order submission alone is
measured (``--submit-seconds``, 10 by default; 0 skips it): as many keep-alive clients
as the ceiling's take the games between them and, in each game, every pending seat but
the last submits and then keeps replacing its order (two legal orders in turn, so every
request stores a new sealed order with its commitment and log entry); the last seat
holds back, so nothing resolves. The games then start from there.

Prints: orders per second, p50/p99 submission latency, p50/p99 time from a prompt's
last order to the next prompt being visible, the requests per second of a trivial
view (/api/ping/) on the same server, measured in the same run, as the ceiling, and
the order submissions per second alone with their share of that ceiling.
Not part of the test suite. Needs PostgreSQL (127.0.0.1:5432, user postgres, trust)
and Redis (127.0.0.1:6379).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
SEATS = 5
POLL_SECONDS = 0.1  # polling the light public status.json
PROMPT_TIMEOUT = 120.0  # a prompt that does not resolve within this is a failure
MAX_PROMPTS_PER_GAME = 80  # 5X with leaders has ~ 8-40 prompts; a hard bound anyway


# --------------------------------------------------------------------------- HTTP


class Http:
    """A keep-alive JSON client for one thread (reconnects when the server closes)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn: http.client.HTTPConnection | None = None
        self.etag: str | None = None  # the ETag of the last answer, if it had one

    def request(
        self, method: str, path: str, token: str | None = None, body: Any = None,
        if_none_match: str | None = None,
    ) -> tuple[int, Any]:
        headers = {"Accept": "application/json", "Host": "127.0.0.1"}
        data = None
        if token:
            headers["Authorization"] = f"Token {token}"
        if if_none_match:
            headers["If-None-Match"] = if_none_match
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        for attempt in range(3):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                self.conn.request(method, path, body=data, headers=headers)
                response = self.conn.getresponse()
                raw = response.read()
                self.etag = response.getheader("ETag")
                if response.getheader("Connection", "").lower() == "close":
                    self.close()
                return response.status, (json.loads(raw) if raw else None)
            except (http.client.HTTPException, OSError):
                self.close()
                if attempt == 2:
                    raise
                time.sleep(0.05)
        raise RuntimeError("unreachable")

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


# --------------------------------------------------------------------------- site


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def in_process_site(database: str, *, stub_resolution: bool = True, **extra: str) -> Iterator[None]:
    """A Django site in this process (the in-process benchmarks: hotpaths, pages, search) on
    a new PostgreSQL database of that name, migrated, with no broker, no email and no debug
    (``extra`` adds or overrides environment variables); with ``stub_resolution`` the
    resolution task is kept out of the broker (what is measured does not resolve). The
    database is dropped at the end."""
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "fivex_site.settings",
            "FIVEX_ENV": "development",
            "DJANGO_DEBUG": "false",
            "LOG_LEVEL": "WARNING",
            "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{database}",
            "DATABASE_CONN_MAX_AGE": "60",
            "CELERY_BROKER_URL": "memory://",
            "EMAIL_BACKEND": "django.core.mail.backends.dummy.EmailBackend",
            **extra,
        }
    )
    psql(f'CREATE DATABASE "{database}"')
    try:
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", "--noinput", verbosity=0)
        if stub_resolution:
            from games.tasks import resolve_prompt

            resolve_prompt.delay = lambda *a, **k: None  # type: ignore[method-assign]
            resolve_prompt.apply_async = lambda *a, **k: None  # type: ignore[method-assign]
        yield
    finally:
        from django.db import connections

        connections.close_all()
        psql(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


def psql(sql: str) -> None:
    subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-qc", sql],
        check=True,
        capture_output=True,
    )


@dataclass
class Site:
    """The subprocesses of the site and the environment they share."""

    port: int
    env: dict[str, str]
    database: str
    queue: str
    processes: list[subprocess.Popen] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)

    def spawn(self, name: str, command: list[str]) -> subprocess.Popen:
        log = Path(f"/tmp/fivex-bench-{name}-{os.getpid()}.log")
        self.logs.append(log)
        with log.open("wb") as out:
            process = subprocess.Popen(
                command, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
        self.processes.append(process)
        return process

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for process in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=5)
        try:
            import redis

            client = redis.Redis.from_url(self.env["CELERY_BROKER_URL"])
            client.delete(self.queue, f"{self.queue}.resolution", f"{self.queue}.mail")
        except Exception:  # noqa: BLE001 - best-effort cleanup
            pass
        try:
            psql(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
        except subprocess.CalledProcessError as exc:
            print("could not drop the bench database:", exc.stderr.decode(errors="replace"))


def start_site(
    port: int, web_workers: int, threads: int = 4, pool: str = "solo", concurrency: int = 1,
    access_log: str = "",
) -> Site:
    database = f"fivex_bench_{os.getpid()}"
    queue = f"fivex-bench-{uuid.uuid4().hex[:10]}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "fivex_site.settings",
        "FIVEX_ENV": "development",
        "DJANGO_DEBUG": "false",
        "LOG_LEVEL": "WARNING",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{database}",
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/9",
        "CELERY_TASK_DEFAULT_QUEUE": queue,
        "EMAIL_BACKEND": "django.core.mail.backends.dummy.EmailBackend",
        "FIVEX_BASE_URL": f"http://127.0.0.1:{port}",
        "PYTHONUNBUFFERED": "1",
        # Simulated players replace orders far faster than the per-user limits allow:
        # limits no client reaches, so their cost is measured but nothing is refused.
        "API_ORDERS_RATE": "1000000/min",
        "API_GAMES_CREATE_RATE": "1000000/min",
    }
    psql(f'CREATE DATABASE "{database}"')
    site = Site(port=port, env=env, database=database, queue=queue)
    try:
        subprocess.run(
            [PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True
        )
        site.spawn(
            "gunicorn",
            [
                PYTHON, "-m", "gunicorn", "fivex_site.wsgi:application",
                "--bind", f"127.0.0.1:{port}", "--worker-class", "gthread",
                "--workers", str(web_workers), "--threads", str(threads), "--keep-alive", "30",
                "--log-level", "warning", "--backlog", "2048",
                *(["--access-logfile", access_log, "--access-logformat", '%(m)s %(U)s %(s)s %(D)s']
                  if access_log else []),
            ],
        )  # fmt: skip
        # The settings derive the routed queues from the private default queue.
        worker_queues = [f"{queue}.resolution", f"{queue}.resolution,{queue}.mail,{queue}"]
        for i, queues in enumerate(worker_queues):
            site.spawn(
                f"worker{i}",
                [
                    PYTHON, "-m", "celery", "-A", "fivex_site", "worker", "--pool", pool,
                    "--concurrency", str(concurrency),
                    "--queues", queues, "--hostname", f"bench{i}-{queue}@%h", "--loglevel", "WARNING",
                    "--without-gossip", "--without-mingle", "--without-heartbeat",
                ],
            )  # fmt: skip
        client = Http(port)
        deadline = time.monotonic() + 60
        while True:
            try:
                if client.request("GET", "/api/ping/")[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or any(p.poll() is not None for p in site.processes):
                raise RuntimeError("the site did not start; see " + ", ".join(map(str, site.logs)))
            time.sleep(0.2)
        client.close()
    except BaseException:
        site.stop()
        raise
    return site


def create_games(site: Site, count: int) -> list[dict[str, Any]]:
    """Users with API tokens and started games, made directly in the bench database
    (set-up is not measured). Returns [{"id": game id, "tokens": {seat: token}}]."""
    os.environ.update(site.env)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from games.services import games as game_services
    from games.services.tokens import api_token_create

    user_model = get_user_model()
    out = []
    for g in range(count):
        users = [
            user_model.objects.create_user(username=f"b{g}p{s}", email=f"b{g}p{s}@bench.test")
            for s in range(SEATS)
        ]
        tokens = {u.username: api_token_create(user=u) for u in users}
        game = game_services.game_create(
            organizer=users[0], ruleset="5x", seats_count=SEATS, name=f"bench {g}", deadline_hours=240
        )
        for user in users:
            game_services.game_join(game=game, user=user)
        out.append({"id": game.pk, "tokens": tokens})
    from django.db import connections

    connections.close_all()
    return out


# --------------------------------------------------------------------------- players


@dataclass
class Stats:
    submit: list[float] = field(default_factory=list)
    view: list[float] = field(default_factory=list)
    turnaround: list[float] = field(default_factory=list)
    orders: int = 0
    finished: int = 0
    stopped: int = 0
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def play_game(
    port: int, game: dict[str, Any], stats: Stats, seed: int, max_prompts: int = 0,
    think: float = 0.0,
) -> None:
    """Play one game to the end, or ``max_prompts`` prompts of it (0: no limit). Each
    player thinks ``think`` seconds on average (uniform between 0 and twice that) between
    reading its view and submitting; 0: no pause, the server is saturated."""
    rng = random.Random(seed)
    client = Http(port)
    gid = game["id"]
    tokens = game["tokens"]
    status_path = f"/games/{gid}/status.json"
    summary: dict[str, Any] | None = None
    try:
        for played in range(MAX_PROMPTS_PER_GAME):
            if max_prompts and played >= max_prompts:
                with stats.lock:
                    stats.stopped += 1
                return
            if summary is None:  # else: the summary that showed the new prompt
                status, summary = client.request("GET", status_path)
                if status != 200:
                    raise RuntimeError(f"status {status}: {summary}")
            if summary["status"] == "finished":
                with stats.lock:
                    stats.finished += 1
                return
            prompt = summary["prompt"]
            if prompt is None or not summary["pending"]:
                raise RuntimeError(f"no open prompt in an active game: {summary}")
            last_sent = 0.0
            for seat in summary["pending"]:
                started = time.perf_counter()
                status, mine = client.request("GET", f"/api/games/{gid}/", tokens[seat])
                with stats.lock:
                    stats.view.append(time.perf_counter() - started)
                if status != 200:
                    raise RuntimeError(f"{seat}: seat view {status}")
                shown = (mine.get("prompt") or {}).get("number")
                if shown != prompt:
                    break  # the prompt resolved by itself (every seat left had one order)
                if (mine.get("my_order") or {}).get("source") == "forced":
                    continue  # its only legal order was entered for it
                if not mine["legal_orders"]:
                    raise RuntimeError(f"{seat} pending without legal orders ({status})")
                text = rng.choice(mine["legal_orders"])
                if think:
                    time.sleep(rng.uniform(0, 2 * think))
                started = time.perf_counter()
                status, receipt = client.request(
                    "POST", f"/api/games/{gid}/orders/", tokens[seat],
                    {"text": text, "prompt": prompt},
                )
                if status == 409 and receipt.get("error") == "prompt_closed":
                    break  # resolved meanwhile: nothing stored, read the next prompt
                last_sent = time.perf_counter()
                # 200: the seat's order was this one already (left by the submission-only
                # measurement): its receipt, nothing stored again.
                if status not in (200, 201):
                    raise RuntimeError(f"order {text!r} refused: {status} {receipt}")
                with stats.lock:
                    stats.submit.append(last_sent - started)
                    stats.orders += 1
            timed = bool(last_sent)  # nothing sent for this prompt: nothing to time
            last_sent = last_sent or time.perf_counter()
            # Wait for the next prompt (or the end) to be visible on the public status,
            # revalidating like a browser: 304 Not Modified while nothing changed.
            etag = None
            while True:
                status, fresh = client.request("GET", status_path, if_none_match=etag)
                if status not in (200, 304):
                    raise RuntimeError(f"status {status}: {fresh}")
                if status == 200:
                    summary, etag = fresh, client.etag
                if summary["status"] == "finished" or summary["prompt"] != prompt:
                    if timed:
                        with stats.lock:
                            stats.turnaround.append(time.perf_counter() - last_sent)
                    break
                if time.perf_counter() - last_sent > PROMPT_TIMEOUT:
                    raise RuntimeError(f"prompt {prompt} not resolved after {PROMPT_TIMEOUT}s")
                time.sleep(POLL_SECONDS)
        raise RuntimeError(f"game {gid} not finished after {MAX_PROMPTS_PER_GAME} prompts")
    except Exception as exc:  # noqa: BLE001 - reported in the summary
        with stats.lock:
            stats.errors.append(f"game {gid}: {exc}")
    finally:
        client.close()


def run_clients(run: Any, clients: int) -> float:
    """Run ``run(i)`` in ``clients`` threads at once; return the seconds until all end."""
    workers = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    started = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return time.perf_counter() - started


def ping_ceiling(port: int, threads: int, seconds: float) -> float:
    """Requests per second of /api/ping/ with ``threads`` keep-alive clients."""
    counts = [0] * threads
    stop = time.perf_counter() + seconds

    def run(i: int) -> None:
        client = Http(port)
        while time.perf_counter() < stop:
            if client.request("GET", "/api/ping/")[0] == 200:
                counts[i] += 1
        client.close()

    elapsed = run_clients(run, threads)  # before summing: the clients fill ``counts``
    return sum(counts) / elapsed


def submission_capacity(
    port: int, games: list[dict[str, Any]], clients: int, seconds: float
) -> tuple[float, list[float], list[str]]:
    """Orders per second of POST /api/games/{id}/orders/ alone, with ``clients``
    keep-alive clients (as many as the ceiling's), each over its own share of the games.
    In every game all pending seats but the last submit, then keep replacing, their
    orders (alternating two legal orders, so each request stores a new sealed order with
    its commitment and log entry); the last seat holds back, so no prompt resolves and
    the figure is the submission path's own. Returns (orders/s, latencies, errors)."""
    plans: list[list[tuple[int, str, list[str]]]] = [[] for _ in range(clients)]
    setup = Http(port)
    for i, game in enumerate(games):
        gid, tokens = game["id"], game["tokens"]
        status, summary = setup.request("GET", f"/games/{gid}/status.json")
        if status != 200 or not summary["pending"]:
            return 0.0, [], [f"game {gid}: no open prompt ({status})"]
        for seat in summary["pending"][:-1]:
            status, mine = setup.request("GET", f"/api/games/{gid}/", tokens[seat])
            legal = (mine or {}).get("legal_orders") or []
            if status == 200 and len(legal) >= 2:
                plans[i % clients].append((gid, tokens[seat], legal[:2]))
    setup.close()
    latencies: list[float] = []
    errors: list[str] = []
    counts = [0] * clients
    lock = threading.Lock()
    stop = time.perf_counter() + seconds

    def run(c: int) -> None:
        client, mine, turn = Http(port), [], 0
        while plans[c] and time.perf_counter() < stop:
            gid, token, texts = plans[c][turn % len(plans[c])]
            text = texts[(turn // len(plans[c])) % 2]
            turn += 1
            started = time.perf_counter()
            status, receipt = client.request(
                "POST", f"/api/games/{gid}/orders/", token, {"text": text}
            )
            if status != 201:
                with lock:
                    errors.append(f"game {gid}: {status} {receipt}")
                break
            mine.append(time.perf_counter() - started)
            counts[c] += 1
        client.close()
        with lock:
            latencies.extend(mine)

    elapsed = run_clients(run, clients)  # before summing: the clients fill ``counts``
    return sum(counts) / elapsed, latencies, errors


def server_resolution_times(games: list[dict[str, Any]]) -> list[float]:
    """Seconds from each prompt's last order (``ready_at``) to its resolution
    (``resolved_at``), read from the bench database: the worker's share of the
    turnaround (queueing for the worker included), the rest being the HTTP side."""
    from django.db import connections

    from games.models import Prompt

    rows = Prompt.objects.filter(
        game_id__in=[g["id"] for g in games], ready_at__isnull=False, resolved_at__isnull=False
    ).values_list("ready_at", "resolved_at")
    out = [(resolved - ready).total_seconds() for ready, resolved in rows]
    connections.close_all()
    return out


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="?", type=int, default=50)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--web-workers", type=int, default=3, help="gunicorn processes")
    parser.add_argument("--threads", type=int, default=4, help="gunicorn threads per process")
    parser.add_argument("--prompts", type=int, default=0, help="stop each game after K prompts")
    parser.add_argument(
        "--think", type=float, default=0.0,
        help="players' mean thinking time per order in seconds (0: saturate the server)",
    )
    parser.add_argument("--pool", default="solo", help="Celery worker pool (solo, threads, prefork)")
    parser.add_argument("--concurrency", type=int, default=1, help="Celery worker concurrency")
    parser.add_argument("--access-log", default="", help="gunicorn access log (method, path, status, microseconds)")
    parser.add_argument("--ping-seconds", type=float, default=5.0)
    parser.add_argument(
        "--submit-seconds", type=float, default=10.0,
        help="measure order submission alone for this long before the games (0: skip)",
    )
    parser.add_argument("--progress", type=float, default=15.0, help="seconds between progress lines")
    args = parser.parse_args()
    port = args.port or free_port()
    print(
        f"starting gunicorn on 127.0.0.1:{port} ({args.web_workers} x {args.threads} threads), "
        f"2 Celery workers ({args.pool} x {args.concurrency}), PostgreSQL, Redis ..."
    )
    site = start_site(
        port, args.web_workers, args.threads, args.pool, args.concurrency, args.access_log
    )
    try:
        t0 = time.perf_counter()
        games = create_games(site, args.games)
        print(f"set up {len(games)} games of {SEATS} seats in {time.perf_counter() - t0:.1f}s")
        clients = min(32, max(4, args.games))
        ceiling = ping_ceiling(port, clients, args.ping_seconds)
        capacity, capacity_latency, capacity_errors = 0.0, [], []
        if args.submit_seconds:
            capacity, capacity_latency, capacity_errors = submission_capacity(
                port, games, clients, args.submit_seconds
            )
        stats = Stats()
        threads = [
            threading.Thread(
                target=play_game, args=(port, g, stats, i, args.prompts, args.think),
                daemon=True,
            )
            for i, g in enumerate(games)
        ]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            for t in threads:
                t.join(timeout=args.progress)
                if not t.is_alive():
                    continue
                break
            with stats.lock:
                print(
                    f"  {time.perf_counter() - t0:6.0f}s: {stats.orders} orders, "
                    f"{len(stats.turnaround)} prompts, {stats.finished} games finished",
                    flush=True,
                )
        elapsed = time.perf_counter() - t0
        print(f"games: {len(games)} started, {stats.finished} finished, {stats.stopped} stopped "
              f"after {args.prompts} prompts, {len(stats.errors)} failed in {elapsed:.1f}s")  # fmt: skip
        for line in stats.errors[:10]:
            print("  error:", line)
        pace = f"players think {args.think:g} s per order" if args.think else "no thinking: saturated"
        print(
            f"orders submitted: {stats.orders}  ->  {stats.orders / elapsed:.1f} orders/s ({pace})"
        )
        print(
            f"submission latency: p50 {pct(stats.submit, .5) * 1000:.0f} ms, "
            f"p99 {pct(stats.submit, .99) * 1000:.0f} ms"
        )
        print(
            f"last order -> next prompt visible: p50 {pct(stats.turnaround, .5) * 1000:.0f} ms, "
            f"p99 {pct(stats.turnaround, .99) * 1000:.0f} ms  ({len(stats.turnaround)} prompts)"
        )
        worker = server_resolution_times(games)
        print(
            f"  of which last order -> prompt resolved (server side, worker queue included): "
            f"p50 {pct(worker, .5) * 1000:.0f} ms, p99 {pct(worker, .99) * 1000:.0f} ms"
        )
        if stats.submit:
            print(f"mean submission latency {statistics.mean(stats.submit) * 1000:.0f} ms")
        print(
            f"seat view GET /api/games/{{id}}/ latency: p50 {pct(stats.view, .5) * 1000:.0f} ms, "
            f"p99 {pct(stats.view, .99) * 1000:.0f} ms"
        )
        print(f"ceiling: GET /api/ping/ {ceiling:.0f} requests/s (same server, same run)")
        if args.submit_seconds:
            print(
                f"order submission alone (POST /api/games/{{id}}/orders/, {clients} clients, "
                f"{args.submit_seconds:g} s, orders replaced, no prompt resolving): "
                f"{capacity:.0f} orders/s = {100 * capacity / max(ceiling, 1e-9):.0f} % of the ceiling; "
                f"latency p50 {pct(capacity_latency, .5) * 1000:.0f} ms, "
                f"p99 {pct(capacity_latency, .99) * 1000:.0f} ms"
            )
            for line in capacity_errors[:10]:
                print("  error:", line)
        return 0 if not stats.errors and not capacity_errors else 1
    finally:
        site.stop()


if __name__ == "__main__":
    sys.exit(main())
