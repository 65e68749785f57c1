"""bench/fuzz_api.py (scripts/fuzz-api), which the suite does not run (minutes, and
schemathesis): its data are what it says (every game state, tokens that work), its
schemathesis configuration parses and binds only names the schema has, and its webhook
stub never lets a fuzzed URL out."""

from __future__ import annotations

import socket
import sys
import tomllib
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from games.models import Game, SeatOffer
from games.services import webhook_http

ROOT = Path(__file__).resolve().parent.parent.parent


def _harness():
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import fuzz_api
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return fuzz_api


def _schema_names(schema: dict) -> set[str]:
    """Every parameter's ``location.name`` and every request body property's ``body.name``."""
    names = set()
    components = schema["components"]["schemas"]
    for operations in schema["paths"].values():
        for operation in operations.values():
            for param in operation.get("parameters", []):
                names.add(f"{param['in']}.{param['name']}")
            for content in operation.get("requestBody", {}).get("content", {}).values():
                ref = content["schema"].get("$ref", "")
                body = components.get(ref.rsplit("/", 1)[-1], content["schema"])
                names.update(f"body.{name}" for name in body.get("properties", {}))
    return names


@pytest.mark.django_db
def test_the_fuzzing_data_config_and_stub(settings, monkeypatch):
    fuzz_api = _harness()
    # setup_data stubs the webhook's network for the process; undone after the test.
    monkeypatch.setattr(webhook_http, "_resolve", webhook_http._resolve)
    monkeypatch.setattr(webhook_http, "post", webhook_http.post)
    settings.DEBUG = True  # demo_games runs on a development site only
    data = fuzz_api.setup_data()

    named = data["named_games"]
    statuses = dict(Game.objects.filter(pk__in=named.values()).values_list("pk", "status"))
    assert statuses[named["forming"]] == Game.Status.FORMING
    assert statuses[named["paused"]] == Game.Status.PAUSED
    assert statuses[named["abandoned"]] == Game.Status.ABANDONED
    assert statuses[named["organized"]] == Game.Status.ACTIVE
    assert Game.objects.filter(status=Game.Status.FINISHED).exists()
    assert SeatOffer.objects.filter(pk__in=data["offers"], status="pending").count() >= 2
    ann, bob = APIClient(), APIClient()
    ann.credentials(HTTP_AUTHORIZATION=f"Token {data['tokens']['ann']}")
    bob.credentials(HTTP_AUTHORIZATION=f"Token {data['tokens']['bob']}")
    assert any(g["order_needed"] for g in ann.get("/api/games/").json())  # a prompt waits for Ann
    assert ann.get(f"/api/games/{named['paused']}/").status_code == 200
    assert ann.get(f"/api/games/{named['private_active']}/").status_code == 404
    assert bob.get(f"/api/games/{named['private_active']}/").status_code == 200
    assert ann.get("/api/webhook/").json()["url"] == "https://hooks.example.com/fivex"
    assert len(ann.get("/api/offers/").json()) == 1

    # The stub: only *.example.com resolves (to a public address), and nothing is POSTed.
    assert webhook_http._resolve("a.example.com", 443, 1)[0][4][0] == "93.184.215.14"
    with pytest.raises(socket.gaierror):
        webhook_http._resolve("fivex.org", 443, 1)
    with pytest.raises(OSError, match="stubbed"):
        webhook_http.post(url="https://a.example.com/", body=b"", headers={}, timeout=1)

    config = tomllib.loads(fuzz_api.config_toml(data, max_examples=5, seed=1))
    names = _schema_names(ann.get("/api/schema/", {"format": "json"}).json())
    for key, binding in config["parameters"].items():
        assert key in names, key  # a renamed parameter would leave the fuzzer blind to it
        assert binding["dictionary"] in config["dictionaries"], key
    assert set(config["dictionaries"]["game_ids"]["values"]) >= set(named.values())
    assert config["generation"]["max-examples"] == 5 and config["seed"] == 1
