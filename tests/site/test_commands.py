"""The commands behind `make run`: demo_setup (once) and runall (three processes, one Ctrl-C)."""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from io import StringIO
from pathlib import Path

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core.management import call_command

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.mark.django_db
def test_demo_setup_creates_the_organizer_once_and_prints_the_password_once(client) -> None:
    first = StringIO()
    call_command("demo_setup", stdout=first)
    password = first.getvalue().split("password:")[1].split()[0]
    assert len(password) >= 12
    user = get_user_model().objects.get(email="organizer@example.com")
    assert user.check_password(password)
    assert EmailAddress.objects.get(user=user).verified is True
    second = StringIO()
    call_command("demo_setup", stdout=second)
    assert password not in second.getvalue()
    assert "organizer@example.com" in second.getvalue()
    assert "make demo" in second.getvalue()  # the way to try the site alone
    # The way to set a new password, as the README runs manage.py: a bare `python` is no
    # Python on a fresh Debian, or one without Django (it is installed in .venv only).
    command = re.search(r"`([^`]*changepassword[^`]*)`", second.getvalue()).group(1)
    # Named a development site's: without FIVEX_ENV the command refuses (fivex_site/deployment.py).
    assert command.split()[:4] == ["FIVEX_ENV=development", ".venv/bin/python", "manage.py", "changepassword"]
    assert get_user_model().objects.filter(email="organizer@example.com").count() == 1
    login = client.post(
        "/accounts/login/", {"login": "organizer@example.com", "password": password}
    )
    assert login.status_code == 302


@pytest.mark.django_db
def test_demo_setup_creates_the_demo_game_once_and_three_joins_start_it(client) -> None:
    from games.models import Game
    from games.services.games import game_join

    call_command("demo_setup", stdout=StringIO())
    call_command("demo_setup", stdout=StringIO())
    game = Game.objects.get()  # once, not once per run
    assert (game.ruleset, game.status, game.is_private) == ("5x", "forming", False)
    assert game.organizer.email == "organizer@example.com"
    assert game.seats.count() == 0  # the organizer organizes, it does not play
    users = [
        get_user_model().objects.create_user(username=f"p{i}", email=f"p{i}@example.com")
        for i in range(3)
    ]
    # A newcomer finds it on the games list, open to join.
    client.force_login(users[0])
    assert game.name in client.get("/games/").content.decode()
    for user in users:
        game_join(game=game, user=user)
    game.refresh_from_db()
    assert game.status == "active"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _children_of(pid: int) -> set[int]:
    """Every live descendant of ``pid`` (from /proc, no psutil needed)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


# A parent that starts runall and waits, as make does; it dies of SIGTERM without
# passing the signal on (make's behaviour when it is sent SIGTERM).
_PARENT = "import subprocess, sys; sys.exit(subprocess.Popen(sys.argv[1:]).wait())"


# Started under nohup: the hang-up is ignored, and exec keeps it ignored.
_NOHUP = "import os, signal, sys; signal.signal(signal.SIGHUP, signal.SIG_IGN); os.execv(sys.argv[1], sys.argv[1:])"


@pytest.mark.parametrize("stop", ["ctrl-c", "hangup", "parent killed", "hangup under nohup"])
def test_runall_serves_and_stops_web_worker_and_beat_together(tmp_path, stop) -> None:
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'run.sqlite3'}",
        "CELERY_BROKER_URL": "filesystem://",
        "CELERY_FILESYSTEM_BROKER_DIR": str(tmp_path / "broker"),
        "CELERY_RESULT_BACKEND": "",
        "CELERY_BEAT_SCHEDULE_FILENAME": str(tmp_path / "beat-schedule"),
        "CELERY_TASK_DEFAULT_QUEUE": f"runall-test-{port}",
    }
    log = (tmp_path / "runall.log").open("wb")
    command = [sys.executable, "manage.py", "runall", "--addrport", f"127.0.0.1:{port}",
               "--concurrency", "1"]  # fmt: skip
    if stop == "parent killed":
        command = [sys.executable, "-c", _PARENT, *command, "--stop-with-parent"]
    elif stop == "hangup under nohup":
        command = [sys.executable, "-c", _NOHUP, *command]
    started = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    runall = started
    children: set[int] = set()
    try:
        body = None
        deadline = time.monotonic() + 60
        while body is None and time.monotonic() < deadline:
            assert runall.poll() is None, (tmp_path / "runall.log").read_text()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
                    body = json.load(r)
            except OSError:
                time.sleep(0.5)
        assert body is not None, (tmp_path / "runall.log").read_text()
        assert body["broker"]["transport"] == "filesystem"
        children = _children_of(started.pid)
        commands = [
            Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ") for pid in children
        ]
        assert any(b"runserver" in c for c in commands)
        assert any(b" worker " in c for c in commands)
        assert any(b" beat " in c for c in commands)

        if stop == "parent killed":
            [runall_pid] = [
                pid for pid, c in zip(children, commands, strict=True) if b" runall " in c
            ]
            started.send_signal(signal.SIGTERM)
            started.wait(timeout=10)
            deadline = time.monotonic() + 30
            while _alive(runall_pid) and time.monotonic() < deadline:
                time.sleep(0.2)
            assert not _alive(runall_pid), (tmp_path / "runall.log").read_text()
            assert "parent process is gone" in (tmp_path / "runall.log").read_text()
        elif stop == "hangup under nohup":
            runall.send_signal(signal.SIGHUP)
            time.sleep(2)
            assert runall.poll() is None and all(_alive(pid) for pid in children)
            runall.send_signal(signal.SIGINT)
            assert runall.wait(timeout=30) == 0
        else:
            # What Ctrl-C delivers, or what closing the terminal does.
            runall.send_signal(signal.SIGINT if stop == "ctrl-c" else signal.SIGHUP)
            assert runall.wait(timeout=30) == 0
        time.sleep(0.5)
        assert [pid for pid in children if _alive(pid)] == []
    finally:
        for pid in _children_of(started.pid) | children:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        if started.poll() is None:
            started.kill()
        log.close()


@pytest.mark.parametrize(
    ("addrport", "configured", "expected"),
    [
        ("127.0.0.1:8741", None, "http://127.0.0.1:8741"),
        ("8001", None, "http://127.0.0.1:8001"),
        ("localhost:8002", None, "http://localhost:8002"),
        ("[::1]:8003", None, "http://[::1]:8003"),
        ("0.0.0.0:8004", None, "http://127.0.0.1:8004"),  # this machine, the port served
        ("[::]:8006", None, "http://[::1]:8006"),
        ("127.0.0.1:8005", "https://play.example.org", "https://play.example.org"),
    ],
)
def test_runall_links_emails_to_the_address_it_serves(addrport, configured, expected) -> None:
    """From a league player's walk: `runall --addrport 127.0.0.1:8741` linked every email,
    invitation and calendar to port 8000 unless FIVEX_BASE_URL was set too."""
    from fivex_site.management.commands.runall import children_environment

    environ = {"PATH": "/usr/bin"} | ({"FIVEX_BASE_URL": configured} if configured else {})
    env = children_environment(addrport, environ)
    assert env.get("FIVEX_BASE_URL") == expected
    assert env["PATH"] == "/usr/bin"
    # Their lines reach a log file as they are written (an operations audit: runserver's
    # never appeared when the output was not a terminal).
    assert env["PYTHONUNBUFFERED"] == "1"
