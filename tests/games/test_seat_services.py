"""Seat mail addresses and the simple selectors."""

from __future__ import annotations

import pytest

from games.errors import NotFound
from games.models import Game
from games.selectors import current_prompt, game_get, seat_for_user, seat_view, spectator_view
from games.selectors_lists import games_for_user, open_games
from games.services.games import game_create, game_join
from games.services.seats import mail_token_rotate, seat_for_token, seat_reply_address
from tests.games.core_support import eager_celery, make_users, start_fixed

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]


def test_reply_address_token_lookup_and_rotation(settings) -> None:
    settings.ORDERS_DOMAIN = "orders.example.org"
    settings.ORDERS_ADDRESS_PREFIX = "play"
    _game, seats = start_fixed(["ann", "bob", "cat"])
    seat = seats["ann"]
    assert seat_reply_address(seat=seat) == f"play+{seat.mail_token}@orders.example.org"
    assert seat_for_token(token=seat.mail_token).pk == seat.pk
    assert seat_for_token(token=seat.mail_token.upper()).pk == seat.pk
    assert seat_for_token(token="nope") is None
    assert seat_for_token(token="") is None
    old = seat.mail_token
    new = mail_token_rotate(seat=seat)
    assert new != old and seat_for_token(token=old) is None
    assert seat_for_token(token=new).pk == seat.pk
    # Tokens are distinct per seat.
    assert len({s.mail_token for s in seats.values()}) == 3


def test_game_lists_and_lookups() -> None:
    org, ann, bob = make_users(["org", "ann", "bob"])
    public = game_create(organizer=org, ruleset="5x", options={}, seats_count=3)
    private = game_create(organizer=org, ruleset="5x", options={}, seats_count=3, is_private=True)
    game_join(game=public, user=ann)
    assert list(open_games()) == [public]
    assert list(games_for_user(user=ann)) == [public]
    assert set(games_for_user(user=org)) == {public, private}
    assert list(games_for_user(user=bob)) == []
    assert game_get(game_id=public.pk) == public
    with pytest.raises(NotFound):
        game_get(game_id=999999)
    with pytest.raises(NotFound):
        game_get(game_id="abc")
    assert seat_for_user(game=public, user=ann).name == "ann"
    assert seat_for_user(game=public, user=bob) is None
    # A forming game has no prompt and an empty engine view.
    assert current_prompt(game=public) is None
    view = seat_view(seat=seat_for_user(game=public, user=ann))
    assert view["prompt"] is None and view["legal_orders"] == [] and view["my_order"] is None
    assert spectator_view(game=public)["game"]["status"] == Game.Status.FORMING


def test_seat_view_of_a_running_game_has_engine_view_and_prompt() -> None:
    import engine
    from games.selectors import current_state

    game, seats = start_fixed(["ann", "bob", "cat"])
    view = seat_view(seat=seats["bob"])
    state = current_state(game=game)
    expected = engine.get("5x").view(state, "bob")
    assert view["hand"] == expected["hand"] and view["dealt"] == expected["dealt"]
    assert view["prompt"]["number"] == 1 and view["prompt"]["phase"] == "draft"
    assert view["prompt"]["pending"] == ["ann", "bob", "cat"]
    assert view["legal_orders"] == [f"PASS {leader}" for leader in expected["dealt"]]
    assert view["game"]["seed_commitment"] == game.seed_commitment
    spectator = spectator_view(game=game)
    assert "hand" not in spectator and "dealt" not in spectator


def test_admin_pages_render_without_showing_sealed_orders(client) -> None:
    from django.contrib.auth import get_user_model

    from games.models import SealedOrder
    from games.services.orders import order_submit

    game, seats = start_fixed(["ann", "bob", "cat"])
    order = order_submit(
        seat=seats["ann"], text="PASS " + seat_view(seat=seats["ann"])["dealt"][0], source="web"
    )
    admin = get_user_model().objects.create_superuser("root", "root@example.com", "pw")
    client.force_login(admin)
    for path in (
        "/admin/games/game/",
        f"/admin/games/game/{game.pk}/change/",
        "/admin/games/prompt/",
        "/admin/games/sealedorder/",
        f"/admin/games/sealedorder/{order.pk}/change/",
        "/admin/games/logentry/",
        "/admin/games/outboxmessage/",
    ):
        response = client.get(path)
        assert response.status_code == 200, path
        assert order.salt not in response.content.decode()
        assert order.text not in response.content.decode()
    assert SealedOrder.objects.count() == 1


