"""Replies to a turn email as real mail programs send them, each through the SMTP gateway
(``tests.mail.mail_clients`` builds them): what must happen to each, the order stored or
not, the answer to the player (or none), and always: no system error, no order lost or
doubled, answers only to the account address and marked automatic, the game's log still
verifying."""

from __future__ import annotations

import smtplib
from dataclasses import dataclass

import pytest
from django.test import override_settings
from django.utils import timezone

from engine.audit import verify_export
from games.mail.models import InboundMail
from games.mail.tasks import process_inbound_mail
from games.models import OutboxMessage, PlayerSettings, SealedOrder
from games.selectors import current_state
from games.selectors_log import game_export_unchecked
from games.services.audit import game_records_problems
from games.services.orders import order_submit
from games.services.resolution import prompt_resolve
from tests.db_snapshot import DatabaseSnapshot
from tests.mail import mail_clients as M
from tests.mail.conftest import ORDERS_SETTINGS, Table, make_table

pytestmark = pytest.mark.django_db(transaction=True)


@dataclass
class Expected:
    outcome: str
    """The last message's outcome (``InboundMail.outcome``)."""
    order: str | None = None
    """The seat's current order afterwards, in capitals (None: none at all)."""
    answers: int = 1
    says: tuple[str, ...] = ()
    """What the last answer says (in its words, spaces collapsed)."""
    away: bool | None = None
    """Whether the player is away afterwards (None: not looked at)."""


TAKEN = Expected("order_accepted", "PLAY EXPLORE")
IGNORED = Expected("auto_reply", answers=0)
RECEIPT = Expected("receipt", answers=0)
NOTHING_GUESSED = Expected("order_refused", answers=1)
HOW_TO_SAY_AWAY = Expected("commands", says=("year-month-day", "Nothing was changed"), away=False)
NOT_YOURS = "which is not your account address"

