"""process_message end to end on the database: every recorded message gives the right
order or the right answer, and nothing crashes."""

from __future__ import annotations

import hashlib

import pytest

from games.mail.models import InboundMail
from games.mail.processing import process_message
from games.models import Game, OutboxMessage, SealedOrder
from tests.mail.conftest import big_message, eml, random_bytes_message

pytestmark = pytest.mark.django_db

ALL_CARDS = ["PLAY EXPLOIT", "PLAY EXTERMINATE", "PLAY EXPAND", "PLAY EXPLORE", "PLAY EXCAVATE"]

# fixture -> the card ann's order plays (read by hand from the file)
ACCEPTED = {
    "plain.eml": "EXPLOIT",
    "multipart_alternative.eml": "EXPAND",
    "html_only.eml": "EXPLORE",
    "quoted_printable.eml": "EXCAVATE",
    "base64.eml": "EXTERMINATE",
    "iso_8859_1.eml": "EXPLOIT",
    "broken_charset.eml": "EXPLORE",
    "reply_quoted_report.eml": "EXPAND",
    "reply_localized.eml": "EXPLORE",
    "reply_outlook.eml": "EXCAVATE",
    "outlook_html.eml": "EXPLORE",
}


def replies_to(address: str) -> list[OutboxMessage]:
    return list(OutboxMessage.objects.filter(to=address, kind="mail_reply").order_by("id"))


def current(seat) -> SealedOrder | None:
    return SealedOrder.objects.filter(seat=seat, is_current=True).first()


@pytest.mark.parametrize("name,card", sorted(ACCEPTED.items()))
def test_recorded_order_is_accepted_and_confirmed(table, name: str, card: str) -> None:
    ann = table.seats["ann"]
    address = table.address("ann")
    row = process_message(eml(name, to=address, msgid="<m-1@example.com>"), address, source="pipe")

    assert (row.status, row.outcome) == ("processed", "order_accepted")
    order = current(ann)
    assert order is not None and order.source == "email"
    assert order.parsed == {"play": card}
    # the receipt is SHA-256 over salt ":" text (games.services.orders docstring)
    assert order.commitment == hashlib.sha256(f"{order.salt}:{order.text}".encode()).hexdigest()

    [reply] = replies_to("ann@example.com")
    assert reply.reply_to == address
    assert reply.seat_id == ann.pk
    assert reply.headers["In-Reply-To"] == "<m-1@example.com>"
    assert reply.headers["References"].endswith("<m-1@example.com>")
    assert reply.headers["Auto-Submitted"] == "auto-replied"
    assert reply.subject.lower().startswith("re")
    assert f"Receipt (SHA-256 commitment): {order.commitment}" in reply.body
    assert "Deadline: " in reply.body and "Deadline: none" not in reply.body
    # As the game page says it: the legal order the text is, unless written exactly so.
    understood = [line for line in reply.body.splitlines() if line.startswith("Understood as")]
    assert understood == ([] if order.text.strip() == f"PLAY {card}" else [f"Understood as: PLAY {card}"])
    assert order.salt not in reply.body


def test_refused_order_gets_the_reason_and_the_legal_orders(table) -> None:
    address = table.address("ann")
    row = process_message(eml("illegal_order.eml", to=address), address)
    assert (row.status, row.outcome) == ("rejected", "order_refused")
    assert current(table.seats["ann"]) is None
    [reply] = replies_to("ann@example.com")
    assert "NOT accepted: NAPOLEON is not in your hand" in reply.body
    for order in ALL_CARDS:
        assert f"    {order}\n" in reply.body


@pytest.mark.parametrize("name", ["auto_reply.eml", "auto_reply_vacation.eml", "bounce.eml"])
def test_auto_replies_and_bounces_are_never_answered(table, name: str) -> None:
    address = table.address("ann")
    sender = "" if name == "bounce.eml" else None
    row = process_message(eml(name, to=address), address, envelope_sender=sender)
    assert (row.status, row.outcome) == ("ignored", "auto_reply")
    # auto_reply.eml carries "PLAY EXPLOIT" in its body: still no order
    assert current(table.seats["ann"]) is None
    assert OutboxMessage.objects.filter(kind="mail_reply").count() == 0


@pytest.mark.parametrize(
    "name,outcome,words",
    [
        ("attachment_only.eml", "attachment_only", "Attachments are not read"),
        ("empty.eml", "empty", "did not contain an order or a command"),
    ],
)
def test_messages_without_an_order_get_a_clear_answer(table, name, outcome, words) -> None:
    address = table.address("ann")
    row = process_message(eml(name, to=address), address)
    assert (row.status, row.outcome) == ("rejected", outcome)
    [reply] = replies_to("ann@example.com")
    assert words in reply.body
    assert "    PLAY EXPLOIT" in reply.body


def test_random_bytes_are_answered_not_crashed(table) -> None:
    address = table.address("ann")
    row = process_message(random_bytes_message(), address)
    assert (row.status, row.outcome) == ("rejected", "garbled")
    [reply] = replies_to("ann@example.com")
    assert "could not be read as text" in reply.body


def test_oversize_message_is_refused_politely_without_being_read(table, settings) -> None:
    address = table.address("ann")
    raw = big_message(to=address, sender="ann@example.com")
    assert len(raw) >= 10 * 1024 * 1024
    row = process_message(raw, address)
    assert (row.status, row.outcome) == ("rejected", "too_large")
    assert row.truncated and row.size == len(raw)
    assert len(bytes(row.raw)) < 2000  # only the header section was kept
    assert current(table.seats["ann"]) is None  # the valid order inside was not read
    [reply] = replies_to("ann@example.com")
    assert f"was {len(raw):,} bytes, more than the {1024 * 1024:,} bytes" in reply.body


