"""The API's error codes are one closed set (games.api.error_codes), and the schema says
which: a code raised anywhere without being registered fails here, so a client generated
from the schema never meets a code its enum does not hold."""

from __future__ import annotations

import ast
import importlib
import uuid
from pathlib import Path
from typing import Any

import pytest
from rest_framework import exceptions as drf_exceptions
from rest_framework.test import APIClient

from games.api.error_codes import ERROR_CODES
from games.errors import ApplicationError
from games.services import games as game_services
from tests.games.web_support import make_user, token_client

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("games", "tournaments", "fivex_site")

# Codes raised in the source that no API request can meet: each says why. (Kept honest
# below: each must still be raised somewhere, and must not be registered.)
NOT_ANSWERED_BY_THE_API = {
    "order_ambiguous": "games.mail: an emailed order's refusal, answered by email",
    "account_closed": "fivex_site.account_close: a web page's refusal (no API closes accounts)",
    "last_superuser": "fivex_site.account_close: a web page's refusal (no API closes accounts)",
}


# What the exception handler answers with the code it carries.
API_ERRORS = (ApplicationError, drf_exceptions.APIException)


def registered() -> dict[str, int]:
    return {entry.code: entry.status for entry in ERROR_CODES}


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def _sources() -> list[tuple[Path, ast.Module]]:
    out = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            if "migrations" in path.parts or path.name == "__main__.py":
                continue
            out.append((path, ast.parse(path.read_text(), filename=str(path))))
    return out


def _resolve(module: Any, func: ast.expr, imported: dict[str, tuple[str, str]]) -> Any:
    """What a ``Name`` or ``a.b.Name`` (a call's callee, a ``code=``'s constant) is in its
    module: at its top, or imported inside a function (``imported``: a name -> where
    from); None if neither."""
    if isinstance(func, ast.Name):
        if hasattr(module, func.id):
            return getattr(module, func.id)
        if func.id in imported:
            source, name = imported[func.id]
            return getattr(importlib.import_module(source), name, None)
        return None
    if isinstance(func, ast.Attribute):
        owner = _resolve(module, func.value, imported)
        return getattr(owner, func.attr, None) if owner is not None else None
    return None


def raised_codes() -> tuple[dict[str, list[str]], list[str]]:
    """Every error code the source tree writes out, by where: an application error's or a
    DRF exception's ``code=...``, the handler's ``error_body("...")`` and the JSON bodies
    ``{"error": "...", "message": ...}``; and the places whose code cannot be read. (The
    classes' own codes: ``default_codes`` and ``drf_answers``.)"""
    trees = _sources()
    found: dict[str, list[str]] = {}
    unreadable: list[str] = []

    def add(code: str, where: str) -> None:
        found.setdefault(code, []).append(where)

    for path, tree in trees:
        where = str(path.relative_to(ROOT))
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
        for node in ast.walk(tree):
            # An error body written out: {"error": "...", "message": ...}.
            if isinstance(node, ast.Dict):
                keys = {k.value: v for k, v in zip(node.keys, node.values, strict=True)
                        if isinstance(k, ast.Constant)}  # fmt: skip
                value = keys.get("error")
                if "message" in keys and isinstance(value, ast.Constant) and isinstance(value.value, str):
                    add(value.value, f"{where}:{node.lineno}")
        for call in calls:
            if isinstance(call.func, ast.Name) and call.func.id == "error_body" and call.args:
                first = call.args[0]
                if isinstance(first, ast.Constant):
                    add(first.value, f"{where}:{call.lineno}")
        coded = [c for c in calls if any(k.arg == "code" for k in c.keywords)]
        if not coded:
            continue
        module = importlib.import_module(_module_name(path))
        imported = {
            alias.asname or alias.name: (node.module, alias.name)
            for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
            for alias in node.names
        }  # fmt: skip
        for call in coded:
            kind = _resolve(module, call.func, imported)
            if not isinstance(kind, type) or not issubclass(kind, API_ERRORS):
                continue  # a form's or Django's own ValidationError(code=...): not the API's
            if issubclass(kind, drf_exceptions.ValidationError):
                continue  # DRF's: answered as invalid, whatever its code
            value = next(k.value for k in call.keywords if k.arg == "code")
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                add(value.value, f"{where}:{call.lineno}")
            elif isinstance(named := _resolve(module, value, imported), str):  # a constant
                add(named, f"{where}:{call.lineno}")
            else:
                unreadable.append(f"{where}:{call.lineno}")
    return found, unreadable


def _subclasses(kind: type) -> set[type]:
    out = set()
    for sub in kind.__subclasses__():
        out |= {sub, *_subclasses(sub)}
    return out


