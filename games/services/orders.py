"""Sealed orders: submit, replace, fill by default; schedule resolution when complete.

Commitment (the receipt published at once, in the log and to the player):
``commitment = sha256((salt + ":" + text).encode("utf-8")).hexdigest()`` where ``salt``
is 32 lowercase hex digits (``secrets.token_hex(16)``) and ``text`` the order exactly
as submitted (not stripped, not re-cased). After resolution the ``orders_revealed``
log entry publishes ``text`` and ``salt`` so anyone can recompute it
(``engine.audit.order_commitment``).
"""

from __future__ import annotations

import secrets
import unicodedata
from datetime import datetime, timedelta
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from engine.audit import order_commitment
from engine.base import IllegalOrder
from games.errors import (
    DeadlinePassed,
    GameStateError,
    NoSeat,
    NotFound,
    NotPending,
    OrderRefused,
)
from games.models import Game, LogEntry, Prompt, SealedOrder, Seat, StateSnapshot
from games.notes import without_notes
from games.presentation import local_time, prompt_stage
from games.selectors import NO_SEAT, open_prompt_state
from games.services.audit import chained_entry, log_append
from games.services.away import waits_for_seat
from games.services.deadlines import enforce_due_at
from games.services.locking import locked_game_row
from games.services.order_sameness import same_order_played, same_reading
from games.sql import (
    field_order,
    insert_instance,
    insert_order_and_log,
    insert_values,
    instance,
    update_row,
)

MAX_ORDER_CHARS = 4000


def prompt_state(*, prompt: Prompt) -> dict:
    """The engine state while ``prompt`` is open (its snapshot)."""
    return StateSnapshot.objects.get(game_id=prompt.game_id, prompt_number=prompt.number).state


def current_orders(*, prompt: Prompt) -> dict[str, SealedOrder]:
    """The current order of each seat name for ``prompt``."""
    return {o.seat_name: o for o in SealedOrder.objects.filter(prompt=prompt, is_current=True)}


def _store(
    *,
    game: Game,
    prompt: Prompt,
    seat: Seat,
    text: str,
    parsed: dict,
    source: str,
    reason: str = "",
    previous: SealedOrder | None | bool = False,
    tail: tuple[int, str] | None | bool = False,
    at: datetime | None = None,
) -> SealedOrder:
    """Store a sealed order (replacing the seat's current one) and log its commitment.
    ``at``: the moment it was taken (the one its deadline was checked against), its
    ``submitted_at`` and its log entry's time; now by default.
    ``previous``: the seat's current order if the caller already read it (under the game
    lock), ``None`` if it has none, ``False`` (default) to look it up here. ``tail``:
    the log's tail if the caller read it under the game lock (``audit.log_append``).
    The rows are written with hand-written statements (the hottest write of the site);
    on PostgreSQL, when ``tail`` is given, with a single one. The order's ``log_tail``
    is the log's tail after its entry (a caller storing several chains them)."""
    if previous is False:
        previous = SealedOrder.objects.filter(
            prompt=prompt, seat_name=seat.name, is_current=True
        ).first()
    salt = secrets.token_hex(16)
    order = SealedOrder(
        prompt=prompt, seat=seat, seat_name=seat.name, text=text, parsed=parsed,
        source=source, salt=salt, commitment=order_commitment(salt=salt, text=text),
    )  # fmt: skip
    kind, payload = _order_entry(order, prompt, previous, reason)
    # One moment for the order and its entry, the one the deadline was checked against
    # (a time audit: an order taken in time was recorded 2 s after its deadline when the
    # machine was busy between the check and the insert).
    at = at or timezone.now()
    if tail is not False and connection.vendor == "postgresql":
        # One statement: the old order replaced by the new one, the new one, its entry.
        values = {**insert_values(order), "submitted_at": at}  # auto_now_add's now: not it
        order.submitted_at = at
        entry = chained_entry(game, tail, kind, payload, created_at=at)
        order.pk, _entry_pk = insert_order_and_log(
            SealedOrder, values, None if previous is None else previous.pk,
            LogEntry, insert_values(entry),
        )  # fmt: skip
        order._state.adding, order._state.db = False, connection.alias
    else:
        if previous is not None:  # first: at most one current order per seat and prompt
            update_row(SealedOrder, previous.pk, {"is_current": False})
        insert_instance(order, {"submitted_at": at})
        if previous is not None:
            update_row(SealedOrder, previous.pk, {"replaced_by_id": order.pk})
        entry = log_append(game=game, kind=kind, payload=payload, tail=tail, created_at=at)
    order.log_tail = (entry.seq, entry.hash)
    if previous is not None:
        previous.is_current, previous.replaced_by = False, order
    return order