def test_commands_help_status_show(table) -> None:
    address = table.address("ann")
    process_message(eml("plain.eml", to=address), address)
    row = process_message(eml("commands.eml", to=address), address)
    assert (row.status, row.outcome) == ("processed", "commands")
    reply = replies_to("ann@example.com")[-1]
    order = current(table.seats["ann"])
    # HELP says which prompt, by when, and the order already in (plain.eml's).
    assert "HELP: Decision 1 (round 1, play), deadline " in reply.body
    assert f"; your order so far: {order.text}.\nLegal orders now:" in reply.body
    assert "STATUS: your view of the game" in reply.body
    assert "Your hand: EXPLOIT, EXTERMINATE, EXPAND, EXPLORE, EXCAVATE" in reply.body
    assert "  ann (you): 1 VP, 3 resources, no Wonder, 5 cards in hand" in reply.body
    assert "SHOW: your current order:\n\n    PLAY EXPLOIT" in reply.body
    assert order.commitment in reply.body


def test_show_without_order(table) -> None:
    address = table.address("bob")
    raw = b"From: bob@example.com\r\nSubject: ?\r\nMessage-ID: <s@x>\r\n\r\nshow\r\n"
    process_message(raw, address)
    [reply] = replies_to("bob@example.com")
    assert "SHOW: you have no order for the current prompt." in reply.body


def test_quiet_and_all_set_when_the_seat_is_emailed(table) -> None:
    from games.models import Seat

    address = table.address("bob")
    raw = b"From: bob@example.com\r\nSubject: ?\r\nMessage-ID: <q@x>\r\n\r\nQuiet\r\n"
    row = process_message(raw, address)
    assert (row.status, row.outcome) == ("processed", "commands")
    assert Seat.objects.get(pk=table.seats["bob"].pk).email_every_prompt is False
    [reply] = replies_to("bob@example.com")
    assert "QUIET: from now on you get only the emails that ask for your order" in reply.body
    # With an order in the same message: both happen.
    raw = b"From: bob@example.com\r\nSubject: ?\r\nMessage-ID: <a@x>\r\n\r\nPLAY EXPAND\r\nALL\r\n"
    row = process_message(raw, address)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert Seat.objects.get(pk=table.seats["bob"].pk).email_every_prompt is True
    assert current(table.seats["bob"]).text == "PLAY EXPAND"
    assert "ALL: from now on you get an email after every decision" in replies_to("bob@example.com")[-1].body


def test_finished_game_is_answered(table) -> None:
    Game.objects.filter(pk=table.game.pk).update(status="finished")
    address = table.address("ann")
    row = process_message(eml("plain.eml", to=address), address)
    assert (row.status, row.outcome) == ("rejected", "game_finished")
    [reply] = replies_to("ann@example.com")
    assert "This game is over: orders are no longer accepted." in reply.body
    # An order alone is told where to read the rest (an email-only player got one line).
    assert f"/games/{table.game.pk}/ (or send STATUS)." in reply.body


def test_replacing_an_order_by_email(table) -> None:
    address = table.address("ann")
    process_message(eml("plain.eml", to=address), address)
    process_message(eml("base64.eml", to=address), address)
    assert current(table.seats["ann"]).parsed == {"play": "EXTERMINATE"}
    assert SealedOrder.objects.filter(seat=table.seats["ann"]).count() == 2


def test_a_stored_row_is_processed_once(table) -> None:
    from games.mail.processing import process_stored

    address = table.address("ann")
    row = process_message(eml("plain.eml", to=address), address)
    again = process_stored(row.pk)
    assert again.attempts == 1 and again.status == "processed"
    assert len(replies_to("ann@example.com")) == 1


def test_row_records_what_arrived(table) -> None:
    address = table.address("ann")
    raw = eml("plain.eml", to=address, msgid="<rec@example.com>")
    row = process_message(raw, address, source="pipe", envelope_sender="ann@example.com")
    row.refresh_from_db()
    assert bytes(row.raw) == raw
    assert row.message_id == "<rec@example.com>"
    assert row.seat_id == table.seats["ann"].pk
    assert row.dkim == "pass"
    assert row.sender == "ann@example.com"
    assert row.source == "pipe"
    assert row.processed_at is not None
    token = table.seats["ann"].mail_token
    assert token not in row.recipient and row.recipient.startswith("o***+")
    assert InboundMail.objects.count() == 1


@pytest.mark.parametrize(
    "name,subject",
    [
        ("reply_localized.eml", "Re: [FiveX] Ligue 7"),
        ("reply_outlook.eml", "Re: [FiveX] League 7: round 1"),
        ("quoted_printable.eml", "Re: [FiveX] Ligue 7 — tour 1"),
        ("commands.eml", "Re: [League 7] help please"),  # a subject of its own: the game named
    ],
)
def test_reply_subject_has_one_re_prefix(table, name: str, subject: str) -> None:
    address = table.address("ann")
    process_message(eml(name, to=address), address)
    assert [m.subject for m in replies_to("ann@example.com")] == [subject]


def test_status_renders_the_seat_list_one_line_each(table) -> None:
    address = table.address("ann")
    process_message(eml("commands.eml", to=address), address)
    [reply] = replies_to("ann@example.com")
    seating = ", ".join(s.name for s in sorted(table.seats.values(), key=lambda s: s.position))
    assert sorted(seating.split(", ")) == ["ann", "bob", "cy"]
    assert f"\nSeats: {seating}\n" in reply.body
    assert "Decision 1 (round 1, play), deadline " in reply.body
    # the seat that asks is "you", and the list reads as a sentence (a 6x5 player's
    # journey: STATUS told bob it was "waiting for bob")
    names = ["you" if n == "ann" else n for n in seating.split(", ")]
    assert f"waiting for {', '.join(names[:-1])} and {names[-1]}." in reply.body


def body_message(*, to: str, body: str, sender: str = "ann@example.com") -> bytes:
    return (
        f"From: Ann <{sender}>\r\nTo: {to}\r\nSubject: Re: your turn\r\n"
        f"Message-ID: <sig-{hashlib.sha256(body.encode()).hexdigest()[:16]}@example.com>\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n\r\n" + body.replace("\n", "\r\n")
    ).encode()


