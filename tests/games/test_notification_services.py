"""The outbox: sending through a real SMTP server, retrying temporary failures,
recording permanent ones."""

from __future__ import annotations

import smtplib
import socket
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import OutboxMessage
from games.services.outbox import outbox_enqueue
from games.services.outbox_sending import (
    MAX_ATTEMPTS,
    classify_smtp_error,
    outbox_due,
    outbox_send,
    outbox_send_many,
)
from tests.conftest import smtp_server
from tests.games.web_support import eager_celery

pytestmark = pytest.mark.django_db
__all__ = ["eager_celery"]


class ScriptedHandler:
    """An aiosmtpd handler answering DATA with scripted replies, then 250."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.accepted: list[bytes] = []
        self.peers: list[object] = []  # the client's address of each DATA: its session

    async def handle_DATA(self, server, session, envelope) -> str:  # noqa: N802
        self.peers.append(session.peer)
        if self.replies:
            return self.replies.pop(0)
        self.accepted.append(envelope.content)
        return "250 OK"


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def scripted_smtp(settings) -> Iterator[ScriptedHandler]:
    handler = ScriptedHandler([])
    with smtp_server(settings, handler):
        yield handler


def _queue() -> OutboxMessage:
    return outbox_enqueue(
        to="ann@example.com",
        subject="Your turn",
        body="Prompt 3 is open.",
        reply_to="orders+abc@orders.localhost",
        kind="test",
    )


def test_temporary_failure_retries_with_backoff_then_sends(scripted_smtp) -> None:
    scripted_smtp.replies = ["451 4.3.0 try again later"]
    message = _queue()
    now = timezone.now()
    assert outbox_send(message_id=message.pk, now=now) == ("retrying", 30)
    message.refresh_from_db()
    assert message.status == "retrying" and message.attempts == 1
    assert "451" in message.last_error
    assert message.next_attempt_at == now + timedelta(seconds=30)
    # Not due yet: nothing is tried.
    assert outbox_send(message_id=message.pk, now=now + timedelta(seconds=10))[0] == "skipped"
    assert outbox_due(now=now + timedelta(seconds=10)) == []
    assert outbox_due(now=now + timedelta(seconds=31)) == [message.pk]
    assert outbox_send(message_id=message.pk, now=now + timedelta(seconds=31)) == ("sent", 0)
    message.refresh_from_db()
    assert message.status == "sent" and message.attempts == 2
    assert len(scripted_smtp.accepted) == 1
    raw = scripted_smtp.accepted[0]
    assert b"Reply-To: orders+abc@orders.localhost" in raw
    # Sending again is a no-op.
    assert outbox_send(message_id=message.pk)[0] == "skipped"
    assert len(scripted_smtp.accepted) == 1


def test_permanent_failure_is_recorded_without_retry(scripted_smtp) -> None:
    scripted_smtp.replies = ["550 5.1.1 no such mailbox"]
    message = _queue()
    assert outbox_send(message_id=message.pk) == ("failed", 0)
    message.refresh_from_db()
    assert message.status == "failed" and message.attempts == 1 and "550" in message.last_error
    assert outbox_due(now=timezone.now() + timedelta(days=1)) == []


def test_gives_up_after_max_attempts(scripted_smtp) -> None:
    scripted_smtp.replies = ["421 4.7.0 busy"] * MAX_ATTEMPTS
    message = _queue()
    now = timezone.now()
    statuses = []
    for i in range(MAX_ATTEMPTS):
        statuses.append(outbox_send(message_id=message.pk, now=now + timedelta(hours=i))[0])
    assert statuses == ["retrying"] * (MAX_ATTEMPTS - 1) + ["failed"]
    assert scripted_smtp.accepted == []


def test_connection_refused_is_temporary(settings) -> None:
    settings.MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {"host": "127.0.0.1", "port": _port(), "timeout": 2},
        }
    }
    message = _queue()
    assert outbox_send(message_id=message.pk)[0] == "retrying"


def test_classification_of_smtp_errors() -> None:
    assert classify_smtp_error(smtplib.SMTPServerDisconnected("gone")) == "temporary"
    assert classify_smtp_error(smtplib.SMTPConnectError(421, b"busy")) == "temporary"
    assert classify_smtp_error(smtplib.SMTPDataError(451, b"later")) == "temporary"
    assert classify_smtp_error(smtplib.SMTPDataError(554, b"no")) == "permanent"
    assert classify_smtp_error(smtplib.SMTPRecipientsRefused({"a@b": (450, b"x")})) == "temporary"
    assert classify_smtp_error(smtplib.SMTPRecipientsRefused({"a@b": (550, b"x")})) == "permanent"
    assert classify_smtp_error(ConnectionRefusedError()) == "temporary"
    assert classify_smtp_error(ValueError("bug")) == "permanent"


def test_enqueue_with_same_key_is_not_doubled() -> None:
    one = outbox_enqueue(to="a@example.com", subject="s", body="b", key="k1")
    two = outbox_enqueue(to="a@example.com", subject="s", body="b", key="k1")
    assert one.pk == two.pk and OutboxMessage.objects.count() == 1


def test_a_batch_shares_one_smtp_session_and_a_failure_opens_a_new_one(scripted_smtp) -> None:
    """The emails of one resolution go over one SMTP connection; a temporary failure
    retries that message later and the rest go on over a fresh connection."""
    messages = [
        outbox_enqueue(to=f"p{i}@example.com", subject="s", body=f"b{i}", kind="test")
        for i in range(4)
    ]
    scripted_smtp.replies = ["250 OK", "451 4.3.0 try again later"]
    results = outbox_send_many(message_ids=[m.pk for m in messages])
    assert [status for status, _ in results] == ["sent", "retrying", "sent", "sent"]
    assert len(scripted_smtp.peers) == 4
    first, second = scripted_smtp.peers[:2], scripted_smtp.peers[2:]
    assert first[0] == first[1] and second[0] == second[1] and first[0] != second[0]
    statuses = {m.pk: m.status for m in OutboxMessage.objects.filter(pk__in=[m.pk for m in messages])}
    assert [statuses[m.pk] for m in messages] == ["sent", "retrying", "sent", "sent"]
    # Nothing due is left out, nothing sent twice.
    assert outbox_send_many(message_ids=[m.pk for m in messages])[0][0] == "skipped"
    assert len(scripted_smtp.peers) == 4


def _row(message_id: int) -> dict:
    message = OutboxMessage.objects.get(pk=message_id)
    skip = ("id", "to", "created_at")
    row = {f.attname: getattr(message, f.attname) for f in message._meta.concrete_fields if f.attname not in skip}
    row["headers"] = {k: v for k, v in row["headers"].items() if k != "Message-ID"}  # one each
    return row


def test_a_batch_writes_the_rows_sending_one_by_one_writes(scripted_smtp, monkeypatch) -> None:
    # Guards the batch's one-statement claim (outbox_send_many): sent, retried and
    # failed messages, queued or retrying, end up exactly as outbox_send leaves them,
    # including the untouched next attempt of a retrying message that fails for good.
    from games.services import outbox_sending

    now = timezone.now()
    cases = [  # (attempts so far, reply)
        (0, "250 OK"),
        (0, "451 4.3.0 try again later"),
        (0, "550 5.1.1 no such mailbox"),
        (2, "250 OK"),
        (2, "550 5.1.1 no such mailbox"),
        (2, "451 4.3.0 try again later"),
        (MAX_ATTEMPTS - 1, "451 4.3.0 try again later"),
    ]

    def queue(group: str) -> list[int]:
        ids = []
        for i, (attempts, _reply) in enumerate(cases):
            message = outbox_enqueue(
                to=f"{group}{i}@example.com", subject="s", body=f"b{i}", kind="test"
            )
            if attempts:
                OutboxMessage.objects.filter(pk=message.pk).update(
                    status="retrying",
                    attempts=attempts,
                    next_attempt_at=now - timedelta(seconds=5),
                    last_error="earlier",
                )
            ids.append(message.pk)
        return ids

    one_by_one, batch = queue("a"), queue("b")
    scripted_smtp.replies = [reply for _attempts, reply in cases]
    expected = [outbox_send(message_id=i, now=now) for i in one_by_one]
    scripted_smtp.replies = [reply for _attempts, reply in cases]
    fallbacks: list[int] = []
    real = outbox_sending.outbox_send
    monkeypatch.setattr(
        outbox_sending, "outbox_send", lambda **kw: fallbacks.append(kw) or real(**kw)
    )
    assert outbox_send_many(message_ids=batch, now=now) == expected
    assert fallbacks == []  # every message was claimed by the batch itself
    assert [s for s, _ in expected] == [
        "sent", "retrying", "failed", "sent", "failed", "retrying", "failed",
    ]  # fmt: skip
    assert [_row(i) for i in batch] == [_row(i) for i in one_by_one]
    assert _row(batch[4])["next_attempt_at"] == now - timedelta(seconds=5)


def test_a_batch_skips_what_outbox_send_skips(scripted_smtp) -> None:
    now = timezone.now()
    later = outbox_enqueue(to="a@example.com", subject="s", body="b", kind="test")
    OutboxMessage.objects.filter(pk=later.pk).update(
        status="retrying", attempts=1, next_attempt_at=now + timedelta(seconds=20)
    )
    done = outbox_enqueue(to="b@example.com", subject="s", body="b", kind="test")
    OutboxMessage.objects.filter(pk=done.pk).update(status="sent", sent_at=now)
    ids = [later.pk, done.pk, done.pk + 1000]
    assert outbox_send_many(message_ids=ids, now=now) == [
        outbox_send(message_id=i, now=now) for i in ids
    ] == [("skipped", 20), ("skipped", 0), ("skipped", 0)]
    assert scripted_smtp.peers == []


def test_a_batch_leaves_a_message_changed_since_it_was_read_to_outbox_send(
    scripted_smtp, monkeypatch
) -> None:
    # Guards the claim's condition: a row that changed between the batch's read and its
    # claim (another worker sent it, or tried it and it is due again) is neither sent
    # twice nor written from the stale read.
    from games.services import outbox_sending

    elsewhere = outbox_enqueue(to="a@example.com", subject="s", body="b", kind="test")
    retried = outbox_enqueue(to="b@example.com", subject="s", body="b", kind="test")
    real = outbox_sending._outbox_states

    def read_then_changed(ids):
        states = real(ids)
        now = timezone.now()
        OutboxMessage.objects.filter(pk=elsewhere.pk).update(
            status="sent", attempts=1, sent_at=now
        )
        OutboxMessage.objects.filter(pk=retried.pk).update(
            status="retrying", attempts=1, next_attempt_at=now - timedelta(seconds=1)
        )
        return states

    monkeypatch.setattr(outbox_sending, "_outbox_states", read_then_changed)
    results = outbox_send_many(message_ids=[elsewhere.pk, retried.pk])
    assert [s for s, _ in results] == ["skipped", "sent"]
    assert len(scripted_smtp.accepted) == 1
    assert OutboxMessage.objects.get(pk=elsewhere.pk).attempts == 1
    retried.refresh_from_db()
    assert (retried.status, retried.attempts, retried.next_attempt_at) == ("sent", 2, None)


def test_a_batch_takes_one_statement_per_message(django_assert_num_queries) -> None:
    # Guards the batch's cost: one read of the states, then one UPDATE per message sent
    # (outbox_send takes two), each in its own transaction (here: savepoint, release).
    ids = [
        outbox_enqueue(to=f"p{i}@example.com", subject="s", body="b", kind="test").pk
        for i in range(4)
    ]
    with django_assert_num_queries(1 + 4 * 3):
        results = outbox_send_many(message_ids=ids)
    assert [s for s, _ in results] == ["sent"] * 4
    assert set(OutboxMessage.objects.values_list("status", flat=True)) == {"sent"}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_batch_waits_for_a_concurrent_sender_and_does_not_send_twice(scripted_smtp) -> None:
    # Guards the claim's row lock: while another worker holds a message (outbox_send's
    # SELECT ... FOR UPDATE, sending it), the batch's claim waits; when that worker
    # commits it as sent, the batch finds it sent and skips it (no second email).
    import threading

    from django.db import transaction

    from tests.concurrency import in_background, until_a_connection_waits_for_a_lock

    message = _queue()
    other = outbox_enqueue(to="bob@example.com", subject="s", body="b", kind="test")
    held = threading.Event()

    def hold() -> bool:  # as outbox_send, sending it: committed once the batch waits for it
        with transaction.atomic():
            row = OutboxMessage.objects.select_for_update().get(pk=message.pk)
            held.set()
            waited = until_a_connection_waits_for_a_lock(timeout=10)
            row.status, row.attempts, row.sent_at = "sent", 1, timezone.now()
            row.save()
        return waited

    with in_background(hold) as sender:
        assert held.wait(10)
        results = outbox_send_many(message_ids=[message.pk, other.pk])
    assert sender.value is True  # the batch's claim waited for the sender's row lock
    assert [s for s, _ in results] == ["skipped", "sent"]
    assert len(scripted_smtp.accepted) == 1 and b"bob@example.com" in scripted_smtp.accepted[0]
    assert OutboxMessage.objects.get(pk=message.pk).attempts == 1


def test_emails_write_every_combination_of_words_as_one_pattern():
    from itertools import product

    from games.email_text import legal_orders_lines

    areas = ["EXPLORE", "EXPAND", "EXTRACT", "EXTERMINATE"]
    allocate = ["ALLOCATE " + " ".join(c) for c in product(areas, repeat=3)]
    assert legal_orders_lines(allocate) == [
        "ALLOCATE, then 3 words, each one of: EXPLORE, EXPAND, EXTRACT, EXTERMINATE",
        "  (64 orders; e.g. ALLOCATE EXPLORE EXPLORE EXPLORE)",
    ]
    places = [f"PLACE {c} {h}" for c in ("BLUE", "RED", "YELLOW") for h in ("0,1", "1,0", "-1,1")]
    assert legal_orders_lines(places) == [
        "PLACE <BLUE|RED|YELLOW> <0,1|1,0|-1,1>",
        "  (9 orders; e.g. PLACE BLUE 0,1)",
    ]
    # A word with one choice is written as itself, not as a choice (regression: the email
    # read "MOVE <BLACK> <TO> <1,0|…>", fixed words looking like placeholders).
    moves = [f"MOVE BLACK TO {q},0" for q in range(1, 11)]
    assert legal_orders_lines(moves)[0] == "MOVE BLACK TO <" + "|".join(f"{q},0" for q in range(1, 11)) + ">"
    # Not every combination (one missing), few orders, or one word after the verb: listed.
    assert legal_orders_lines(places[:-1]) == places[:-1]
    assert legal_orders_lines(["PLAY EXPLOIT", "PLAY EXPAND"]) == ["PLAY EXPLOIT", "PLAY EXPAND"]
    bids = [f"BID {n}" for n in range(1, 12)]
    assert legal_orders_lines(bids) == bids
    # Past the limit the rest is counted.
    many = [f"TAKE CARD{n}" for n in range(70)]
    assert legal_orders_lines(many, limit=60) == [
        *many[:60], "... and 10 more (the game page offers them all; any legal order may be typed)"
    ]


def test_email_views_show_nested_values_without_python_reprs():
    from games.email_text import format_view

    text = format_view({"players": {"ann": {"dice": [{"face": [1, 2], "area": None}], "vp": 3}}})
    assert text == "players:\n  ann:\n    dice: (face: [1, 2], area: -)\n    vp: 3"
    assert "{" not in text and "None" not in text and "'" not in text


def test_a_games_emails_name_one_thread_in_references(django_capture_on_commit_callbacks) -> None:
    """Regression (email-only walk): every prompt's email started a conversation of its
    own. Each names the game's thread in References (and its prompt in Message-ID)."""
    from games.services.games import game_create_seated
    from games.services.outbox import game_thread_id
    from tests.games.core_support import make_users, play_defaults

    users = make_users(["th1", "th2", "th3"])
    game = game_create_seated(organizer=users[0], ruleset="5x", users=users)
    play_defaults(game, 2)
    mails = OutboxMessage.objects.filter(game=game, seat__name="th1").order_by("id")
    assert mails.count() >= 3
    thread = game_thread_id(game_id=game.pk)
    assert thread.startswith(f"<fivex.{game.pk}.thread@") and thread.endswith(">")
    assert {m.headers["References"] for m in mails} == {thread}
    assert len({m.headers["Message-ID"] for m in mails if "Message-ID" in m.headers}) == sum(
        "Message-ID" in m.headers for m in mails
    )