def _order_entry(
    order: SealedOrder, prompt: Prompt, previous: SealedOrder | None, reason: str
) -> tuple[str, dict[str, Any]]:
    """The kind and payload of the log entry of a stored order."""
    payload = {
        "prompt": prompt.number,
        "seat": order.seat_name,
        "commitment": order.commitment,
        "source": order.source,
    }
    if order.source == SealedOrder.Source.DEFAULT:
        payload["reason"] = reason
        return "nmr_applied", payload
    if order.source == SealedOrder.Source.FORCED:
        return "order_forced", payload
    return ("order_replaced" if previous is not None else "order_received"), payload


def order_fill_default(
    *,
    game: Game,
    prompt: Prompt,
    seat: Seat,
    reason: str,
    state: dict | None = None,
    previous: SealedOrder | None | bool = False,
    tail: tuple[int, str] | None | bool = False,
) -> SealedOrder:
    """Give a pending seat the engine's default order (source ``default``), logged as
    ``nmr_applied``. The caller holds the game lock. ``state``: the prompt's snapshot
    state if the caller has it (spares a query); ``previous`` and ``tail`` as ``_store``
    takes them (each spares one)."""
    from games.services.game_options import ruleset_get

    rules = ruleset_get(game.ruleset)
    if state is None:
        state = prompt_state(prompt=prompt)
    text = rules.default_order(state, seat.name)
    parsed = rules.parse_order(state, seat.name, text)
    # The reason is public (deadline, resigned); the order itself stays sealed.
    return _store(
        game=game,
        prompt=prompt,
        seat=seat,
        text=text,
        parsed=parsed,
        source="default",
        reason=reason,
        previous=previous,
        tail=tail,
    )


def order_fill_forced(*, game: Game, prompt: Prompt, seat: Seat, text: str, state: dict) -> SealedOrder:
    """Enter ``text``, the seat's only legal order or one no choice would change
    (``Ruleset.forced_order``: 4X Dice's last-round allocations), for it
    (source ``forced``), logged as ``order_forced``. The caller holds the game lock and
    opened ``prompt`` in this transaction. The order stays sealed like any other until
    the prompt resolves (everyone could work it out, but nothing is revealed early)."""
    from games.services.game_options import ruleset_get

    parsed = ruleset_get(game.ruleset).parse_order(state, seat.name, text)
    return _store(
        game=game, prompt=prompt, seat=seat, text=text, parsed=parsed, source="forced",
        previous=None,
    )  # fmt: skip


def prompt_check_ready(*, game: Game, prompt: Prompt, have: set[str] | None = None) -> bool:
    """If every pending seat has a current order, mark the prompt ready and schedule
    its resolution after commit (after the game's early-resolution delay, counted once:
    a replacement once it is complete neither restarts it nor schedules again). The caller
    holds the game lock; ``have`` (the seat names with a current order) spares a query
    when the caller knows it. Returns whether the prompt is complete."""
    if prompt.status != Prompt.Status.OPEN:
        return False
    if have is None:
        have = set(current_orders(prompt=prompt))
    if not set(prompt.pending) <= have:
        return False
    if prompt.ready_at is not None:
        # Complete already (this was a replacement): its resolution is scheduled, and the
        # delay runs from when the last order came in. Restarting it let a player hold a
        # complete prompt open by replacing an order again and again (a race audit).
        return True
    now = timezone.now()
    delay = game.early_resolution_delay_seconds
    prompt.ready_at = now
    prompt.resolve_after = now + timedelta(seconds=delay)
    update_row(Prompt, prompt.pk, {"ready_at": now, "resolve_after": prompt.resolve_after})
    if game.status == Game.Status.ACTIVE:
        schedule_resolution(game_id=game.pk, prompt_number=prompt.number, countdown=delay)
    return True


def schedule_resolution(*, game_id: int, prompt_number: int, countdown: int = 0) -> None:
    """Enqueue ``resolve_prompt`` once the current transaction commits."""
    from games.services.queueing import enqueue_on_commit
    from games.tasks import resolve_prompt

    enqueue_on_commit(resolve_prompt, game_id, prompt_number, countdown=countdown)


