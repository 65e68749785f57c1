"""The shared shape of the pure command lines (``python -m tournaments.pairing`` and
``python -m tournaments.ratings``): read one JSON file (``-`` for standard input), print
one JSON object and exit 0; on bad input print ``error: ...`` on standard error,
``{"error": ...}`` on standard output, and exit 2. No Django import."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

EXIT_BAD_INPUT = 2


def _fail(message: str) -> int:
    sys.stderr.write(f"error: {message}\n")
    sys.stdout.write(json.dumps({"error": message}) + "\n")
    return EXIT_BAD_INPUT


def run_json_command(
    argv: list[str] | None,
    *,
    prog: str,
    compute: Callable[[Any], dict[str, Any]],
    errors: tuple[type[Exception], ...],
) -> int:
    """Read the file named in ``argv``, print ``compute(data)``; return the exit status.
    ``errors`` are the exceptions that mean bad input (exit 2 with their message)."""
    args = sys.argv[1:] if argv is None else argv
    if args in (["-h"], ["--help"]):  # it read "--help" as a file name (a README audit)
        sys.stdout.write(
            f"usage: python -m {prog} FILE.json   (- reads standard input)\n"
            "Prints one JSON object; bad input: exit 2 with an error. The formats: "
            "the tournaments spec (tournaments.md) and the README.\n"
        )
        return 0
    if len(args) != 1:
        return _fail(f"usage: python -m {prog} FILE.json")
    try:
        if args[0] == "-":
            data = json.load(sys.stdin)
        else:
            with open(args[0], encoding="utf-8") as fh:
                data = json.load(fh)
    except OSError as exc:
        return _fail(f"cannot read {args[0]}: {exc.strerror}")
    except ValueError as exc:
        return _fail(f"malformed JSON: {exc}")
    except RecursionError:  # arrays or objects nested thousands deep
        return _fail("malformed JSON: nested too deeply")
    try:
        out = compute(data)
    except errors as exc:
        return _fail(str(exc))
    sys.stdout.write(json.dumps(out) + "\n")
    return 0