@pytest.mark.usefixtures("eager_celery")
def test_subjects_say_whether_to_act(django_capture_on_commit_callbacks) -> None:
    """From a league player's walk: every turn email was "[Game] Prompt N resolved",
    whether it asked for an order or not (42 % did not), and a missed deadline did not
    show. The subject now says it."""
    from games.models import Prompt
    from games.services.deadlines import enforce_deadlines
    from tests.games.web_support import DEAL, DRAFT, NAMES, dealt_5x_game, submit_orders

    game = dealt_5x_game(
        django_capture_on_commit_callbacks, names=NAMES, organizer="org", deal=DEAL, name="Subj"
    )
    started = {m.seat.name: m.subject for m in OutboxMessage.objects.filter(kind="game_started")}
    assert started == {name: "[Subj] The game has started; your order: draft" for name in NAMES}
    submit_orders(game, django_capture_on_commit_callbacks, DRAFT)
    after = {m.seat.name: m.subject for m in OutboxMessage.objects.filter(kind="prompt_resolved")}
    prompt = Prompt.objects.get(game=game, number=2)
    stage = f"round {prompt.round}, {prompt.phase}"
    for name in NAMES:
        asked = name in prompt.pending and name not in prompt.forced
        waiting = [n for n in prompt.pending if n not in prompt.forced]
        assert after[name] == (
            f"[Subj] Your order: {stage}" if asked
            else f"[Subj] R{stage[1:]}: waiting for " + " and ".join(waiting)
        ), (name, after[name], prompt.pending)  # fmt: skip
    # A missed deadline: the default order entered for a seat is in its subject.
    late = [n for n in prompt.pending if n not in prompt.forced]
    on_time = late[1:]
    submit_orders(game, django_capture_on_commit_callbacks, {n: _first(game, n) for n in on_time})
    Prompt.objects.filter(pk=prompt.pk).update(deadline=prompt.opened_at)
    with django_capture_on_commit_callbacks(execute=True):
        enforce_deadlines()
    missed = OutboxMessage.objects.get(kind="prompt_resolved", seat__name=late[0],
                                       key__startswith=f"resolved:{game.pk}:2:")  # fmt: skip
    assert missed.subject.endswith(" (default order played for you)"), missed.subject


