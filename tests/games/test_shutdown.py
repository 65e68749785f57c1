"""sigterm_deferred: a SIGTERM in the block reaches the process's own handling once the
block is over, not in the middle (games/shutdown.py)."""

import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent

_DEFAULT_ACTION = """
import os, signal
from games.shutdown import sigterm_deferred
with sigterm_deferred():
    os.kill(os.getpid(), signal.SIGTERM)
    with sigterm_deferred():
        print("inner block done", flush=True)
    print("block done", flush=True)
print("after the block", flush=True)
"""

_HANDLER = """
import os, signal, sys
from games.shutdown import sigterm_deferred
signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit("handler ran"))
try:
    with sigterm_deferred():
        os.kill(os.getpid(), signal.SIGTERM)
        print("block done", flush=True)
finally:
    print("handler restored:", signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL, flush=True)
print("after the block", flush=True)
"""


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)  # fmt: skip


def test_a_sigterm_with_the_default_action_kills_the_process_once_the_block_is_over() -> None:
    done = _run(_DEFAULT_ACTION)
    assert done.returncode == -signal.SIGTERM, done.stderr
    assert done.stdout.splitlines() == ["inner block done", "block done"]


def test_a_sigterm_handler_runs_once_the_block_is_over() -> None:
    # billiard's pool processes exit from their handler (SystemExit): after the block.
    done = _run(_HANDLER)
    assert done.returncode == 1 and "handler ran" in done.stderr
    assert done.stdout.splitlines() == ["block done", "handler restored: True"]
