"""The address is the credential: spoofing, the sender check, duplicates, reply loops,
redaction in logs and secrecy of other seats' orders."""

from __future__ import annotations

import logging

import pytest

from games.mail.models import InboundMail
from games.mail.processing import process_message
from games.models import OutboxMessage, SealedOrder
from tests.mail.conftest import eml, make_table

pytestmark = pytest.mark.django_db


def mail_replies() -> list[OutboxMessage]:
    return list(OutboxMessage.objects.filter(kind="mail_reply").order_by("id"))


def test_right_sender_wrong_token_is_refused(table) -> None:
    forged = "orders+0123456789abcdef01234567@orders.example"
    row = process_message(eml("plain.eml", to=forged, sender="ann@example.com"), forged)
    assert (row.seat_id, row.status, row.outcome) == (None, "rejected", "unknown_recipient")
    assert SealedOrder.objects.count() == 0
    assert mail_replies() == []  # nobody to answer safely: no backscatter


def test_right_token_on_the_wrong_domain_is_refused(table) -> None:
    token = table.seats["ann"].mail_token
    wrong = f"orders+{token}@evil.example"
    row = process_message(eml("plain.eml", to=wrong), wrong)
    assert (row.seat_id, row.status) == (None, "rejected")
    assert SealedOrder.objects.count() == 0


def test_a_rotated_token_no_longer_works(table) -> None:
    from games.services.seats import mail_token_rotate

    old = table.address("ann")
    mail_token_rotate(seat=table.seats["ann"])
    row = process_message(eml("plain.eml", to=old), old)
    assert row.outcome == "unknown_recipient"
    assert SealedOrder.objects.count() == 0


def test_sender_check_refuses_a_right_token_from_another_address(db, orders_settings) -> None:
    table = make_table(require_sender_match=True)
    address = table.address("ann")
    raw = eml("plain.eml", to=address, sender="mallory@evil.example")
    row = process_message(raw, address)
    assert (row.status, row.outcome) == ("rejected", "sender_mismatch")
    assert SealedOrder.objects.count() == 0
    [warning] = mail_replies()
    # the warning goes to the seat holder, never to the stranger
    assert warning.to == "ann@example.com"
    assert "mallory@evil.example" in warning.body and "not your account address" in warning.body


def test_sender_check_accepts_the_account_address_in_any_case(db, orders_settings) -> None:
    table = make_table(require_sender_match=True)
    address = table.address("ann")
    row = process_message(eml("plain.eml", to=address, sender="Ann@Example.COM"), address)
    assert row.outcome == "order_accepted"
    assert SealedOrder.objects.filter(seat=table.seats["ann"], is_current=True).count() == 1


def test_without_the_sender_check_the_token_alone_decides(table) -> None:
    address = table.address("ann")
    row = process_message(eml("plain.eml", to=address, sender="ann.other@example.net"), address)
    assert row.outcome == "order_accepted"
    # the confirmation goes to the account address, so a leaked token cannot act unseen
    assert [m.to for m in mail_replies()] == ["ann@example.com"]


def test_same_message_id_is_processed_once(table) -> None:
    address = table.address("ann")
    raw = eml("plain.eml", to=address, msgid="<twice@example.com>")
    first = process_message(raw, address)
    second = process_message(raw, address)
    assert first.pk == second.pk
    assert InboundMail.objects.count() == 1
    assert SealedOrder.objects.count() == 1
    assert len(mail_replies()) == 1
    # Another message reusing the id (another order) is no redelivery: it is read.
    other_body = eml("base64.eml", to=address, msgid="<twice@example.com>")
    third = process_message(other_body, address)
    assert third.pk != first.pk and third.outcome == "order_accepted"
    assert InboundMail.objects.count() == 2
    assert SealedOrder.objects.count() == 2
    assert len(mail_replies()) == 2


def test_messages_without_message_id_are_deduplicated_by_content(table) -> None:
    address = table.address("ann")
    raw = b"From: ann@example.com\r\nSubject: x\r\n\r\nPLAY EXPLOIT\r\n"
    process_message(raw, address)
    process_message(raw, address)
    assert InboundMail.objects.count() == 1
    assert InboundMail.objects.get().message_id.startswith("<sha256-")