def _first(game, name: str) -> str:
    from games.selectors import legal_orders

    return legal_orders(seat=game.seats.get(name=name))[0]


def test_who_a_prompt_waits_for_in_a_subject() -> None:
    from games.services.notifications import _waiting_words

    assert _waiting_words(["cat"]) == "waiting for cat"
    assert _waiting_words(["ann", "bob"]) == "waiting for ann and bob"
    assert _waiting_words(["ann", "bob", "cat"]) == "waiting for ann, bob and cat"
    assert _waiting_words(["ann", "bob", "cat", "dan", "eve"]) == "waiting for ann, bob and 3 others"
    assert _waiting_words([]) == "nothing to order"


@pytest.mark.usefixtures("eager_celery")
def test_the_outbox_sweep_is_bounded_and_sends_in_batches(monkeypatch, settings) -> None:
    """A data-at-scale audit: behind a mail outage the beat's sweep queued one task per
    waiting message (52,000) every minute. It now takes the longest-due retries first,
    then the oldest lost ones, at most OUTBOX_SWEEP_MAX, in batches of one connection."""
    from games import tasks

    settings.MAILERS = {"default": {"BACKEND": "django.core.mail.backends.locmem.EmailBackend"}}
    now = timezone.now()
    old = now - timedelta(minutes=5)
    queued = [_queue() for _ in range(7)]
    OutboxMessage.objects.filter(pk__in=[m.pk for m in queued]).update(created_at=old)
    retrying = [_queue() for _ in range(2)]
    for i, m in enumerate(retrying):
        OutboxMessage.objects.filter(pk=m.pk).update(
            status="retrying", next_attempt_at=now - timedelta(minutes=2 - i), created_at=old
        )
    assert outbox_due(now=now, limit=5) == [
        retrying[0].pk, retrying[1].pk, queued[0].pk, queued[1].pk, queued[2].pk]  # fmt: skip
    assert outbox_due(now=now, limit=1) == [retrying[0].pk]
    batches = []
    real = tasks.send_outbox_batch.delay
    monkeypatch.setattr(tasks, "OUTBOX_BATCH", 4)
    monkeypatch.setattr(tasks.send_outbox_batch, "delay", lambda ids: batches.append(ids) or real(ids))
    assert tasks.send_outbox() == 9
    assert [len(b) for b in batches] == [4, 4, 1]
    assert set(OutboxMessage.objects.values_list("status", flat=True)) == {"sent"}


