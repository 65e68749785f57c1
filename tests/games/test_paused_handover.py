"""A seat handed over while its game is paused: the new player is told the game is
paused, not asked for an order every channel then refuses; the resume asks for it."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from games.models import OutboxMessage, PlayerWebhook, WebhookDelivery
from games.services import handover
from games.services.organizer import game_pause, game_resume
from tests.games.core_support import eager_celery, make_users, start_fixed

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]
NAMES = ["ann", "bob", "cat"]


def _hooked(user) -> None:
    PlayerWebhook.objects.create(user=user, url="https://hooks.example.org/x", secret="whsec_test")


def test_a_seat_handed_over_while_paused_is_told_the_pause_and_asked_on_resume() -> None:
    # Regression (h3 audit M1): the welcome said "YOUR ORDER IS NEEDED" with the legal
    # orders, and its webhook announced an order needed, while every order was refused.
    game, seats = start_fixed(NAMES, deadline_hours=24)
    eve, fay = make_users(["eve", "fay"])
    staff = get_user_model().objects.create_user("boss", "boss@example.com", is_staff=True)
    _hooked(eve)
    _hooked(fay)
    game_pause(game=game, by=game.organizer, reason="")
    handover.seat_replace(seat=seats["cat"], new_user=eve, by=staff)
    offer = handover.seat_offer(seat=seats["bob"], new_user=fay, by=game.organizer)
    handover.seat_offer_accept(offer=offer, by=fay)
    for name, seat in (("eve", "cat"), ("fay", "bob")):
        welcome = OutboxMessage.objects.get(to=f"{name}@example.com", kind="seat_handover")
        assert "The game is paused" in welcome.body, welcome.body
        assert "no order is taken for decision 1 (draft) until it resumes. You will be emailed then" in welcome.body
        assert "YOUR ORDER IS NEEDED" not in welcome.body
        assert "Your order is needed" not in welcome.body
        assert "Legal orders now" not in welcome.body
        assert "Reply to this email with your order" not in welcome.body
        assert f"Your seat: {seat}" in welcome.body  # its hand is still shown
    assert not WebhookDelivery.objects.exists()

    game_resume(game=game, by=game.organizer)
    for name in ("eve", "fay"):
        resumed = OutboxMessage.objects.filter(to=f"{name}@example.com").latest("id")
        assert "YOUR ORDER IS NEEDED for decision 1" in resumed.body, resumed.body
        assert "Legal orders now:" in resumed.body
        assert "The game is running again; the deadline is " in resumed.body
    # ann held her seat before the pause (asked for her order then): the short notice.
    ann_resumed = OutboxMessage.objects.filter(to="ann@example.com").latest("id")
    assert ann_resumed.subject.endswith("] Game resumed")
    hooks = WebhookDelivery.objects.order_by("id")
    assert sorted((d.webhook.user.username, d.payload["prompt"], d.payload["deadline"] is not None) for d in hooks) == [
        ("eve", 1, True), ("fay", 1, True),
    ]  # fmt: skip


def test_a_seat_handed_over_while_paused_is_told_the_time_kept_for_the_resumption() -> None:
    """The welcome said the game was paused, not what its prompt's clock keeps."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Prompt

    game, seats = start_fixed(NAMES, deadline_hours=24)
    (eve,) = make_users(["eve"])
    staff = get_user_model().objects.create_user("boss", "boss@example.com", is_staff=True)
    Prompt.objects.filter(game=game, number=1).update(deadline=timezone.now() + timedelta(hours=2, seconds=20))
    game_pause(game=game, by=game.organizer, reason="")
    handover.seat_replace(seat=seats["cat"], new_user=eve, by=staff)
    welcome = OutboxMessage.objects.get(to="eve@example.com", kind="seat_handover")
    assert (
        "The game is paused: its deadlines are stopped. When the game resumes, decision 1's "
        "deadline will be 2 hours after the resumption (the time it had left when paused)."
    ) in " ".join(welcome.body.split())
