"""The mail outbox: queueing messages.

A message is a row (``OutboxMessage``) queued here and sent, with retries, by
``games.services.outbox_sending``; the Message-IDs that thread a game's emails and tie a
reply to its prompt are chosen here too. The game emails themselves are composed in
``games.services.notifications``.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from django.db import IntegrityError, connection, transaction

from games.models import Game, OutboxMessage, Seat
from games.presentation import (
    one_line,
)
from games.services.queueing import enqueue_on_commit

# The Message-ID of every email that asks a seat for an order names the game and the
# prompt, so a reply (its In-Reply-To) says which prompt it answers: an order sent in
# reply to the email of a prompt that has closed since is refused, not put on the next
# prompt (the web form does the same with its prompt number).
_PROMPT_MESSAGE_ID_RE = re.compile(r"<fivex\.(\d{1,18})\.p(\d{1,9})\.[0-9a-f]{16}@[^>\s]+>")


def prompt_message_id(*, game_id: int, prompt_number: int) -> str:
    """A new Message-ID for an email about ``prompt_number`` of the game."""
    from games.mail.addresses import orders_domain

    return f"<fivex.{game_id}.p{prompt_number}.{secrets.token_hex(8)}@{orders_domain()}>"


def game_thread_id(*, game_id: int) -> str:
    """The id every email of the game names in ``References``: mail programs that thread
    by it (Thunderbird, Apple Mail, Outlook) keep a game's emails in one conversation."""
    from games.mail.addresses import orders_domain

    return f"<fivex.{game_id}.thread@{orders_domain()}>"


def prompt_answered(*, in_reply_to: str, game_id: int) -> int | None:
    """The prompt number of the game's email that ``in_reply_to`` (a reply's header)
    names, None when it names none of this game's prompt emails."""
    match = _PROMPT_MESSAGE_ID_RE.search(in_reply_to or "")
    if match is None or int(match.group(1)) != game_id:
        return None
    return int(match.group(2))


def outbox_enqueue(
    *,
    to: str,
    subject: str,
    body: str,
    seat: Seat | None = None,
    kind: str = "game",
    reply_to: str | None = None,
    headers: dict[str, str] | None = None,
    html: str = "",
    game: Game | None = None,
    key: str | None = None,
    queue_task: bool = True,
) -> OutboxMessage:
    """Queue an email; ``send_outbox_message`` is enqueued when the transaction commits
    (with ``queue_task`` off, not: the outbox's minute sweep sends it). A message with
    the same ``key`` as an existing one is not queued twice (the existing row is
    returned)."""
    from games.tasks import send_outbox_message

    if key is not None:
        existing = OutboxMessage.objects.filter(key=key).first()
        if existing is not None:
            return existing
    try:
        with transaction.atomic():
            message = OutboxMessage.objects.create(
                to=to,
                subject=one_line(subject)[:255],  # a line break would make it unsendable
                body=body,
                html=html or "",
                reply_to=reply_to or "",
                headers=_with_message_id(headers),
                seat=seat,
                user_id=_recipient(to, seat),
                game=game if game is not None else (seat.game if seat is not None else None),
                kind=kind,
                key=key,
            )
    except IntegrityError:
        return OutboxMessage.objects.get(key=key)
    if queue_task:
        enqueue_on_commit(send_outbox_message, message.pk)
    return message


def outbox_enqueue_many(*, messages: list[dict[str, Any]]) -> list[OutboxMessage]:
    """Queue several emails (each a dict of ``outbox_enqueue``'s keyword arguments, with
    a ``key``) and enqueue ONE ``send_outbox_batch`` task for them on commit. A key
    already queued is not queued again. Used for the per-seat emails of a resolution,
    written while the game lock is held: one ``INSERT ... ON CONFLICT (key) DO NOTHING``
    on PostgreSQL and SQLite (elsewhere one INSERT in a savepoint, the queued keys
    skipped after a conflict); one task."""
    from games.tasks import send_outbox_batch

    if not messages:
        return []
    created = _outbox_insert_new([_outbox_row(m) for m in messages])
    if created is not None:  # the keys already queued were skipped
        if created:
            ids = [m.pk for m in created]
            enqueue_on_commit(send_outbox_batch, ids)
        return created
    created = _outbox_insert([_outbox_row(m) for m in messages])
    if created is None:  # a key is queued already: skip the queued ones
        keys = [m["key"] for m in messages]
        existing = set(OutboxMessage.objects.filter(key__in=keys).values_list("key", flat=True))
        fresh = [m for m in messages if m["key"] not in existing]
        if not fresh:
            return []
        created = _outbox_insert([_outbox_row(m) for m in fresh])
        if created is None:  # a concurrent writer queued one of these keys: one by one
            return [outbox_enqueue(**m) for m in fresh]
    ids = [m.pk for m in created if m.pk is not None]
    if len(ids) != len(created):  # a backend that returns no ids
        ids = list(
            OutboxMessage.objects.filter(key__in=[m.key for m in created]).values_list(
                "pk", flat=True
            )
        )
    enqueue_on_commit(send_outbox_batch, ids)
    return created