@pytest.mark.usefixtures("eager_celery")
def test_a_turn_email_says_at_its_top_whether_to_act_and_links_the_game(
    django_capture_on_commit_callbacks,
) -> None:
    """From a league player's walk: the game's link was the last line, after 30-40 lines of
    the table, and whether an order was wanted came after the table too."""
    from tests.games.web_support import DEAL, NAMES, dealt_5x_game

    game = dealt_5x_game(
        django_capture_on_commit_callbacks, names=NAMES, organizer="org", deal=DEAL, name="Top"
    )
    started = list(OutboxMessage.objects.filter(kind="game_started"))
    assert sorted(m.seat.name for m in started) == sorted(NAMES)  # one to each seat
    for message in started:
        first, second = message.body.splitlines()[:2]
        assert first.startswith("Top — The game has started.")
        assert second.startswith("Your order is needed by ")
        assert second.endswith(f"(the legal orders are below). Game page: http://127.0.0.1:8000/games/{game.pk}/")


def test_a_mail_outage_is_retried_for_about_two_days_with_a_capped_back_off() -> None:
    """From a failure-mode audit: five attempts over 7.5 minutes; a longer mail outage
    lost every email of its games for good."""
    from games.services.outbox_sending import MAX_BACKOFF_SECONDS, _failure

    now = timezone.now()
    down = ConnectionRefusedError(111, "Connection refused")
    delays = []
    for attempt in range(1, MAX_ATTEMPTS):
        status, delay, _error, next_at = _failure(1, attempt, down, now)
        assert status == "retrying" and next_at == now + timedelta(seconds=delay)
        delays.append(delay)
    assert delays[:8] == [30, 60, 120, 240, 480, 960, 1800, 1800]
    assert max(delays) == MAX_BACKOFF_SECONDS == 1800
    assert 46 * 3600 <= sum(delays) <= 50 * 3600
    assert _failure(1, MAX_ATTEMPTS, down, now)[0] == "failed"