CASES: dict[str, Expected] = {
    # Mail programs' replies with the order on top, in every encoding they use.
    "gmail": TAKEN,
    "html_only_gmail_mobile": TAKEN,
    "outlook_html": TAKEN,
    "outlook_html_only_fromsent_no_border": TAKEN,
    "outlook_plain_fromsent": TAKEN,
    "outlook_no_blank_before_from": TAKEN,
    "outlook_mobile": TAKEN,
    "outlook_german": TAKEN,
    "outlook_tnef": TAKEN,
    "es_outlook_block": TAKEN,
    "fr_outlook_block": TAKEN,
    "es_android_outlook": TAKEN,
    "iphone": TAKEN,
    "iphone_flowed_wrap": TAKEN,
    "es_iphone": TAKEN,
    "de_iphone_nobreak": TAKEN,
    "apple_mail_html_alt": TAKEN,
    "thunderbird": TAKEN,
    "flowed_no_delsp": TAKEN,
    "yahoo_quote": TAKEN,
    "samsung_es": TAKEN,
    "spanish_gmail_ok": TAKEN,
    "mobile_toppost": TAKEN,
    "qp": TAKEN,
    "quoted_printable_soft_break": TAKEN,
    "b64": TAKEN,
    "latin1": TAKEN,
    "cp1252_smart": TAKEN,
    "cp1252_mislabelled": TAKEN,
    "nbsp": TAKEN,
    "html_nbsp_quotes": TAKEN,
    "signature": TAKEN,
    "signature_no_space": TAKEN,
    "es_saludos_dash": TAKEN,
    "lowercase": TAKEN,
    "trailing_punct": TAKEN,
    "trailing_punct3": TAKEN,
    "crlf_bare_cr": TAKEN,
    "encoded_word_subject": TAKEN,
    "signed_smime": TAKEN,
    "many_attachments": TAKEN,
    "forwarded": TAKEN,
    "reply_all_header_cc": TAKEN,
    "in_reply_to_confirmation": TAKEN,
    # Taken, the player warned: the address is the credential, From: is only a hint.
    "other_from": Expected("order_accepted", "PLAY EXPLORE", says=(NOT_YOURS,)),
    "spoofed": Expected("order_accepted", "PLAY EXPLORE", says=("dmarc=fail", "New private address")),
    # Refused with the reason; nothing stored.
    "trailing_punct2": NOTHING_GUESSED,
    "trailing_punct4": NOTHING_GUESSED,
    "es_gracias_inline": NOTHING_GUESSED,
    "order_with_card_only": NOTHING_GUESSED,
    "spanish_gmail": NOTHING_GUESSED,
    "two_orders": Expected("order_refused", says=("exactly one order",)),
    "utf8_accents_in_order": Expected("order_refused", says=("U+00C9",)),
    "old_turn": Expected("prompt_closed", says=("Decision 1 is not open any more", "Nothing was stored")),
    "subject_only": Expected("order_in_subject", says=("not the subject",)),
    "subject_only_re": Expected("order_in_subject", says=("not the subject",)),
    "forwarded_empty_top": Expected("empty"),
    "calendar_invite": Expected("empty"),
    "no_text": Expected("attachment_only", says=("Attachments are not read",)),
    # Outlook's rich text (winmail.dat alone): the player attached nothing; say what happened.
    "outlook_tnef_only": Expected("attachment_only", says=("winmail.dat", "HTML or plain text")),
    "tnef_only_with_text_none": Expected("attachment_only", says=("winmail.dat", "HTML or plain text")),
    "huge": Expected("too_large", says=("was not read",)),
    # Automatic mail: never answered, never an order or a command.
    "ooo_autosubmitted": IGNORED,
    "ooo_xautoreply": IGNORED,
    "ooo_precedence": IGNORED,
    "ooo_gmail_vacation": Expected("auto_reply", answers=0, away=False),
    "ooo_exchange_no_header": IGNORED,
    "spanish_ooo_subject": IGNORED,
    "dsn": IGNORED,
    "bounce_from_postmaster": IGNORED,
    "read_receipt": IGNORED,
    # Automatic mail that says so nowhere: one answer (ours is marked automatic), no change.
    "ooo_plain_subject_only": NOTHING_GUESSED,
    "ooo_away_subject_no_headers": NOTHING_GUESSED,
    "back_phrase": NOTHING_GUESSED,
    # Outlook's receipts and recalls as ordinary text: known by the Subject and the whole
    # text together, never answered.
    "read_receipt_outlook": RECEIPT,
    "read_receipt_outlook_text": RECEIPT,
    "not_read_receipt": RECEIPT,
    "delivery_receipt_exchange": RECEIPT,
    "recall": RECEIPT,
    "read_receipt_exchange": RECEIPT,
    "not_read_receipt_exchange": RECEIPT,
    "de_read_receipt": RECEIPT,
    "de_not_read_receipt": RECEIPT,
    "de_delivery_receipt": RECEIPT,
    "de_recall": RECEIPT,
    "fr_read_receipt": RECEIPT,
    "fr_not_read_receipt": RECEIPT,
    "fr_delivery_receipt": RECEIPT,
    "fr_recall": RECEIPT,
    "es_read_receipt": RECEIPT,
    "es_not_read_receipt": RECEIPT,
    "es_delivery_receipt": RECEIPT,
    "es_recall": RECEIPT,
    # A Subject like a receipt's over a player's text: read as ever.
    "order_under_read_subject": TAKEN,
    "order_under_lu_subject": TAKEN,
    "order_under_recall_subject": TAKEN,
    "order_above_a_receipt": TAKEN,
    "receipt_text_under_a_reply_subject": NOTHING_GUESSED,
    # AWAY and BACK.
    "away": Expected("commands", away=True, says=("you are away until",)),
    "away_lower_until": Expected("commands", away=True),
    "away_colon": Expected("commands", away=True),
    "away_quoted_reply": Expected("commands", away=True),
    "away_twice": Expected("commands", away=True),
    "away_and_back": Expected("commands", away=False),
    "away_and_order": Expected("order_accepted", "PLAY EXPLORE", away=True),
    "away_good_with_order_then_sig": Expected("order_accepted", "PLAY EXPLORE", away=True),
    "away_bad_with_order": Expected("order_accepted", "PLAY EXPLORE", says=HOW_TO_SAY_AWAY.says, away=False),
    "away_human_date": HOW_TO_SAY_AWAY,
    "away_slash_date": HOW_TO_SAY_AWAY,
    "away_no_day": HOW_TO_SAY_AWAY,
    "away_es": HOW_TO_SAY_AWAY,
    "away_past": Expected("commands", says=("That day is past",), away=False),
    "away_far": Expected("commands", says=("at most 60 days ahead",), away=False),
    "away_in_subject": Expected("command_in_subject", away=False),
    # "AWAY is not an order" alone left the player thinking they were away.
    "away_in_words": Expected("order_refused", says=("AWAY is a command, not an order", "AWAY 2026-12-05", "Nothing was changed"), away=False),
    "back_in_words": Expected("order_refused", says=("BACK is a command, not an order",)),
    "status_misspelt": Expected("order_refused", says=("Did you mean the command STATUS?",)),
    # Every game of the player's: not on the word of a seat's address alone.
    "away_foreign": Expected("commands", away=False, says=("only from your account address", NOT_YOURS)),
    "back": Expected("commands", says=("not away any more",), away=False),
    "es_iphone_status": Expected("commands", says=("STATUS: your view of the game",)),
    # Games taking orders only from the player's own address, verified.
    "strict_ok": TAKEN,
    "strict_other_from": Expected("sender_mismatch"),
    "strict_spoofed_dmarc_fail": Expected("sender_unverified", says=("dmarc=fail",)),
    "strict_away_foreign": Expected("sender_mismatch", away=False),
    # The same message twice; another message reusing a Message-ID; an order replaced.
    "dup_same_bytes": TAKEN,
    "dup_redelivered_with_received": TAKEN,
    "same_msgid_different_body": Expected("order_accepted", "PLAY EXPAND", answers=2),
    "two_replacing_orders": Expected("order_accepted", "PLAY EXPAND", answers=2),
}