def order_submit(
    *,
    seat: Seat,
    text: str,
    source: str,
    expected_prompt: int | None = None,
    arrived_at: Any = None,
) -> SealedOrder:
    """Submit (or replace) a seat's sealed order for the prompt it is pending on.

    The text is parsed by the engine for this seat; a refusal raises OrderRefused with
    the engine's reason and stores nothing. Submitting the same order again (the same
    text, or one the engine reads as the same: other spaces, other letter case) returns
    the current order unchanged, its first text and receipt, marked ``already_stored``;
    a new order is marked ``completed_prompt`` when it made the prompt complete.
    ``expected_prompt``: the prompt number the player answered (a stale page or a late
    client); checked under the game's lock, so an order never lands on the next prompt. When every pending seat has an order, resolution is
    scheduled on commit. Raises OrderRefused, NotPending, GameStateError,
    NoSeat. ``arrived_at``: when the order reached the site, if earlier than
    now (an email stored before the deadline and read after it counts as in time)."""
    _check_text(text, source)
    try:
        with transaction.atomic():
            game, locked, prompt, orders, tail = _lock_for_order(
                game_id=seat.game_id, seat_id=seat.pk
            )
            if locked is None:  # the seat row is gone
                raise NoSeat(NO_SEAT)
            return _submit_locked(
                game, locked, prompt, orders, tail, text, source, expected_prompt, arrived_at
            )
    except DeadlinePassed:
        sweep_soon()
        raise


def order_submit_for_user(
    *, game_id: int, user: Any, text: str, source: str, expected_prompt: int | None = None
) -> SealedOrder:
    """``order_submit`` for the user's seat in the game (the API): the seat is found
    under the game's lock. Raises NotFound for an unknown game, NoSeat when
    the user holds no seat, and what ``order_submit`` raises."""
    _check_text(text, source)
    try:
        with transaction.atomic():
            game, seat, prompt, orders, tail = _lock_for_order(game_id=game_id, user_id=user.pk)
            if seat is None:  # never held one, or it was handed over: say which
                from games.selectors import no_seat_reason

                raise NoSeat(no_seat_reason(game_id=game_id, user=user))
            return _submit_locked(
                game, seat, prompt, orders, tail, text, source, expected_prompt
            )
    except DeadlinePassed:
        sweep_soon()
        raise


def sweep_soon() -> None:
    """An order came after its prompt's deadline (plus grace) and before the beat's
    sweep filled the missing orders: run the sweep now rather than at its next tick
    (once the caller's transaction commits, if there is one). A caller that wraps
    ``order_submit`` in a savepoint of its own, rolled back on the refusal, loses this
    callback with it and calls this again outside (the email gateway does)."""
    from games.services.queueing import enqueue_on_commit
    from games.tasks import enforce_deadlines

    enqueue_on_commit(enforce_deadlines)


_LOCKED_GAME = field_order(
    Game,
    {"id", "status", "ruleset", "seed_commitment", "early_resolution_delay_seconds",
     "grace_minutes"},
)  # fmt: skip
_LOCKED_SEAT = field_order(Seat, {"id", "game_id", "user_id", "position", "name", "status"})
_LOCKED_PROMPT = field_order(
    Prompt, {"id", "game_id", "number", "round", "phase", "pending", "status", "deadline", "ready_at"}
)
_CURRENT_ORDER = field_order(
    SealedOrder,
    {"id", "prompt_id", "seat_id", "seat_name", "text", "parsed", "source", "salt", "commitment",
     "submitted_at", "is_current"},
)  # fmt: skip


