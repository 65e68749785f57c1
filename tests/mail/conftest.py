"""Fixtures of the email gateway tests: a 3-seat 5X game and the recorded messages."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from email.utils import make_msgid
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings

from tests.db_snapshot import DatabaseSnapshot

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "mail"
PLAYERS = ("ann", "bob", "cy")


def eml(name: str, *, to: str, sender: str = "ann@example.com", msgid: str | None = None) -> bytes:
    """A recorded message with its placeholders filled in, with CRLF line ends (as on
    the wire; the files keep LF for readability)."""
    raw = re.sub(rb"\r?\n", b"\r\n", (FIXTURES / name).read_bytes())
    return (
        raw.replace(b"{{TO}}", to.encode())
        .replace(b"{{FROM}}", sender.encode())
        .replace(b"{{MSGID}}", (msgid or make_msgid(domain="example.com")).encode())
    )


def big_message(*, to: str, sender: str, size: int = 10 * 1024 * 1024) -> bytes:
    """A ~10 MB message: a valid order in the text part plus a huge base64 attachment."""
    head = (
        f"From: Ann Player <{sender}>\r\nTo: {to}\r\nSubject: holiday photos\r\n"
        f"Message-ID: {make_msgid(domain='example.com')}\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/mixed; boundary="BIG"\r\n\r\n'
        "--BIG\r\nContent-Type: text/plain\r\n\r\nPLAY EXPLOIT\r\n"
        '--BIG\r\nContent-Type: image/jpeg\r\nContent-Disposition: attachment; filename="a.jpg"\r\n'
        "Content-Transfer-Encoding: base64\r\n\r\n"
    ).encode()
    line = b"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAx\r\n"
    body = line * ((size - len(head)) // len(line) + 1)
    return head + body + b"--BIG--\r\n"


def random_bytes_message(seed: int = 5) -> bytes:
    """Bytes that are no email at all (deterministic)."""
    return random.Random(seed).randbytes(6000)


class Table:
    """A started 5X game (leaders off: round 1 is a plain ``play`` prompt for all)."""

    def __init__(self, game, seats) -> None:
        self.game = game
        self.seats = seats

    @classmethod
    def of(cls, game) -> Table:
        from games.models import Seat

        return cls(game, {s.name: s for s in Seat.objects.filter(game=game, status="active")})

    def address(self, name: str) -> str:
        from games.services.seats import seat_reply_address

        return seat_reply_address(seat=self.seats[name])


def make_table(*, require_sender_match: bool = False, name: str = "League 7") -> Table:
    from games.services.games import game_create, game_join

    User = get_user_model()
    organizer = User.objects.create_user(username="org", email="org@example.com")
    game = game_create(
        organizer=organizer,
        ruleset="5x",
        options={"leaders": False},
        seats_count=len(PLAYERS),
        name=name,
        require_sender_match=require_sender_match,
    )
    for player in PLAYERS:
        user = User.objects.create_user(username=player, email=f"{player}@example.com")
        game_join(game=game, user=user)
    game.refresh_from_db()
    assert game.status == "active"
    return Table.of(game)


#: What ``orders_settings`` sets (also for a table built outside a test: ``override_settings``).
ORDERS_SETTINGS = {
    "ORDERS_DOMAIN": "orders.example",
    "ORDERS_ADDRESS_PREFIX": "orders",
    "MAIL_MAX_BYTES": 1024 * 1024,
    "MAIL_REPLIES_PER_HOUR": 20,
}


@pytest.fixture
def orders_settings(settings):
    for name, value in ORDERS_SETTINGS.items():
        setattr(settings, name, value)
    return settings


@pytest.fixture(scope="module")
def _table_snapshot(django_db_setup, django_db_blocker) -> tuple[DatabaseSnapshot, int]:
    """The rows ``make_table()`` writes, built once per test module (and xdist worker) in
    a transaction rolled back, and its game's id."""
    with django_db_blocker.unblock(), override_settings(**ORDERS_SETTINGS):
        return DatabaseSnapshot.take(lambda: make_table().game.pk)


@pytest.fixture
def table(db, orders_settings, _table_snapshot) -> Table:
    """``make_table()``'s table, its rows put back into this test's empty database (the
    same at each test's start; ~12 queries instead of ~50, see tests/db_snapshot.py)."""
    from games.models import Game

    snapshot, game_pk = _table_snapshot
    snapshot.restore()
    return Table.of(Game.objects.get(pk=game_pk))


@pytest.fixture
def smtpd(orders_settings) -> Iterator[tuple[str, int]]:
    """The real SMTP gateway (``runsmtpd``'s controller) on a free local port."""
    from games.mail.smtpd import make_controller
    from tests.conftest import _free_port

    port = _free_port()
    controller = make_controller("127.0.0.1", port)
    controller.start()
    try:
        yield "127.0.0.1", port
    finally:
        controller.stop()