def test_every_code_the_source_raises_is_registered() -> None:
    # Guards against a new error code reaching clients that the schema's enum lacks.
    found, unreadable = raised_codes()
    assert unreadable == [], "a code= that is neither a literal nor a module constant"
    # Sanity: the scan sees the codes it must (from a service, a constant, the handler).
    assert {"resigned", "nobody_to_remind", "too_large", "method_not_allowed"} <= set(found)
    missing = {c: w for c, w in found.items() if c not in registered() and c not in NOT_ANSWERED_BY_THE_API}
    assert missing == {}, "register these in games.api.error_codes"
    raised = set(found) | set(default_codes().values())
    for code in NOT_ANSWERED_BY_THE_API:
        assert code in raised and code not in registered(), code


def default_codes() -> dict[str, str]:
    """Each application error class's ``default_code``, by class name."""
    import tournaments.services.common  # noqa: F401 - defines TournamentError

    kinds = {ApplicationError, *_subclasses(ApplicationError)}
    return {kind.__name__: kind.default_code for kind in kinds}


def drf_answers() -> dict[str, str]:
    """The code the handler answers for each of DRF's exceptions, by class name."""
    from games.api.exceptions import handler

    answered = {}
    for kind in {drf_exceptions.APIException, *_subclasses(drf_exceptions.APIException)}:
        try:
            exc = kind()
        except TypeError:  # MethodNotAllowed(method), UnsupportedMediaType(media_type)
            exc = kind("X")
        answered[kind.__name__] = handler(exc, {}).data["error"]
    return answered


def test_every_application_error_class_has_a_registered_code() -> None:
    kinds = default_codes()
    assert {"GameBusy", "KeyReused", "TournamentError"} <= set(kinds)
    unregistered = {
        name: code
        for name, code in kinds.items()
        if code not in registered() and code not in NOT_ANSWERED_BY_THE_API
    }
    assert unregistered == {}


def test_every_drf_exception_is_answered_with_a_registered_code() -> None:
    # DRF's own refusals pass through the handler, which maps some (permission_denied
    # is forbidden): a DRF upgrade's new exception shows up here.
    answered = drf_answers()
    assert answered["PermissionDenied"] == "forbidden"
    assert answered["ValidationError"] == "invalid"
    assert {name: code for name, code in answered.items() if code not in registered()} == {}


def test_no_code_is_registered_that_nothing_raises() -> None:
    # Guards against the schema promising a code (a removed one) no request can meet.
    found, _unreadable = raised_codes()
    raised = set(found) | set(default_codes().values()) | set(drf_answers().values())
    assert set(registered()) - raised == set()


@pytest.mark.django_db
def test_the_schema_lists_every_registered_code_and_no_other(client) -> None:
    schema = client.get("/api/schema/", {"format": "json"}).json()
    components = schema["components"]["schemas"]
    enum = components["ErrorCodeEnum"]
    assert enum["enum"] == [entry.code for entry in ERROR_CODES]
    assert components["Error"]["properties"]["error"]["allOf"] == [
        {"$ref": "#/components/schemas/ErrorCodeEnum"}
    ]
    # Each code's meaning is written out, with its status.
    assert "* `no_seat` - 403: " in enum["description"]
    assert "* `idempotency_key_reused` - 422: " in enum["description"]


@pytest.fixture
def players(django_capture_on_commit_callbacks):
    """A started 3-player 5X game of ann, bob and cat (ann dealt GANDHI and CAESAR), a
    forming game of zed's, and each one's API client."""
    users = {n: make_user(n) for n in ("ann", "bob", "cat", "zed")}
    game = game_services.game_create(
        organizer=users["ann"], ruleset="5x", seats_count=3,
        setup={"deal": {"ann": ["GANDHI", "CAESAR"], "bob": ["QIN", "DIDO"],
                        "cat": ["NAPOLEON", "TOKUGAWA"]}},
    )  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        for name in ("ann", "bob", "cat"):
            game_services.game_join(game=game, user=users[name])
    forming = game_services.game_create(organizer=users["zed"], ruleset="5x", seats_count=3)
    game_services.game_join(game=forming, user=users["zed"])
    return game, forming, {n: token_client(u) for n, u in users.items()}