def _lock_for_order(
    *, game_id: int, seat_id: int | None = None, user_id: int | None = None
) -> tuple[Game, Seat | None, Prompt | None, dict[str, SealedOrder], tuple[int, str] | None]:
    """Lock the game's row, then read in one statement the seat (``seat_id``, or the
    user's current seat), the open prompt and its current orders, and the log's tail:
    the fields an order needs, as model instances (the others load on access). Returns
    ``(game, seat, prompt, orders by seat name, log tail)``; seat None when there is no
    such seat. Raises NotFound, GameBusy.

    The reads come in a statement of their own after the lock is held: a statement
    that waited for the lock would see the other tables as they were before the
    transaction it waited for (PostgreSQL, READ COMMITTED), e.g. a prompt that has
    just been resolved still open."""
    seat_t, prompt_t, order_t, log_t = (
        m._meta.db_table for m in (Seat, Prompt, SealedOrder, LogEntry)
    )
    row = locked_game_row(game_id=game_id, columns=_LOCKED_GAME)
    if row is None:
        raise NotFound("No such game.")
    game = instance(Game, _LOCKED_GAME, row)

    columns = ", ".join(
        [f"s.{c}" for c in _LOCKED_SEAT] + [f"p.{c}" for c in _LOCKED_PROMPT]
        + [f"o.{c}" for c in _CURRENT_ORDER]
    )  # fmt: skip
    if seat_id is not None:
        which, params = "s.id = %s", [seat_id]
    else:
        which, params = "s.user_id = %s AND s.status <> %s", [user_id, Seat.Status.REPLACED.value]
    newest = f"FROM {log_t} WHERE game_id = %s ORDER BY seq DESC LIMIT 1"
    read = (
        f"SELECT (SELECT seq {newest}), (SELECT hash {newest}), {columns} FROM {seat_t} s"
        f" LEFT JOIN {prompt_t} p ON p.game_id = s.game_id AND p.status = %s"
        f" LEFT JOIN {order_t} o ON o.prompt_id = p.id AND o.is_current"
        f" WHERE s.game_id = %s AND {which} ORDER BY p.number DESC"
    )
    with connection.cursor() as cursor:
        cursor.execute(read, [game_id, game_id, Prompt.Status.OPEN.value, game_id, *params])
        rows = cursor.fetchall()
    tail = None if not rows or rows[0][0] is None else (rows[0][0], rows[0][1])
    rows = [row[2:] for row in rows]
    if not rows:
        return game, None, None, {}, tail
    n_seat, n_prompt = len(_LOCKED_SEAT), len(_LOCKED_PROMPT)
    seat = instance(Seat, _LOCKED_SEAT, rows[0][:n_seat])
    seat.game = game
    prompt_row = rows[0][n_seat : n_seat + n_prompt]
    if prompt_row[0] is None:
        return game, seat, None, {}, tail
    prompt = instance(Prompt, _LOCKED_PROMPT, prompt_row)
    orders = {}
    for row in rows:
        if row[n_seat] == prompt.pk and row[n_seat + n_prompt] is not None:
            order = instance(SealedOrder, _CURRENT_ORDER, row[n_seat + n_prompt :])
            orders[order.seat_name] = order
    return game, seat, prompt, orders, tail


def _foreign_letters_hint(text: str) -> str:
    """For a refused order, the letters outside A to Z in its order lines (not its ``#``
    notes): a Cyrillic Е in "ЕXPAND" or a full-width "ＰＬＡＹ" (a keyboard left in
    another layout) reads as a legal order, and the refusal alone would name a card that
    looks the same as a legal one. "" when there are none."""
    order_part = without_notes(text)
    foreign = []
    for char in dict.fromkeys(order_part):
        if char.isalpha() and not char.isascii():
            name = unicodedata.name(char, "").title() or "a letter"
            foreign.append(f"'{char}' ({name}, U+{ord(char):04X})")
    if not foreign:
        return ""
    listed = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
    return f" Orders are written with the letters A to Z; your order has {listed}."


def _check_text(text: str, source: str) -> None:
    if source not in SealedOrder.PLAYER_SOURCES:
        raise OrderRefused(f"Unknown order source {source!r}.", code="invalid")
    if not isinstance(text, str) or not text.strip():
        raise OrderRefused("The order is empty.")
    if len(text) > MAX_ORDER_CHARS:
        raise OrderRefused(f"The order is too long (at most {MAX_ORDER_CHARS} characters).")


