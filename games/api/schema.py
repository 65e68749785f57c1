"""drf-spectacular hooks."""

from __future__ import annotations

from typing import Any


def slashed_only(endpoints: list[tuple[Any, ...]], **kwargs: Any) -> list[tuple[Any, ...]]:
    """Preprocessing hook: each API route is listed once, in its documented form with a
    trailing slash (``games.api.urls.route`` also serves it without)."""
    return [e for e in endpoints if e[0].endswith("/")]


def closed_inputs(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Postprocessing hook: every request body's schema says ``additionalProperties:
    false``, as the API behaves (``StrictInputSerializer``: a field an operation does not
    take is a 400 naming it), so generated clients and validators know it too."""
    schemas = result.get("components", {}).get("schemas", {})
    for path in result.get("paths", {}).values():
        for operation in path.values():
            body = operation.get("requestBody") if isinstance(operation, dict) else None
            for media in (body or {}).get("content", {}).values():
                ref = media.get("schema", {}).get("$ref", "")
                name = ref.rpartition("/")[2]
                if name in schemas:
                    schemas[name]["additionalProperties"] = False
    return result


def query_refusals(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Postprocessing hook: every operation lists a 400, since each refuses a query
    parameter it does not take (``BaseAPIView.initial``), those that take none too."""
    for path in result.get("paths", {}).values():
        for operation in path.values():
            if isinstance(operation, dict) and "responses" in operation:
                operation["responses"].setdefault("400", {
                    "description": "A query parameter this operation does not take (named "
                    "in fields)",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                })  # fmt: skip
    return result


#: The GETs without an ETag (``BaseAPIView.conditional`` off): the ping, and a player's
#: data export (stamped with the moment it was made, it never answers the same twice).
UNCONDITIONAL_GETS = ("/api/ping/", "/api/account/export/")


def conditional_gets(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Postprocessing hook: every GET but ``UNCONDITIONAL_GETS`` (``BaseAPIView.conditional``) says
    what it does with ``If-None-Match`` (an API audit: the ETag, the 304 and the header
    were in no operation), and every operation that a database outage answers 503 with
    ``Retry-After`` and the JSON ``Error`` (``unavailable``) says so."""
    etag = {"schema": {"type": "string"},
            "description": "A tag of this answer: send it back as If-None-Match."}  # fmt: skip
    for route, path in result.get("paths", {}).items():
        for method, operation in path.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            responses.setdefault("503", {
                "description": "The database is unreachable for a moment: try again after "
                "Retry-After seconds.",
                "headers": {"Retry-After": {"schema": {"type": "integer"}}},
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
            })  # fmt: skip
            if method != "get" or route in UNCONDITIONAL_GETS or "200" not in responses:
                continue
            operation.setdefault("parameters", []).append({
                "in": "header", "name": "If-None-Match", "required": False,
                "schema": {"type": "string"},
                "description": "The ETag of an earlier answer (or *): 304, no body, when "
                "the answer is the same.",
            })  # fmt: skip
            responses["200"].setdefault("headers", {})["ETag"] = etag
            responses.setdefault("304", {"description": "Not Modified: the answer is the one "
                                         "If-None-Match named.", "headers": {"ETag": etag}})  # fmt: skip
    return result


def json_only(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Postprocessing hook: every operation takes ``?format=json`` (DRF's format override,
    kept: the README says so) and answers any other format with a 406 naming JSON
    (``games.api.parsers``); an API audit found the parameter and the 406 in no operation."""
    for path in result.get("paths", {}).values():
        for operation in path.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            operation.setdefault("parameters", []).append({
                "in": "query", "name": "format", "required": False,
                "schema": {"type": "string", "enum": ["json"]},
                "description": "The answer's format: JSON, the only one (any other is a 406).",
            })  # fmt: skip
            operation["responses"].setdefault("406", {
                "description": "A format other than json was asked for (not_acceptable)",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
            })  # fmt: skip
    return result
