"""The emails anchor a game's record outside the server (an audit: a forger who rehashes
the whole log passes both verifiers; none of 653 emails named a log hash, the seed
commitment or a receipt). Each start, result and game-over email ends with the log's
newest entry (seq and full hash) as it was committed with the email, the start email
with the seed commitment, and a result email with the seat's OWN receipts of the orders
just revealed: never another seat's, never an order still sealed. Asserted on the
emails as a real SMTP server received them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from games.models import Game, LogEntry, OutboxMessage, Prompt, SealedOrder, Seat
from games.selectors import current_state
from games.selectors_log import game_export
from games.services.orders import order_submit
from games.services.outbox_sending import outbox_send
from games.services.resolution import prompt_resolve
from tests.games.core_support import start_fixed

pytestmark = pytest.mark.django_db
NAMES = ["ann", "bob", "cat"]
HEX64 = re.compile(r"\b[0-9a-f]{64}\b")
LOG_LINE = re.compile(r"^Game log: entry (\d+), hash ([0-9a-f]{64})$", re.M)
ROOT = Path(__file__).resolve().parents[2]
RECEIPT_LINE = re.compile(r"^Your order for decision (\d+) was sealed as ([0-9a-f]{64})$", re.M)


def _head(game: Game) -> tuple[int, str]:
    entry = LogEntry.objects.filter(game=game).order_by("-seq").first()
    return entry.seq, entry.hash


def _deliver(smtp_sink, head: tuple[int, str]) -> list[tuple[str, str, str, tuple[int, str]]]:
    """Send every queued email through the SMTP server; (to, subject, body, the log's
    head when they were queued) of each as it arrived."""
    queued = list(OutboxMessage.objects.filter(status="queued").order_by("id"))
    before = len(smtp_sink.messages)
    for message in queued:
        assert outbox_send(message_id=message.pk)[0] == "sent"
    arrived = smtp_sink.wait_for(before + len(queued))[before:]
    return [
        (m.rcpt_tos[0], m.message["Subject"], m.message.get_body(("plain",)).get_content().replace("\r\n", "\n"), head)
        for m in arrived
    ]


def _names(game: Game) -> dict[str, str]:
    """Email address -> seat name."""
    return {s.user.email: s.name for s in Seat.objects.filter(game=game).select_related("user")}


def test_every_email_names_the_committed_log_head_and_only_its_own_receipts(smtp_sink, tmp_path) -> None:
    game, seats = start_fixed(NAMES)
    # cat is emailed only when asked: its email names the receipts since its last one
    Seat.objects.filter(pk=seats["cat"].pk).update(email_every_prompt=False)
    mails = _deliver(smtp_sink, _head(game))
    started = [m for m in mails if "The game has started" in m[1]]
    assert len(started) == 3
    for _to, _subject, body, head in started:
        assert f"Seed commitment (SHA-256): {game.seed_commitment}" in body
        assert LOG_LINE.findall(body) == [(str(head[0]), head[1])]
        assert RECEIPT_LINE.findall(body) == []
    rules = engine.get(game.ruleset)
    for _ in range(200):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        prompt = Prompt.objects.get(game=game, status=Prompt.Status.OPEN)
        state = current_state(game=game)
        for name in prompt.pending:
            if name not in prompt.forced:
                order_submit(seat=seats[name], text=rules.legal_orders(state, name)[0], source="web")
        assert prompt_resolve(game_id=game.pk, prompt_number=prompt.number)
        batch = _deliver(smtp_sink, _head(game))
        mails += batch
        for _to, _subject, body, _head_then in batch:  # only orders revealed by now
            assert all(int(n) <= prompt.number for n, _c in RECEIPT_LINE.findall(body)), body
    assert game.status == Game.Status.FINISHED
    by_address = _names(game)
    entries = {e.seq: e.hash for e in LogEntry.objects.filter(game=game)}
    orders = list(
        SealedOrder.objects.filter(prompt__game=game).values_list(
            "seat_name", "prompt__number", "commitment", "is_current"
        )
    )
    named: dict[str, set[tuple[int, str]]] = {name: set() for name in NAMES}
    commands: list[str] = []
    for to, subject, body, head in mails:
        name = by_address[to]
        # the head when the email was queued, with its full hash: an entry the log keeps
        assert LOG_LINE.findall(body) == [(str(head[0]), head[1])], (subject, body)
        assert entries[head[0]] == head[1]
        receipts = {(int(n), c) for n, c in RECEIPT_LINE.findall(body)}
        # the footer ends with the very command that checks an export against them
        command = body.rstrip().splitlines()[-1]
        expected = f"python -m engine verify EXPORT.json --expect {head[0]}:{head[1]}"
        expected += "".join(f" --receipt {c}" for _n, c in sorted(RECEIPT_LINE.findall(body), key=lambda r: int(r[0])))
        assert command == expected, body
        commands.append(command)
        named[name] |= receipts
        # no commitment but the seat's own appears in its email
        others = {c for seat, _n, c, _cur in orders if seat != name}
        assert not others & set(HEX64.findall(body)), (name, subject)
    for name in NAMES:  # every order a seat had resolved is named in an email to it
        own = {(n, c) for seat, n, c, current in orders if seat == name and current}
        assert named[name] == own, name
    last = mails[-3:]
    assert all("Game over" in subject for _to, subject, _b, _h in last)
    final = max(entries)
    assert LogEntry.objects.get(game=game, seq=final).kind == "game_finished"
    assert all(LOG_LINE.findall(b) == [(str(final), entries[final])] for _t, _s, b, _h in last)
    # Each email's command, run as it stands on the game's downloaded record, says OK; on a
    # record whose entry it names was rewritten, it fails.
    export = game_export(game=game)
    path = tmp_path / "EXPORT.json"
    path.write_text(json.dumps(export))
    for command in (commands[0], commands[len(commands) // 2], commands[-1]):
        done = subprocess.run([sys.executable, *command.split()[1:]], cwd=tmp_path, env=_env(),
                              capture_output=True, text=True, check=False, timeout=60)  # fmt: skip
        assert done.returncode == 0, (command, done.stdout, done.stderr)
    seq = int(commands[len(commands) // 2].split("--expect ")[1].split(":")[0])
    [forged] = [e for e in export["entries"] if e["seq"] == seq]
    forged["hash"] = "0" * 64
    path.write_text(json.dumps(export))
    done = subprocess.run([sys.executable, *commands[len(commands) // 2].split()[1:]], cwd=tmp_path,
                          env=_env(), capture_output=True, text=True, check=False, timeout=60)  # fmt: skip
    assert done.returncode == 1, done.stdout


def _env() -> dict[str, str]:
    """The engine importable from the checkout, as a player's copy of it would be."""
    import os

    return {**os.environ, "PYTHONPATH": str(ROOT)}


