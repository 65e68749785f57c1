"""``python -m tournaments.pairing FILE.json`` (``-`` reads standard input).

Prints the pairing as JSON and exits 0; on bad input prints ``error: ...`` on standard
error, ``{"error": ...}`` on standard output, and exits 2.
"""

from __future__ import annotations

import json
import sys

from . import PairingError, pair_json

EXIT_BAD_INPUT = 2


def _fail(message: str) -> int:
    sys.stderr.write(f"error: {message}\n")
    sys.stdout.write(json.dumps({"error": message}) + "\n")
    return EXIT_BAD_INPUT


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        return _fail("usage: python -m tournaments.pairing FILE.json")
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
    try:
        out = pair_json(data)
    except PairingError as exc:
        return _fail(str(exc))
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
