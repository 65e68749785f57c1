"""Reminders, pause and resume notices and handover emails end with the log footer too:
the log's newest entry (seq and full hash) when the email was written, and the command
that checks the record against it. No receipt (no order is revealed in them), and no
other hash: never another seat's sealed order. Each footer's command, run on the export
once the game is over, verifies. Asserted on the emails as a real SMTP server got them."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

import engine
from games.models import Game, LogEntry, SealedOrder, Seat
from games.selectors import current_state
from games.selectors_log import game_export
from games.services.handover import seat_offer, seat_offer_accept
from games.services.orders import order_submit
from games.services.organizer import game_pause, game_remind, game_resume
from tests.conftest import ROOT
from tests.games.core_support import make_users, play_defaults, start_fixed
from tests.games.test_email_log_anchor import HEX64, LOG_LINE, _deliver, _head

pytestmark = pytest.mark.django_db
COMMAND = re.compile(r"^python -m engine verify EXPORT\.json (.*)$", re.M)


def _footers(mails, head: tuple[int, str], kinds: int) -> list[str]:
    """Each email names ``head`` and nothing else of 64 hex digits; returns the
    arguments of each footer's command."""
    assert len(mails) >= kinds
    args = []
    for to, subject, body, _h in mails:
        assert LOG_LINE.findall(body) == [(str(head[0]), head[1])], (to, subject, body)
        assert "Your order for decision" not in body
        assert set(HEX64.findall(body)) == {head[1]}, (to, subject, body)
        (command,) = COMMAND.findall(body)
        assert command == f"--expect {head[0]}:{head[1]}"
        args.append(command)
    return args


def test_reminder_pause_resume_and_handover_emails_end_with_the_log_footer(smtp_sink, tmp_path) -> None:
    game, seats = start_fixed(["ann", "bob", "cat"])
    (dave,) = make_users(["dave"])
    _deliver(smtp_sink, _head(game))
    rules = engine.get(game.ruleset)
    order_submit(seat=seats["ann"], text=rules.default_order(current_state(game=game), "ann"), source="web")
    sealed = set(SealedOrder.objects.filter(seat__game=game).values_list("commitment", flat=True))
    assert sealed

    commands: list[str] = []
    assert sorted(game_remind(game=game, by=game.organizer)) == ["bob", "cat"]
    head = _head(game)
    mails = _deliver(smtp_sink, head)
    assert sorted(subject.split("]")[1].split(":")[0].strip() for _t, subject, _b, _h in mails) == [
        "Reminder from the organizer",
        "Reminder from the organizer",
    ]
    commands += _footers(mails, head, 2)

    game_pause(game=game, by=game.organizer, reason="a break")
    head = _head(game)
    assert LogEntry.objects.get(game=game, seq=head[0]).kind == "game_paused"
    commands += _footers(_deliver(smtp_sink, head), head, 3)

    offer = seat_offer(seat=seats["bob"], new_user=dave, by=game.organizer)
    _deliver(smtp_sink, _head(game))  # the offer to dave: no game footer (not a seat's)
    seat_offer_accept(offer=offer, by=dave)
    head = _head(game)
    mails = _deliver(smtp_sink, head)
    assert {to for to, *_ in mails} >= {"dave@example.com", "bob@example.com"}
    commands += _footers(mails, head, 3)

    game_resume(game=game, by=game.organizer)
    head = _head(game)
    assert LogEntry.objects.get(game=game, seq=head[0]).kind == "game_resumed"
    commands += _footers(_deliver(smtp_sink, head), head, 3)

    for mail in smtp_sink.messages:
        body = mail.message.get_body(("plain",)).get_content()
        assert not sealed & set(HEX64.findall(body)) or mail.rcpt_tos[0] == "ann@example.com"

    assert play_defaults(Game.objects.get(pk=game.pk), prompts=400)
    path = tmp_path / "export.json"
    path.write_text(json.dumps(game_export(game=Game.objects.get(pk=game.pk))), encoding="utf-8")
    for command in sorted(set(commands)):
        run = subprocess.run(
            [sys.executable, "-m", "engine", "verify", str(path), *command.split()],
            capture_output=True, text=True, cwd=ROOT, timeout=120,
        )  # fmt: skip
        assert run.returncode == 0 and "1 saved hash matched" in run.stdout, run.stdout
    assert Seat.objects.filter(game=game, name="bob", status=Seat.Status.ACTIVE).get().user == dave