@pytest.mark.django_db
def test_bad_requests_answer_codes_the_schema_lists_with_their_status(client, players, settings):
    # Guards against the API answering a code (or a status) its schema does not say.
    game, forming, clients = players
    ann, zed = clients["ann"], clients["zed"]
    orders, forming_orders = f"/api/games/{game.pk}/orders/", f"/api/games/{forming.pk}/orders/"
    stranger = APIClient()
    stranger.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    key = str(uuid.uuid4())
    asked = [
        (401, "not_authenticated", APIClient().get("/api/games/")),
        (401, "authentication_failed", stranger.get("/api/games/")),
        (404, "not_found", ann.get("/api/games/999999/")),
        (404, "not_found", ann.get("/api/no-such-endpoint/")),
        (403, "no_seat", zed.post(orders, {"text": "PASS GANDHI"}, format="json")),
        (403, "forbidden", zed.post(f"/api/games/{game.pk}/pause/", {}, format="json")),
        (409, "not_started", zed.post(forming_orders, {"text": "PASS GANDHI"}, format="json")),
        (403, "no_seat", ann.post(f"/api/games/{forming.pk}/leave/", {}, format="json")),
        (409, "prompt_closed", ann.post(orders, {"text": "PASS GANDHI", "prompt": 9}, format="json")),
        (422, "order_refused", ann.post(orders, {"text": "PASS QIN"}, format="json")),
        (400, "parse_error", ann.post(orders, "{not json", content_type="application/json")),
        (400, "invalid", ann.post(orders, {"text": "PASS GANDHI", "x": 1}, format="json")),
        (405, "method_not_allowed", ann.put("/api/games/", {}, format="json")),
        (406, "not_acceptable", ann.get("/api/games/", {"format": "xml"})),
        (415, "unsupported_media_type", ann.post(orders, "PASS GANDHI", content_type="text/plain")),
    ]
    made = ann.post("/api/games/", {"ruleset": "5x", "seats_count": 3}, format="json",
                    HTTP_IDEMPOTENCY_KEY=key)  # fmt: skip
    assert made.status_code == 201
    asked.append((422, "idempotency_key_reused", ann.post(
        "/api/games/", {"ruleset": "5x", "seats_count": 4}, format="json", HTTP_IDEMPOTENCY_KEY=key
    )))  # fmt: skip
    assert ann.post(f"/api/games/{game.pk}/resign/", {}, format="json").status_code == 200
    asked.append((409, "resigned", ann.post(f"/api/games/{game.pk}/resign/", {}, format="json")))
    limit, settings.DATA_UPLOAD_MAX_MEMORY_SIZE = settings.DATA_UPLOAD_MAX_MEMORY_SIZE, 1_000
    big = {"text": "PASS QIN" + " " * 2_000}
    asked.append((413, "too_large", clients["bob"].post(orders, big, format="json")))
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = limit
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {"orders": "1/min"}}  # fmt: skip
    clients["cat"].post(orders, {"text": "PASS NAPOLEON"}, format="json")
    asked.append((429, "throttled", clients["cat"].post(orders, {"text": "PASS NAPOLEON"}, format="json")))

    enum = client.get("/api/schema/", {"format": "json"}).json()["components"]["schemas"]["ErrorCodeEnum"]
    statuses = registered()
    for status, code, answer in asked:
        assert (answer.status_code, answer.json()["error"]) == (status, code), answer.content
        assert code in enum["enum"], code
        assert statuses[code] == status, code


@pytest.mark.django_db
def test_code_like_fields_are_enums_of_stable_names(client) -> None:
    """A bot author's client knows the closed sets the answers hold (they were free
    strings): each is an enum named in ENUM_NAME_OVERRIDES, wherever it appears."""
    components = client.get("/api/schema/", {"format": "json"}).json()["components"]["schemas"]

    def ref(component: str, field: str) -> str:
        prop = components[component]["properties"][field]
        target = (prop.get("allOf") or prop.get("oneOf") or [prop])[0]["$ref"]
        return target.rpartition("/")[2]

    expected = {
        "RulesetEnum": (["5x", "6x5", "4x-dice"], [("Game", "ruleset"), ("GameBrief", "ruleset"),
                        ("ExportGame", "ruleset"), ("Ruleset", "id"), ("GameCreateInput", "ruleset"),
                        ("TournamentSummary", "ruleset")]),
        "GameStatusEnum": (["forming", "active", "paused", "finished", "abandoned"],
                           [("Game", "status"), ("GameBrief", "status")]),
        "GameOverStatusEnum": (["finished", "abandoned"], [("ExportGame", "status")]),
        "OrderSourceEnum": (["web", "api", "email", "default", "forced"],
                            [("Receipt", "source"), ("SubmittedReceipt", "source")]),
        "ExportFormatEnum": (["fivex-game-log/1"], [("Export", "format")]),
        "ByeKindEnum": (["pairing", "requested", "absent"], [("Bye", "kind")]),
        "ResultSourceEnum": (["game", "organizer"], [("Table", "result_source")]),
        "RoundStatusEnum": (["paired", "started", "finished"], [("Round", "status")]),
    }  # fmt: skip
    for name, (values, fields) in expected.items():
        assert components[name]["enum"] == values, name
        for component, field in fields:
            assert ref(component, field) == name, (component, field)
    # A table without its result yet says "" (BlankEnum), as it answers.
    assert components["Table"]["properties"]["result_source"]["oneOf"][1] == {
        "$ref": "#/components/schemas/BlankEnum"
    }
