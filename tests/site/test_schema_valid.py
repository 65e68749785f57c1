"""The OpenAPI schema API clients are generated from is valid OpenAPI and drf-spectacular
has nothing to warn about (``manage.py spectacular --validate --fail-on-warn``): a view or
serializer whose schema spectacular can only guess (a warning) would give clients a
wrong or vague contract. It was checked by hand until now."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_the_schema_validates_with_no_warning(tmp_path: Path) -> None:
    out = tmp_path / "schema.json"
    # --fail-on-warn raises (CommandError / SystemExit) on the first warning or error
    call_command("spectacular", validate=True, fail_on_warn=True, format="openapi-json", file=str(out))
    schema = json.loads(out.read_text())
    assert schema["openapi"].startswith("3.")
    assert "/api/games/{game_id}/orders/" in schema["paths"]