def test_reply_rate_limit_stops_loops(table, settings) -> None:
    settings.MAIL_REPLIES_PER_HOUR = 3
    address = table.address("ann")
    for i in range(5):
        process_message(eml("commands.eml", to=address, msgid=f"<loop{i}@example.com>"), address)
    assert InboundMail.objects.filter(status="processed").count() == 5
    answers = sorted(mail_replies(), key=lambda m: m.pk)
    assert len(answers) == 3
    # The last answer of the hour says so; the rows left unanswered say so too.
    assert "This is the last answer you get for an hour" in answers[-1].body
    assert "at most 3 messages an hour" in answers[-1].body
    assert not any("last answer" in m.body for m in answers[:-1])
    rows = InboundMail.objects.order_by("pk")
    assert [("not answered" in r.error) for r in rows] == [False, False, False, True, True]
    # another seat has its own quota
    process_message(
        eml("commands.eml", to=table.address("bob"), sender="bob@example.com"), table.address("bob")
    )
    assert OutboxMessage.objects.filter(kind="mail_reply", to="bob@example.com").count() == 1


def test_a_flood_to_one_seat_is_kept_unread_past_the_hours_intake(table, settings) -> None:
    """A security review: one player could keep the mail workers busy (every outgoing
    email waits behind them); past MAIL_INTAKE_PER_HOUR a seat's messages are kept as
    their headers, ignored, never read nor answered."""
    settings.MAIL_INTAKE_PER_HOUR = 3
    address = table.address("ann")
    for i in range(5):
        process_message(eml("commands.eml", to=address, msgid=f"<flood{i}@example.com>"), address)
    rows = list(InboundMail.objects.order_by("pk"))
    assert [r.status for r in rows] == ["processed"] * 3 + ["ignored"] * 2
    assert {r.outcome for r in rows[3:]} == {"rate_limited"}
    assert all(b"Status" not in bytes(r.raw) for r in rows[3:])  # the body is not kept
    assert all(b" Status" in bytes(r.raw) for r in rows[:3])
    assert len(mail_replies()) == 3
    # another seat has its own intake
    process_message(
        eml("commands.eml", to=table.address("bob"), sender="bob@example.com", msgid="<bob@x>"),
        table.address("bob"),
    )
    assert InboundMail.objects.get(message_id="<bob@x>").status == "processed"