def test_an_email_never_names_a_sealed_order_of_the_next_prompt(smtp_sink) -> None:
    """An order entered for a seat when a prompt opens (a resigned seat's default) is
    sealed until that prompt resolves: the emails of the resolution that opened it name
    the log entry announcing it (its hash reveals nothing) but never its commitment."""
    from games.services.games import seat_resign

    game, seats = start_fixed(["ann", "bob", "cat", "dan"])
    _deliver(smtp_sink, _head(game))
    seat_resign(seat=seats["dan"])
    rules = engine.get(game.ruleset)
    prompt = Prompt.objects.get(game=game, status=Prompt.Status.OPEN)
    state = current_state(game=game)
    for name in prompt.pending:
        if name != "dan" and name not in prompt.forced:
            order_submit(seat=seats[name], text=rules.legal_orders(state, name)[0], source="web")
    assert prompt_resolve(game_id=game.pk, prompt_number=prompt.number)
    head = _head(game)
    following = Prompt.objects.get(game=game, number=prompt.number + 1)
    sealed = set(SealedOrder.objects.filter(prompt=following).values_list("commitment", flat=True))
    assert sealed  # dan's default was entered when the prompt opened
    assert LogEntry.objects.get(game=game, seq=head[0]).kind == "nmr_applied"
    mails = _deliver(smtp_sink, head)
    assert mails
    for _to, _subject, body, _h in mails:
        assert LOG_LINE.findall(body) == [(str(head[0]), head[1])]
        assert not sealed & set(HEX64.findall(body))


def test_the_organizers_end_email_names_the_final_entry(smtp_sink) -> None:
    from games.services.organizer import game_end

    game, _seats = start_fixed(NAMES)
    _deliver(smtp_sink, _head(game))
    game_end(game=game, by=game.organizer, reason="enough")
    final = _head(game)
    assert LogEntry.objects.get(game=game, seq=final[0]).kind == "game_ended"
    mails = _deliver(smtp_sink, final)
    assert len(mails) == 3
    for _to, subject, body, _h in mails:
        assert "Game ended" in subject
        assert LOG_LINE.findall(body) == [(str(final[0]), final[1])]


def test_the_walkover_email_names_the_final_entry(smtp_sink) -> None:
    from games.services.games import seat_resign

    game, seats = start_fixed(NAMES)
    _deliver(smtp_sink, _head(game))
    seat_resign(seat=seats["bob"])
    _deliver(smtp_sink, _head(game))
    seat_resign(seat=seats["cat"])
    final = _head(game)
    assert LogEntry.objects.get(game=game, seq=final[0]).kind == "game_walkover"
    mails = [m for m in _deliver(smtp_sink, final) if "Game over" in m[1]]
    assert len(mails) == 3
    for _to, _subject, body, _h in mails:
        assert LOG_LINE.findall(body) == [(str(final[0]), final[1])]
