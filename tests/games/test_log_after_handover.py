"""The game log of a seat handed over: its former player still reads, while the game
runs, the texts and salts of the orders it sealed while it held the seat (they are its
own: its receipts name their commitments), never its successor's; the successor's view
and everyone else's are unchanged."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from games.models import SealedOrder
from games.selectors import current_prompt, current_state
from games.selectors_log import game_log
from games.services.handover import seat_replace
from games.services.orders import order_submit
from tests.games.core_support import eager_celery, make_users, play_prompt, start_fixed

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]
NAMES = ["ann", "bob", "cat"]


def _revealed(log: list[dict], number: int, seat: str) -> dict:
    [entry] = [e for e in log if e["kind"] == "orders_revealed" and e["payload"]["prompt"] == number]
    return entry["payload"]["orders"][seat]


def test_a_former_holder_reads_its_own_orders_in_the_log_not_its_successors(
    django_capture_on_commit_callbacks,
) -> None:
    import engine

    rules = engine.get("5x")
    game, seats = start_fixed(NAMES, deadline_hours=24)
    cat_user = seats["cat"].user
    first, _orders = play_prompt(game, seats, lambda _name, legal: legal[0], django_capture_on_commit_callbacks)
    assert "cat" in first.pending
    mine = SealedOrder.objects.get(prompt=first, seat_name="cat", is_current=True)
    # Prompt 2: cat seals an order, then its seat is handed to eve (the order is
    # withdrawn unread), who seals her own; everyone orders and it resolves.
    second = current_prompt(game=game)
    assert "cat" in second.pending
    state = current_state(game=game)
    with django_capture_on_commit_callbacks(execute=True):
        order_submit(seat=seats["cat"], text=rules.legal_orders(state, "cat")[0], source="web")
    withdrawn = SealedOrder.objects.get(prompt=second, seat_name="cat", is_current=True)
    (eve,) = make_users(["eve"])
    staff = get_user_model().objects.create_user("boss", "boss@example.com", is_staff=True)
    eve_seat = seat_replace(seat=seats["cat"], new_user=eve, by=staff)
    seats["cat"] = eve_seat
    play_prompt(game, seats, lambda _name, legal: legal[0], django_capture_on_commit_callbacks)
    hers = SealedOrder.objects.get(prompt=second, seat_name="cat", is_current=True)
    assert hers.seat_id == eve_seat.pk and hers.commitment != withdrawn.commitment
    game.refresh_from_db()
    assert game.status == "active"  # the log is redacted while the game runs

    # The former holder: its own prompt-1 order whole; eve's prompt-2 order sealed.
    former = game_log(game=game, for_user=cat_user)
    assert _revealed(former, 1, "cat") == {
        "text": mine.text, "salt": mine.salt, "commitment": mine.commitment, "source": "web",
    }  # fmt: skip
    assert _revealed(former, 2, "cat") == {"commitment": hers.commitment, "source": "web"}
    assert _revealed(former, 1, "ann").keys() == {"commitment", "source"}
    assert hers.salt not in str(former) and withdrawn.salt not in str(former)
    # The new holder: unchanged, the seat's orders (its predecessor's too, as before).
    holder = game_log(game=game, for_user=eve)
    assert _revealed(holder, 2, "cat")["salt"] == hers.salt
    assert _revealed(holder, 1, "cat")["salt"] == mine.salt
    assert _revealed(holder, 1, "bob").keys() == {"commitment", "source"}
    # Another player reads neither.
    other = game_log(game=game, for_user=seats["bob"].user)
    for number in (1, 2):
        assert _revealed(other, number, "cat").keys() == {"commitment", "source"}
    assert mine.salt not in str(other) and hers.salt not in str(other)