def test_sign_off_after_a_blank_line_is_ignored_and_said_so(table) -> None:
    address = table.address("ann")
    body = "play expand\n\nThanks,\nAnn\n"
    row = process_message(body_message(to=address, body=body), address)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    order = current(table.seats["ann"])
    assert order is not None and order.parsed == {"play": "EXPAND"}
    assert order.text == "play expand"
    [reply] = replies_to("ann@example.com")
    assert "Order received for decision 1" in reply.body
    assert "Only the first paragraph was read as your order" in reply.body
    assert "    Thanks,\n    Ann" in reply.body


def test_sign_off_on_the_next_line_is_ignored_and_said_so(table) -> None:
    address = table.address("ann")
    body = "PLAY EXPAND\nThanks, Ann\n"
    row = process_message(body_message(to=address, body=body), address)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    order = current(table.seats["ann"])
    assert order is not None and order.parsed == {"play": "EXPAND"} and order.text == "PLAY EXPAND"
    [reply] = replies_to("ann@example.com")
    assert "Order received for decision 1" in reply.body
    assert "Only the first line was read as your order" in reply.body
    assert "    Thanks, Ann" in reply.body and "first paragraph" not in reply.body


@pytest.mark.parametrize(
    "body",
    [
        "\u200bPLAY EXPAND\u200b\n",  # zero-width spaces (some webmails)
        "\ufeffPLAY\u00a0EXPAND\n",  # a byte order mark, a no-break space
        "ＰＬＡＹ ＥＸＰＡＮＤ\n",  # full-width letters (some phone keyboards)
        "Play Expand.\n",  # a phone keyboard's full stop
        "PLAY EXPAND!\n\nThanks\n",
        # Direction marks (Hebrew and Arabic locales' phones and mail programs): two RLMs
        # made this read as garbled, an LRM or an RLO as an unknown order (bad-input audit).
        "\u200fPLAY EXPAND\u200f\n",
        "\u200ePLAY EXPAND\n",
        "\u202ePLAY EXPAND\u202c\n",
        "\u2067PLAY\u061c EXPAND\u2069\n",
    ],
)
def test_invisible_and_full_width_characters_read_as_they_look(table, body: str) -> None:
    address = table.address("ann")
    row = process_message(body_message(to=address, body=body), address)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    order = current(table.seats["ann"])
    assert order.text.upper() == "PLAY EXPAND" and order.parsed == {"play": "EXPAND"}


def test_a_refusal_by_email_never_echoes_a_bidi_override(table) -> None:
    # Regression (bad-input audit): "\u202ePLAY PIZZA" came back with the raw RLO in the
    # refusal, and the rest of its line displayed reversed.
    address = table.address("ann")
    body = "\u202ePLAY PIZ\u2066ZA\u200f\n"
    row = process_message(body_message(to=address, body=body), address)
    assert (row.status, row.outcome) == ("rejected", "order_refused")
    [reply] = replies_to("ann@example.com")
    assert "'PIZZA' is not a 5X card" in reply.body
    assert not set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069") & set(
        reply.body + reply.subject
    )


@pytest.mark.parametrize(
    "body,reason",
    [
        # A second order after the blank line: ambiguous, nothing is taken.
        ("PLAY EXPAND\n\nPLAY EXPLORE\n", "Send exactly one order per message, not 2"),
        ("PLAY EXPAND\n\nsorry, I meant\nPLAY EXPLORE\n", "not 3"),
        # A second order that is illegal on its own is still an order: nothing is dropped.
        ("PLAY EXPAND\n\nPLAY NAPOLEON\n", "Send exactly one order per message, not 2"),
        ("PLAY EXPAND\n\nplay, expand please\n", "Send exactly one order per message, not 2"),
        # No blank line: the same rules for the lines after the first.
        ("PLAY EXPAND\nPLAY EXPLORE\n", "Send exactly one order per message, not 2"),
        ("PLAY EXPAND\nplay explore instead?\nAnn\n", "Send exactly one order per message, not 3"),
        # The first paragraph is no legal order either: the reason is about that order.
        ("PLAY NAPOLEON\n\nThanks\n", "NAPOLEON is not in your hand"),
    ],
)
def test_no_order_is_guessed_from_an_ambiguous_message(table, body: str, reason: str) -> None:
    address = table.address("ann")
    row = process_message(body_message(to=address, body=body), address)
    assert (row.status, row.outcome) == ("rejected", "order_refused")
    assert current(table.seats["ann"]) is None
    [reply] = replies_to("ann@example.com")
    assert "NOT accepted: " in reply.body and reason in reply.body
    assert "first paragraph" not in reply.body


@pytest.mark.parametrize("body", ["STATUS\n\nThanks,\nBob\n", "HELP\n\nGrüße, Bób\n"])
def test_a_command_with_a_sign_off_is_answered_without_a_refusal(table, body: str) -> None:
    address = table.address("ann")
    row = process_message(body_message(to=address, body=body), address)
    assert (row.status, row.outcome) == ("processed", "commands")
    [reply] = replies_to("ann@example.com")
    assert "NOT accepted" not in reply.body
    assert "taken for a sign-off, not an order, and ignored" in reply.body
    assert current(table.seats["ann"]) is None


def test_a_command_with_an_order_still_sends_the_order(table) -> None:
    address = table.address("ann")
    row = process_message(body_message(to=address, body="STATUS\nPLAY EXPAND\n"), address)
    assert row.outcome == "order_accepted"
    assert current(table.seats["ann"]).parsed == {"play": "EXPAND"}