def test_every_builder_has_its_expectation() -> None:
    builders = {name for name, f in vars(M).items() if callable(f) and getattr(f, "__module__", "") == M.__name__}
    assert builders - {"hdr", "gt", "plain", "receipt_text"} == set(CASES)


def open_round_two(table) -> dict[str, str]:
    """Round 1 played by the web (its turn email is the old one); round 2 open, its turn
    email the one replied to."""
    def newest(kind: str) -> OutboxMessage:
        return OutboxMessage.objects.filter(to="ann@example.com", kind=kind).order_by("-id").first()

    old = newest("game_started").headers["Message-ID"]
    for name, seat in table.seats.items():
        order_submit(seat=seat, text="PLAY EXPAND" if name == "bob" else "PLAY EXPLOIT", source="web")
    assert prompt_resolve(game_id=table.game.pk, prompt_number=1)
    turn = newest("prompt_resolved").headers
    today = timezone.localdate()
    return {
        "to": table.address("ann"),
        "turn": turn["Message-ID"],
        "old": old,
        "thread": turn["References"].split()[0],
        "day": (today + timezone.timedelta(days=5)).isoformat(),
        "day2": (today + timezone.timedelta(days=7)).isoformat(),
    }


@pytest.fixture(scope="module")
def _round_two_snapshot(django_db_setup, django_db_blocker) -> tuple[DatabaseSnapshot, int, dict]:
    """``open_round_two`` on a new table, built once (per module and xdist worker) and
    rolled back: the rows it wrote, the game's id and the Message-IDs to reply to."""

    def build() -> tuple[int, dict[str, str]]:
        table = make_table()
        return table.game.pk, open_round_two(table)

    with django_db_blocker.unblock(), override_settings(**ORDERS_SETTINGS):
        snapshot, (game_pk, ctx) = DatabaseSnapshot.take(build)
    return snapshot, game_pk, ctx


@pytest.fixture
def round_two(_round_two_snapshot, transactional_db, orders_settings) -> tuple[Table, dict[str, str]]:
    """The table as ``open_round_two`` leaves it (round 1 played, round 2 open), put back
    into this test's empty database, and its context (days from today's date)."""
    from games.models import Game

    snapshot, game_pk, ctx = _round_two_snapshot
    snapshot.restore()
    table = Table.of(Game.objects.get(pk=game_pk))
    today = timezone.localdate()
    return table, {
        **ctx,
        "to": table.address("ann"),
        "day": (today + timezone.timedelta(days=5)).isoformat(),
        "day2": (today + timezone.timedelta(days=7)).isoformat(),
    }


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_mail_programs_reply(name, round_two, smtpd, settings) -> None:
    settings.MAIL_AUTHSERV_ID = "mx.fivex.example"
    expected, build = CASES[name], getattr(M, name)
    table, ctx = round_two
    game, ann = table.game, table.seats["ann"]
    if getattr(build, "strict", False):
        game.require_sender_match = True
        game.save(update_fields=["require_sender_match"])
    built = build(ctx)
    envelope = "<>" if name == "dsn" else "ann@example.com"
    for raw in built if isinstance(built, list) else [built]:
        with smtplib.SMTP(*smtpd) as smtp:
            assert smtp.sendmail(envelope, [ctx["to"]], raw) == {}
        for pk in InboundMail.objects.filter(status="received").values_list("pk", flat=True):
            process_inbound_mail.apply(args=[pk]).get()

    rows = list(InboundMail.objects.order_by("id"))
    assert all(row.status != "failed" for row in rows), [(r.outcome, r.error) for r in rows]
    assert rows[-1].outcome == expected.outcome, rows[-1].error
    current = SealedOrder.objects.filter(seat=ann, prompt__number=2, is_current=True).first()
    assert (current.text.upper() if current else None) == expected.order
    assert SealedOrder.objects.filter(prompt__number=2, is_current=True).count() == (1 if expected.order else 0)
    answers = list(OutboxMessage.objects.filter(kind="mail_reply").order_by("id"))
    assert len(answers) == expected.answers, [a.body for a in answers]
    for answer in answers:
        assert answer.to == "ann@example.com" and answer.headers["Auto-Submitted"] == "auto-replied"
    if answers:
        said = " ".join(answers[-1].body.split())
        for words in expected.says:
            assert words in said, said
    if expected.away is not None:
        until = PlayerSettings.objects.filter(user=ann.user).values_list("away_until", flat=True).first()
        assert (until is not None) is expected.away
    export = game_export_unchecked(game=game)
    problems = verify_export(export, final_state=current_state(game=game), running=True)
    assert problems + game_records_problems(game=game) == []
