"""Messages a player builds by hand (a script, as the README's example once did): no
``From:`` header, no ``Message-ID``, sent over real SMTP to the order server. A fresh
machine audit: every answer warned "someone has your seat's private address" though the
envelope sender was the player's own address, and the same bytes sent again (the same
order after a refusal) were dropped as a duplicate without a word."""

from __future__ import annotations

import logging
import re
import smtplib
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from games.mail.models import InboundMail
from games.mail.processing import process_message
from games.mail.tasks import process_inbound_mail
from games.models import OutboxMessage, SealedOrder
from tests.mail.conftest import make_table

pytestmark = pytest.mark.django_db(transaction=True)
README = Path(__file__).resolve().parents[2] / "README.md"
FOREIGN = "someone has your seat's private address"


def answers() -> list[OutboxMessage]:
    return list(OutboxMessage.objects.filter(kind="mail_reply").order_by("id"))


def send(smtpd: tuple[str, int], envelope_sender: str, address: str, raw: bytes) -> InboundMail:
    """Send over SMTP, then run the queued processing here (the worker's job)."""
    before = set(InboundMail.objects.values_list("pk", flat=True))
    with smtplib.SMTP(*smtpd) as smtp:
        assert smtp.sendmail(envelope_sender, [address], raw) == {}
    [row] = InboundMail.objects.exclude(pk__in=before) or [None]
    if row is not None:
        process_inbound_mail.apply(args=[row.pk]).get()
        row.refresh_from_db()
    return row


def test_no_from_header_reads_the_envelope_sender_for_the_note(table, smtpd, caplog) -> None:
    """The README's example had no From:; its envelope sender was the player's account
    address, yet the confirmation said the message came from "an unknown sender"."""
    caplog.set_level(logging.INFO, logger="games.mail")
    address = table.address("ann")
    row = send(smtpd, "ann@example.com", address, b"Subject: my order\r\n\r\nPLAY EXPLOIT\r\n")
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    [confirmation] = answers()
    assert confirmation.to == "ann@example.com"
    assert FOREIGN not in confirmation.body and "unknown sender" not in confirmation.body
    # The intake's log line names the envelope sender, not "<>" (a null return path).
    [stored] = [r.getMessage() for r in caplog.records if "stored inbound" in r.getMessage()]
    assert "from a***@example.com (envelope; no From header)" in stored
    assert "from <>" not in stored


def test_no_from_header_from_a_stranger_envelope_is_still_flagged(table, smtpd) -> None:
    address = table.address("ann")
    row = send(smtpd, "mallory@elsewhere.test", address, b"Subject: x\r\n\r\nPLAY EXPAND\r\n")
    assert row.outcome == "order_accepted"
    [confirmation] = answers()
    assert confirmation.to == "ann@example.com"  # the seat holder, never the sender
    assert "came from mallory@elsewhere.test (the envelope sender: it had no From: address)" in (
        confirmation.body
    )
    assert FOREIGN in confirmation.body


def test_a_from_header_wins_over_the_envelope_sender(table, smtpd) -> None:
    """A From: naming another address is the message's sender whatever the envelope says
    (an envelope sender of the player's address does not hide a stranger's From:)."""
    address = table.address("ann")
    raw = b"From: mallory@elsewhere.test\r\nSubject: x\r\n\r\nPLAY EXPAND\r\n"
    send(smtpd, "ann@example.com", address, raw)
    [confirmation] = answers()
    assert "came from mallory@elsewhere.test, which is not your account address" in (
        confirmation.body
    )


def test_no_sender_known_at_all_says_so(table) -> None:
    """A pipe without --sender and a message without From: nothing names a sender."""
    address = table.address("ann")
    row = process_message(b"Subject: x\r\n\r\nPLAY EXPAND\r\n", address, source="pipe")
    assert row.outcome == "order_accepted"
    [confirmation] = answers()
    assert "named no sender (it had no From: address)" in confirmation.body
    assert FOREIGN in confirmation.body


def test_a_strict_game_still_wants_a_from_header(db, orders_settings, smtpd) -> None:
    """Orders only from the player's own address: that address is the From: header's
    (what DMARC and the receiving server's verdicts are about), so the envelope sender
    alone does not pass; the answer says what was missing."""
    strict = make_table(require_sender_match=True, name="Strict")
    address = strict.address("ann")
    row = send(smtpd, "ann@example.com", address, b"Subject: x\r\n\r\nPLAY EXPAND\r\n")
    assert (row.status, row.outcome) == ("rejected", "sender_mismatch")
    assert SealedOrder.objects.filter(source="email").count() == 0
    [warning] = answers()
    assert warning.to == "ann@example.com"
    assert "had no From: address" in warning.body