def _submit_locked(
    game: Game,
    seat: Seat,
    prompt: Prompt | None,
    orders: dict[str, SealedOrder],
    tail: tuple[int, str] | None,
    text: str,
    source: str,
    expected_prompt: int | None,
    arrived_at: Any = None,
) -> SealedOrder:
    """order_submit's work; the caller holds the game's lock and read the seat, the
    open prompt and its current orders after taking it (every writer takes the game's
    lock first, so those rows need no lock of their own)."""
    from games.services.game_options import ruleset_get

    over = game.status in (Game.Status.FINISHED, Game.Status.ABANDONED)
    if expected_prompt is not None and (over or prompt is None or prompt.number != expected_prompt):
        # A retry (web, API) of an order that counted gets its receipt again, also when
        # that order ended the game (an API audit: a 409 "game over" for the order that
        # finished it). Email has its own: a message is read once (its Message-ID).
        played = (
            same_order_played(
                seat=seat, number=expected_prompt, text=text, rules=ruleset_get(game.ruleset)
            )
            if source in ("web", "api")
            else None
        )
        if played is not None:
            played.already_stored = True  # the API answers 200, not 201
            return played
    if over:
        raise GameStateError("The game is over.", code="game_finished")
    if game.status == Game.Status.FORMING:  # no prompt yet: not "prompt 1 is not open"
        raise GameStateError("The game has not started yet.", code="not_started")
    if expected_prompt is not None and (prompt is None or prompt.number != expected_prompt):
        # Also in the words of the emails' subjects ("round 4, bid", "turn 4"): a player
        # answering an old email knows prompts by those.
        now = "no prompt is open"
        if prompt is not None:
            stage = prompt_stage(ruleset=game.ruleset, round_number=prompt.round, phase=prompt.phase)
            now = f"prompt {prompt.number} is open now ({stage})"
        if prompt is None:
            state = "is not open"
        elif expected_prompt > prompt.number:
            state = "is not open yet"
        else:
            state = "is not open any more"
            # Lost to the deadline's sweep by a moment (a time audit: the player was not
            # told the order that counted was the default one).
            if SealedOrder.objects.filter(
                prompt__game_id=game.pk, prompt__number=expected_prompt, seat_name=seat.name,
                is_current=True, source=SealedOrder.Source.DEFAULT,
            ).exists():  # fmt: skip
                state += " (its deadline passed: your seat's default order was played)"
        raise NotPending(
            f"Prompt {expected_prompt} {state}: {now}. Nothing was stored.",
            code="prompt_closed",
        )
    if seat.status == Seat.Status.REPLACED:
        from games.selectors import no_seat_reason

        raise NoSeat(no_seat_reason(game_id=game.pk, user=seat.user))
    if game.status == Game.Status.PAUSED:
        raise GameStateError("The game is paused; orders are accepted again when it resumes.")
    if seat.status == Seat.Status.RESIGNED:
        raise NotPending(
            "You resigned from this game; your orders are the default ones.", code="resigned"
        )  # a code of its own (an API audit: it was not_your_turn, as if to wait)
    if prompt is None or seat.name not in prompt.pending:
        waiting = ", ".join(prompt.pending) if prompt is not None else "nobody"
        raise NotPending(f"You are not asked for an order now (waiting for: {waiting}).")
    # The prompt's current orders: this seat's (a double click returns it unchanged)
    # and who else is in (is the prompt complete after this one?).
    current = orders.get(seat.name)
    rules = ruleset_get(game.ruleset)
    parsed, refusal = None, None
    if current is not None and current.source != "default":
        same = current.text == text
        if not same:  # other bytes may be the same order: the engine's reading decides
            state = open_prompt_state(game.pk, game.seed_commitment, prompt.pk, prompt.number)
            same, parsed, refusal = same_reading(
                rules=rules, state=state, seat_name=seat.name, text=text, stored_text=current.text
            )
        if same:  # the first sealed text and its receipt stand
            current.prompt = prompt  # already read: spares the receipt a query
            current.already_stored = True  # the API answers 200, not 201
            return current
    # Orders close at the deadline plus grace, not when the beat's sweep next runs. The
    # moment checked is the one the order is stored with (``_store``'s ``at``).
    taken_at = timezone.now()
    closes = enforce_due_at(game=game, prompt=prompt)
    if closes is not None:
        arrived = arrived_at or taken_at
        if arrived >= closes and not waits_for_seat(
            game=game, seat=seat, prompt=prompt, at=closes, arrived=arrived
        ):
            after = " (its deadline plus the grace period)" if game.grace_minutes else ""
            # To the second when it is not a whole minute: "closed at 10:57" puzzled a
            # player refused at 10:57:56 (it closed at 10:57:54).
            style = "seconds" if closes.second or closes.microsecond else ""
            raise DeadlinePassed(
                f"Orders for prompt {prompt.number} closed at "
                f"{local_time(closes, style)}{after}; nothing "
                "was stored. The missing orders are being filled with default orders (unless"
                " the organizer extends the deadline first: you would be told)."
            )
    if parsed is None and refusal is None:
        try:
            state = open_prompt_state(game.pk, game.seed_commitment, prompt.pk, prompt.number)
            parsed = rules.parse_order(state, seat.name, text)
        except IllegalOrder as exc:
            refusal = exc
    if refusal is not None:
        hint = _foreign_letters_hint(text)
        reason = refusal.reason
        if hint and not reason.rstrip().endswith((".", "!", "?")):
            reason = reason.rstrip() + "."  # "... EXTRACT. Orders are written ..."
        raise OrderRefused(reason + hint) from None
    complete_before = prompt.ready_at is not None
    order = _store(
        game=game, prompt=prompt, seat=seat, text=text, parsed=parsed, source=source,
        previous=current, tail=tail, at=taken_at,
    )  # fmt: skip
    prompt_check_ready(game=game, prompt=prompt, have={*orders, seat.name})
    # Whether this order made the prompt complete (the web form says "yours was the last").
    order.completed_prompt = not complete_before and prompt.ready_at is not None
    # Whether it took the place of the seat's own earlier order (the web form says so).
    order.replaced_earlier = current is not None and current.source != "default"
    return order
