"""6x5 and 4X Dice take orders by email exactly like 5X: the gateway has no
game-specific code."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model

import engine
from games.mail.processing import process_message
from games.models import OutboxMessage, Prompt, SealedOrder, Seat
from games.selectors import current_state
from games.services.games import game_create_seated
from games.services.resolution import prompt_resolve
from games.services.seats import seat_reply_address

pytestmark = pytest.mark.django_db


def message(to: str, sender: str, body: str, n: int) -> bytes:
    return (
        f"From: {sender}\r\nTo: {to}\r\nSubject: Re: your turn\r\n"
        f"Message-ID: <other-{n}@example.com>\r\n\r\n{body}\r\n"
    ).encode()


def seated(ruleset: str, names: list[str], options: dict | None = None):
    User = get_user_model()
    users = [User.objects.create_user(n, f"{n}@example.com", "pw") for n in names]
    game = game_create_seated(organizer=users[0], ruleset=ruleset, options=options or {}, users=users)
    return game, {s.name: s for s in Seat.objects.filter(game=game, status="active")}


def last_reply(to: str) -> str:
    return OutboxMessage.objects.filter(to=to, kind="mail_reply").order_by("-id").first().body


def test_6x5_turn_by_email_and_a_precise_refusal():
    game, seats = seated("6x5", ["hexa", "hexb"])
    prompt = Prompt.objects.get(game=game, number=1)
    [mover] = prompt.pending
    other = next(n for n in seats if n != mover)
    to = seat_reply_address(seat=seats[mover])

    row = process_message(message(to, f"{mover}@example.com", "place blue 1, 0", 1), to)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert SealedOrder.objects.get(seat=seats[mover], is_current=True).text.lower() == "place blue 1, 0"
    assert prompt_resolve(game_id=game.pk, prompt_number=1)

    # The other seat tries to switch the tile under the mover's pawn: refused, with why.
    to2 = seat_reply_address(seat=seats[other])
    row = process_message(message(to2, f"{other}@example.com", "SWITCH 1,0 TO RED", 2), to2)
    assert (row.status, row.outcome) == ("rejected", "order_refused")
    reply = last_reply(f"{other}@example.com")
    assert "1,0" in reply and mover in reply and "pawn" in reply
    # HELP lists legal orders; STATUS shows the seat's own goal only.
    row = process_message(message(to2, f"{other}@example.com", "HELP\nSTATUS", 3), to2)
    assert row.outcome == "commands"
    body = last_reply(f"{other}@example.com")
    assert "PLACE BLUE" in body
    state = current_state(game=game)
    rules = engine.get("6x5")
    for fragment in rules.secrets(state, mover):
        assert fragment not in body, "the other seat's secret goal leaked into the STATUS reply"
    # 6x5 counts turns, as its turn emails say; the seat asking is "you".
    assert "Decision 2 (turn 2), deadline " in body and ": waiting for you." in body


def test_4x_dice_allocation_by_email_resolves_the_set_up():
    game, seats = seated("4x-dice", ["orb", "ray"], options={"dice": 2})
    for n, name in enumerate(seats):
        to = seat_reply_address(seat=seats[name])
        row = process_message(message(to, f"{name}@example.com", "ALLOCATE explore expand", 10 + n), to)
        assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert prompt_resolve(game_id=game.pk, prompt_number=1)
    # The first seat's turn ran (no eXterminate dice): it re-rolled and must allocate.
    prompt = Prompt.objects.get(game=game, number=2)
    assert prompt.phase == "allocate" and len(prompt.pending) == 1
    [first] = prompt.pending
    to = seat_reply_address(seat=seats[first])
    row = process_message(message(to, f"{first}@example.com", "ALLOCATE explore", 20), to)
    assert (row.status, row.outcome) == ("rejected", "order_refused")
    assert "You have 2 dice: name 2 areas." in last_reply(f"{first}@example.com")
    # STATUS writes the last prompt's dice as the turn emails do ("1/0"), not as the
    # log's lists ("[1, 0]").
    row = process_message(message(to, f"{first}@example.com", "STATUS", 21), to)
    body = last_reply(f"{first}@example.com")
    last = body[body.index("Last prompt:"):]
    assert re.search(r"allocated \d/\d to E", last) and not re.search(r"\[\d, \d\]", last), last


def test_a_line_above_a_two_line_order_is_named_and_the_order_quoted_as_its_lines():
    """A code review: the refusal of "ok then" above 6x5's CHANGE and its action told the
    player to send "CHANGE 1 / PLACE BLUE 1,0", which the engine refuses ("/")."""
    game, seats = seated("6x5", ["hexa", "hexb"], options={"change_goal": True})
    [mover] = Prompt.objects.get(game=game, number=1).pending
    to = seat_reply_address(seat=seats[mover])
    row = process_message(message(to, f"{mover}@example.com", "ok then\nCHANGE 1\nPLACE BLUE 1,0", 30), to)
    assert (row.status, row.outcome) == ("rejected", "order_refused")
    reply = last_reply(f"{mover}@example.com")
    assert ('"ok then", is not part of it, so nothing was stored. Send your order again without '
            "that line:\n\n    CHANGE 1\n    PLACE BLUE 1,0\n\n(or end that line") in reply, reply
    assert "alone at the top of the message" in reply
    # sent as quoted, it is taken
    row = process_message(message(to, f"{mover}@example.com", "CHANGE 1\nPLACE BLUE 1,0", 31), to)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
