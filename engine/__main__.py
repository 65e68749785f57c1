"""``python -m engine games`` and ``python -m engine run SCRIPT.json``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

import engine
from engine.audit import no_duplicate_keys, parse_expect, parse_receipt
from engine.runner import EXIT_MALFORMED, run_script


def _emit(obj: object) -> None:
    try:
        sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    except UnicodeEncodeError:  # text the output's encoding cannot hold (a lone surrogate)
        sys.stdout.write(json.dumps(obj) + "\n")


def _argument(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """``parse`` as an argparse type: its ValueError is a usage error (exit 2)."""

    def checked(text: str) -> Any:
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return checked


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description="FiveX rules engines")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("games", help="list rulesets with their ids and options")
    run = sub.add_parser("run", help="play a script and print the result as JSON")
    run.add_argument("script", help="path of the script (JSON), or - for standard input")
    verify = sub.add_parser("verify", help="verify an exported game log offline")
    verify.add_argument("export", help="path of the exported log (JSON)")
    verify.add_argument(
        "--expect", action="append", default=[], type=_argument(parse_expect), metavar="SEQ:HASH",
        help="fail unless entry SEQ has this hash (one you saved from the log page or an email); repeatable",
    )  # fmt: skip
    verify.add_argument(
        "--receipt", action="append", default=[], type=_argument(parse_receipt), metavar="COMMITMENT",
        help="fail unless a revealed order has this commitment (your order's receipt); repeatable",
    )  # fmt: skip
    args = parser.parse_args(argv)

    if args.command == "games":
        _emit({"games": [r.describe() for r in engine.rulesets()]})
        return 0
    if args.command == "run":
        try:
            # A key given twice (a seat's two orders in one step) is refused, not read as
            # its last value: engine.md's step holds one order per seat.
            if args.script == "-":
                script = json.load(sys.stdin, object_pairs_hook=no_duplicate_keys)
            else:
                with open(args.script, encoding="utf-8") as fh:
                    script = json.load(fh, object_pairs_hook=no_duplicate_keys)
        except (OSError, ValueError) as exc:
            _emit({"status": "error", "error": f"cannot read script: {exc}"})
            return EXIT_MALFORMED
        except RecursionError:  # arrays or objects nested thousands deep
            _emit({"status": "error", "error": "cannot read script: JSON nested too deeply"})
            return EXIT_MALFORMED
        code, out = run_script(script)
        _emit(out)
        return code
    if args.command == "verify":
        from engine.audit import verify_export_file

        return verify_export_file(args.export, expect=args.expect, receipts=args.receipt)
    return EXIT_MALFORMED


if __name__ == "__main__":
    sys.exit(main())