def test_an_email_that_goes_out_wakes_the_ones_waiting_to_be_retried(scripted_smtp) -> None:
    from games.services.outbox_sending import outbox_wake_retries
    from games.tasks import send_outbox_message

    now = timezone.now()
    waiting, full = _queue(), _queue()
    OutboxMessage.objects.filter(pk=waiting.pk).update(
        status="retrying", attempts=6, next_attempt_at=now + timedelta(minutes=25),
        last_error="mail server: ConnectionRefusedError: [Errno 111] Connection refused",
    )  # fmt: skip
    OutboxMessage.objects.filter(pk=full.pk).update(  # refused on its own: keeps its back-off
        status="retrying", attempts=6, next_attempt_at=now + timedelta(minutes=25),
        last_error="SMTPRecipientsRefused: {'ann@example.com': (452, b'mailbox full')}",
    )  # fmt: skip
    assert waiting.pk not in outbox_due(now=now + timedelta(seconds=1))
    fresh = _queue()
    assert send_outbox_message(fresh.pk) == "sent"  # the server is back
    due = outbox_due(now=timezone.now() + timedelta(seconds=1))
    assert waiting.pk in due and full.pk not in due
    assert outbox_wake_retries() == 0  # nothing left to wake


def test_a_batch_stops_at_a_server_that_cannot_be_reached(settings, caplog) -> None:
    """From a failure-mode audit: a server that never answers held a worker for each
    message's timeout in turn (25 minutes a batch of 50); the rest wait for the sweep.
    A resilience audit: the outage was silent (no log line until an email failed for good
    two days later); the batch says it once."""
    port = _port()
    settings.MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {"host": "127.0.0.1", "port": port, "timeout": 2},
        }
    }
    ids = [_queue().pk for _ in range(3)]
    with caplog.at_level("WARNING", logger="games.services.outbox"):
        assert [status for status, _ in outbox_send_many(message_ids=ids)] == ["retrying", "skipped", "skipped"]
    said = [r.getMessage() for r in caplog.records if r.name == "games.services.outbox" and r.levelname == "WARNING"]
    assert said == [
        f"the mail server cannot be reached (127.0.0.1:{port}); 3 of 3 emails of this batch wait"
        " for the next attempt"
    ]
    rows = {m.pk: (m.status, m.attempts) for m in OutboxMessage.objects.filter(pk__in=ids)}
    assert [rows[i] for i in ids] == [("retrying", 1), ("queued", 0), ("queued", 0)]


