"""Long-lived processes keep what start-up made out of the garbage collector's passes
(fivex_site/startup.py): the web application once loaded, each Celery worker (solo pool
or prefork child) and the beat once started. Each case runs in a fresh interpreter: the
test process's own collector state is not the one a server has."""

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

# The number of objects start-up leaves in a FiveX process is ~100,000; a process that
# froze nothing reports the interpreter's own few hundred (375 with CPython 3.12). The
# bounds are far from both.
FROZEN_AT_LEAST = 20_000
INTERPRETERS_OWN_AT_MOST = 2_000


def frozen_after(code: str) -> tuple[int, set[str], int | None]:
    """Run ``code`` in a new interpreter; return gc.get_freeze_count() after it, which
    of the modules a first request or resolution needs were already imported, and the
    count ``code`` kept as ``before`` (None: it kept none)."""
    probe = (
        "import gc, sys\n" + code + "\n"
        "wanted = ['games.views', 'tournaments.views', 'engine.fivex', 'engine.sixbyfive', 'engine.fourxdice']\n"
        "print(gc.get_freeze_count(), globals().get('before', -1),"
        " ' '.join(m for m in wanted if m in sys.modules))\n"
    )
    # A development process, named as make run names its own (a web server or beat given
    # no environment on the development defaults refuses to start: fivex_site/deployment.py).
    env = {"FIVEX_ENV": "development", **os.environ}
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120,
        check=True, env=env,
    ).stdout.split()
    before = int(out[1])
    return int(out[0]), set(out[2:]), None if before < 0 else before


def test_the_web_application_loads_its_views_and_engines_then_freezes():
    count, loaded, _ = frozen_after("import fivex_site.wsgi")
    assert count > FROZEN_AT_LEAST
    assert loaded == {"games.views", "tournaments.views", "engine.fivex", "engine.sixbyfive", "engine.fourxdice"}


@pytest.mark.parametrize("signal", ["worker_ready", "worker_process_init", "beat_init"])
def test_celery_processes_freeze_once_started_and_not_before(signal):
    # Nothing is frozen before start-up ends (a process that only set Django up and loaded
    # the Celery app): the figures after are the freeze's, not the interpreter's. (That
    # was a process of its own; it is the same process up to the signal.)
    count, loaded, before = frozen_after(
        "import django, os\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'fivex_site.settings')\n"
        "django.setup()\n"
        "import fivex_site.celery\n"
        "from celery import signals\n"
        "before = gc.get_freeze_count()\n"
        f"signals.{signal}.send(sender=None)"
    )
    assert before < INTERPRETERS_OWN_AT_MOST
    assert count > FROZEN_AT_LEAST
    assert {"engine.fivex", "games.views"} <= loaded
