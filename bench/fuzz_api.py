"""Property-based fuzzing of the REST API against its own OpenAPI schema (schemathesis).

    scripts/fuzz-api [--max-examples 60] [--port 8120] [--seed N] [--keep]
                     [--phases examples,coverage,fuzzing,stateful] [--only REGEX]

What it does, all on 127.0.0.1 (nothing leaves the machine):

1. A fresh PostgreSQL database (``fivex_fuzz_<pid>``, dropped at the end unless ``--keep``),
   migrated; ``demo_games`` (players Ann..Eve, games waiting for Ann's order, a finished
   game, a tournament) and more (``setup_data``): a forming game, a paused one, an
   abandoned one, a private one Ann may not see, a game Ann organizes without a seat with
   a seat offer waiting, a seat offered to Ann, Ann's webhook; API tokens for Ann, Bob
   and a site administrator.
2. The site (``runserver --noreload``, DEBUG off, the rate limits off so every case
   reaches its view; no Celery worker: what the views queue waits in a private queue, and
   is removed at the end) with the webhook's DNS look-up and HTTP POST replaced by stubs:
   a fuzzed URL is never looked up or called.
3. ``schemathesis run`` against ``/api/schema/`` (every operation, every method), as Ann,
   as Bob (another player: Ann's games' answers to a stranger), as the administrator and
   with no credentials; the path's ids are drawn mostly from the games, offers, seats and
   tournaments made in step 1, order texts from the legal orders' words. Checks: no 5xx,
   the status code, content type, headers and body documented for that operation.
4. Checks of its own after the runs: POST /api/games/ with one Idempotency-Key sent
   twice (and concurrently) makes one game; every game's audit log still verifies
   (``verify_game``), so no fuzzed call broke a game's records.

Needs PostgreSQL (127.0.0.1:5432, user postgres, trust) and Redis (127.0.0.1:6379), like
``bench/load.py``. schemathesis is installed on first use into ``var/fuzz-venv`` (its own
virtualenv, so the project's test dependencies stay as they are). Exit status 0 when
every run passed. Not part of the test suite: a full run takes minutes; each fault it
found has its own fast regression test in ``tests/``.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYTHON = str(ROOT / ".venv" / "bin" / "python")
FUZZ_VENV = ROOT / "var" / "fuzz-venv"
SCHEMATHESIS = "schemathesis>=4.30,<5"


def psql(sql: str) -> None:
    subprocess.run(
        [
            "psql",
            "-h",
            "127.0.0.1",
            "-U",
            "postgres",
            "-d",
            "postgres",
            "-v",
            "ON_ERROR_STOP=1",
            "-qc",
            sql,
        ],
        check=True,
        capture_output=True,
    )


def schemathesis_cli() -> str:
    """The ``schemathesis`` command of ``var/fuzz-venv``, installed there when missing."""
    cli = FUZZ_VENV / "bin" / "schemathesis"
    if not cli.exists():
        print(f"Installing {SCHEMATHESIS} into {FUZZ_VENV} ...", flush=True)
        subprocess.run([PYTHON, "-m", "venv", str(FUZZ_VENV)], check=True)
        subprocess.run(
            [str(FUZZ_VENV / "bin" / "python"), "-m", "pip", "install", "--quiet", SCHEMATHESIS],
            check=True,
        )
    return str(cli)


# --- step 1: the data (run in a child process with the site's environment) -------------


def setup_data() -> dict[str, Any]:
    """Make the players, games, offers and tokens the fuzzer aims at; returns their ids."""
    import django

    django.setup()
    stub_webhook_network()
    from fivex_site.celery import app

    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True  # the set-up's own tasks run here, at once
    try:
        return _setup_data_now()
    finally:
        app.conf.task_always_eager = eager


def _setup_data_now() -> dict[str, Any]:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from games.models import Game, SeatOffer
    from games.services import webhooks
    from games.services.games import game_create, game_join, game_start
    from games.services.handover import seat_offer
    from games.services.organizer import game_end, game_pause
    from games.services.tokens import api_token_create
    from tournaments.models import Tournament

    call_command("demo_games", stdout=open(os.devnull, "w"))  # noqa: SIM115
    User = get_user_model()
    users = {
        u.username: u for u in User.objects.filter(username__in=["Ann", "Bob", "Cat", "Dan", "Eve"])
    }
    ann, bob, cat, dan, eve = (users[n] for n in ("Ann", "Bob", "Cat", "Dan", "Eve"))
    admin = User.objects.create_superuser("Root", "root@example.com", "unused-" + uuid.uuid4().hex)

    def started(
        organizer: Any, players: list[Any], *, seat_organizer: bool = True, **kw: Any
    ) -> Game:
        game = game_create(organizer=organizer, ruleset="5x", seats_count=len(players), **kw)
        for user in players:
            game_join(game=game, user=user, invite_token=game.invite_token)
        game.refresh_from_db()
        if game.status == Game.Status.FORMING:
            game_start(game=game, user=organizer)
        return game

    forming = game_create(organizer=ann, ruleset="5x", seats_count=4, name="Fuzz: forming")
    game_join(game=forming, user=ann)
    game_join(game=forming, user=bob)
    forming_private = game_create(
        organizer=bob, ruleset="6x5", seats_count=3, name="Fuzz: Bob's private", is_private=True
    )
    game_join(game=forming_private, user=bob, invite_token=forming_private.invite_token)
    paused = started(ann, [ann, bob, cat], name="Fuzz: paused")
    game_pause(game=paused, by=ann, reason="fuzz")
    abandoned = started(bob, [ann, bob, dan], name="Fuzz: abandoned")
    game_end(game=abandoned, by=bob, reason="fuzz")
    private_active = started(bob, [bob, cat, dan], name="Fuzz: private, not Ann's", is_private=True)
    organized = started(ann, [bob, cat, dan], name="Fuzz: Ann organizes, no seat")
    offer_by_ann = seat_offer(seat=organized.seats.get(user=dan), new_user=eve, by=ann)
    offered_to_ann = started(bob, [bob, cat, eve], name="Fuzz: a seat offered to Ann")
    offer_to_ann = seat_offer(seat=offered_to_ann.seats.get(user=eve), new_user=ann, by=bob)
    webhooks.webhook_save(user=ann, url="https://hooks.example.com/fivex")

    games = list(Game.objects.order_by("pk").values_list("pk", flat=True))
    return {
        "tokens": {
            "ann": api_token_create(user=ann),
            "bob": api_token_create(user=bob),
            "admin": api_token_create(user=admin),
        },
        "games": games,
        "named_games": {
            "forming": forming.pk,
            "forming_private": forming_private.pk,
            "paused": paused.pk,
            "abandoned": abandoned.pk,
            "private_active": private_active.pk,
            "organized": organized.pk,
            "offered_to_ann": offered_to_ann.pk,
        },  # fmt: skip
        "offers": sorted(
            {offer_by_ann.pk, offer_to_ann.pk, *SeatOffer.objects.values_list("pk", flat=True)}
        ),
        "tournaments": list(Tournament.objects.values_list("slug", flat=True)),
        "players": ["Ann", "ann", "Bob", "Eve", "eve@example.com", "Root", "nobody"],
    }


# --- step 2: the site ------------------------------------------------------------------


def stub_webhook_network() -> None:
    """The webhook's DNS look-up and POST replaced: ``*.example.com`` resolves to a
    public address (so a webhook can be set), any other name does not exist, and no POST
    is ever sent. A fuzzed URL is never looked up or called."""

    from games.services import webhook_http

    def fake_resolve(host: str, port: int, seconds: float) -> list[tuple]:
        if host == "example.com" or host.endswith(".example.com"):
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", port))]
        raise socket.gaierror(socket.EAI_NONAME, "stubbed: not looked up")

    def fake_post(*, url: str, body: bytes, headers: dict[str, str], timeout: float) -> Any:
        raise OSError("stubbed: the fuzzing site calls no webhook")

    webhook_http._resolve = fake_resolve
    webhook_http.post = fake_post


def serve(port: int) -> None:
    """runserver on ``port``, the webhook's network calls stubbed (child process)."""
    import django

    django.setup()
    from django.core.management import call_command

    stub_webhook_network()
    call_command("runserver", f"127.0.0.1:{port}", use_reloader=False, use_threading=True)


