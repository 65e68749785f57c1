"""``manage.py ingest_email [RECIPIENT]``: one message on standard input, for an MTA pipe.

The envelope recipient comes from the argument, else ORIGINAL_RECIPIENT, else RECIPIENT
(as Postfix's local(8) and Exim's pipe transport set them). Exit codes follow
sysexits.h so the MTA does the right thing: 0 stored (answered or queued), 67
(EX_NOUSER) unknown recipient (nothing stored) -> the MTA bounces, 75 (EX_TEMPFAIL) not stored -> the MTA
keeps the message and tries again later.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from django.core.management.base import BaseCommand

from games.mail.addresses import redact_address

EX_OK = 0
EX_USAGE = 64
EX_NOUSER = 67
EX_TEMPFAIL = 75


class Command(BaseCommand):
    help = "Read one email message from standard input and process it (for an MTA pipe)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "recipient",
            nargs="?",
            default=None,
            help="envelope recipient (default: $ORIGINAL_RECIPIENT, then $RECIPIENT)",
        )
        parser.add_argument(
            "--sender", default=None, help="envelope sender (default: $SENDER when set)"
        )
        parser.add_argument(
            "--defer", action="store_true", help="store now, process in a Celery task"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        from games.mail.processing import process_message
        from games.mail.storing import seat_for_recipient

        recipient = (
            options["recipient"]
            or os.environ.get("ORIGINAL_RECIPIENT")
            or os.environ.get("RECIPIENT")
            or ""
        )
        if not recipient:
            self.stderr.write(
                "ingest_email: no recipient (argument, ORIGINAL_RECIPIENT or RECIPIENT)"
            )
            sys.exit(EX_USAGE)
        sender = options["sender"] if options["sender"] is not None else os.environ.get("SENDER")
        # The recipient first: mail to an address no seat has is bounced, never stored
        # (spam to the whole orders domain would fill the table with other people's mail).
        # The message is read (and dropped) before either early exit: an MTA still writing
        # to a pipe that closed may report its own write error instead of the exit status.
        try:
            seat = seat_for_recipient(recipient)
        except Exception as exc:  # noqa: BLE001 - the database is away: retry later
            _drain(sys.stdin.buffer)
            self.stderr.write(f"ingest_email: could not look up the recipient ({type(exc).__name__})")
            sys.exit(EX_TEMPFAIL)
        if seat is None:
            _drain(sys.stdin.buffer)
            self.stderr.write(f"ingest_email: unknown recipient {redact_address(recipient)}")
            sys.exit(EX_NOUSER)
        raw = sys.stdin.buffer.read()
        try:
            row = process_message(
                raw, recipient, source="pipe", envelope_sender=sender, defer=options["defer"]
            )
        except Exception as exc:  # noqa: BLE001 - not stored: let the MTA retry later
            self.stderr.write(f"ingest_email: could not store the message ({type(exc).__name__})")
            sys.exit(EX_TEMPFAIL)
        if row.seat_id is None:
            self.stderr.write(f"ingest_email: unknown recipient {redact_address(recipient)}")
            sys.exit(EX_NOUSER)
        self.stdout.write(f"ingest_email: #{row.pk} {row.status} {row.outcome}".rstrip())


def _drain(stream: Any) -> None:
    """Read ``stream`` to its end, keeping nothing (64 kB at a time)."""
    while stream.read(65536):
        pass