def test_note_lines_are_never_part_of_the_sealed_order(table) -> None:
    address = table.address("ann")
    body = "# note to self: bob is ahead\nPLAY EXPAND\n"
    row = process_message(body_message(to=address, body=body), address)
    assert row.outcome == "order_accepted"
    order = current(table.seats["ann"])
    assert order.text == "PLAY EXPAND"  # sealed, and revealed later, without the note
    [reply] = replies_to("ann@example.com")
    assert "bob is ahead" not in reply.body
    only_note = process_message(body_message(to=address, body="# just a note\n"), address)
    assert only_note.outcome == "empty"
    assert current(table.seats["ann"]).text == "PLAY EXPAND"


def test_a_message_read_late_answers_the_prompt_open_when_it_arrived(table) -> None:
    """Stored while decision 1 was open, read after decision 1 resolved: refused (decision 1 is
    closed), never put on decision 2."""
    from datetime import timedelta

    from django.utils import timezone

    from games.mail.processing import process_stored
    from games.mail.storing import store_message
    from games.models import Prompt
    from games.services.orders import order_submit

    address = table.address("ann")
    row, _created = store_message(
        body_message(to=address, body="PLAY EXPLOIT\n"), address, source="pipe"
    )
    InboundMail.objects.filter(pk=row.pk).update(created_at=timezone.now() - timedelta(minutes=5))
    Prompt.objects.filter(game=table.game, number=1).update(
        opened_at=timezone.now() - timedelta(minutes=10)
    )
    for seat in table.seats.values():  # every seat orders by the web: prompt 1 resolves
        order_submit(seat=seat, text="PLAY EXPAND", source="web")
    from games.services.resolution import prompt_resolve

    prompt_resolve(game_id=table.game.pk, prompt_number=1)
    assert Prompt.objects.get(game=table.game, number=2).status == "open"
    row = process_stored(row.pk)
    assert (row.status, row.outcome) == ("rejected", "prompt_closed")
    assert not SealedOrder.objects.filter(prompt__number=2, seat=table.seats["ann"]).exists()
    [reply] = replies_to("ann@example.com")
    assert "Decision 1 is not open any more" in reply.body  # the API: prompt


def test_answers_say_what_stands_after_a_replacement_or_a_refusal(table) -> None:
    address = table.address("ann")
    process_message(body_message(to=address, body="PLAY EXPAND\n"), address)
    replaced = process_message(body_message(to=address, body="PLAY EXPLORE\n"), address)
    assert replaced.outcome == "order_accepted"
    second = replies_to("ann@example.com")[-1]
    assert "It replaces your earlier order: PLAY EXPAND" in second.body
    receipt = current(table.seats["ann"]).commitment
    refused = process_message(body_message(to=address, body="PLAY DANCE\n"), address)
    assert refused.outcome == "order_refused"
    third = replies_to("ann@example.com")[-1]
    assert "NOT accepted" in third.body
    assert f"Your order for decision 1 stays as it was: PLAY EXPLORE (receipt {receipt[:16]}" in (
        third.body
    )
    assert "your order so far" not in third.body  # said once (a first-time walk: twice)
    assert current(table.seats["ann"]).text == "PLAY EXPLORE"


def test_a_refusal_before_any_order_says_there_is_none(table) -> None:
    address = table.address("ann")
    process_message(body_message(to=address, body="PLAY DANCE\n"), address)
    [reply] = replies_to("ann@example.com")
    assert "You have no order for decision 1 yet." in reply.body
    assert "no order from you yet" not in reply.body and "Legal orders now:" in reply.body


def test_an_order_from_another_address_is_flagged_to_the_seat_holder(table) -> None:
    address = table.address("ann")
    row = process_message(
        body_message(to=address, body="PLAY EXPAND\n", sender="mallory@elsewhere.test"), address
    )
    assert row.outcome == "order_accepted"
    [reply] = replies_to("ann@example.com")  # the account address, not mallory's
    assert "came from mallory@elsewhere.test, which is not your account address" in reply.body
    own = process_message(body_message(to=address, body="PLAY EXPLORE\n"), address)
    assert own.outcome == "order_accepted"
    assert "not your account address" not in replies_to("ann@example.com")[-1].body


def test_an_answer_about_a_finished_game_does_not_invite_a_reply(table) -> None:
    Game.objects.filter(pk=table.game.pk).update(status="finished")
    address = table.address("ann")
    row = process_message(body_message(to=address, body="PLAY EXPAND\n"), address)
    assert row.outcome == "game_finished"
    [reply] = replies_to("ann@example.com")
    assert "game is over" in reply.body  # the refusal's reason
    assert "Reply to this message to send an order" not in reply.body


def test_an_order_above_an_unquoted_copy_of_the_turn_email_is_read(table) -> None:
    """Some clients paste the email replied to without ">": our turn emails start with
    "<game title> — ...", and the order is what comes before it."""
    address = table.address("ann")
    body = (
        "PLAY EXPAND\n\n"
        f"{table.game.title} — decision 1 is open: your order is needed\n"
        "Legal orders now:\n    PLAY EXPLOIT\n    PLAY EXPAND\n"
        "Reply to this message to send an order: one order in the body.\n"
    )
    row = process_message(body_message(to=address, body=body), address)
    assert row.outcome == "order_accepted"
    assert current(table.seats["ann"]).text == "PLAY EXPAND"


