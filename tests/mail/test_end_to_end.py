"""A whole 3-player 5X game played by email only: every order is a reply (to the
Reply-To of the last email the player got) sent through the SMTP server, a real Celery
worker processes the mail, resolves the prompts and sends every email to a real sink."""

from __future__ import annotations

import os
import smtplib
import socket
import time
from collections.abc import Iterator
from email.utils import make_msgid

import pytest

from games.mail.models import InboundMail
from games.mail.smtpd import make_controller
from games.models import Game, OutboxMessage, Prompt
from games.selectors import current_prompt, legal_orders
from games.services.outbox import prompt_answered
from tests.conftest import _free_port
from tests.mail.conftest import PLAYERS, make_table

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def celery_broker_url() -> str | None:
    """Redis when it runs here (a private queue per run, see tests/conftest.py), else the
    embedded filesystem broker. FIVEX_TEST_MAIL_BROKER=filesystem forces the latter."""
    if os.environ.get("FIVEX_TEST_MAIL_BROKER") == "filesystem":
        return None
    url = os.environ.get("CELERY_BROKER_URL", "")
    if url.startswith("redis"):
        return url
    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=1).close()
    except OSError:
        return None
    return "redis://127.0.0.1:6379/0"


@pytest.fixture
def smtpd() -> Iterator[tuple[str, int]]:
    port = _free_port()
    controller = make_controller("127.0.0.1", port)
    controller.start()
    try:
        yield "127.0.0.1", port
    finally:
        controller.stop()


def wait_until(check, timeout: float, what: str, worker) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}\n--- worker log ---\n{worker.log()[-4000:]}")
        time.sleep(0.1)


def reply(*, player: str, last, order: str) -> bytes:
    """The player's answer to the last email it got: the order on top, the report quoted."""
    quoted = "\r\n".join(
        "> " + line for line in last.get_body(("plain",)).get_content().splitlines()
    )
    return (
        f"From: {player.title()} <{player}@example.com>\r\n"
        f"To: {last['Reply-To']}\r\n"
        f"Subject: Re: {last['Subject']}\r\n"
        f"Message-ID: {make_msgid(domain='example.com')}\r\n"
        f"In-Reply-To: {last['Message-ID']}\r\n"
        "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
        f"{order}\r\n\r\nOn Sat, 21 Nov 2026 at 10:00, FiveX <fivex@localhost> wrote:\r\n"
        f"{quoted}\r\n\r\n-- \r\n{player}\r\n"
    ).encode()


def test_a_whole_game_by_email(celery_worker_process, smtp_sink, smtpd) -> None:
    worker = celery_worker_process
    table = make_table(name="Mail league")
    game = table.game
    emails = {p: f"{p}@example.com" for p in PLAYERS}

    def inbox(player: str) -> list:
        return [m.message for m in smtp_sink.messages if emails[player] in m.rcpt_tos]

    def asking(player: str, number: int) -> list:
        return [
            m for m in inbox(player)
            if prompt_answered(in_reply_to=m["Message-ID"], game_id=game.pk) == number
        ]

    wait_until(lambda: all(inbox(p) for p in PLAYERS), 30, "the game-started emails", worker)
    prompts = 0
    while True:
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        prompt = current_prompt(game=game)
        if prompt is None:  # the game ended meanwhile: its last prompts asked nobody
            game.refresh_from_db()
            assert game.status == Game.Status.FINISHED
            break
        prompts += 1
        assert prompts <= 40, "the game does not end"
        for name in prompt.pending:
            if name in prompt.forced:  # its only legal order was entered for it
                continue
            seat = table.seats[name]
            order = legal_orders(seat=seat)[0]
            # The player answers the email that asks for this prompt (its Message-ID
            # names it; a reply to an older prompt's email would be refused).
            wait_until(
                lambda name=name, number=prompt.number: asking(name, number),
                30,
                f"the email asking {name} for decision {prompt.number}",
                worker,
            )
            last = asking(name, prompt.number)[-1]
            # the reply address is taken from the email itself, as a mail client does
            assert last["Reply-To"] == table.address(name)
            with smtplib.SMTP(*smtpd) as smtp:
                smtp.sendmail(
                    emails[name], [last["Reply-To"]], reply(player=name, last=last, order=order)
                )
        number = prompt.number
        wait_until(
            lambda number=number: Prompt.objects.get(game=game, number=number).status == "resolved",
            60,
            f"decision {number} to be resolved",
            worker,
        )

    assert game.status == Game.Status.FINISHED
    assert game.ranking
    # every message was processed (no failures, nothing left behind) and every order was an email
    assert set(InboundMail.objects.values_list("status", "outcome")) == {
        ("processed", "order_accepted")
    }
    assert InboundMail.objects.count() == sum(
        len(set(p.pending) - set(p.forced)) for p in Prompt.objects.filter(game=game)
    )
    wait_until(
        lambda: not OutboxMessage.objects.exclude(status="sent").exists(),
        60,
        "the outbox to drain",
        worker,
    )
    # A seat whose only legal order was entered for it is told so, not asked.
    for p in Prompt.objects.filter(game=game):
        for name in p.forced:
            for m in asking(name, p.number):
                body = m.get_body(("plain",)).get_content()
                assert "YOUR ORDER IS NEEDED" not in body
                assert "is your only legal order for decision" in body
    for player in PLAYERS:
        subjects = [m["Subject"] for m in inbox(player)]
        assert any("Your order: round" in s for s in subjects), subjects
        assert any("] Game over: " in s for s in subjects), subjects
        confirmations = [m for m in inbox(player) if m["Auto-Submitted"] == "auto-replied"]
        assert len(confirmations) == InboundMail.objects.filter(seat=table.seats[player]).count()
        assert all("Receipt (SHA-256 commitment): " in m.get_content() for m in confirmations)
