"""The hand-written SQL of the API's seat view (games.selectors_hot) gives exactly what
the ORM selectors give, for every seat at every prompt of whole games, with resigned,
replaced and paused seats, and falls back to the ORM where it does not apply."""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from games import selectors, selectors_hot
from games.models import Game, Seat
from games.selectors import current_prompt, seat_for_user, seat_view
from games.services.orders import order_submit
from tests.games.core_support import eager_celery, make_users, start_fixed

pytestmark = [pytest.mark.django_db(transaction=False)]
__all__ = ["eager_celery"]
NAMES = ["ann", "bob", "cat", "dan", "eve"]


def orm_view(game: Game, user) -> dict | None:
    seat = seat_for_user(game=game, user=user)
    return None if seat is None else seat_view(seat=seat)


def compare_all(game: Game, users: list) -> int:
    """Every user's hot view equals the ORM view (or the hot path declines)."""
    compared = 0
    game.refresh_from_db()
    for user in users:
        hot = selectors_hot.seat_view_for_user(game_id=game.pk, user_id=user.pk)
        expected = orm_view(game, user)
        if hot is None:
            # Declined: only when the ORM path has no seat view of a running prompt.
            assert (
                expected is None
                or game.status not in (Game.Status.ACTIVE, Game.Status.PAUSED)
                or expected["prompt"] is None
            ), user.username
            continue
        info, view = hot
        assert info == {"id": game.pk, "name": game.name, "ruleset": game.ruleset, "status": game.status,
                        "ranking": None, "end_reason": "", "finished_at": None,
                        "part_of": selectors.part_of(label=game.part_of_label,
                                                     path=game.part_of_path)}  # fmt: skip
        assert view == expected, user.username
        assert list(view) == list(expected)  # same key order: the JSON is identical
        compared += 1
    return compared


@pytest.mark.parametrize("seed", [1, 2])
def test_hot_seat_view_equals_orm_over_whole_games(
    seed, eager_celery, django_capture_on_commit_callbacks
) -> None:
    from games.services import handover, organizer
    from games.services.games import seat_resign

    rng = random.Random(seed)
    game, seats = start_fixed(NAMES)
    users = [s.user for s in seats.values()] + make_users(["outsider"])
    compared = 0
    for step in range(60):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        compared += compare_all(game, users)
        # Each action runs its on-commit callbacks: resigning the last pending seat
        # (or resuming a game whose prompt is complete) schedules the resolution.
        with django_capture_on_commit_callbacks(execute=True):
            if step == 3:
                seat_resign(seat=Seat.objects.get(game=game, name="dan"))
            if step == 5:
                newcomer = make_users(["newcomer"])[0]
                handover.seat_replace(
                    seat=Seat.objects.get(game=game, name="cat", status="active"),
                    new_user=newcomer,
                    by=game.organizer,
                )
                users.append(newcomer)
            if step == 7:
                organizer.game_pause(game=game, by=game.organizer)
                compared += compare_all(game, users)
                organizer.game_resume(game=game, by=game.organizer)
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        seats = {
            s.name: s
            for s in Seat.objects.filter(game=game).exclude(status="replaced").select_related("game")
        }
        prompt = current_prompt(game=game)
        if prompt is None:
            break
        # Orders one seat at a time, comparing after some (a partly filled prompt).
        # (A seat with one legal order has it already: the prompt may resolve without it.)
        waiting = [
            n for n in prompt.pending if seats[n].status == "active" and n not in prompt.forced
        ]
        for i, name in enumerate(waiting):
            legal = selectors.legal_orders(seat=seats[name])
            with django_capture_on_commit_callbacks(execute=True):
                order_submit(seat=seats[name], text=rng.choice(legal), source="api")
            if i == 0 and len(waiting) > 1:
                compared += compare_all(game, users)
    assert compared > 50
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    for user in users:  # a finished game: the ORM path answers
        assert selectors_hot.seat_view_for_user(game_id=game.pk, user_id=user.pk) is None


def test_hot_seat_view_mid_prompt_shows_ready_and_own_order(
    eager_celery, django_capture_on_commit_callbacks
) -> None:
    game, seats = start_fixed(NAMES)
    users = [s.user for s in seats.values()]
    prompt = current_prompt(game=game)
    legal = selectors.legal_orders(seat=Seat.objects.select_related("game").get(pk=seats["bob"].pk))
    with django_capture_on_commit_callbacks(execute=True):
        order_submit(seat=seats["bob"], text=legal[0], source="api")
    assert compare_all(game, users) == len(users)
    _, view = selectors_hot.seat_view_for_user(game_id=game.pk, user_id=seats["bob"].user.pk)
    assert view["my_order"]["text"] == legal[0]
    assert view["prompt"]["ready"] == ["bob"] and view["prompt"]["number"] == prompt.number
    _, other = selectors_hot.seat_view_for_user(game_id=game.pk, user_id=seats["ann"].user.pk)
    assert other["my_order"] is None  # bob's sealed order is not ann's to see
    assert legal[0] not in str(other["my_order"])


def test_hot_api_view_uses_three_statements_and_matches_serializer(eager_celery) -> None:
    import json

    from rest_framework.renderers import JSONRenderer

    from games.api.payloads import view_payload
    from games.api.serializers import SeatViewSerializer
    from games.services.tokens import api_token_create

    game, seats = start_fixed(NAMES)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {api_token_create(user=seats['ann'].user)}")
    client.get(f"/api/games/{game.pk}/")  # fills the per-prompt engine cache
    with CaptureQueriesContext(connection) as queries:
        answer = client.get(f"/api/games/{game.pk}/")
    assert answer.status_code == 200
    assert len(queries) == 3  # token + user, game + seats, prompts + orders
    seat = seat_for_user(game=game, user=seats["ann"].user)
    expected = SeatViewSerializer(view_payload(game, seat_view(seat=seat), seat)).data
    assert answer.json() == json.loads(JSONRenderer().render(expected))


def test_hot_seat_view_unknown_game_and_no_seat() -> None:
    from games.errors import NotFound

    with pytest.raises(NotFound):
        selectors_hot.seat_view_for_user(game_id=987654, user_id=1)
    with pytest.raises(NotFound):
        selectors_hot.seat_view_for_user(game_id="x", user_id=1)


def test_the_page_view_pairs_the_open_prompt_with_its_own_snapshot() -> None:
    """A resolution may commit between the page's reads: a newer snapshot than the open
    prompt it read must not give the old prompt the next board and legal orders."""
    import engine
    from games.models import StateSnapshot

    game, seats = start_fixed(NAMES)
    rules = engine.get("5x")
    first = StateSnapshot.objects.get(game=game, prompt_number=1).state
    before = seat_view(seat=seats["ann"])
    # The next state, as the resolution would store it, already there.
    pending = [first["players"][i] for i in first["pending"]]
    orders = {
        name: rules.parse_order(first, name, rules.legal_orders(first, name)[0])
        for name in pending
    }
    after, _events = rules.resolve(first, orders)
    StateSnapshot.objects.create(game=game, prompt_number=2, state=after)
    view = seat_view(seat=seats["ann"])
    assert view["prompt"]["number"] == 1
    assert view["legal_orders"] == before["legal_orders"]
    assert view["phase"] == before["phase"] and view["round"] == before["round"]
    assert selectors.spectator_view(game=game)["phase"] == before["phase"]
