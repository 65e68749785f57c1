"""``python -m engine games`` and ``python -m engine run SCRIPT.json``."""

from __future__ import annotations

import argparse
import json
import sys

import engine
from engine.runner import EXIT_MALFORMED, run_script


def _emit(obj: object) -> None:
    try:
        sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    except UnicodeEncodeError:  # text the output's encoding cannot hold (a lone surrogate)
        sys.stdout.write(json.dumps(obj) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description="FiveX rules engines")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("games", help="list rulesets with their ids and options")
    run = sub.add_parser("run", help="play a script and print the result as JSON")
    run.add_argument("script", help="path of the script (JSON), or - for standard input")
    verify = sub.add_parser("verify", help="verify an exported game log offline")
    verify.add_argument("export", help="path of the exported log (JSON)")
    args = parser.parse_args(argv)

    if args.command == "games":
        _emit({"games": [r.describe() for r in engine.rulesets()]})
        return 0
    if args.command == "run":
        try:
            if args.script == "-":
                script = json.load(sys.stdin)
            else:
                with open(args.script, encoding="utf-8") as fh:
                    script = json.load(fh)
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

        return verify_export_file(args.export)
    return EXIT_MALFORMED


if __name__ == "__main__":
    sys.exit(main())