def test_the_same_bytes_without_message_id_sent_again_are_answered(table, smtpd) -> None:
    """Without a Message-ID the id is the bytes' hash: the same order sent again (after a
    refusal, say) was logged as a duplicate and dropped without an answer."""
    address = table.address("ann")
    raw = b"From: ann@example.com\r\nSubject: order\r\n\r\nPLAY EXPLOIT\r\n"
    first = send(smtpd, "ann@example.com", address, raw)
    assert first.outcome == "order_accepted"
    assert send(smtpd, "ann@example.com", address, raw) is None  # not stored again
    assert InboundMail.objects.count() == 1
    confirmation, repeat = answers()
    assert repeat.to == "ann@example.com"
    assert "This exact message arrived before" in repeat.body
    assert "it is never read twice" in repeat.body
    assert "Message-ID" in repeat.body
    assert SealedOrder.objects.filter(seat=table.seats["ann"]).count() == 1


def test_a_redelivery_with_a_message_id_is_still_silent(table, smtpd) -> None:
    address = table.address("ann")
    raw = (
        b"From: ann@example.com\r\nSubject: order\r\nMessage-ID: <once@example.com>\r\n\r\n"
        b"PLAY EXPLOIT\r\n"
    )
    send(smtpd, "ann@example.com", address, raw)
    assert send(smtpd, "ann@example.com", address, raw) is None
    assert len(answers()) == 1


def test_a_repeated_auto_reply_without_message_id_is_never_answered(table, smtpd) -> None:
    address = table.address("ann")
    raw = (
        b"From: ann@example.com\r\nSubject: Out of Office\r\nAuto-Submitted: auto-replied\r\n\r\n"
        b"I am away.\r\n"
    )
    send(smtpd, "ann@example.com", address, raw)
    send(smtpd, "ann@example.com", address, raw)
    assert answers() == []


def test_repeat_answers_count_against_the_hourly_answer_limit(table, smtpd, settings) -> None:
    settings.MAIL_REPLIES_PER_HOUR = 2
    address = table.address("ann")
    raw = b"From: ann@example.com\r\nSubject: order\r\n\r\nSTATUS\r\n"
    for _ in range(4):
        send(smtpd, "ann@example.com", address, raw)
    assert len(answers()) == 2


def _readme_example() -> str:
    text = README.read_text()
    match = re.search(r"```python\n(# Orders by email, by hand.*?)```", text, re.S)
    assert match, "the README's order-by-email example is missing"
    return match.group(1)


def test_the_readme_example_works_on_a_default_5x_game(db, orders_settings, smtpd) -> None:
    """The README's example, run as written (its placeholder and port filled in) against
    a default 5X game, which opens with the leader draft: HELP answers with the draft's
    legal orders, and one of them, sent the same way, is taken."""
    from games.services.games import game_create, game_join
    from games.services.seats import seat_reply_address

    User = get_user_model()
    organizer = User.objects.create_user(username="org", email="org@example.com")
    game = game_create(organizer=organizer, ruleset="5x", options={}, seats_count=3)
    for name in ("ann", "bob", "cy"):
        game_join(game=game, user=User.objects.create_user(username=name, email=f"{name}@example.com"))
    seat = game.seats.get(user__username="ann")
    address = seat_reply_address(seat=seat)
    code = _readme_example()
    assert 'smtplib.SMTP("127.0.0.1", 2525)' in code and "REPLY-TO ADDRESS" in code

    def run(body: str) -> InboundMail:
        before = set(InboundMail.objects.values_list("pk", flat=True))
        exec(  # noqa: S102 - the README's own example
            code.replace("REPLY-TO ADDRESS", address)
            .replace("2525", str(smtpd[1]))
            .replace('msg.set_content("HELP")', f"msg.set_content({body!r})"),
            {},
        )
        [row] = InboundMail.objects.exclude(pk__in=before)
        process_inbound_mail.apply(args=[row.pk]).get()
        row.refresh_from_db()
        return row

    helped = run("HELP")
    assert (helped.status, helped.outcome) == ("processed", "commands")
    [help_answer] = answers()
    assert FOREIGN not in help_answer.body
    legal = re.findall(r"^\s+(PASS \w+)$", help_answer.body, re.M)
    assert len(legal) == 2, help_answer.body  # the two leaders dealt to the seat
    ordered = run(legal[0])
    assert ordered.outcome == "order_accepted"
    assert SealedOrder.objects.get(seat=seat, is_current=True).text == legal[0]


