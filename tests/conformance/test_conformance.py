"""Every conformance case under tests/conformance/<game>/*.json, run through the command
line's own entry point (``engine.__main__.main(["run", CASE])``, what ``python -m engine
run`` calls, in this process: a subprocess each cost the suite half a minute), and a few
through the real ``python -m engine run`` as a subprocess, which must print byte for byte
the same.

A case passes when the printed object contains every key and value under ``expect``
(dicts recurse, lists compare element by element and must have the same length) and
the exit code is ``expect_exit`` (default 0). See ``shared/spec/engine.md``.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.__main__ import main as engine_main

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


def run_case(case: Path) -> tuple[int, str]:
    """``python -m engine run CASE`` in this process: its exit code and what it printed."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = engine_main(["run", str(case)])
    return code, printed.getvalue()


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.name}" for c in CASES])
def test_conformance_case(case: Path) -> None:
    """Run one case through the runner's command line and subset-match its output."""
    script = json.loads(case.read_text(encoding="utf-8"))
    code, printed = run_case(case)
    expected_exit = script.get("expect_exit", 0)
    assert code == expected_exit, f"exit {code}, expected {expected_exit}\n{printed}"
    assert printed.endswith("\n") and printed.count("\n") == 1, printed
    out = json.loads(printed)
    problem = subset_mismatch(script.get("expect", {}), out)
    assert problem is None, f"{problem}\nprinted: {printed}"


def _by_subprocess() -> list[Path]:
    """The first case of each game and the first of each exit code other than 0."""
    chosen: dict[str, Path] = {}
    for case in CASES:
        exit_code = json.loads(case.read_text(encoding="utf-8")).get("expect_exit", 0)
        chosen.setdefault(case.parent.name if exit_code == 0 else f"exit {exit_code}", case)
    return sorted(chosen.values())


SUBPROCESS_CASES = _by_subprocess()


@pytest.mark.parametrize(
    "case", SUBPROCESS_CASES, ids=[f"{c.parent.name}/{c.name}" for c in SUBPROCESS_CASES]
)
def test_the_real_command_line_prints_the_same(case: Path) -> None:
    """``python -m engine run`` as a subprocess: the exit code and the bytes printed are
    those of the in-process run (so the cases above test the real command line)."""
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "run", str(case)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    code, printed = run_case(case)
    assert (proc.returncode, proc.stdout) == (code, printed), proc.stderr


def test_the_subprocess_cases_cover_every_game_and_exit_code() -> None:
    games = {c.parent.name for c in CASES}
    exits = {json.loads(c.read_text(encoding="utf-8")).get("expect_exit", 0) for c in CASES}
    assert {"5x", "6x5", "4x-dice"} <= games
    assert len(SUBPROCESS_CASES) == len(games) + len(exits - {0})
