"""The pure rooms stay pure: the engine, the pairing and the rating code import no
Django (ARCHITECTURE.md), so they run and can be checked on their own."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "modules",
    [
        "engine, engine.runner, engine.audit, engine.fivex, engine.sixbyfive, engine.fourxdice",
        "tournaments.pairing, tournaments.ratings, tournaments.standings, tournaments.cli",
    ],
)
def test_pure_modules_import_no_django(modules):
    code = (
        f"import sys, {modules}\n"
        "bad = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"Django imported by {modules}: {out.stdout}"
