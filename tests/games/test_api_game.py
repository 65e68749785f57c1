"""A whole 5-player 5X game played through the REST API, checked against the engine
runner (`python -m engine run`) replaying the same seed and orders."""

from __future__ import annotations

import hashlib
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from games.models import Game
from tests.games.web_support import eager_celery, make_user, token_client  # noqa: F401

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
NAMES = ["ada", "ben", "cyd", "dee", "eli"]


def test_five_player_5x_game_through_the_api_matches_the_engine_runner(
    eager_celery,  # noqa: F811
    django_capture_on_commit_callbacks,
    tmp_path,
):
    users = {n: make_user(n) for n in NAMES}
    clients = {n: token_client(u) for n, u in users.items()}

    created = clients["ada"].post(
        "/api/games/", {"ruleset": "5x", "seats_count": 5, "name": "API five"}, format="json"
    )
    assert created.status_code == 201, created.content
    game_id = created.json()["id"]
    assert created.json()["status"] == "forming"
    assert created.json()["seats"] == []
    assert created.json()["require_sender_match"] is False
    strict = token_client(make_user("strict")).post(
        "/api/games/", {"ruleset": "5x", "seats_count": 3, "require_sender_match": True}, format="json"
    )
    assert strict.status_code == 201 and strict.json()["require_sender_match"] is True
    assert Game.objects.get(pk=strict.json()["id"]).require_sender_match is True

    for name in NAMES:
        with django_capture_on_commit_callbacks(execute=True):
            joined = clients[name].post(f"/api/games/{game_id}/join/", {}, format="json")
        assert joined.status_code == 201, joined.content
        assert joined.json()["name"] == name
    # The last seat filled the game: it started by itself.
    listing = clients["cyd"].get("/api/games/")
    assert listing.status_code == 200
    assert [g["id"] for g in listing.json()] == [game_id]
    assert listing.json()[0]["status"] == "active"
    assert len(listing.json()[0]["seed_commitment"]) == 64

    rng = random.Random(20261122)
    steps: dict[int, dict[str, str]] = {}
    receipts: dict[tuple[int, str], str] = {}
    finished = False
    for _ in range(200):  # 7 rounds of at most ~6 prompts each; bounded anyway
        overview = clients["ada"].get(f"/api/games/{game_id}/").json()
        if overview["game"]["status"] == "finished":
            finished = True
            break
        pending = overview["prompt"]["pending"]
        ready = set(overview["prompt"]["ready"])
        # Someone is asked: a prompt whose every order is in has been resolved already.
        assert pending and ready < set(pending)
        # The seats already in first: an order from another seat may resolve the prompt.
        for name in sorted(pending, key=lambda n: n not in ready):
            view = clients[name].get(f"/api/games/{game_id}/")
            assert view.status_code == 200
            data = view.json()
            assert data["seat"] == name
            if name in ready:  # its only legal order, entered for it: not asked
                assert data["my_order"]["source"] == "forced"
                assert data["legal_orders"] == [data["my_order"]["text"]]
                continue
            assert data["my_order"] is None
            assert data["legal_orders"], f"{name} is pending but has no legal order"
            assert data["legal_orders"] == data["view"]["orders"]
            text = rng.choice(data["legal_orders"])
            with django_capture_on_commit_callbacks(execute=True):
                answer = clients[name].post(
                    f"/api/games/{game_id}/orders/",
                    {"text": text, "prompt": data["prompt"]["number"]},
                    format="json",
                )
            assert answer.status_code == 201, answer.content
            receipt = answer.json()
            assert receipt["text"] == text
            assert receipt["prompt"] == data["prompt"]["number"]
            assert re.fullmatch(r"[0-9a-f]{64}", receipt["commitment"])
            steps.setdefault(receipt["prompt"], {})[name] = text
            receipts[(receipt["prompt"], name)] = receipt["commitment"]
            last = (name, text, receipt["prompt"], receipt["commitment"])
    assert finished, "the game did not finish"
    # The order that ended the game, sent again (a client that lost the answer): its
    # receipt, 200 (an API audit: a 409 "The game is over." said nothing of it).
    name, text, number, commitment = last
    again = clients[name].post(f"/api/games/{game_id}/orders/", {"text": text, "prompt": number}, format="json")
    assert again.status_code == 200, again.content
    assert (again.json()["commitment"], again.json()["prompt"]) == (commitment, number)
    other = clients[name].post(f"/api/games/{game_id}/orders/", {"text": "PLAY EXPAND", "prompt": number + 1},
                               format="json")  # fmt: skip
    assert other.status_code == 409 and other.json()["error"] == "game_finished"
    # 5 players with leaders: a draft and 7 rounds, each with at least a play prompt.
    assert len(steps) >= 8

    export = clients["ben"].get(f"/api/games/{game_id}/export/")
    assert export.status_code == 200, export.content
    assert_matches_schema(export.json(), "Export")  # typed in the schema (was "object")
    record = export.json()["game"]
    assert sorted(record["players"]) == sorted(NAMES)
    # The seed revealed at the end matches the commitment published at the start.
    assert (
        hashlib.sha256(f"{record['seed_salt']}:{record['seed']}".encode()).hexdigest()
        == record["seed_commitment"]
    )
    # Every receipt is verifiable from the revealed salt and text.
    revealed = {}
    forced_logged = set()
    for entry in export.json()["entries"]:
        if entry["kind"] == "orders_revealed":
            for seat, order in entry["payload"]["orders"].items():
                revealed[(entry["payload"]["prompt"], seat)] = order
        if entry["kind"] == "order_forced":
            forced_logged.add((entry["payload"]["prompt"], entry["payload"]["seat"]))
    assert set(receipts) <= set(revealed)
    for key, commitment in receipts.items():
        order = revealed[key]
        assert order["text"] == steps[key[0]][key[1]]
        assert order["source"] == "api"
        digest = hashlib.sha256(f"{order['salt']}:{order['text']}".encode()).hexdigest()
        assert digest == commitment
    # Every other order was a seat's only legal order, entered and logged for it.
    others = set(revealed) - set(receipts)
    assert {revealed[key]["source"] for key in others} <= {"forced"}
    assert others == forced_logged
    for (number, seat) in others:
        steps.setdefault(number, {})[seat] = revealed[(number, seat)]["text"]

    script = {
        "game": "5x",
        "players": record["players"],
        "options": record["options"],
        "seed": record["seed"],
        "setup": record["setup"] or {},
        "orders": [steps[n] for n in sorted(steps)],
    }
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    run = subprocess.run(
        [sys.executable, "-m", "engine", "run", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    printed = json.loads(run.stdout)
    assert printed["status"] == "over"

    final = clients["eli"].get(f"/api/games/{game_id}/").json()
    assert final["view"]["ranking"] == printed["ranking"]
    assert final["legal_orders"] == []
    for name in NAMES:
        mine = final["view"]["players"][name]
        theirs = printed["players"][name]
        assert (mine["resources"], mine["vp"], mine["wonders"]) == (
            theirs["resources"],
            theirs["vp"],
            theirs["wonders"],
        )
    game_row = clients["ada"].get("/api/games/").json()[0]
    assert game_row["status"] == "finished"
    assert game_row["ranking"] == printed["ranking"]
    # The log is public once the game is over.
    log = clients["dee"].get(f"/api/games/{game_id}/log/")
    assert log.status_code == 200
    assert log.json()["entries"][-1]["kind"] == "game_finished"


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_orders_over_the_api_are_resolved_by_a_real_worker(celery_worker_process):
    import time

    from games.services import games as game_services

    users = {n: make_user(n) for n in ("ann", "bob", "cat")}
    game = game_services.game_create(
        organizer=users["ann"],
        ruleset="5x",
        seats_count=3,
        setup={"deal": {"ann": ["GANDHI", "CAESAR"], "bob": ["QIN", "DIDO"], "cat": ["NAPOLEON", "TOKUGAWA"]}},
    )
    for user in users.values():
        game_services.game_join(game=game, user=user)
    clients = {n: token_client(u) for n, u in users.items()}
    for name, text in (("ann", "PASS GANDHI"), ("bob", "PASS DIDO"), ("cat", "PASS TOKUGAWA")):
        answer = clients[name].post(f"/api/games/{game.pk}/orders/", {"text": text}, format="json")
        assert answer.status_code == 201, answer.content
    deadline = time.monotonic() + 30
    while True:
        view = clients["ann"].get(f"/api/games/{game.pk}/").json()
        if view["prompt"]["number"] == 2:
            break
        assert time.monotonic() < deadline, celery_worker_process.log()
        time.sleep(0.2)
    assert view["prompt"]["phase"] == "play"
    # ann kept CAESAR and received the leader her right-hand neighbour passed.
    assert "CAESAR" in view["view"]["hand"] and "GANDHI" not in view["view"]["hand"]
    assert "PLAY CAESAR" in view["legal_orders"]


def assert_matches_schema(body, component: str) -> None:
    """``body`` validates against the OpenAPI schema's ``component`` (JSON Schema 2020-12,
    as OpenAPI 3.1 writes it), every property of it named there."""
    import jsonschema
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]

    def closed(node):  # no property the schema does not name
        if isinstance(node, dict):
            node = {k: closed(v) for k, v in node.items()}
            if node.get("type") == "object" and "properties" in node:
                node.setdefault("additionalProperties", False)
            return node
        if isinstance(node, list):
            return [closed(v) for v in node]
        return node

    root = {"$ref": f"#/components/schemas/{component}", "components": {"schemas": closed(components)}}
    jsonschema.Draft202012Validator(root).validate(body)




def test_an_idempotency_key_creates_one_game_however_often_sent(eager_celery):  # noqa: F811
    """A client retrying after a timeout made a second game; with Idempotency-Key the
    retry answers the first (200), as payment APIs do."""
    ann, bob = make_user("ann"), make_user("bob")
    body = {"ruleset": "6x5", "seats_count": 2, "name": "Retry"}
    first = token_client(ann).post("/api/games/", body, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    again = token_client(ann).post("/api/games/", body, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json()["id"] == again.json()["id"] and again["Location"] == first["Location"]
    assert Game.objects.filter(name="Retry").count() == 1
    other = token_client(ann).post("/api/games/", body, format="json", HTTP_IDEMPOTENCY_KEY="k-2")
    theirs = token_client(bob).post("/api/games/", body, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    plain = token_client(ann).post("/api/games/", body, format="json")
    assert (other.status_code, theirs.status_code, plain.status_code) == (201, 201, 201)
    assert Game.objects.filter(name="Retry").count() == 4
    bad = token_client(ann).post("/api/games/", body, format="json", HTTP_IDEMPOTENCY_KEY="a b")
    assert bad.status_code == 400 and "Idempotency-Key" in bad.json()["fields"]
    # The key with other parameters: refused, not answered with a game it did not ask for
    # (a code review: a private 5X game asked for got the 6x5 game back).
    other_body = {"ruleset": "5x", "seats_count": 5, "is_private": True}
    reused = token_client(ann).post("/api/games/", other_body, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert reused.status_code == 422 and reused.json()["error"] == "idempotency_key_reused"
    assert Game.objects.count() == 4


def test_the_schema_declares_the_422_of_a_reused_idempotency_key(client):
    """An API audit (schemathesis): POST /api/games/ answers 422 idempotency_key_reused,
    which its schema did not declare. Every operation taking the header declares it."""
    ann = token_client(make_user("ann"))
    body = {"ruleset": "6x5", "seats_count": 2}
    assert ann.post("/api/games/", body, format="json", HTTP_IDEMPOTENCY_KEY="k-1").status_code == 201
    body["seats_count"] = 3
    reused = ann.post("/api/games/", body, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert reused.status_code == 422
    schema = client.get("/api/schema/", {"format": "json"}).json()
    taking = [
        (route, method, op)
        for route, ops in schema["paths"].items()
        for method, op in ops.items()
        if isinstance(op, dict)
        and any(p["name"] == "Idempotency-Key" for p in op.get("parameters", []))
    ]
    assert [(route, method) for route, method, _ in taking] == [
        ("/api/games/", "post"),
        ("/api/games/{game_id}/talk/", "post"),
        ("/api/tournaments/", "post"),
        ("/api/tournaments/{slug}/rounds/{number}/extend/", "post"),
    ]
    for route, method, op in taking:
        declared = op["responses"]["422"]
        assert "Idempotency-Key" in declared["description"], (route, method)
        body_schema = declared["content"]["application/json"]["schema"]
        assert body_schema == {"$ref": "#/components/schemas/Error"}, (route, method)
    import jsonschema

    root = {**body_schema, "components": schema["components"]}
    jsonschema.Draft202012Validator(root).validate(reused.json())


def test_a_retry_past_the_creation_limit_still_gets_its_game(settings):
    """A code review: the client whose last allowed creation timed out got a 429 for the
    retry, not its game."""
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {**rates, "games_create": "1/hour"}}  # fmt: skip
    ann = make_user("ann")
    body = {"ruleset": "6x5", "seats_count": 2}
    first = token_client(ann).post("/api/games/", body, format="json", HTTP_IDEMPOTENCY_KEY="once")
    again = token_client(ann).post("/api/games/", body, format="json", HTTP_IDEMPOTENCY_KEY="once")
    new = token_client(ann).post("/api/games/", body, format="json", HTTP_IDEMPOTENCY_KEY="twice")
    assert (first.status_code, again.status_code, new.status_code) == (201, 200, 429)
    # Its game: the one the first attempt made, and nothing more made.
    assert again.json()["id"] == first.json()["id"]
    assert list(Game.objects.filter(organizer=ann).values_list("pk", flat=True)) == [first.json()["id"]]


@pytest.mark.parametrize(
    "key", ["k-1", "A.b_c:d-9", "x" * 64, "x" * 65, "", "a b", "a/b", "key!", "ключ"]
)
def test_the_schema_gives_the_idempotency_keys_the_api_takes(client, key):
    """An API audit (schemathesis): the header's schema was any string, while the API
    refuses a key over 64 characters or with a space (400). The schema and the API agree
    on each key."""
    import jsonschema

    operation = client.get("/api/schema/", {"format": "json"}).json()["paths"]["/api/games/"]["post"]
    (header,) = [p for p in operation["parameters"] if p["name"] == "Idempotency-Key"]
    try:
        jsonschema.Draft202012Validator(header["schema"]).validate(key)
        declared = True
    except jsonschema.ValidationError:
        declared = False
    body = {"ruleset": "6x5", "seats_count": 2}
    answer = token_client(make_user("ann")).post(
        "/api/games/", body, format="json", HTTP_IDEMPOTENCY_KEY=key
    )
    refused = answer.status_code == 400 and "Idempotency-Key" in answer.json().get("fields", {})
    assert answer.status_code in (201, 400), answer.content
    assert declared is not refused, (key, answer.status_code, header["schema"])