def test_a_late_order_by_email_is_refused_and_the_defaults_are_filled_at_once(
    table, django_capture_on_commit_callbacks
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Prompt

    address = table.address("ann")
    Prompt.objects.filter(game=table.game, number=1).update(
        deadline=timezone.now() - timedelta(minutes=1)
    )
    from fivex_site.celery import app

    saved = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        with django_capture_on_commit_callbacks(execute=True):
            row = process_message(body_message(to=address, body="PLAY EXPAND\n"), address)
    finally:
        app.conf.task_always_eager = saved
    assert (row.status, row.outcome) == ("rejected", "deadline_passed")
    assert Prompt.objects.get(game=table.game, number=1).status == "resolved"
    [reply] = replies_to("ann@example.com")
    assert "closed at" in reply.body and "Legal orders now" not in reply.body


def test_an_email_stored_before_the_deadline_and_read_after_it_counts(table) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from games.mail.processing import process_stored
    from games.mail.storing import store_message
    from games.models import Prompt

    address = table.address("ann")
    row, _created = store_message(body_message(to=address, body="PLAY EXPAND\n"), address)
    Prompt.objects.filter(game=table.game, number=1).update(
        deadline=row.created_at + timedelta(seconds=1), opened_at=row.created_at - timedelta(hours=1)
    )
    InboundMail.objects.filter(pk=row.pk).update(created_at=row.created_at)
    assert timezone.now() > row.created_at  # read "later": after it arrived
    Prompt.objects.filter(game=table.game, number=1).update(
        deadline=timezone.now() - timedelta(seconds=1)
    )
    InboundMail.objects.filter(pk=row.pk).update(created_at=timezone.now() - timedelta(seconds=30))
    row = process_stored(row.pk)
    assert row.outcome == "order_accepted"
    assert current(table.seats["ann"]).text == "PLAY EXPAND"


def test_an_order_above_an_unquoted_copy_of_a_reminder_is_read(table) -> None:
    address = table.address("ann")
    body = (
        "PLAY EXPLORE\n\n"
        f"Reminder: {table.game.title} still needs your order for decision 1 (round 1, play).\n"
        "Legal orders now:\n    PLAY EXPLOIT\n    PLAY EXPAND\n"
    )
    row = process_message(body_message(to=address, body=body), address)
    assert row.outcome == "order_accepted"
    assert current(table.seats["ann"]).text == "PLAY EXPLORE"


def test_a_note_at_the_end_of_an_order_line_is_never_sealed(table) -> None:
    address = table.address("ann")
    row = process_message(
        body_message(to=address, body="PLAY EXPAND   # my secret plan: explore next\n"), address
    )
    assert row.outcome == "order_accepted"
    assert current(table.seats["ann"]).text == "PLAY EXPAND"
    assert not SealedOrder.objects.filter(text__contains="secret").exists()


def test_a_command_beside_an_order_ending_in_a_comma_is_read_as_an_order(table) -> None:
    """"PLAY EXPLORE," starts with an order word: not a sign-off to drop silently, but an
    order the engine judges (and here refuses, saying why)."""
    address = table.address("ann")
    row = process_message(body_message(to=address, body="SHOW\nPLAY EXPLORE,\n"), address)
    assert row.outcome == "order_refused"
    [reply] = replies_to("ann@example.com")
    assert "NOT accepted" in reply.body and "sign-off" not in reply.body
    ok = process_message(body_message(to=address, body="SHOW\nPLAY EXPLORE\n"), address)
    assert ok.outcome == "order_accepted"


def test_resending_the_current_order_does_not_claim_a_replacement(table) -> None:
    address = table.address("ann")
    process_message(body_message(to=address, body="PLAY EXPAND\n"), address)
    process_message(body_message(to=address, body="PLAY EXPLORE\n"), address)
    again = body_message(to=address, body="PLAY EXPLORE\n").replace(b"<sig-", b"<again-")
    row = process_message(again, address)
    assert row.outcome == "order_accepted"
    answer = replies_to("ann@example.com")[-1].body
    sealed = current(table.seats["ann"])
    assert sealed.text == "PLAY EXPLORE"
    # README: answered with its receipt and "nothing new was stored", never as a replacement.
    assert sealed.commitment in answer and "nothing new was stored" in answer
    assert "It replaces" not in answer


def test_an_order_in_an_html_heading_is_an_order(table) -> None:
    address = table.address("ann")
    raw = (
        f"From: ann@example.com\r\nTo: {address}\r\nSubject: x\r\nMessage-ID: <h-1@example.com>\r\n"
        "Content-Type: text/html; charset=utf-8\r\n\r\n<html><body><h2>PLAY EXPLORE</h2></body></html>\r\n"
    ).encode()
    row = process_message(raw, address)
    assert row.outcome == "order_accepted"


def test_an_order_in_an_html_table_reads_as_its_words(table) -> None:
    """Fuzzing the gateway: table cells came out as Markdown columns, "PASS| BOUDICCA"."""
    address = table.address("ann")
    raw = (
        f"From: ann@example.com\r\nTo: {address}\r\nSubject: x\r\nMessage-ID: <t-1@example.com>\r\n"
        "Content-Type: text/html; charset=utf-8\r\n\r\n<html><body><table><tr><td>PLAY</td>"
        "<td>EXPLORE</td></tr></table><table><tr><td>-- <br>Ann</td></tr></table></body></html>\r\n"
    ).encode()
    row = process_message(raw, address)
    assert row.outcome == "order_accepted", row.outcome
    assert SealedOrder.objects.get(seat=table.seats["ann"], is_current=True).text == "PLAY EXPLORE"


@pytest.mark.parametrize("content_type", ['multipart/mixed; boundary="nope"', "multipart/mixed"])
def test_a_multipart_without_its_boundary_is_read_as_text(table, content_type: str) -> None:
    """Fuzzing the gateway: a multipart message whose boundary is missing (or not in the
    body) was answered "your message had attachments but no text"."""
    address = table.address("ann")
    raw = (
        f"From: ann@example.com\r\nTo: {address}\r\nSubject: x\r\nMessage-ID: <b-1@example.com>\r\n"
        f"MIME-Version: 1.0\r\nContent-Type: {content_type}\r\n\r\nPLAY EXPLORE\r\n"
    ).encode()
    row = process_message(raw, address)
    assert row.outcome == "order_accepted", row.outcome
    assert current(table.seats["ann"]).text == "PLAY EXPLORE"


def test_a_command_from_another_address_is_flagged_too(table) -> None:
    address = table.address("ann")
    row = process_message(
        body_message(to=address, body="QUIET\n", sender="mallory@elsewhere.test"), address
    )
    assert row.outcome == "commands"
    [reply] = replies_to("ann@example.com")
    assert "came from mallory@elsewhere.test" in reply.body


def test_the_deadline_sweep_reads_mail_that_came_in_time_before_filling_defaults(table) -> None:
    """Stored before the deadline, not read yet (the worker was down): the sweep reads it
    first, so the order counts instead of a default one."""
    from datetime import timedelta

    from django.utils import timezone

    from games.mail.storing import store_message
    from games.models import LogEntry, Prompt
    from games.services.deadlines import enforce_deadlines

    address = table.address("ann")
    row, _created = store_message(body_message(to=address, body="PLAY EXPAND\n"), address)
    assert row.status == "received"
    Prompt.objects.filter(game=table.game, number=1).update(
        deadline=row.created_at + timedelta(seconds=1)
    )
    assert enforce_deadlines(now=timezone.now() + timedelta(minutes=1)) == 1
    row.refresh_from_db()
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    revealed = LogEntry.objects.get(game=table.game, kind="orders_revealed").payload["orders"]
    assert revealed["ann"]["text"] == "PLAY EXPAND" and revealed["ann"]["source"] == "email"
    assert {revealed[n]["source"] for n in revealed if n != "ann"} == {"default"}


@pytest.mark.parametrize(
    ("attempts", "outcome", "counts"),
    [(1, "system_error", True), (99, "system_error", False), (1, "gave_up", False)],
    ids=["retry-to-come", "out-of-attempts", "given-up"],
)
def test_the_deadline_sweep_reads_mail_whose_first_reading_failed(table, attempts, outcome, counts) -> None:
    """From a failure-mode audit: an email stored in time whose first reading failed (a
    database error) waits for a Celery retry, maybe an hour away (a broker restart loses
    its countdown): the sweep gave its seat the default order, then the retry was refused
    as too late. Still retrying: read first. Out of attempts or given up: not."""
    from datetime import timedelta

    from django.utils import timezone

    from games.mail.models import InboundMail
    from games.mail.storing import store_message
    from games.models import LogEntry, Prompt
    from games.services.deadlines import enforce_deadlines

    address = table.address("ann")
    row, _created = store_message(body_message(to=address, body="PLAY EXPAND\n"), address)
    InboundMail.objects.filter(pk=row.pk).update(status="failed", outcome=outcome, attempts=attempts)
    Prompt.objects.filter(game=table.game, number=1).update(deadline=row.created_at + timedelta(seconds=1))
    assert enforce_deadlines(now=timezone.now() + timedelta(minutes=1)) == 1
    revealed = LogEntry.objects.get(game=table.game, kind="orders_revealed").payload["orders"]
    assert (revealed["ann"]["source"] == "email") is counts
    row.refresh_from_db()
    assert (row.status == "processed") is counts


def test_a_6x5_confirmation_reads_the_order_as_the_game_page_does(db) -> None:
    """Regression (new-player walk): the email said "Understood as: kind: place; colour:
    RED; hex: -1,0" and "(turn, round 9)" where the page says "PLACE RED 4,-1", turn 9."""
    from games.mail.reply_texts import accepted_text
    from games.services.orders import order_submit
    from tests.games.test_6x5_hex_picker import blue_line_game

    game = blue_line_game()
    seat = game.seats.get(name="ann")
    sealed = order_submit(seat=seat, text="place  red 4,-1", source="email")
    text = accepted_text(seat, sealed)
    assert "Order received for decision 9 (turn 9):" in text
    assert "Understood as: PLACE RED 4,-1\n" in text
    assert "kind:" not in text and "round" not in text


def test_a_reading_of_two_lines_stays_one_block(db) -> None:
    """An email-only player: "Understood as: CHANGE 1" was followed by "PLACE YELLOW 0,-1"
    at the start of the next line, as if it were something else."""
    from games.mail.reply_texts import accepted_text
    from games.services.orders import order_submit
    from tests.games.test_6x5_hex_picker import played_game

    game = played_game(("ann", "amy"), [], {"change_goal": True})
    seat = game.seats.get(name="ann")
    sealed = order_submit(seat=seat, text="change 1\nplace y 0 , -1", source="email")
    lines = accepted_text(seat, sealed).splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Understood as: "))
    assert lines[at] == "Understood as: CHANGE 1"
    assert lines[at + 1] == "               PLACE YELLOW 0,-1"


def test_turn_emails_explain_the_prompt_and_link_the_rules(db) -> None:
    """Regression (email-only walk): the emails never said what a prompt asks or where
    the rules are; an email player never sees the game page."""
    from games.rules_text import PHASE_HINTS
    from games.services.games import game_create_seated
    from tests.games.core_support import make_users

    users = make_users(["em1", "em2", "em3"])
    game = game_create_seated(organizer=users[0], ruleset="5x", users=users)
    started = OutboxMessage.objects.get(game=game, seat__name="em1", kind="game_started")
    assert "YOUR ORDER IS NEEDED for decision 1 (draft)" in started.body
    # Who sits on either side, as the game page says (seating fixed: em1, em2, em3), in
    # place of the general hint, which said the same (a first-time walk: twice).
    assert PHASE_HINTS[("5x", "draft")] not in started.body
    assert ("Pass one of your two leaders to the seat on your left (em2); you keep the other,"
            " and receive one from the seat on your right (em3).") in " ".join(started.body.split())
    assert "Rules of 5X: http://" in started.body and "/games/rules/5x/" in started.body


def test_the_last_order_of_a_prompt_is_not_promised_a_replacement(db) -> None:
    """Regression (email-only walk): the confirmation of the order that completed a
    prompt said "Until the deadline you may replace it" though it was resolving."""
    from games.mail.reply_texts import accepted_text
    from games.services.orders import order_submit
    from tests.games.test_6x5_hex_picker import blue_line_game

    game = blue_line_game()  # ann alone is asked: her order completes the prompt
    seat = game.seats.get(name="ann")
    sealed = order_submit(seat=seat, text="PLACE RED 4,-1", source="email")
    text = accepted_text(seat, sealed)
    assert "Every order is in: the decision is resolved now, with this order." in text
    assert "you may replace it" not in text
    from games.services.resolution import prompt_resolve

    assert prompt_resolve(game_id=game.pk, prompt_number=sealed.prompt.number)
    sealed.refresh_from_db()
    assert "The decision has been resolved, with this order." in accepted_text(seat, sealed)


@pytest.mark.parametrize(
    "body,ignored",
    [
        ("Changed my mind:\nPLAY EXPAND\n", ["Changed my mind:"]),
        ("Hi all,\n\nmy order for this turn:\nplay expand\n\nThanks,\nAnn\n",
         ["Hi all,", "my order for this turn:"]),  # fmt: skip
        ("Hello,\nPLAY EXPAND.\n", ["Hello,"]),
        # a lead-in before a colon on the order's own line (left open: refused)
        ("My order: play expand\n", ["My order:"]),
        ("Hi all,\nMy order for round 1: PLAY EXPAND\n\nThanks,\nAnn\n",
         ["Hi all,", "My order for round 1:"]),
    ],
)
def test_a_greeting_or_lead_in_before_the_order_is_read_past_and_said_so(
    table, body: str, ignored: list[str]
) -> None:
    """From an email-only player: "Changed my mind:" above the order was counted as a
    second order ("send exactly one order per message, not 2"). Lines before the order
    that end with a colon or a comma, and name no order, are a greeting or a lead-in."""
    address = table.address("ann")
    row = process_message(body_message(to=address, body=body), address)
    assert (row.status, row.outcome) == ("processed", "order_accepted"), row.detail
    order = current(table.seats["ann"])
    assert order is not None and order.parsed == {"play": "EXPAND"}
    assert order.text.upper().rstrip(".") == "PLAY EXPAND"
    [reply] = replies_to("ann@example.com")
    assert "Order received for decision 1" in reply.body
    assert "taken for a greeting" in reply.body
    for line in ignored:
        assert f"    {line}\n" in reply.body


@pytest.mark.parametrize(
    "body,reason",
    [
        # A lead-in that names another order is a second order: nothing is guessed.
        ("PLAY EXPLORE, no wait:\nPLAY EXPAND\n", "one order per message"),
        ("Not PLAY EXPLORE but:\nPLAY EXPAND\n", "one order per message"),
        # before a colon on the order's line: an order word, or a legal order named, is
        # no lead-in either
        ("PLAY EXPLORE: PLAY EXPAND\n", "NOT accepted"),
        ("Not PLAY EXPLORE: PLAY EXPAND\n", "NOT accepted"),
        # A line above the order that ends with neither a colon nor a comma is no lead-in;
        # the refusal says so (a player's journey: "not 2 orders" for one order).
        ("I think\nPLAY EXPAND\n", 'The line above your order, "I think", is not part of it, '
         "so nothing was stored. Send PLAY EXPAND again without that line (or end that line "
         'with a colon, "I think:" and it is read past as a lead-in).'),
        ("ok then\nplay expand\n", 'The line above your order, "ok then", is not part of it'),
        ("Is this right?\nPLAY EXPAND\n", 'with a colon, "Is this right:" and it is read past'),
        # a long line is cut, and gets no colon form of its own (a code review: a 10,000
        # character line was echoed twice)
        ("x" * 300 + "\nPLAY EXPAND\n", '"' + "x" * 120 + '…", is not part of it'),
        # A lead-in, then two orders: still ambiguous.
        ("My order:\nPLAY EXPAND\nPLAY EXPLORE\n", "one order per message"),
    ],
)
def test_a_lead_in_that_names_an_order_is_not_read_past(table, body: str, reason: str) -> None:
    address = table.address("ann")
    row = process_message(body_message(to=address, body=body), address)
    assert row.status == "rejected"
    assert current(table.seats["ann"]) is None
    [reply] = replies_to("ann@example.com")
    assert "NOT accepted" in reply.body and reason in reply.body, reply.body


def test_a_message_of_too_many_parts_is_answered_without_being_parsed(table) -> None:
    """A security review: 1 MB of 200,000 empty MIME parts held a mail worker 26 s
    (parsing is linear in the parts) and the mail queue carries every outgoing email."""
    import time

    address = table.address("ann")
    head = (
        f"From: ann@example.com\r\nTo: {address}\r\nSubject: hi\r\nMessage-ID: <parts@x>\r\n"
        "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n"
    )
    order = "--b\r\nContent-Type: text/plain\r\n\r\nPLAY EXPAND\r\n"
    raw = (head + order + "--b\n\n" * 100_000 + "--b--\n").encode()
    assert len(raw) < 1024 * 1024
    started = time.monotonic()
    row = process_message(raw, address)
    assert time.monotonic() - started < 5  # not parsed (it took 15 s)
    assert (row.status, row.outcome) == ("rejected", "too_large")
    assert row.truncated and len(bytes(row.raw)) < 1000  # only the header section kept
    assert current(table.seats["ann"]) is None  # the order inside was not read
    [reply] = replies_to("ann@example.com")
    assert "Your message has more than 200 parts" in reply.body


def test_a_reply_with_a_few_parts_and_a_signature_is_read(table) -> None:
    address = table.address("ann")
    parts = "".join(
        f"--b\r\nContent-Type: text/plain\r\n\r\n{'PLAY EXPAND' if i == 0 else '-- ' + chr(10) + 'ann'}\r\n"
        for i in range(20)
    )
    raw = (
        f"From: ann@example.com\r\nTo: {address}\r\nSubject: order\r\nMessage-ID: <few@x>\r\n"
        "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n" + parts + "--b--\r\n"
    ).encode()
    row = process_message(raw, address)
    assert (row.status, row.outcome) == ("processed", "order_accepted"), row.error
    assert current(table.seats["ann"]).text == "PLAY EXPAND"


@pytest.mark.parametrize("shape", ["embedded", "long_headers"])
def test_many_parts_are_counted_however_the_headers_hide_them(table, shape) -> None:
    """A code review: a message/rfc822 holding a multipart, or a Content-Type past 64 KB of
    headers, was not counted (100,000 parts read: 10 to 16 s, the order accepted)."""
    address = table.address("ann")
    parts = "--b\n\n" * 100_000 + "--b--\n"
    inner = "Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nPLAY EXPAND\n"
    if shape == "embedded":
        raw = ("From: ann@example.com\nSubject: x\nMessage-ID: <emb@x>\nMIME-Version: 1.0\n"
               "Content-Type: message/rfc822\n\n" + inner + parts)  # fmt: skip
    else:
        padding = "".join(f"X-Pad-{i}: {'p' * 60}\n" for i in range(1100))  # ~75 KB
        raw = ("From: ann@example.com\nSubject: x\nMessage-ID: <pad@x>\nMIME-Version: 1.0\n"
               + padding + inner + parts)  # fmt: skip
    assert len(raw) < 1024 * 1024
    row = process_message(raw.encode(), address)
    assert (row.status, row.outcome) == ("rejected", "too_large"), row.error
    assert current(table.seats["ann"]) is None


def test_a_plain_text_message_of_many_dashed_lines_is_read(table) -> None:
    """A code review: the part count read every line starting with "--", also in a
    message that is not multipart (one part whatever its lines)."""
    address = table.address("ann")
    raw = (
        f"From: ann@example.com\r\nTo: {address}\r\nSubject: order\r\nMessage-ID: <dashes@x>\r\n"
        "Content-Type: text/plain\r\n\r\nPLAY EXPAND\r\n\r\n" + "-- quoted rule\r\n" * 300
    ).encode()
    row = process_message(raw, address)
    assert (row.status, row.outcome) == ("processed", "order_accepted"), row.error


def test_away_and_back_by_email(table) -> None:
    """A player who lives in their email says until when they are away (as on the settings
    page): AWAY 2030-01-15, BACK; a day past or not on the calendar changes nothing."""
    from django.utils import timezone

    from games.models import PlayerSettings

    address = table.address("bob")
    user = table.seats["bob"].user
    day = (timezone.now() + timezone.timedelta(days=5)).date().isoformat()
    raw = f"From: bob@example.com\r\nSubject: ?\r\nMessage-ID: <w1@x>\r\n\r\nAway until {day}.\r\n".encode()
    row = process_message(raw, address)
    assert (row.status, row.outcome) == ("processed", "commands")
    until = PlayerSettings.objects.get(user=user).away_until
    assert until is not None and until.date().isoformat() > day  # the end of that day
    [reply] = replies_to("bob@example.com")
    assert f"AWAY {day}: you are away until" in reply.body
    # With an order in the same message: both happen.
    raw = b"From: bob@example.com\r\nSubject: ?\r\nMessage-ID: <w2@x>\r\n\r\nPLAY EXPAND\r\nback\r\n"
    row = process_message(raw, address)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert PlayerSettings.objects.get(user=user).away_until is None
    assert current(table.seats["bob"]).text == "PLAY EXPAND"
    for bad, said in (("AWAY 2001-01-01", "That day is past"), ("AWAY 2030-02-30", "no day of the calendar")):
        raw = f"From: bob@example.com\r\nSubject: ?\r\nMessage-ID: <{bad[-2:]}@x>\r\n\r\n{bad}\r\n".encode()
        process_message(raw, address)
        assert said in replies_to("bob@example.com")[-1].body, bad
        assert PlayerSettings.objects.get(user=user).away_until is None


def test_away_and_back_by_email_come_from_the_players_own_address_only(table) -> None:
    """AWAY and BACK change the player's account, every game of theirs: a message to a
    seat's address from another sender (one game's address passed on, or an old game's)
    changes nothing there, as it is told."""
    from django.utils import timezone

    from games.models import Game, PlayerSettings

    address = table.address("bob")
    user = table.seats["bob"].user
    day = (timezone.now() + timezone.timedelta(days=5)).date().isoformat()
    raw = f"From: eve@example.org\r\nSubject: ?\r\nMessage-ID: <f1@x>\r\n\r\nAWAY {day}\r\n".encode()
    process_message(raw, address)
    assert PlayerSettings.objects.filter(user=user, away_until__isnull=False).count() == 0
    assert "from your account address" in replies_to("bob@example.com")[-1].body
    # A game over keeps answering its address: not for someone else's AWAY either.
    Game.objects.filter(pk=table.seats["bob"].game_id).update(status=Game.Status.FINISHED)
    raw = f"From: eve@example.org\r\nSubject: ?\r\nMessage-ID: <f2@x>\r\n\r\nAWAY {day}\r\n".encode()
    process_message(raw, address)
    assert PlayerSettings.objects.filter(user=user, away_until__isnull=False).count() == 0
    raw = f"From: bob@example.com\r\nSubject: ?\r\nMessage-ID: <f3@x>\r\n\r\nAWAY {day}\r\n".encode()
    process_message(raw, address)
    assert PlayerSettings.objects.filter(user=user, away_until__isnull=False).count() == 1


def test_a_refused_order_is_answered_in_a_sentence(table) -> None:
    # A newcomer's walk: "Your order was NOT accepted: send exactly one order per message,
    # not 2" - the engine's reason is a sentence in the answer: a capital (and a full stop
    # unless it ends with orders to copy: tests/games/test_refusal_sentences.py).
    address = table.address("ann")
    process_message(body_message(to=address, body="PLAY EXPAND\nPLAY EXPLORE\n"), address)
    [reply] = replies_to("ann@example.com")
    [line] = [ln for ln in reply.body.splitlines() if "NOT accepted" in ln]
    assert line.startswith("Your order was NOT accepted: Send exactly one order per message, not 2")
    assert line.endswith("you can play: EXPLOIT, EXTERMINATE, EXPAND, EXPLORE, EXCAVATE"), line
