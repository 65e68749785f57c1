"""``python manage.py verify_game GAME_ID``: replay a game from its stored setup and
orders and check its audit log (hash chain, commitments, seed, final state), and that the
game's rows hold what the log says (its sealed orders, an open prompt)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from engine.audit import verify_export
from engine.words import counted
from games.models import Game
from games.selectors import OVER, current_state
from games.selectors_log import game_export_unchecked
from games.services.audit import game_records_problems


class Command(BaseCommand):
    help = "Verify a game's audit log and replay it against its latest snapshot."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game_id", type=int)
        parser.add_argument("--export", help="also write the full export (JSON) to this path")

    def handle(self, *args: object, **options: object) -> None:
        game = Game.objects.filter(pk=options["game_id"]).first()
        if game is None:
            raise CommandError(f"no game with id {options['game_id']}")
        if game.started_at is None:
            raise CommandError(f"game {game.pk} has not started: nothing to verify")
        export = game_export_unchecked(game=game)
        if options.get("export"):
            with open(str(options["export"]), "w", encoding="utf-8") as fh:
                json.dump(export, fh, ensure_ascii=False, indent=1)
        # The server holds the seed, so a running game is verifiable here too.
        problems = verify_export(
            export, final_state=current_state(game=game), running=game.status not in OVER
        )
        # Covered by no hash, and not in the log: only the server can tell the export
        # names the game it was asked for.
        record = export.get("game") or {}
        if record.get("id") != game.pk:
            problems.append(f"the export's id {record.get('id')} is not the game's ({game.pk})")
        if record.get("public_id") != game.public_id:
            problems.append(f"the export's public_id {record.get('public_id')!r} is not the game's ({game.public_id!r})")
        problems += game_records_problems(game=game)
        if problems:
            for line in problems:
                self.stdout.write(line)
            raise CommandError(f"game {game.pk}: {counted(len(problems), 'problem')} found")
        self.stdout.write(
            self.style.SUCCESS(
                f"game {game.pk}: OK ({len(export['entries'])} entries; chain, commitments, "
                f"seed, replay and stored orders verified)"
            )
        )
