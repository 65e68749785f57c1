"""Every conformance case under tests/conformance/<game>/*.json, run through the real
command line (``python -m engine run``) as a subprocess.

A case passes when the printed object contains every key and value under ``expect``
(dicts recurse, lists compare element by element and must have the same length) and
the exit code is ``expect_exit`` (default 0). See ``shared/spec/engine.md``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CASES = sorted(HERE.glob("*/*.json"))


def subset_mismatch(expected: Any, actual: Any, path: str = "$") -> str | None:
    """Where ``actual`` fails to contain ``expected`` (None when it does)."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{path}: expected an object, got {json.dumps(actual)}"
        for key, value in expected.items():
            if key not in actual:
                return f"{path}.{key}: missing"
            problem = subset_mismatch(value, actual[key], f"{path}.{key}")
            if problem:
                return problem
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"{path}: expected a list, got {json.dumps(actual)}"
        if len(expected) != len(actual):
            return f"{path}: expected {len(expected)} items, got {json.dumps(actual)}"
        for k, (e, a) in enumerate(zip(expected, actual, strict=True)):
            problem = subset_mismatch(e, a, f"{path}[{k}]")
            if problem:
                return problem
        return None
    # JSON numbers: 4 == 4.0, but a bool is never a number.
    if isinstance(expected, bool) or isinstance(actual, bool):
        same = expected is actual
    else:
        same = type(expected) is type(actual) or (
            isinstance(expected, int | float) and isinstance(actual, int | float))
        same = same and expected == actual
    if not same:
        return f"{path}: expected {json.dumps(expected)}, got {json.dumps(actual)}"
    return None


def test_subset_mismatch_catches_differences() -> None:
    """The matcher itself: extra keys are fine, missing keys, other values, other list
    lengths and bool-for-number are not."""
    assert subset_mismatch({"a": 1}, {"a": 1, "b": 2}) is None
    assert subset_mismatch({"a": 1}, {"b": 1}) == "$.a: missing"
    assert subset_mismatch({"a": [1, 2]}, {"a": [1, 2, 3]}) is not None
    assert subset_mismatch({"a": {"b": "x"}}, {"a": {"b": "y"}}) is not None
    assert subset_mismatch({"vp": 4}, {"vp": 4.0}) is None
    assert subset_mismatch({"vp": 1}, {"vp": True}) is not None
    assert subset_mismatch([{"a": 1}], [{"a": 1, "z": 0}]) is None


def test_there_are_cases() -> None:
    """The 5X cases are present (a missing folder would make the suite vacuous)."""
    assert any(c.parent.name == "5x" for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.name}" for c in CASES])
def test_conformance_case(case: Path) -> None:
    """Run one case through ``python -m engine run`` and subset-match its output."""
    script = json.loads(case.read_text(encoding="utf-8"))
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "run", str(case)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    expected_exit = script.get("expect_exit", 0)
    assert proc.returncode == expected_exit, (
        f"exit {proc.returncode}, expected {expected_exit}\n{proc.stdout}\n{proc.stderr}"
    )
    out = json.loads(proc.stdout)
    problem = subset_mismatch(script.get("expect", {}), out)
    assert problem is None, f"{problem}\nprinted: {proc.stdout}"