def test_a_resign_racing_a_leave_is_refused_not_a_crash() -> None:
    # The API reads the caller's seat before the game lock; a leave that commits in
    # between deletes it. The resign then finds a forming game (or no seat): a refusal,
    # never Seat.DoesNotExist (a 500).
    from games.errors import GameStateError, PermissionDenied
    from games.models import Seat
    from games.services.games import game_leave, seat_resign

    org, ann = make_users(["org", "ann"])
    game = game_create(organizer=org, ruleset="5x", seats_count=3)
    stale = game_join(game=game, user=ann)
    game_leave(game=game, user=ann)
    assert not Seat.objects.filter(pk=stale.pk).exists()
    with pytest.raises(GameStateError, match="in progress"):
        seat_resign(seat=stale)
    # A running game whose seat row went away: no seat to resign.
    _game, seats = start_fixed(["bo", "cy", "di"])
    gone = seats["bo"]
    Seat.objects.filter(pk=gone.pk).delete()
    with pytest.raises(PermissionDenied, match="do not hold a seat"):
        seat_resign(seat=gone)


def test_a_resigned_seat_is_mailed_the_end_not_every_move(django_capture_on_commit_callbacks) -> None:
    """From a league player's walk: after resigning, an email came after every move of the
    others (up to ~100 in a 6x5 game), with no way to stop them."""
    from games.models import OutboxMessage
    from games.services.games import seat_resign
    from tests.games.core_support import play_defaults

    game, seats = start_fixed(["ann", "bob", "cat"])
    with django_capture_on_commit_callbacks(execute=True):
        seat_resign(seat=seats["ann"])
    assert play_defaults(game)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    resolved = OutboxMessage.objects.filter(kind="prompt_resolved")
    to_ann = list(resolved.filter(to=seats["ann"].user.email).values_list("subject", flat=True))
    assert len(to_ann) == 1 and to_ann[0].startswith(f"[{game.title}] Game over: "), to_ann
    assert resolved.filter(to=seats["bob"].user.email).count() > 5  # the others are told


@pytest.mark.django_db
def test_a_new_reply_address_is_shown_on_the_page_not_carried_in_a_cookie(client):
    """A security review: the flash message named the new address, and flash messages
    travel in the messages cookie (signed, not encrypted)."""
    from tests.games.core_support import start_fixed

    game, seats = start_fixed(["ann", "bob", "cat"])
    client.force_login(seats["ann"].user)
    answer = client.post(f"/games/{game.pk}/mail-token/")
    seats["ann"].refresh_from_db()
    token = seats["ann"].mail_token
    assert answer.status_code == 302
    cookie = answer.cookies.get("messages")
    assert cookie is not None and token not in cookie.value
    page = client.get(answer["Location"]).content.decode()
    assert "Your private order address was replaced" in page
    assert f"orders+{token}@" in page  # on the page itself, under Orders by email


def test_a_seat_handed_over_is_told_so_when_it_resigns(django_capture_on_commit_callbacks) -> None:
    """A code review: the old holder of a seat handed over was told "already resigned"
    (code resigned) when resigning it."""
    from django.contrib.auth import get_user_model

    from games.errors import PermissionDenied
    from games.models import Seat
    from games.services.games import seat_resign
    from games.services.handover import seat_replace

    game, seats = start_fixed(["ann", "bob", "cat"])
    staff = get_user_model().objects.create_user("root", "root@example.test", "pw", is_staff=True)
    (dan,) = make_users(["dan"])
    with django_capture_on_commit_callbacks(execute=True):
        seat_replace(seat=seats["bob"], new_user=dan, by=staff)
    old = Seat.objects.get(pk=seats["bob"].pk)
    assert old.status == Seat.Status.REPLACED
    with pytest.raises(PermissionDenied, match="handed to another player"):
        seat_resign(seat=old)



def test_replacing_one_seat_address_gives_the_emails_still_waiting_the_new_one() -> None:
    """An email queued to the seat and not sent yet (a mail outage, a queue behind) goes
    out with the new reply address, not the one that no longer works, as after a
    password change (``mail_tokens_rotate_for_user``)."""
    from games.models import OutboxMessage, Seat
    from games.services.outbox import outbox_enqueue

    _game, seats = start_fixed(["ann", "bob", "cat"], deadline_hours=24)
    seat = seats["ann"]
    old = seat_reply_address(seat=seat)
    outbox_enqueue(
        to="ann@example.com", subject="Your turn", body=f"Reply to {old} with your order.",
        seat=seat, reply_to=old, key="waiting-for-the-mail-server", queue_task=False,
    )  # fmt: skip
    mail_token_rotate(seat=seat)
    new = seat_reply_address(seat=Seat.objects.get(pk=seat.pk))
    assert new != old
    waiting = OutboxMessage.objects.get(key="waiting-for-the-mail-server")
    assert waiting.reply_to == new
    assert waiting.body == f"Reply to {new} with your order."
