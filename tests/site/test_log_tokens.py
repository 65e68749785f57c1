"""The operator's log does not name the tokens of the paths it reports (a calendar's
feed, a game's invitation): Django's 'Not Found' line and the development server's
request lines mask them. Other lines keep their long runs (task ids, hashes)."""

from __future__ import annotations

import logging

import pytest

from fivex_site.errors import CLEANSED

pytestmark = pytest.mark.django_db

TOKEN = "Zq8w3Jm9Xv2Lk5Tt7Rb1Nc4Hd6Gf0Ye"


def test_not_found_lines_mask_the_token_of_the_path(client, caplog):
    with caplog.at_level(logging.WARNING, logger="django.request"):
        assert client.get(f"/calendar/{TOKEN}.ics").status_code == 404
        assert client.get(f"/games/1/invite/{TOKEN}/").status_code == 404
    lines = [r.getMessage() for r in caplog.records if r.name == "django.request"]
    assert len(lines) == 2, lines
    assert all(TOKEN not in line and CLEANSED in line for line in lines), lines
    assert lines[0] == f"Not Found: /calendar/{CLEANSED}.ics"


def test_the_development_servers_request_lines_mask_tokens_and_others_keep_theirs(caplog):
    with caplog.at_level(logging.INFO):
        logging.getLogger("django.server").info('"%s" %s %s', f"GET /calendar/{TOKEN}.ics HTTP/1.1", "200", "12")
        logging.getLogger("games.tasks").info("task %s done", TOKEN)
    server = next(r for r in caplog.records if r.name == "django.server").getMessage()
    assert TOKEN not in server and f"/calendar/{CLEANSED}.ics" in server
    other = next(r for r in caplog.records if r.name == "games.tasks").getMessage()
    assert other == f"task {TOKEN} done"