def test_a_reply_refusing_one_message_does_not_stop_the_batch(scripted_smtp) -> None:
    scripted_smtp.replies = ["451 4.3.0 try again later", "250 OK"]
    ids = [_queue().pk for _ in range(2)]
    assert [status for status, _ in outbox_send_many(message_ids=ids)] == ["retrying", "sent"]


def test_staff_send_failed_emails_again_from_the_admin(admin_client) -> None:
    failed, sent = _queue(), _queue()
    OutboxMessage.objects.filter(pk=failed.pk).update(status="failed", attempts=100, last_error="down")
    OutboxMessage.objects.filter(pk=sent.pk).update(status="sent", sent_at=timezone.now())
    answer = admin_client.post(
        "/admin/games/outboxmessage/",
        {"action": "send_again", "_selected_action": [failed.pk, sent.pk]},
        follow=True,
    )
    assert "1 failed email queued again." in answer.content.decode()
    failed.refresh_from_db()
    sent.refresh_from_db()
    assert (failed.status, failed.attempts) == ("retrying", 0) and sent.status == "sent"
    assert failed.pk in outbox_due(now=timezone.now() + timedelta(seconds=1))


def test_every_attempt_at_an_email_carries_the_same_message_id(scripted_smtp) -> None:
    """From a failure-mode audit: a worker killed after the server accepted an email but
    before the commit sent it again with a new Message-ID (two messages in the inbox)."""
    message = _queue()
    chosen = message.headers["Message-ID"]
    assert chosen.startswith("<") and chosen.endswith("@orders.localhost>")
    import email

    scripted_smtp.replies = ["451 4.3.0 later"]  # then accepted
    now = timezone.now()
    assert outbox_send(message_id=message.pk, now=now)[0] == "retrying"
    assert outbox_send(message_id=message.pk, now=now + timedelta(minutes=1))[0] == "sent"
    assert len(scripted_smtp.accepted) == 1
    assert email.message_from_bytes(scripted_smtp.accepted[0])["Message-ID"] == chosen
    other = _queue()
    assert other.headers["Message-ID"] != chosen