# --- step 3 and 4 ----------------------------------------------------------------------


def config_toml(data: dict[str, Any], max_examples: int, seed: int | None) -> str:
    """schemathesis.toml: the ids of step 1 as dictionaries bound to the path's ids."""
    games = data["games"] + [0, 999999]
    orders = ["PLAY EXPAND", "PASS", "BID 1", "TAKE", "PLAY EXPLOIT", "pass  caesar", "# note"]
    lines = [
        f"generation.max-examples = {max_examples}",
        *([f"seed = {seed}"] if seed is not None else []),
        "",
        f"[dictionaries.game_ids]\nvalues = {json.dumps(games)}",
        f"[dictionaries.offer_ids]\nvalues = {json.dumps(data['offers'] + [0, 999999])}",
        "[dictionaries.positions]\nvalues = [0, 1, 2, 3, 4, 5, 7]",
        f"[dictionaries.slugs]\nvalues = {json.dumps(data['tournaments'] + ['nope'])}",
        f"[dictionaries.orders]\nvalues = {json.dumps(orders)}",
        f"[dictionaries.players]\nvalues = {json.dumps(data['players'])}",
        "[dictionaries.prompts]\nvalues = [0, 1, 2, 3, 5, 8, 9, 10, 11]",
        "",
        # A valid request may still meet a refusal that only the data says: the game's
        # state (403, 404, 409), an order the rules refuse (422), a cap (429). Not 400.
        "[checks.positive_data_acceptance]",
        'expected-statuses = ["2XX", "304", "401", "403", "404", "409", "422", "429"]',
        "",
        "[parameters]",
        '"path.game_id" = { dictionary = "game_ids", probability = 0.9 }',
        '"path.offer_id" = { dictionary = "offer_ids", probability = 0.9 }',
        '"path.position" = { dictionary = "positions", probability = 0.9 }',
        '"path.slug" = { dictionary = "slugs", probability = 0.8 }',
        '"body.text" = { dictionary = "orders", probability = 0.5 }',
        '"body.player" = { dictionary = "players", probability = 0.7 }',
        '"body.prompt" = { dictionary = "prompts", probability = 0.6 }',
    ]
    return "\n".join(lines) + "\n"


