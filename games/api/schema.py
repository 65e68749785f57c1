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
