"""``python manage.py stuck_prompts [--minutes N] [--resolve]``: after an incident (a
worker lost, the broker or the beat away), list what is stuck — prompts with every order
in but never resolved, prompts past their deadline still open, emails waiting to be sent
longer than ``HEALTHZ_MAIL_LATE_MINUTES`` — one line each. Exit status 0 and "nothing
stuck" when nothing is, 1 otherwise (a cron or monitoring check). ``--resolve`` queues the
prompts' resolution again, as the deadline sweep does (exactly once however often)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from engine.words import counted
from games.mail.addresses import redact_text
from games.selectors_stuck import emails_waiting, stuck_prompts
from games.services.deadlines import stuck_prompts_requeue

# The sweeps re-queue a complete prompt after 30 s and a due one every minute: one still
# open a few minutes on is stuck.
DEFAULT_MINUTES = 5
# Emails listed one a line (an outage can hold thousands; the count says how many).
EMAIL_LINES = 50


def _when(moment: datetime, now: datetime) -> str:
    minutes = int((now - moment).total_seconds() // 60)
    ago = f"{minutes} min ago" if minutes < 120 else f"{minutes // 60} h ago"
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC ({ago})"


class Command(BaseCommand):
    help = (
        "List prompts and emails an incident left stuck (exit 1 if any, 0 and 'nothing "
        "stuck' if none); --resolve queues the prompts' resolution again."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--minutes", type=int, default=DEFAULT_MINUTES,
            help=f"a prompt is stuck once resolvable this long (default {DEFAULT_MINUTES})",
        )  # fmt: skip
        parser.add_argument(
            "--resolve", action="store_true",
            help="queue the stuck prompts' resolution again (each resolves once)",
        )  # fmt: skip

    def handle(self, *args: object, **options: object) -> None:
        from fivex_site.deployment import refuse_for_a_command

        refuse_for_a_command("stuck_prompts")  # a cron job without the site's environment
        now = timezone.now()
        prompts = stuck_prompts(now=now, older_than=timedelta(minutes=int(options["minutes"])))
        emails = emails_waiting(
            now=now, older_than=timedelta(minutes=settings.HEALTHZ_MAIL_LATE_MINUTES)
        )
        if not prompts and not emails:
            self.stdout.write("nothing stuck")
            return
        for p in prompts:
            if p.owed:
                owes = f"owes the default orders of {', '.join(p.owed)}, then its resolution"
                self.stdout.write(
                    f"game {p.game_id} prompt {p.number}: deadline (with grace) passed "
                    f"{_when(p.since, now)}; {owes}"
                )
            else:
                self.stdout.write(
                    f"game {p.game_id} prompt {p.number}: every order in since "
                    f"{_when(p.since, now)}; owes its resolution"
                )
        for e in emails[:EMAIL_LINES]:
            game = f"game {e['game_id']}, " if e["game_id"] else ""
            # an SMTP error quotes the recipient: redacted as the logs do
            error = f"; last error: {redact_text(e['last_error'])[:120]}" if e["last_error"] else ""
            self.stdout.write(
                f"email #{e['id']} ({game}{e['kind']}): {e['status']} since "
                f"{_when(e['created_at'], now)}, {counted(e['attempts'], 'attempt')}{error}"
            )
        if len(emails) > EMAIL_LINES:
            self.stdout.write(f"... and {counted(len(emails) - EMAIL_LINES, 'more email')}")
        if options["resolve"] and prompts:
            queued = stuck_prompts_requeue(prompts=prompts, now=now)
            self.stdout.write(f"queued again: the resolution of {counted(queued, 'prompt')}")
        raise CommandError(
            f"stuck: {counted(len(prompts), 'prompt')}, {counted(len(emails), 'email')} waiting over "
            f"{settings.HEALTHZ_MAIL_LATE_MINUTES} min",
            returncode=1,
        )
