"""A player may ask to be emailed only when their seat must order: a 6x5 game sends an
email after every move, mostly to say it is someone else's turn."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.models import OutboxMessage, Seat
from games.services.games import game_create, game_join
from games.services.orders import order_submit
from games.services.resolution import prompt_resolve
from tests.games.web_support import make_user

pytestmark = pytest.mark.django_db


def _resolved_to(game, number: int) -> set[str]:
    """Whom the emails of prompt ``number``'s resolution went to."""
    return set(
        OutboxMessage.objects.filter(game=game, kind="prompt_resolved", key__startswith=f"resolved:{game.pk}:{number}:")
        .values_list("to", flat=True)
    )


def test_only_when_asked_skips_the_resolutions_that_ask_someone_else(client):
    users = [make_user(n) for n in ("ann", "bob")]
    game = game_create(organizer=users[0], ruleset="6x5", options={}, seats_count=2, setup={"first": "ann"})
    for user in users:
        game_join(game=game, user=user)
    ann, bob = (game.seats.get(name=n) for n in ("ann", "bob"))
    # ann chooses "only when I must order" on the game page.
    client.force_login(ann.user)
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert '<option value="1" selected>after every prompt</option>' in page
    answer = client.post(reverse("games:mail_when", args=[game.pk]), {"every": "0"}, follow=True)
    assert "only when you must order" in answer.content.decode()
    assert Seat.objects.get(pk=ann.pk).email_every_prompt is False
    assert '<option value="0" selected>only when I must order</option>' in answer.content.decode()

    # Turn 1: ann moves; turn 2 asks bob: ann is not emailed, bob is.
    order_submit(seat=Seat.objects.get(pk=ann.pk), text="PLACE RED 0,1", source="web")
    assert prompt_resolve(game_id=game.pk, prompt_number=1)
    assert _resolved_to(game, 1) == {"bob@example.test"}
    # Turn 2: bob moves; turn 3 asks ann: both are emailed (bob chose nothing).
    order_submit(seat=Seat.objects.get(pk=bob.pk), text="PLACE BLUE 0,-1", source="web")
    assert prompt_resolve(game_id=game.pk, prompt_number=2)
    assert _resolved_to(game, 2) == {"ann@example.test", "bob@example.test"}


def test_a_bad_choice_changes_nothing(client):
    users = [make_user(n) for n in ("ann", "bob")]
    game = game_create(organizer=users[0], ruleset="6x5", options={}, seats_count=2)
    for user in users:
        game_join(game=game, user=user)
    client.force_login(users[0])
    answer = client.post(reverse("games:mail_when", args=[game.pk]), {"every": "sometimes"}, follow=True)
    assert "Choose when to be emailed" in answer.content.decode()
    assert Seat.objects.get(game=game, name="ann").email_every_prompt is True
    # Someone without a seat gets the page's usual refusal, not a 500.
    client.force_login(make_user("zed"))
    answer = client.post(reverse("games:mail_when", args=[game.pk]), {"every": "0"}, follow=True)
    assert answer.status_code == 200
    assert Seat.objects.filter(game=game, email_every_prompt=False).count() == 0


def test_a_quiet_seat_is_told_everything_since_its_last_email():
    """ann (quiet) is emailed when her turn comes back: the email's "What happened"
    holds her own move and both others', in order, not just the last one."""
    users = [make_user(n) for n in ("ann", "bob", "cat")]
    game = game_create(organizer=users[0], ruleset="6x5", options={}, seats_count=3, setup={"first": "ann"})
    for user in users:
        game_join(game=game, user=user)
    seats = {s.name: s for s in Seat.objects.filter(game=game)}
    seating = [s.name for s in sorted(seats.values(), key=lambda s: s.position)]
    start = seating.index("ann")  # ann moves first (set-up); turns follow the seating
    order = seating[start:] + seating[:start]
    Seat.objects.filter(pk=seats["ann"].pk).update(email_every_prompt=False)
    moves = {order[0]: "PLACE RED 0,1", order[1]: "PLACE BLUE 0,-1", order[2]: "PLACE YELLOW 1,0"}
    for number, name in enumerate(order, start=1):
        order_submit(seat=Seat.objects.get(pk=seats[name].pk), text=moves[name], source="web")
        assert prompt_resolve(game_id=game.pk, prompt_number=number)
    [mail] = OutboxMessage.objects.filter(game=game, kind="prompt_resolved", to="ann@example.test")
    assert mail.key == f"resolved:{game.pk}:3:{seats['ann'].pk}"  # only when asked again
    happened = mail.body.split("What happened since your last email:", 1)[1].split("\n\n", 1)[0]
    positions = [happened.find(hex_) for hex_ in ("0,1", "0,-1", "1,0")]
    assert -1 not in positions and positions == sorted(positions), happened
    # The second mover (every prompt) got prompt 3's email with its own events only.
    other = OutboxMessage.objects.get(game=game, kind="prompt_resolved", to=f"{order[1]}@example.test",
                                      key__startswith=f"resolved:{game.pk}:3:")  # fmt: skip
    other_happened = other.body.split("What happened:", 1)[1].split("\n\n", 1)[0]
    assert "1,0" in other_happened and "0,1" not in other_happened