def test_addresses_are_redacted_in_logs(table, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    address = table.address("ann")
    token = table.seats["ann"].mail_token
    process_message(eml("plain.eml", to=address), address)
    forged = "orders+ffffffffffffffffffffffff@orders.example"
    process_message(eml("plain.eml", to=forged), forged)
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert f"o***+{token[:4]}…@orders.example" in text
    assert token not in text
    assert "ffffffffffffffffffffffff" not in text
    assert "ann@example.com" not in text  # senders are redacted too


def test_a_refusal_never_reveals_another_seats_order(table) -> None:
    bob_address = table.address("bob")
    process_message(eml("plain.eml", to=bob_address, sender="bob@example.com"), bob_address)
    bob_order = SealedOrder.objects.get(seat=table.seats["bob"])
    address = table.address("ann")
    process_message(eml("illegal_order.eml", to=address), address)
    raw = b"From: ann@example.com\r\nMessage-ID: <st@x>\r\n\r\nSTATUS\r\nSHOW\r\n"
    process_message(raw, address)
    to_ann = [
        m.body
        for m in OutboxMessage.objects.filter(to="ann@example.com", kind="mail_reply").order_by(
            "id"
        )
    ]
    assert len(to_ann) == 2
    for body in to_ann:
        assert bob_order.salt not in body
        assert bob_order.commitment not in body
        assert "played: EXPLOIT" not in body  # bob's sealed card
    assert "SHOW: you have no order" in to_ann[1]


def test_every_mail_asks_autoresponders_not_to_answer(mailoutbox) -> None:
    from games.models import OutboxMessage
    from games.services.outbox_sending import _deliver

    _deliver(OutboxMessage(to="ann@example.com", subject="Your turn", body="PLAY?", headers={}))
    _deliver(
        OutboxMessage(
            to="ann@example.com", subject="Re: x", body="ok",
            headers={"Auto-Submitted": "auto-replied"},
        )
    )
    turn, answer = (m.message() for m in mailoutbox)
    assert turn["Auto-Submitted"] == "auto-generated"
    assert turn["X-Auto-Response-Suppress"] == "All"
    assert answer["Auto-Submitted"] == "auto-replied"  # an answer says it is one


@pytest.mark.parametrize(
    ("subject", "expected"),
    [
        ("Re: Re: AW: League 7: your turn", "Re: League 7: your turn"),
        ("re:League 7", "Re: League 7"),
        ("League 7", "Re: League 7"),
        ("Re[2]: Fwd: Re: League 7", "Re: League 7"),
        # Spanish, Portuguese, Finnish, Polish and Czech mail programs' prefixes: the
        # order-in-the-subject hint took them away already, the answer's subject kept them.
        ("RV: Enc: League 7: your turn", "Re: League 7: your turn"),
        ("VS: Odp: Přep: Ref: League 7", "Re: League 7"),
        ("Re:", "Re: League 7"),
        ("PASS", "Re: [League 7] PASS"),  # written from scratch: the game is named
        ("Re: [league 7] Your order: draft", "Re: [league 7] Your order: draft"),
    ],
)
def test_answer_subjects_carry_one_reply_prefix(table, subject: str, expected: str) -> None:
    from games.mail.parsing import ParsedMail
    from games.mail.replies import _subject

    parsed = ParsedMail()
    parsed.subject = subject
    assert _subject(parsed, table.seats["ann"]) == expected


def test_account_mails_ask_autoresponders_not_to_answer(client, mailoutbox) -> None:
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user("zoe", "zoe@example.com", "pw")
    answer = client.post("/accounts/password/reset/", {"email": "zoe@example.com"})
    assert answer.status_code in (200, 302)
    from tests.site.mail_support import sent_account_mail

    [message] = sent_account_mail()
    assert message.extra_headers["Auto-Submitted"] == "auto-generated"
    assert message.extra_headers["X-Auto-Response-Suppress"] == "All"


def test_a_password_change_renews_reply_addresses_and_turns_the_feed_off(table, client) -> None:
    """Whoever read a player's turn emails, pages or feed before a password change (a
    takeover, a shared computer) must not keep ordering for the seat by email, nor read
    the player's deadlines, once the password is changed."""
    from django.contrib.messages import get_messages

    from games.services.players import calendar_feed_create

    ann = table.seats["ann"].user
    ann.set_password("old-horse-battery-7")
    ann.save()
    feed = calendar_feed_create(user=ann)
    assert client.get(f"/calendar/{feed}.ics").status_code == 200
    old = table.address("ann")
    bob_address = table.address("bob")
    # A turn email still waiting to go out (a mail server away) carries the old address.
    waiting = OutboxMessage.objects.filter(seat=table.seats["ann"], status="queued", reply_to=old).first()
    assert waiting is not None and old in waiting.body

    client.force_login(ann)
    changed = client.post("/accounts/password/change/", {
        "oldpassword": "old-horse-battery-7", "password1": "new-horse-battery-8",
        "password2": "new-horse-battery-8"})  # fmt: skip
    assert changed.status_code == 302
    told = " ".join(str(m) for m in get_messages(changed.wsgi_request))
    assert "reply addresses changed" in told and "calendar feed was turned off" in told
    assert "your game pages and the emails from now on give the new ones" in told

    stolen = process_message(eml("plain.eml", to=old, sender="mallory@evil.example"), old)
    assert (stolen.seat_id, stolen.outcome) == (None, "unknown_recipient")
    assert SealedOrder.objects.count() == 0
    assert client.get(f"/calendar/{feed}.ics").status_code == 404

    table.seats["ann"].refresh_from_db()
    new = table.address("ann")
    assert new != old
    waiting.refresh_from_db()  # it goes out with the new address
    assert waiting.reply_to == new and old not in waiting.body and new in waiting.body
    assert process_message(eml("plain.eml", to=new), new).outcome == "order_accepted"
    assert table.address("bob") == bob_address  # other players' addresses stay


def test_a_deactivated_players_seat_takes_no_mail_orders(table) -> None:
    # A staff audit: a deactivated account still played by email (the order was taken and
    # confirmed). Its address is now as unknown as a made-up one: no order, no answer
    # that tells the sender anything.
    from games.mail.processing import process_stored
    from games.mail.storing import store_message

    ann = table.seats["ann"].user
    ann.is_active = False
    ann.save(update_fields=["is_active"])
    address = table.address("ann")
    row = process_message(eml("plain.eml", to=address), address)
    assert (row.seat_id, row.status, row.outcome) == (None, "rejected", "unknown_recipient")
    # Stored for the seat while the account was open, read after it was closed.
    ann.is_active = True
    ann.save(update_fields=["is_active"])
    stored, _created = store_message(eml("plain.eml", to=address), address)
    assert stored.seat_id == table.seats["ann"].pk
    ann.is_active = False
    ann.save(update_fields=["is_active"])
    row = process_stored(stored.pk)
    assert (row.status, row.outcome) == ("rejected", "unknown_recipient")
    assert SealedOrder.objects.count() == 0
    assert mail_replies() == []