RAW_REPEAT = b"Subject: hi\r\n\r\nSTATUS\r\n"


def _webhook(raw: bytes, address: str) -> InboundMail:
    return process_message(
        raw, address, source="webhook", envelope_sender="mallory@elsewhere.test"
    )


def test_a_repeat_to_an_address_replaced_since_is_not_answered(table) -> None:
    """After "New private address" the old address is dead: a fresh message to it is
    neither read nor answered, and neither is a copy of an earlier message to it (a
    review: each replayed copy still emailed the player)."""
    from games.services.seats import mail_token_rotate

    old = table.address("ann")
    _webhook(RAW_REPEAT, old)
    assert len(answers()) == 1
    seat = table.seats["ann"]
    seat.refresh_from_db()
    mail_token_rotate(seat=seat)
    for _ in range(3):
        _webhook(RAW_REPEAT, old)
    assert len(answers()) == 1


def test_a_repeat_to_a_seat_no_longer_playing_is_not_answered(table) -> None:
    """A replaced seat, or a game over: the copy is not answered "handled then"."""
    from games.models import Game, Seat

    address = table.address("ann")
    _webhook(RAW_REPEAT, address)
    Seat.objects.filter(pk=table.seats["ann"].pk).update(status=Seat.Status.REPLACED)
    _webhook(RAW_REPEAT, address)
    assert len(answers()) == 1
    Seat.objects.filter(pk=table.seats["ann"].pk).update(status=Seat.Status.ACTIVE)
    Game.objects.filter(pk=table.seats["ann"].game_id).update(status="finished")
    _webhook(RAW_REPEAT, address)
    assert len(answers()) == 1


def test_a_repeat_before_the_first_copy_was_handled_is_not_answered(table, smtpd) -> None:
    """The first copy still waits for a worker: "it was handled then" would be false, and
    its own answer is still to come (a review: the repeat's answer came first)."""
    address = table.address("ann")
    raw = b"From: ann@example.com\r\nSubject: o\r\n\r\nPLAY EXPLOIT\r\n"
    first = process_message(raw, address, source="smtp", defer=True)
    assert first.status == "received"
    with smtplib.SMTP(*smtpd) as smtp:
        smtp.sendmail("ann@example.com", [address], raw)
    assert answers() == []
    process_inbound_mail.apply(args=[first.pk]).get()
    [confirmation] = answers()
    assert "This exact message arrived before" not in confirmation.body


def test_no_repeat_is_answered_while_the_seat_is_over_its_intake(table, smtpd, settings) -> None:
    """Mail over MAIL_INTAKE_PER_HOUR is neither read nor answered (README): copies of an
    earlier message were answered all the same (a review)."""
    settings.MAIL_INTAKE_PER_HOUR = 2
    address = table.address("ann")
    raw = b"From: ann@example.com\r\nSubject: o\r\n\r\nSTATUS\r\n"
    send(smtpd, "ann@example.com", address, raw)
    send(smtpd, "ann@example.com", address, b"From: ann@example.com\r\nSubject: o2\r\n\r\nSTATUS\r\n")
    over = send(smtpd, "ann@example.com", address, b"From: ann@example.com\r\nSubject: o3\r\n\r\nSTATUS\r\n")
    assert (over.status, over.outcome) == ("ignored", "rate_limited")
    before = len(answers())
    for _ in range(3):
        send(smtpd, "ann@example.com", address, raw)
    assert len(answers()) == before


def test_a_real_message_id_shaped_like_a_synthesized_one_is_a_silent_redelivery(table, smtpd) -> None:
    """Whether a copy is answered depends on whether the message had a Message-ID, not
    on the id's shape: a real one written like ours was answered on redelivery."""
    address = table.address("ann")
    raw = (
        b"From: ann@example.com\r\nSubject: o\r\nMessage-ID: <sha256-x@fivex.invalid>\r\n\r\n"
        b"STATUS\r\n"
    )
    send(smtpd, "ann@example.com", address, raw)
    assert send(smtpd, "ann@example.com", address, raw) is None
    assert len(answers()) == 1