def test_the_server_refusing_our_login_is_retried_and_marked_the_servers(settings) -> None:
    """From a review: a rotated SMTP password failed every email for good at once."""
    from games.services.outbox_sending import SERVER_SIDE, _failure

    refused = smtplib.SMTPAuthenticationError(535, b"5.7.8 Authentication credentials invalid")
    assert classify_smtp_error(refused) == "temporary"
    status, delay, error, _next = _failure(1, 1, refused, timezone.now())
    assert (status, delay) == ("retrying", 30) and error.startswith(SERVER_SIDE)
    one_message = smtplib.SMTPDataError(452, b"mailbox full")
    assert not _failure(1, 1, one_message, timezone.now())[2].startswith(SERVER_SIDE)


def test_a_deactivated_player_is_sent_no_game_email(django_capture_on_commit_callbacks) -> None:
    # A staff audit: a deactivated account was still sent every prompt's orders,
    # reminders and notices of its games (and could answer them).
    from games.models import Prompt
    from games.selectors import current_prompt
    from games.services.games import game_create_seated
    from games.services.notifications import notify_game_notice, notify_reminder
    from tests.games.core_support import make_users, play_defaults

    users = make_users(["da1", "da2", "da3"])
    game = game_create_seated(organizer=users[0], ruleset="5x", users=users)
    assert OutboxMessage.objects.filter(to="da2@example.com").exists()  # told it started
    users[1].is_active = False
    users[1].save(update_fields=["is_active"])
    before = OutboxMessage.objects.count()
    play_defaults(game, 2)
    prompt = current_prompt(game=game) or Prompt.objects.filter(game=game).last()
    for seat in game.seats.all():
        notify_reminder(game=game, prompt=prompt, seat=seat, by_organizer=True)
    notify_game_notice(game=game, subject="Game paused", text="paused.", key="t-paused")
    new = OutboxMessage.objects.filter(pk__gt=0).order_by("id")[before:]
    assert {m.to for m in new} == {"da1@example.com", "da3@example.com"}
