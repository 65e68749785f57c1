"""6x5 and 4X Dice played from creation to the end through the REST API, each checked
against the engine runner replaying the same seed and orders: a new game costs one
ruleset module and nothing in the games room."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tests.games.web_support import eager_celery, make_user, token_client  # noqa: F401

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def play_through_api(ruleset: str, names: list[str], options: dict, capture, seed: int) -> tuple[dict, dict]:
    """Create, join and play a game with random legal orders from the API's own
    ``legal_orders``; return the export and the orders sent, prompt by prompt."""
    clients = {n: token_client(make_user(n)) for n in names}
    created = clients[names[0]].post(
        "/api/games/", {"ruleset": ruleset, "seats_count": len(names), "options": options}, format="json"
    )
    assert created.status_code == 201, created.content
    game_id = created.json()["id"]
    for name in names:
        with capture(execute=True):
            assert clients[name].post(f"/api/games/{game_id}/join/", {}, format="json").status_code == 201
    rng = random.Random(seed)
    steps: dict[int, dict[str, str]] = {}
    for _ in range(1000):
        overview = clients[names[0]].get(f"/api/games/{game_id}/").json()
        if overview["game"]["status"] == "finished":
            break
        for name in overview["prompt"]["pending"]:
            data = clients[name].get(f"/api/games/{game_id}/").json()
            assert data["legal_orders"], f"{name} is pending with no legal order"
            text = rng.choice(data["legal_orders"])
            with capture(execute=True):
                answer = clients[name].post(f"/api/games/{game_id}/orders/", {"text": text}, format="json")
            # 201 stored now; 200 when the one legal order was already entered (forced).
            forced = data["my_order"] is not None and data["my_order"]["source"] == "forced"
            assert answer.status_code == (200 if forced else 201), answer.content
            steps.setdefault(answer.json()["prompt"], {})[name] = text
    else:
        raise AssertionError("the game did not finish")
    export = clients[names[-1]].get(f"/api/games/{game_id}/export/")
    assert export.status_code == 200, export.content
    # The log's revealed orders are the ones sent, plus those the site entered for seats
    # that were not asked (4X Dice: the last round's allocations, which change nothing).
    revealed = {
        e["payload"]["prompt"]: {seat: o["text"] for seat, o in e["payload"]["orders"].items()}
        for e in export.json()["entries"] if e["kind"] == "orders_revealed"
    }  # fmt: skip
    for number, sent in steps.items():
        assert revealed[number] == {**revealed[number], **sent}, (number, sent)
    final = clients[names[-1]].get(f"/api/games/{game_id}/").json()
    return export.json()["game"], {"steps": revealed, "sent": steps, "final": final}


def runner(record: dict, steps: dict, tmp_path: Path) -> dict:
    script = {
        "game": record["ruleset"] if "ruleset" in record else record["game"],
        "players": record["players"],
        "options": record["options"],
        "seed": record["seed"],
        "setup": record["setup"] or {},
        "orders": [steps[n] for n in sorted(steps)],
    }
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    run = subprocess.run([sys.executable, "-m", "engine", "run", str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    return json.loads(run.stdout)


def test_6x5_game_through_the_api(eager_celery, django_capture_on_commit_callbacks, tmp_path):  # noqa: F811
    record, played = play_through_api("6x5", ["hex", "tile"], {"max_turns": 40},
                                      django_capture_on_commit_callbacks, seed=6)
    printed = runner(record, played["steps"], tmp_path)
    assert printed["status"] == "over"
    view = played["final"]["view"]
    assert view["ranking"] == printed["ranking"]
    assert view["board"] == printed["board"]
    assert view["reserve"] == printed["reserve"]
    # The finished game's page gives its result and the ranking, places numbered.
    from django.test import Client

    page = Client().get(f"/games/{played['final']['game']['id']}/")
    html = page.content.decode()
    assert page.status_code == 200 and 'id="final-ranking"' in html
    expected = "Final ranking: " + " &nbsp; ".join(
        f"{place}. {' = '.join(group)}"
        for place, group in zip(
            [1 + sum(len(g) for g in printed["ranking"][:i]) for i in range(len(printed["ranking"]))],
            printed["ranking"],
            strict=True,
        )
    )
    assert " ".join(expected.split()) in " ".join(html.split())


def test_4x_dice_game_through_the_api(eager_celery, django_capture_on_commit_callbacks, tmp_path):  # noqa: F811
    record, played = play_through_api("4x-dice", ["orb", "ray", "sol"], {"dice": 4},
                                      django_capture_on_commit_callbacks, seed=4)
    printed = runner(record, played["steps"], tmp_path)
    assert printed["status"] == "over"
    # The last round's allocations were entered, not asked: the runner still needs them.
    assert set(played["steps"]) - set(played["sent"])
    view = played["final"]["view"]
    assert view["ranking"] == printed["ranking"]
    for name in ("orb", "ray", "sol"):
        assert view["players"][name]["score"] == printed["players"][name]["score"]