def _recipient(to: str, seat: Seat | None) -> int | None:
    """The account an email goes to: the seat's player, else the account whose address
    ``to`` is now (``account_of_address``), recorded on the row so the address changing
    hands later does not make it the new owner's."""
    from games.selectors_addresses import account_of_address

    if seat is not None and seat.user_id is not None:
        return seat.user_id
    return account_of_address(to)


def _with_message_id(headers: dict[str, str] | None) -> dict[str, str]:
    """The headers with a Message-ID chosen now, when they name none: every attempt to
    send the message carries the same one, so a copy delivered twice (a worker killed
    between the server's acceptance and the commit) is one message to mail clients."""
    from email.utils import make_msgid

    from games.mail.addresses import orders_domain

    headers = dict(headers or {})
    if not any(name.lower() == "message-id" for name in headers):
        headers["Message-ID"] = make_msgid(domain=orders_domain())
    return headers


def _outbox_row(message: dict[str, Any]) -> OutboxMessage:
    return OutboxMessage(
        to=message["to"],
        subject=one_line(message["subject"])[:255],
        body=message["body"],
        html=message.get("html") or "",
        reply_to=message.get("reply_to") or "",
        headers=_with_message_id(message.get("headers")),
        seat=message.get("seat"),
        user_id=_recipient(message["to"], message.get("seat")),
        game=message.get("game"),
        kind=message.get("kind", "game"),
        key=message["key"],
    )


def _outbox_insert(rows: list[OutboxMessage]) -> list[OutboxMessage] | None:
    """Insert ``rows`` in one statement; None (and nothing inserted) if a key is taken."""
    try:
        with transaction.atomic():
            return OutboxMessage.objects.bulk_create(rows)
    except IntegrityError:
        return None


def _outbox_insert_new(rows: list[OutboxMessage]) -> list[OutboxMessage] | None:
    """Insert the ``rows`` whose key is not queued yet, with one hand-written statement
    (``INSERT ... ON CONFLICT (key) DO NOTHING RETURNING``; chunked as ``bulk_create``
    chunks): the rows ``bulk_create`` writes (defaults, ``created_at``), without a
    savepoint or the ORM's query building. Returns the created rows, in order, their
    ids set; None (nothing inserted) on a backend where this SQL is not available."""
    if (
        connection.vendor not in ("postgresql", "sqlite")
        or not connection.features.can_return_rows_from_bulk_insert
        or any(m.key is None for m in rows)
    ):
        return None
    fields = _OUTBOX_FIELDS
    size = max(1, connection.ops.bulk_batch_size(fields, rows))
    created: list[OutboxMessage] = []
    for start in range(0, len(rows), size):
        chunk = rows[start : start + size]
        params = [
            f.get_db_prep_save(f.pre_save(m, True), connection) for m in chunk for f in fields
        ]
        row_sql = f"({', '.join(['%s'] * len(fields))})"
        sql = (
            f"INSERT INTO {_OUTBOX_TABLE} ({', '.join(_quoted(f.column) for f in fields)})"
            f" VALUES {', '.join([row_sql] * len(chunk))}"
            f" ON CONFLICT ({_quoted('key')}) DO NOTHING RETURNING id, {_quoted('key')}"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            ids = {key: pk for pk, key in cursor.fetchall()}
        for message in chunk:
            if message.key in ids:
                message.pk = ids.pop(message.key)  # a key twice in rows: the first
                message._state.adding, message._state.db = False, connection.alias
                created.append(message)
    return created


def _quoted(name: str) -> str:
    return connection.ops.quote_name(name)


_OUTBOX_TABLE = OutboxMessage._meta.db_table
_OUTBOX_FIELDS = [f for f in OutboxMessage._meta.concrete_fields if not f.primary_key]
