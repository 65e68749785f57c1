"""``python -m tournaments.pairing FILE.json`` (``-`` reads standard input).

Prints the pairing as JSON and exits 0; on bad input prints ``error: ...`` on standard
error, ``{"error": ...}`` on standard output, and exits 2.
"""

from __future__ import annotations

import sys

from tournaments.cli import run_json_command

from . import PairingError, pair_json


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    return run_json_command(argv, prog="tournaments.pairing", compute=pair_json, errors=(PairingError,))


if __name__ == "__main__":
    sys.exit(main())
