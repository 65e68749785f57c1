"""The Makefile and scripts/find-python: .venv made again when an older Python made it, the
first install announced, a Python found under PYENV_ROOT."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent

FAKE_PYTHON = """#!/bin/sh
# A Python {version}: says so, and answers the version check as that Python would.
case "$1" in
  -V) echo "Python {version}" ;;
  -c) exit {check} ;;
esac
"""


def _make(checkout: Path, target: str) -> subprocess.CompletedProcess:
    """``make target`` as a user runs it (not as a sub-make of ``make test``)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    return subprocess.run(
        ["make", target], cwd=checkout, env=env, capture_output=True, text=True, timeout=60
    )


def _checkout_with_venv(tmp_path: Path, version: str, check: int) -> Path:
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(FAKE_PYTHON.format(version=version, check=check))
    python.chmod(0o755)
    return tmp_path


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_a_venv_of_an_older_python_is_removed(tmp_path: Path) -> None:
    checkout = _checkout_with_venv(tmp_path, "3.11.7", check=1)
    done = _make(checkout, "check-venv")
    assert done.returncode == 0, done.stderr
    assert "made with Python 3.11.7, FiveX needs Python 3.12+" in done.stdout
    assert not (checkout / ".venv").exists()


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_a_venv_of_a_recent_python_is_kept(tmp_path: Path) -> None:
    checkout = _checkout_with_venv(tmp_path, "3.12.1", check=0)
    done = _make(checkout, "check-venv")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert (checkout / ".venv" / "bin" / "python").exists()


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_the_first_install_says_what_it_is_doing_before_the_quiet_pip(tmp_path: Path) -> None:
    """The first ``make run`` showed nothing for minutes while ``pip install --quiet`` ran
    (a README audit): a line now says the dependencies are being installed, once."""
    checkout = _checkout_with_venv(tmp_path, "3.12.1", check=0)
    (checkout / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    first = _make(checkout, "install")
    assert first.returncode == 0, first.stderr
    said = "Installing FiveX and its dependencies into .venv (this can take a few minutes)..."
    assert said in first.stdout
    assert first.stdout.index(said) < first.stdout.index("pip install --quiet")
    assert (checkout / ".venv" / ".installed").exists()
    again = _make(checkout, "install")
    assert again.returncode == 0, again.stderr
    assert "Installing" not in again.stdout and "pip install" not in again.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_an_install_after_pyproject_changed_says_it_updates(tmp_path: Path) -> None:
    """The reinstall when pyproject.toml changed said "first run only" (a README audit)."""
    checkout = _checkout_with_venv(tmp_path, "3.12.1", check=0)
    pyproject = checkout / "pyproject.toml"
    pyproject.write_text("[project]\nname = 'x'\n")
    assert _make(checkout, "install").returncode == 0
    edited = pyproject.stat().st_mtime
    os.utime(checkout / ".venv" / ".installed", (edited - 10, edited - 10))  # edited since
    again = _make(checkout, "install")
    assert again.returncode == 0, again.stderr
    said = (
        "Updating the dependencies in .venv (pyproject.toml changed since the last install; "
        "this can take a few minutes)..."
    )
    assert said in again.stdout
    assert again.stdout.index(said) < again.stdout.index("pip install --quiet")
    assert "Installing" not in again.stdout and "first run" not in again.stdout


def _find_python(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    """scripts/find-python with nothing on PATH, so only the pyenv folders can answer."""
    empty = tmp_path / "empty-path"
    empty.mkdir(exist_ok=True)
    return subprocess.run(
        ["/bin/sh", str(ROOT / "scripts" / "find-python")],
        env={"PATH": str(empty), **env}, capture_output=True, text=True, timeout=30,
    )  # fmt: skip


def _pyenv_python(root: Path, version: str) -> Path:
    python = root / "versions" / version / "bin" / "python3"
    python.parent.mkdir(parents=True)
    python.write_text(FAKE_PYTHON.format(version=version, check=0))
    python.chmod(0o755)
    return python


def test_find_python_looks_under_pyenv_root_as_well_as_home(tmp_path: Path) -> None:
    """With HOME not the pyenv owner's home, the Pythons under PYENV_ROOT were not found
    (a README audit)."""
    home = tmp_path / "home"
    home.mkdir()
    python = _pyenv_python(tmp_path / "pyenv", "3.12.1")
    done = _find_python(tmp_path, HOME=str(home), PYENV_ROOT=str(tmp_path / "pyenv"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(python)
    in_home = _pyenv_python(home / ".pyenv", "3.13.0")
    done = _find_python(tmp_path, HOME=str(home))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(in_home)


def test_find_python_explains_when_there_is_none(tmp_path: Path) -> None:
    done = _find_python(tmp_path, HOME=str(tmp_path), PYENV_ROOT=str(tmp_path / "none"))
    assert done.returncode == 1 and done.stdout == ""
    assert "FiveX needs Python 3.12 or newer, and none was found" in done.stderr
    assert "$PYENV_ROOT/versions/3.12+/bin/python3" in done.stderr
