"""``python manage.py recompute_ratings``: recompute every rating from finished games
and report any difference from the stored ledger (``--fix`` rewrites it)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from engine.words import counted
from tournaments.services.results import pools, ratings_differences, ratings_sync


class Command(BaseCommand):
    help = "Recompute all ratings from finished games and report differences from the stored ones."

    def add_arguments(self, parser):
        parser.add_argument("--pool", help="only this rating pool")
        parser.add_argument("--fix", action="store_true", help="rewrite the stored ledger")

    def handle(self, *args, pool=None, fix=False, **options):
        chosen = [pool] if pool else pools()
        if not chosen:
            self.stdout.write("no rating pools yet: nothing to recompute")
            return
        problems = 0
        for name in chosen:
            diffs = ratings_differences(pool=name)
            for line in diffs:
                self.stdout.write(line)
            problems += len(diffs)
            if diffs and fix:
                ratings_sync(pool=name, rebuild=True)
                self.stdout.write(f"{name}: ledger rewritten")
            elif not diffs:
                self.stdout.write(f"{name}: stored ratings match the recomputation")
        if problems and not fix:
            raise CommandError(f"{counted(problems, 'difference')} found")