CHECKS = (
    "not_a_server_error,status_code_conformance,content_type_conformance,"
    "response_headers_conformance,response_schema_conformance,negative_data_rejection"
)

RUNS = {
    # name: (Authorization header or None, extra arguments)
    "ann": ("ann", []),
    "bob": ("bob", []),
    "admin": ("admin", []),
    "anonymous": (None, []),
}


def run_schemathesis(
    cli: str,
    port: int,
    workdir: Path,
    who: str,
    token: str | None,
    phases: str,
    only: str | None,
    checks: str,
) -> int:
    command = [
        cli, "run", f"http://127.0.0.1:{port}/api/schema/",
        "--url", f"http://127.0.0.1:{port}",
        "--checks", checks,
        "--phases", phases, "--workers", "2", "--request-timeout", "30",
        "--suppress-health-check", "all", "--continue-on-failure",
        "--report", "junit", "--report-dir", str(workdir / f"report-{who}"),
        "--warnings", "off",
    ]  # fmt: skip
    if token:
        command += ["-H", f"Authorization: Token {token}"]
    if only:
        command += ["--include-path-regex", only]
    print(f"\n=== schemathesis as {who} ===", flush=True)
    return subprocess.run(command, cwd=workdir).returncode


def http(
    port: int, method: str, path: str, token: str, body: Any = None, headers: dict | None = None
) -> tuple[int, Any]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json", **(headers or {})},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def check_idempotency(port: int, token: str) -> list[str]:
    """One Idempotency-Key sent twice, then eight times at once: one game each."""
    problems = []
    key = str(uuid.uuid4())
    body = {"ruleset": "5x", "seats_count": 3, "name": "idempotency"}
    first = http(port, "POST", "/api/games/", token, body, {"Idempotency-Key": key})
    again = http(port, "POST", "/api/games/", token, body, {"Idempotency-Key": key})
    if first[0] != 201 or again[0] != 200 or first[1].get("id") != again[1].get("id"):
        problems.append(
            f"Idempotency-Key sent twice: {first[0]} {again[0]}, games {first[1]} / {again[1]}"
        )
    key = str(uuid.uuid4())
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        answers = list(
            pool.map(
                lambda _: http(port, "POST", "/api/games/", token, body, {"Idempotency-Key": key}),
                range(8),
            )
        )
    ids = {a[1].get("id") for a in answers if a[0] in (200, 201)}
    if len(ids) != 1 or sorted(a[0] for a in answers).count(201) != 1:
        problems.append(
            f"Idempotency-Key sent 8 times at once: {[a[0] for a in answers]}, games {ids}"
        )
    return problems


