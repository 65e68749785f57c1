"""``python -m tournaments.ratings FILE.json`` (``-`` reads standard input).

Prints ratings, games and ledger as JSON and exits 0; on bad input prints ``error: ...``
on standard error, ``{"error": ...}`` on standard output, and exits 2.
"""

from __future__ import annotations

import sys
from typing import Any

from tournaments.cli import run_json_command

from . import RatingError, parse_games, rate


def _rate_json(data: Any) -> dict[str, Any]:
    initial, games = parse_games(data)
    return rate(games, initial).to_json()


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    return run_json_command(argv, prog="tournaments.ratings", compute=_rate_json, errors=(RatingError,))


if __name__ == "__main__":
    sys.exit(main())
