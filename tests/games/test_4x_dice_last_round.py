"""4X Dice's last round on the site: once a counter stands at 19 the game ends with the
round, so an allocation then is for a turn that never comes. The site enters it (the
default) instead of holding the game up to a deadline for it (an email-only player found
the game waiting for the last seat's pointless allocation), and says why."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

import engine
from games.models import Game, OutboxMessage, Prompt, SealedOrder, Seat
from games.selectors import current_state
from games.services.games import game_create_seated
from games.services.orders import order_submit
from games.services.resolution import prompt_resolve

pytestmark = pytest.mark.django_db

RULES = engine.get("4x-dice")
AT_19 = ("explore", "expand", "extract", "exterminate")


def test_the_last_rounds_allocations_are_entered_and_the_game_ends_at_once():
    User = get_user_model()
    users = [User.objects.create_user(n, f"{n}@example.com", "pw") for n in ("lra", "lrb", "lrc")]
    game = game_create_seated(organizer=users[0], ruleset="4x-dice", options={"dice": 4},
                              users=users)  # fmt: skip
    entered: list[tuple[int, str]] = []
    for _ in range(400):
        prompt = Prompt.objects.filter(game=game, resolved_at__isnull=True).order_by("-number").first()
        if prompt is None:
            break
        state = current_state(game=game)
        last_round = state["round"] > 0 and any(
            state["seats"][s][c] >= 19 for s in state["players"] for c in AT_19
        )
        if last_round and state["phase"] == "allocate":
            # Nobody is asked: the allocation is in already, and the prompt is complete.
            assert prompt.forced == prompt.pending
            for name in prompt.pending:
                order = SealedOrder.objects.get(prompt=prompt, seat__name=name, is_current=True)
                assert (order.source, order.text) == ("forced", RULES.default_order(state, name))
                entered.append((prompt.number, name))
            assert prompt.ready_at is not None
        else:
            assert prompt.forced == []
            for name in prompt.pending:
                seat = Seat.objects.get(game=game, name=name, status=Seat.Status.ACTIVE)
                # Explore with every die: the game reaches 19 in a few rounds.
                text = ("PASS" if state["phase"] == "exterminate"
                        else "ALLOCATE " + " ".join(["EXPLORE"] * 4))  # fmt: skip
                order_submit(seat=seat, text=text, source="web")
        assert prompt_resolve(game_id=game.pk, prompt_number=prompt.number)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    # At least the last seat's (the one before the first seat) was entered: it ended the game.
    final = current_state(game=game)
    players = final["players"]
    assert entered and entered[-1][1] == players[players.index(final["first"]) - 1]
    # The log replays and verifies like any other (the entered orders are in it).
    out = StringIO()
    call_command("verify_game", str(game.pk), stdout=out)
    assert "OK" in out.getvalue()
    # Each seat whose allocation was entered was told why, in its turn email.
    number, name = entered[0]
    seat = Seat.objects.get(game=game, name=name)
    bodies = list(OutboxMessage.objects.filter(seat=seat).values_list("body", flat=True))
    assert any(
        f"was entered for you for decision {number}" in body
        and "the game ends after this round, so these dice are not used again" in body
        for body in bodies
    ), bodies[-3:]
    assert not any("is your only legal order" in body for body in bodies)


def test_the_words_for_an_entered_order_say_why():
    from games.log_text import log_summary
    from games.order_presentation import entered_order_text

    assert entered_order_text(source="forced", reason="", text="ALLOCATE EXPLORE EXPAND",
                              ruleset="4x-dice") == (
        "ALLOCATE EXPLORE EXPAND was entered for you: the game ends after this round, so "
        "these dice are not used again."
    )  # fmt: skip
    # 5X's forced orders are its only legal orders, and say so.
    assert entered_order_text(source="forced", reason="", text="BID 3", ruleset="5x") == (
        "BID 3 was your only legal order: it was entered for you."
    )
    payload = {"prompt": 9, "seat": "sol"}
    assert log_summary(ruleset="4x-dice", kind="order_forced", payload=payload) == (
        "sol's order for decision 9 was entered for it: the game ends after this round, so "
        "these dice are not used again."
    )
    assert log_summary(ruleset="5x", kind="order_forced", payload=payload) == (
        "sol's only legal order for decision 9 was entered for it."
    )
