"""``python -m engine verify`` on exports that are not a game's log: a precise verdict
and exit 1 (problems) or 2 (not an export), never "OK" and never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

LINK = {"seq": 1, "kind": "game_created", "payload": {}, "prev_hash": "0" * 64, "hash": "x", "created_at": ""}

CASES = [
    ({"format": "fivex-game-log/1", "entries": []}, 1, "the log has no entries: nothing to verify"),
    ({"format": "something-else/9", "entries": [LINK]}, 1, "not a fivex-game-log/1 export (format 'something-else/9')"),
    ({"entries": [1]}, 1, "entry #1 of the list is not a log entry"),
    ({"entries": [{**LINK, "payload": "text"}]}, 1, "entry #1 of the list is not a log entry"),
    ({"game": [], "entries": [LINK]}, 1, "its game record is not an object"),
    ({"entries": [LINK, {**LINK, "seq": 2, "kind": "orders_revealed", "payload": {"prompt": 1, "orders": {"ann": "PASS X"}}}]},
     1, "entry 2: order of ann is not an object"),
    ({"entries": [LINK, {**LINK, "seq": 2, "kind": "orders_revealed", "payload": {"prompt": 1, "orders": ["PASS X"]}}]},
     1, "entry 2: its orders are not an object of seat: order"),
    ({"entries": {}}, 2, "not a game export (no entries list)"),
]  # fmt: skip


@pytest.mark.parametrize(("export", "code", "said"), CASES)
def test_verify_refuses_what_is_not_a_games_log(tmp_path, export, code, said) -> None:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "engine", "verify", str(path)], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == code, run.stdout + run.stderr
    assert said in run.stdout, run.stdout
    assert "Traceback" not in run.stderr and "OK:" not in run.stdout
