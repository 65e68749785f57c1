"""The operator's log does not name the tokens of the paths it reports (a calendar's
feed, a game's invitation): Django's request, development server and security lines
mask them. Other lines keep their long runs (task ids, hashes). Checked on the console
handler the settings configure, in a process of its own."""

from __future__ import annotations

import os
import subprocess
import sys

from fivex_site.errors import CLEANSED
from tests.conftest import ROOT

TOKEN = "Zq8w3Jm9Xv2Lk5Tt7Rb1Nc4Hd6Gf0Ye"

SCRIPT = f"""
import django, logging
django.setup()
logging.getLogger("django.request").warning("Not Found: %s", "/calendar/{TOKEN}.ics")
logging.getLogger("django.server").info('"%s" %s %s', "GET /games/1/invite/{TOKEN}/ HTTP/1.1", "200", "12")
logging.getLogger("django.security.csrf").warning(
    "Forbidden (%s): %s", "CSRF cookie not set.", "/games/5/invite/{TOKEN}/")
logging.getLogger("games.tasks").warning("task %s done", "{TOKEN}")
"""


def test_request_server_and_security_lines_mask_tokens_and_others_keep_theirs():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "fivex_site.settings", "PYTHONUNBUFFERED": "1"}
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    by_logger = {name: next((ln for ln in lines if f" {name}: " in ln), "") for name in (
        "django.request", "django.server", "django.security.csrf", "games.tasks")}
    assert by_logger["django.request"].endswith(f"Not Found: /calendar/{CLEANSED}.ics"), lines
    assert f"/games/1/invite/{CLEANSED}/" in by_logger["django.server"], lines
    assert by_logger["django.security.csrf"].endswith(
        f"Forbidden (CSRF cookie not set.): /games/5/invite/{CLEANSED}/"), lines
    assert by_logger["games.tasks"].endswith(f"task {TOKEN} done"), lines
    assert sum(TOKEN in ln for ln in lines) == 1, lines