def check_games(env: dict[str, str], games: list[int]) -> list[str]:
    problems = []
    for game in games:
        result = subprocess.run(
            [PYTHON, "manage.py", "verify_game", str(game)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        if result.returncode != 0 and "has not started" not in result.stderr:
            problems.append(
                f"verify_game {game}: {result.stdout.strip()[-400:]} {result.stderr.strip()[-400:]}"
            )
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--port", type=int, default=8120)
    parser.add_argument(
        "--max-examples", type=int, default=60, help="cases per operation and phase"
    )
    parser.add_argument("--seed", type=int)
    parser.add_argument("--phases", default="examples,coverage,fuzzing,stateful")
    parser.add_argument("--only", help="only the paths matching this regular expression")
    parser.add_argument("--as", dest="who", default=",".join(RUNS), help="runs: " + ",".join(RUNS))
    parser.add_argument(
        "--checks", default=CHECKS, help=f"schemathesis's checks (default {CHECKS})"
    )
    parser.add_argument("--keep", action="store_true", help="keep the database and the work folder")
    parser.add_argument("--redis-db", type=int, default=9)
    parser.add_argument("--setup-data", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.setup_data:
        print(json.dumps(setup_data()))
        return 0
    if args.serve:
        serve(args.port)
        return 0

    with socket.socket() as probe:  # another site there would be fuzzed in its stead
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as runserver: not TIME_WAIT
        try:
            probe.bind(("127.0.0.1", args.port))
        except OSError:
            parser.error(f"port {args.port} is in use: choose another with --port")
    # Ctrl-C or a kill: the server stopped and the database dropped all the same.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    cli = schemathesis_cli()
    database = f"fivex_fuzz_{os.getpid()}"
    queue = f"fivex-fuzz-{uuid.uuid4().hex[:10]}"
    workdir = ROOT / "var" / f"fuzz-{time.strftime('%Y%m%d-%H%M%S')}"
    workdir.mkdir(parents=True)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "fivex_site.settings",
        "FIVEX_ENV": "development",
        "DJANGO_DEBUG": "false",
        "LOG_LEVEL": "WARNING",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{database}",
        "CELERY_BROKER_URL": f"redis://127.0.0.1:6379/{args.redis_db}",
        "CELERY_TASK_DEFAULT_QUEUE": queue,
        "EMAIL_BACKEND": "django.core.mail.backends.dummy.EmailBackend",
        "FIVEX_BASE_URL": f"http://127.0.0.1:{args.port}",
        "PYTHONUNBUFFERED": "1",
        **{
            f"API_{name}_RATE": "off"
            for name in ("ORDERS", "GAMES_CREATE", "ORGANIZER", "WEBHOOK", "ACCOUNT_EXPORT",
                         "CALENDAR", "CALENDAR_FEED", "CALENDAR_FEED_MISS", "FEED")
        },
    }
    psql(f'CREATE DATABASE "{database}"')
    server = None
    failures: list[str] = []
    try:
        subprocess.run(
            [PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True
        )
        made = subprocess.run(
            [PYTHON, __file__, "--setup-data"], cwd=ROOT, env={**env, "DJANGO_DEBUG": "true"},
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        data = json.loads(made.stdout.strip().splitlines()[-1])
        (workdir / "data.json").write_text(json.dumps(data, indent=1))
        (workdir / "schemathesis.toml").write_text(config_toml(data, args.max_examples, args.seed))
        log = (workdir / "server.log").open("wb")
        server = subprocess.Popen(
            [PYTHON, __file__, "--serve", "--port", str(args.port)], cwd=ROOT, env=env,
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{args.port}/api/ping/", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError(
                        f"the site did not start: see {workdir / 'server.log'}"
                    ) from None
                time.sleep(0.3)
        for who in args.who.split(","):
            token_name, _ = RUNS[who]
            token = data["tokens"][token_name] if token_name else None
            if run_schemathesis(
                cli, args.port, workdir, who, token, args.phases, args.only, args.checks
            ):
                failures.append(f"schemathesis as {who}: see above and {workdir / f'report-{who}'}")
        failures += check_idempotency(args.port, data["tokens"]["ann"])
        failures += check_games(env, data["games"])
    finally:
        if server is not None and server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=15)
        try:
            import redis

            client = redis.Redis.from_url(env["CELERY_BROKER_URL"])
            client.delete(queue, f"{queue}.resolution", f"{queue}.mail")
        except Exception:  # noqa: BLE001 - best-effort cleanup
            pass
        if not args.keep:
            psql(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
    print("\n" + ("\n".join(["FAILED:", *failures]) if failures else "every run passed"))
    print(f"reports and the server's log: {workdir}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
