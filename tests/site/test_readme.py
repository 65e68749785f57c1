"""What the README tells a new operator holds on a fresh machine (a fresh-machine audit
followed it to the letter)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
SETTINGS = "\n".join(p.read_text() for p in (ROOT / "fivex_site" / "settings").glob("*.py"))


def test_every_setting_the_readme_names_is_read_from_the_environment() -> None:
    """The README named GAMES_SEAT_OFFER_DAYS as if it were configurable; no settings
    module read it (the code's default, 7 days, was all there was)."""
    named = set(re.findall(r"`((?:GAMES|MAIL|API|WEBHOOKS)_[A-Z_]+)`", README))
    assert named
    unread = sorted(name for name in named if f'"{name}"' not in SETTINGS)
    assert unread == []


def test_ingest_email_exit_statuses_are_all_documented() -> None:
    """ingest_email exits 64 (EX_USAGE) without a recipient; the README listed 0, 67, 75."""
    from games.mail.management.commands import ingest_email

    codes = {
        value for name, value in vars(ingest_email).items() if name.startswith("EX_")
    }
    assert codes == {0, 64, 67, 75}
    section = README[README.index("`ingest_email` reads one message") :][:1500]
    documented = {int(c) for c in re.findall(r"`(\d+)`", section[section.index("Exit status") :])}
    assert codes <= documented


def test_the_api_example_needs_no_uuidgen() -> None:
    """`uuidgen` is missing on a fresh Debian: the create call then went out with an empty
    Idempotency-Key."""
    assert "uuidgen" not in README
    assert """Idempotency-Key: $(python3 -c 'import uuid; print(uuid.uuid4())')""" in README


def test_the_readme_lists_every_beat_job_with_its_interval() -> None:
    """The README's list of the scheduler's jobs left out the hourly `expire-seat-offers`
    (a README audit): it now names each job of CELERY_BEAT_SCHEDULE, and only those."""
    from django.conf import settings

    every = {"minute": 60.0, "five minutes": 300.0, "hour": 3600.0, "day": 86400.0}
    section = README[README.index("on exactly **one** machine, the scheduler") :][:2500]
    listed = {
        name: every[interval]
        for name, interval in re.findall(r"^- `([a-z-]+)`, every ([a-z ]+):", section, re.M)
    }
    scheduled = {name: job["schedule"] for name, job in settings.CELERY_BEAT_SCHEDULE.items()}
    assert "expire-seat-offers" in scheduled
    assert listed == scheduled


def _readme_production_environment() -> dict[str, str]:
    """The variables the README's production section exports, as its shell would read them."""
    import shlex

    section = README[README.index("## Production: several machines") :]
    block = section[section.index("```sh") : section.index("```", section.index("```sh") + 5)]
    env: dict[str, str] = {}
    for line in block.splitlines():
        if line.startswith("export "):
            env.update(word.split("=", 1) for word in shlex.split(line, comments=True)[1:])
    return env


def _production(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    import os
    import sys

    clean = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env={**clean, **env},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_the_readme_production_secret_key_placeholder_is_refused() -> None:
    """The production environment copied as the README gives it, `SECRET_KEY=...`, ran
    (a three-character key signing every session and password-reset link); `check
    --deploy` only warned."""
    env = _readme_production_environment()
    assert env["SECRET_KEY"] == "..."
    done = _production(env, "check")
    assert done.returncode != 0
    assert "SECRET_KEY" in done.stderr and "at least 50" in done.stderr
    assert "secrets.token_urlsafe(50)" in README


def test_check_deploy_on_the_readme_production_settings_is_clean() -> None:
    """`manage.py check --deploy` with the README's production environment (and a real key)
    warned of HSTS for subdomains and preloading (security.W005, W021): the environment
    the README gives is one `check --deploy` has nothing to say about, at any level."""
    import secrets

    env = {**_readme_production_environment(), "SECRET_KEY": secrets.token_urlsafe(50)}
    done = _production(env, "check", "--deploy", "--fail-level", "DEBUG")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout


def test_check_deploy_asks_for_the_hsts_decisions_the_readme_explains() -> None:
    """HSTS for subdomains and preloading stay off by default and `check --deploy` says so
    (W005, W021) until the operator decides (either value set): the README names them."""
    import secrets

    env = {**_readme_production_environment(), "SECRET_KEY": secrets.token_urlsafe(50)}
    for decided in ("SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD"):
        env.pop(decided)
    done = _production(env, "check", "--deploy")
    assert done.returncode == 0, done.stderr
    warned = set(re.findall(r"\((security\.W\d+)\)", done.stdout + done.stderr))
    assert warned == {"security.W005", "security.W021"}
    assert all(f"`{w}`" in README for w in warned)
