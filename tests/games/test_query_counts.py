"""Query-count ceilings of the hot paths the load benchmark hammers (bench/load.py):
a seat's view and an order submission, as services and over the API. Each reads the
open prompt, the snapshot and the prompt's orders once."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

import engine
from games.models import Seat
from games.selectors import current_state, seat_for_user, seat_view
from games.services.orders import order_submit
from tests.games.core_support import eager_celery, start_fixed

pytestmark = [pytest.mark.django_db]
__all__ = ["eager_celery"]
NAMES = ["ann", "bob", "cat", "dan", "eve"]
RULES = engine.get("5x")


@pytest.fixture
def table():
    game, seats = start_fixed(NAMES)
    return game, seats


def test_seat_view_reads_each_row_once(table, django_assert_max_num_queries) -> None:
    game, seats = table
    seat = seat_for_user(game=game, user=seats["bob"].user)
    # snapshot, the two newest prompts, the open prompt's orders, the seats
    with django_assert_max_num_queries(4):
        view = seat_view(seat=seat)
    assert view["prompt"]["number"] == 1 and view["legal_orders"]
    assert view["legal_orders"] == RULES.legal_orders(current_state(game=game), "bob")


def test_order_submit_query_budget(
    table, django_assert_max_num_queries, django_capture_on_commit_callbacks
) -> None:
    game, seats = table
    state = current_state(game=game)
    # savepoint, game lock, the seat with the open prompt, its orders and the log's tail,
    # snapshot (once per prompt and process), insert, log insert, release
    for i, name in enumerate(NAMES[:-1]):
        seat = Seat.objects.select_related("game").get(pk=seats[name].pk)
        with django_assert_max_num_queries(7 if i == 0 else 6):
            order_submit(seat=seat, text=RULES.legal_orders(state, name)[0], source="api")
    seat = Seat.objects.select_related("game").get(pk=seats["eve"].pk)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        with django_assert_max_num_queries(7):  # + marking it ready
            order_submit(seat=seat, text=RULES.legal_orders(state, "eve")[0], source="api")
    assert len(callbacks) == 1  # the resolution is scheduled once, on commit


def test_api_view_and_submit_query_budget(table, django_assert_max_num_queries) -> None:
    from games.services.tokens import api_token_create

    game, seats = table
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {api_token_create(user=seats['ann'].user)}")
    with django_assert_max_num_queries(4):  # token+user, game+seats, prompts+orders, snapshot
        answer = client.get(f"/api/games/{game.pk}/")
    assert answer.status_code == 200
    with django_assert_max_num_queries(3):  # the snapshot's view is kept for the prompt
        answer = client.get(f"/api/games/{game.pk}/")
    assert answer.status_code == 200
    text = answer.json()["legal_orders"][0]
    # token+user, then savepoint, lock, seat+prompt+orders+log tail, snapshot (first
    # order of the prompt in this process), insert, log insert, release
    with django_assert_max_num_queries(8):
        answer = client.post(f"/api/games/{game.pk}/orders/", {"text": text}, format="json")
    assert answer.status_code == 201, answer.content


def test_game_page_costs_no_more_queries_per_handed_over_seat(
    table, client, django_assert_num_queries
) -> None:
    """Who holds a handed-over seat is read in one query however many seats were handed
    over: the game page costs the same with one or two (it was one query more per seat),
    and that query is not asked while no seat was handed over (the poll's seat counter
    says so: one query fewer on the usual page)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from games.selectors import seat_handovers
    from games.selectors import seats as current_seats
    from games.services.handover import seat_replace
    from tests.games.core_support import make_users

    game, seats = table
    client.force_login(game.organizer)
    url = reverse("games:detail", args=[game.pk])

    def page_queries() -> int:
        client.get(url)  # the per-prompt caches, filled
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        return len(queries)

    newcomers = {u.username: u for u in make_users(["zoe", "yan", "xia"])}
    counts = [page_queries()]
    seat_replace(seat=seats["bob"], new_user=newcomers["zoe"], by=game.organizer)
    counts.append(page_queries())
    seat_replace(seat=seats["dan"], new_user=newcomers["yan"], by=game.organizer)
    counts.append(page_queries())
    assert counts[2] <= counts[1], counts  # two handed-over seats cost no more than one
    assert counts[1] == counts[0] + 1, counts  # one: the handovers' query, none without

    # bob handed over a second time: the player before the current one is zoe.
    bob = game.seats.get(name="bob", status="active")
    seat_replace(seat=bob, new_user=newcomers["xia"], by=game.organizer)
    now = current_seats(game=game)
    with django_assert_num_queries(1):
        handovers = seat_handovers(game=game, current=now)
    assert handovers == {
        "bob": {"holder": "xia", "previous": "zoe", "since_prompt": 1},
        "dan": {"holder": "yan", "previous": "dan", "since_prompt": 1},
    }
    assert list(handovers) == ["bob", "dan"]  # in seating order, as ``current``


def test_game_page_asks_for_offers_and_handovers_only_when_there_are_some(table, client) -> None:
    """The organizer's game page (and a spectator's) read the seat offers with a plain
    look first and the seats handed over not at all while there are none: the full
    queries (joins and subqueries, ~10x the time to build) only when there is one (the
    page shows the offer then)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from games.services.handover import seat_offer
    from tests.games.core_support import make_users

    game, seats = table
    (zoe,) = make_users(["zoe"])
    url = reverse("games:detail", args=[game.pk])

    def offer_queries(user) -> tuple[list[str], bytes]:
        client.force_login(user)
        with CaptureQueriesContext(connection) as queries:
            answer = client.get(url)
        assert answer.status_code == 200
        return [q["sql"] for q in queries if "games_seatoffer" in q["sql"]], answer.content

    for user in (game.organizer, zoe):
        sql, _page = offer_queries(user)
        assert sql and all("JOIN" not in q and "LIMIT 1" in q for q in sql), sql
    seat_offer(seat=seats["bob"], new_user=zoe, by=game.organizer)
    sql, page = offer_queries(game.organizer)
    assert any("JOIN" in q for q in sql) and b"zoe" in page
    sql, page = offer_queries(zoe)
    assert any("JOIN" in q for q in sql) and b'id="seat-offer"' in page
