"""Organizer tools: extend (capped), pause/resume, replace a player, end a game."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone

import engine
from engine.audit import verify_export
from games.errors import (
    GameStateError,
    HandoverRefused,
    PermissionDenied,
    SeatHeld,
    ValidationError,
)
from games.models import Game, LogEntry, OutboxMessage, Prompt, SealedOrder, Seat
from games.selectors import current_state, seat_view
from games.selectors_log import game_export
from games.services.handover import seat_replace
from games.services.orders import order_submit
from games.services.organizer import deadline_extend, game_end, game_pause, game_resume
from games.services.seats import seat_for_token
from tests.games.core_support import eager_celery, make_users, start_fixed

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]
NAMES = ["ann", "bob", "cat"]
RULES = engine.get("5x")


def test_extend_moves_deadline_and_is_capped(settings) -> None:
    settings.GAMES_MAX_DEADLINE_EXTENSIONS = 2
    game, seats = start_fixed(NAMES, deadline_hours=24)
    prompt = Prompt.objects.get(game=game, number=1)
    original = prompt.deadline
    with pytest.raises(PermissionDenied):
        deadline_extend(game=game, by=seats["ann"].user, hours=5, reason="")
    with pytest.raises(ValidationError):
        deadline_extend(game=game, by=game.organizer, hours=0, reason="")
    deadline_extend(game=game, by=game.organizer, hours=5, reason="holiday")
    deadline_extend(game=game, by=game.organizer, hours=1.5, reason="")
    prompt.refresh_from_db()
    assert prompt.deadline == original + timedelta(hours=6.5)
    with pytest.raises(GameStateError, match="extended 2 times"):
        deadline_extend(game=game, by=game.organizer, hours=1, reason="")
    entries = LogEntry.objects.filter(game=game, kind="deadline_extended").order_by("seq")
    assert [(e.payload["hours"], e.payload["reason"]) for e in entries] == [
        (5, "holiday"), (1.5, ""),
    ]  # fmt: skip


def test_an_extended_or_resumed_deadline_keeps_out_of_the_quiet_hours(
    django_capture_on_commit_callbacks,
) -> None:
    game, _seats = start_fixed(NAMES, deadline_hours=24)
    prompt = Prompt.objects.get(game=game, number=1)
    # Quiet for two hours from the hour after the deadline's: one hour more falls in them.
    later = prompt.deadline + timedelta(hours=1)
    Game.objects.filter(pk=game.pk).update(
        quiet_hours_start=later.hour, quiet_hours_end=(later.hour + 2) % 24
    )
    deadline_extend(game=game, by=game.organizer, hours=1, reason="")
    prompt.refresh_from_db()
    window_end = later.replace(minute=0, second=0, microsecond=0) + timedelta(hours=2)
    assert prompt.deadline == window_end
    notice = OutboxMessage.objects.filter(kind="notice", subject__endswith="] Deadline extended").first()
    assert "(the end of the game's quiet hours)" in notice.body
    # Resumed: now plus the remaining time, out of the quiet hours too.
    game_pause(game=game, by=game.organizer)
    remaining = Prompt.objects.get(pk=prompt.pk).paused_remaining_seconds
    target = timezone.now() + timedelta(seconds=remaining)
    Game.objects.filter(pk=game.pk).update(
        quiet_hours_start=target.hour, quiet_hours_end=(target.hour + 2) % 24
    )
    game_resume(game=game, by=game.organizer)
    prompt.refresh_from_db()
    assert prompt.deadline == target.replace(minute=0, second=0, microsecond=0) + timedelta(hours=2)


def test_pause_suspends_deadline_and_resume_restores_remaining_time(
    django_capture_on_commit_callbacks,
) -> None:
    game, seats = start_fixed(NAMES, deadline_hours=10)
    prompt = Prompt.objects.get(game=game, number=1)
    remaining = (prompt.deadline - timezone.now()).total_seconds()
    game_pause(game=game, by=game.organizer, reason="server move")
    prompt.refresh_from_db()
    game.refresh_from_db()
    assert game.status == Game.Status.PAUSED and prompt.deadline is None
    assert abs(prompt.paused_remaining_seconds - remaining) < 5
    with pytest.raises(GameStateError):
        game_pause(game=game, by=game.organizer)
    # Extending while paused adds to the remaining time.
    deadline_extend(game=game, by=game.organizer, hours=1, reason="")
    state = current_state(game=game)
    # Every order arrives only after resume; resolution waits for the game to run.
    game_resume(game=game, by=game.organizer)
    prompt.refresh_from_db()
    expected = timezone.now() + timedelta(seconds=remaining + 3600)
    assert abs((prompt.deadline - expected).total_seconds()) < 5
    with django_capture_on_commit_callbacks(execute=True):
        for name in NAMES:
            order_submit(seat=seats[name], text=RULES.legal_orders(state, name)[0], source="web")
    assert Prompt.objects.get(game=game, number=1).status == Prompt.Status.RESOLVED
    kinds = list(LogEntry.objects.filter(game=game).values_list("kind", flat=True))
    assert ["game_paused", "deadline_extended", "game_resumed"] == [
        k for k in kinds if k in ("game_paused", "deadline_extended", "game_resumed")
    ]


def test_a_pause_in_the_grace_gives_back_what_was_left_of_it(
    django_capture_on_commit_callbacks,
) -> None:
    """A time audit: paused 30 minutes into a 60-minute grace, the game resumed with the
    whole grace again, and its email named a deadline already past as "the deadline"."""
    game, seats = start_fixed(NAMES, deadline_hours=10, grace_minutes=60)
    Prompt.objects.filter(game=game, number=1).update(deadline=timezone.now() - timedelta(minutes=30))
    game_pause(game=game, by=game.organizer)
    prompt = Prompt.objects.get(game=game, number=1)
    assert abs(prompt.paused_remaining_seconds + 30 * 60) < 5
    with django_capture_on_commit_callbacks(execute=True):
        game_resume(game=game, by=game.organizer)
    prompt.refresh_from_db()
    closes = prompt.deadline + timedelta(minutes=60)  # orders are taken until the grace ends
    assert abs((closes - (timezone.now() + timedelta(minutes=30))).total_seconds()) < 5
    notice = OutboxMessage.objects.filter(to=seats["ann"].user.email, subject__endswith="Game resumed").get()
    assert "its deadline has passed, and orders are still taken until " in notice.body
    assert "the deadline is" not in notice.body


def test_a_pause_after_the_grace_resumes_to_default_orders(django_capture_on_commit_callbacks) -> None:
    """A code review: without grace left, the resumption email said orders were taken
    until the moment it was sent."""
    game, seats = start_fixed(NAMES, deadline_hours=10)
    Prompt.objects.filter(game=game, number=1).update(deadline=timezone.now() - timedelta(minutes=1))
    game_pause(game=game, by=game.organizer)
    with django_capture_on_commit_callbacks(execute=True):
        game_resume(game=game, by=game.organizer)
    notice = OutboxMessage.objects.filter(to=seats["ann"].user.email, subject__endswith="Game resumed").get()
    assert "its deadline and grace had passed when it was paused" in notice.body
    assert "still taken until" not in notice.body


def test_replace_seat_hands_over_name_position_and_mail(
    django_capture_on_commit_callbacks,
) -> None:
    game, seats = start_fixed(NAMES)
    (newbie,) = make_users(["newbie"])
    state = current_state(game=game)
    old_token = seats["bob"].mail_token
    with django_capture_on_commit_callbacks(execute=True):
        order_submit(seat=seats["bob"], text=RULES.legal_orders(state, "bob")[0], source="web")
    with pytest.raises(PermissionDenied):
        seat_replace(seat=seats["bob"], new_user=newbie, by=seats["ann"].user)
    with pytest.raises(SeatHeld, match="ann already holds a seat in this game."):
        seat_replace(seat=seats["bob"], new_user=seats["ann"].user, by=game.organizer)
    new = seat_replace(seat=seats["bob"], new_user=newbie, by=game.organizer)
    assert (new.name, new.position, new.status) == ("bob", seats["bob"].position, "active")
    assert Seat.objects.get(pk=seats["bob"].pk).status == Seat.Status.REPLACED
    assert seat_for_token(token=old_token) is None
    assert seat_for_token(token=new.mail_token).pk == new.pk
    # The former player no longer sees the seat's hand.
    former = seat_view(seat=Seat.objects.get(pk=seats["bob"].pk))
    assert "hand" not in former and "dealt" not in former and former["my_order"] is None
    assert "hand" in seat_view(seat=new)
    # The old player's sealed order is withdrawn unread: nobody else ever sees it, and the
    # new player orders for itself.
    assert seat_view(seat=new)["my_order"] is None
    assert not SealedOrder.objects.filter(seat_name="bob", is_current=True).exists()
    replaced = LogEntry.objects.get(game=game, kind="seat_replaced").payload
    assert replaced == {
        "seat": "bob", "was_resigned": False, "order_withdrawn": True, "from": "bob", "to": "newbie",
        "by": "organizer", "as": "organizer",
    }  # fmt: skip
    with pytest.raises(PermissionDenied):
        order_submit(seat=seats["bob"], text=RULES.legal_orders(state, "bob")[1], source="web")
    with django_capture_on_commit_callbacks(execute=True):
        order_submit(seat=new, text=RULES.legal_orders(state, "bob")[1], source="web")
    assert SealedOrder.objects.filter(seat_name="bob", is_current=True).get().seat_id == new.pk
    assert LogEntry.objects.filter(game=game, kind="seat_replaced").count() == 1
    welcome = OutboxMessage.objects.get(kind="seat_handover")
    assert welcome.to == "newbie@example.com"
    assert welcome.reply_to == f"orders+{new.mail_token}@orders.localhost"
    # Handed a seat without being asked: who did it, and the way out.
    assert welcome.subject.endswith("You were handed the seat bob")
    assert f"{game.organizer}, who organizes it, handed you the seat bob" in welcome.body
    assert "Resign on the game's page" in welcome.body
    # The former player is told, with no reply address (the old one no longer works).
    farewell = OutboxMessage.objects.get(kind="notice", to=seats["bob"].user.email)
    assert "handed your seat bob to another player" in farewell.body
    assert not farewell.reply_to
    # Every other player is told; the new one got its welcome instead.
    told = set(OutboxMessage.objects.filter(kind="notice", subject__contains="Seat bob has a new player")
               .values_list("to", flat=True))  # fmt: skip
    assert told == {seats[n].user.email for n in NAMES if n != "bob"}
    notice = OutboxMessage.objects.filter(kind="notice", subject__contains="Seat bob has a new player").first()
    assert "The order the previous player had sealed for decision 1 was withdrawn unread" in notice.body
    assert "so the decision waits for the new player's order" in notice.body


def test_a_replaced_player_does_not_come_back_unless_staff_says_so(
    django_capture_on_commit_callbacks,
) -> None:
    # Handing a seat to a friend to read its hand, then back, would be a peek.
    game, seats = start_fixed(NAMES)
    (sock, staff) = make_users(["sock", "staffer"])
    staff.is_staff = True
    staff.save()
    bob = seats["bob"].user
    new = seat_replace(seat=seats["bob"], new_user=sock, by=game.organizer)
    with pytest.raises(HandoverRefused, match="replaced in this game before"):
        seat_replace(seat=new, new_user=bob, by=game.organizer)
    assert Seat.objects.get(pk=new.pk).status == Seat.Status.ACTIVE
    back = seat_replace(seat=new, new_user=bob, by=staff)
    assert (back.user, back.status, back.name) == (bob, Seat.Status.ACTIVE, "bob")


@pytest.mark.parametrize("resigned", [False, True])
def test_a_game_with_a_withdrawn_order_is_played_to_the_end_and_verifies(
    django_capture_on_commit_callbacks, resigned
) -> None:
    """The seat's order withdrawn at a handover: the player's own, or (``resigned``) the
    default order standing for a seat whose player resigned: the new player chooses."""
    from io import StringIO

    from django.core.management import call_command

    from games.services.games import seat_resign
    from games.services.resolution import prompt_resolve

    game, seats = start_fixed(NAMES)
    (newbie,) = make_users(["newbie"])
    state = current_state(game=game)
    if resigned:
        seat_resign(seat=seats["cat"])
        assert SealedOrder.objects.get(seat_name="cat", is_current=True).source == "default"
    for name in NAMES:  # every order in: the prompt is ready to resolve
        if not (resigned and name == "cat"):
            order_submit(seat=seats[name], text=RULES.legal_orders(state, name)[0], source="web")
    assert Prompt.objects.get(game=game, number=1).ready_at is not None
    seat_replace(seat=Seat.objects.get(pk=seats["cat"].pk), new_user=newbie, by=game.organizer)
    assert not SealedOrder.objects.filter(prompt__game=game, seat_name="cat", is_current=True).exists()
    notice = OutboxMessage.objects.filter(kind="notice", subject__contains="Seat cat has a new player").first()
    whose = "entered for the seat" if resigned else "the previous player had sealed"
    assert f"The order {whose} for decision 1 was withdrawn unread" in notice.body
    prompt = Prompt.objects.get(game=game, number=1)
    assert prompt.ready_at is None  # incomplete again: a scheduled resolution does nothing
    assert prompt_resolve(game_id=game.pk, prompt_number=1) is False
    for _ in range(200):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        prompt = Prompt.objects.get(game=game, status=Prompt.Status.OPEN)
        state = current_state(game=game)
        for name in prompt.pending:
            seat = Seat.objects.get(game=game, name=name, status=Seat.Status.ACTIVE)
            if not SealedOrder.objects.filter(prompt=prompt, seat_name=name, is_current=True).exists():
                order_submit(seat=seat, text=RULES.legal_orders(state, name)[-1], source="web")
        assert prompt_resolve(game_id=game.pk, prompt_number=prompt.number)
    assert game.status == Game.Status.FINISHED
    out = StringIO()
    call_command("verify_game", str(game.pk), stdout=out)
    assert "OK" in out.getvalue()


def test_end_game_abandons_reveals_seed_and_stays_verifiable(
    django_capture_on_commit_callbacks,
) -> None:
    game, seats = start_fixed(NAMES)
    state = current_state(game=game)
    with django_capture_on_commit_callbacks(execute=True):
        for name in NAMES:
            order_submit(seat=seats[name], text=RULES.legal_orders(state, name)[0], source="web")
    order_submit(seat=seats["ann"], text="PLAY EXPLOIT", source="web")
    with pytest.raises(GameStateError):
        game_export(game=game)
    with pytest.raises(PermissionDenied):
        game_end(game=game, by=seats["ann"].user, reason="bored")
    game_end(game=game, by=game.organizer, reason="players vanished")
    game.refresh_from_db()
    assert game.status == Game.Status.ABANDONED and game.ranking is None
    ended = LogEntry.objects.get(game=game, kind="game_ended")
    setup_salt = hashlib.sha256(f"setup:{game.seed_salt}".encode()).hexdigest()[:32]
    assert ended.payload == {
        "reason": "players vanished", "seed": game.seed, "seed_salt": game.seed_salt,
        "setup": game.setup, "setup_salt": setup_salt, "by": "organizer", "as": "organizer",
    }  # fmt: skip
    with pytest.raises(GameStateError):
        game_end(game=game, by=game.organizer, reason="again")
    export = json.loads(json.dumps(game_export(game=game)))
    assert verify_export(export) == []
    # Ann's unresolved sealed order is never revealed.
    assert "PLAY EXPLOIT" not in json.dumps(export["entries"])


def test_an_organizer_cannot_hand_a_seat_to_themselves(django_capture_on_commit_callbacks) -> None:
    """Regression (pen test): an organizer who does not play took a player's seat and read
    its hand; a site administrator still can (a mistake to mend)."""
    from games.services.games import game_create_seated

    organizer, ann, bob, cat, staff = make_users(["boss", "ann2", "bob2", "cat2", "staff2"])
    staff.is_staff = True
    staff.save()
    game = game_create_seated(organizer=organizer, ruleset="5x", users=[ann, bob, cat])
    seat = game.seats.get(user=bob)
    with pytest.raises(HandoverRefused, match="organizer cannot take a seat"):
        seat_replace(seat=seat, new_user=organizer, by=organizer)
    assert Seat.objects.get(pk=seat.pk).status == Seat.Status.ACTIVE
    assert not Seat.objects.filter(game=game, user=organizer).exists()
    taken = seat_replace(seat=seat, new_user=organizer, by=staff)
    assert (taken.user, taken.status) == (organizer, Seat.Status.ACTIVE)


def test_before_the_start_the_organizer_cancels_or_changes_privacy(client) -> None:
    """Regression (new-player walk): a forming game could not be cancelled or made private
    after its creation, and an organizer who left kept an empty game for good."""
    from django.urls import reverse

    from games.services.games import game_create, game_join
    from games.services.organizer import game_privacy_set

    organizer, ann, other = make_users(["orgy", "annie", "other"])
    game = game_create(organizer=organizer, ruleset="5x", seats_count=3, name="Walk 5X")
    game_join(game=game, user=ann)
    with pytest.raises(PermissionDenied):
        game_privacy_set(game=game, by=other, private=True)
    client.force_login(organizer)
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert "Make it private" in page and "Cancel the game" in page
    client.post(reverse("games:organizer", args=[game.pk, "privacy"]), {"private": "1"})
    game.refresh_from_db()
    assert game.is_private
    assert LogEntry.objects.filter(game=game, kind="privacy_changed").get().payload == {
        "private": True, "by": "orgy", "as": "organizer"
    }
    client.force_login(other)  # a private game is a 404 to strangers now
    assert client.get(reverse("games:detail", args=[game.pk])).status_code == 404
    client.force_login(organizer)
    client.post(reverse("games:organizer", args=[game.pk, "end"]), {"reason": "cancelled before the start"})
    game.refresh_from_db()
    assert game.status == "forming"  # not confirmed: nothing happened
    client.post(reverse("games:organizer", args=[game.pk, "end"]),
                {"reason": "cancelled before the start", "confirm": "on"})  # fmt: skip
    game.refresh_from_db()
    assert game.status == "abandoned" and game.end_reason == "cancelled before the start"
    with pytest.raises(GameStateError):
        game_privacy_set(game=game, by=organizer, private=False)
    assert "Make it p" not in client.get(reverse("games:detail", args=[game.pk])).content.decode()


def test_cancelling_says_cancelled_and_a_refusal_says_nothing_was_ended(client) -> None:
    from django.urls import reverse

    from games.services.games import game_create

    (organizer,) = make_users(["canc"])
    game = game_create(organizer=organizer, ruleset="5x", seats_count=3)
    client.force_login(organizer)
    url = reverse("games:organizer", args=[game.pk, "end"])
    refused = client.post(url, {"reason": "x"}, follow=True).content.decode()
    assert "Tick the box to confirm: nothing was ended." in refused
    done = client.post(url, {"reason": "x", "confirm": "on"}, follow=True).content.decode()
    assert "The game was cancelled." in done


def test_the_organizer_reminds_the_players_who_owe_an_order_once_per_prompt(
    django_capture_on_commit_callbacks, client
) -> None:
    from games.services.deadlines import send_reminders
    from games.services.organizer import game_remind

    game, seats = start_fixed(NAMES, deadline_hours=24)
    state = current_state(game=game)
    secret = RULES.legal_orders(state, "ann")[-1]
    with django_capture_on_commit_callbacks(execute=True):
        order_submit(seat=seats["ann"], text=secret, source="web")
    with pytest.raises(PermissionDenied):
        game_remind(game=game, by=seats["ann"].user)
    with django_capture_on_commit_callbacks(execute=True):
        assert game_remind(game=game, by=game.organizer) == ["bob", "cat"]
    nudges = OutboxMessage.objects.filter(game=game, key__startswith="nudge:")
    assert sorted(m.to for m in nudges) == ["bob@example.com", "cat@example.com"]
    for message in nudges:
        assert "Reminder from the organizer: your order for" in message.subject
        assert "The organizer asks for it: 1 of the 3 orders wanted is in." in message.body
        assert secret not in message.body  # ann's sealed draft pass names her hidden leader
    entry = LogEntry.objects.filter(game=game, kind="reminder_sent").get()
    assert entry.payload == {"prompt": 1, "seats": ["bob", "cat"], "by": "organizer", "as": "organizer"}
    # A second click reminds nobody twice.
    with pytest.raises(GameStateError, match="bob and cat were already reminded for prompt 1"):
        game_remind(game=game, by=game.organizer)
    assert OutboxMessage.objects.filter(game=game, key__startswith="nudge:").count() == 2
    # The automatic reminder before the deadline still comes.
    prompt = Prompt.objects.get(game=game, number=1)
    with django_capture_on_commit_callbacks(execute=True):
        assert send_reminders(now=prompt.deadline - timedelta(hours=1)) == 2
    # Nobody owes an order once all are in; a paused game reminds nobody.
    game_pause(game=game, by=game.organizer)
    with pytest.raises(GameStateError, match="Only a running game"):
        game_remind(game=game, by=game.organizer)


def test_the_remind_button_on_the_game_page(client, django_capture_on_commit_callbacks) -> None:
    game, seats = start_fixed(NAMES, deadline_hours=24)
    client.force_login(game.organizer)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert 'id="remind-form"' in page and "Waiting for ann, bob, cat." in page
    url = f"/games/{game.pk}/organizer/remind/"
    with django_capture_on_commit_callbacks(execute=True):
        done = client.post(url, follow=True).content.decode()
    assert "Reminder sent to ann, bob and cat." in done
    again = client.post(url, follow=True).content.decode()
    assert "ann, bob and cat were already reminded for decision 1." in again  # the API: prompt
    log = client.get(f"/games/{game.pk}/log/").content.decode()
    assert "The organizer (organizer) reminded ann, bob and cat to send an order for decision 1." in log
    client.force_login(seats["bob"].user)
    assert 'id="remind-form"' not in client.get(f"/games/{game.pk}/").content.decode()
    assert client.post(url).status_code in (302, 403)
    assert OutboxMessage.objects.filter(game=game, key__startswith="nudge:").count() == 3


def test_a_reminder_counts_once_per_prompt_even_after_pruning_and_skips_seats_without_email(
    django_capture_on_commit_callbacks,
) -> None:
    """From a review: a seat without an email address was 'reminded' (and logged) on
    every click; the once-per-prompt check read outbox rows, which retention prunes."""
    from games.services.organizer import game_remind

    game, seats = start_fixed(NAMES, deadline_hours=24)
    type(seats["cat"].user).objects.filter(pk=seats["cat"].user.pk).update(email="")
    with django_capture_on_commit_callbacks(execute=True):
        assert game_remind(game=game, by=game.organizer) == ["ann", "bob"]
    OutboxMessage.objects.filter(key__startswith="nudge:").delete()  # the retention ran
    with pytest.raises(GameStateError, match="cat cannot be reminded: no email address"):
        game_remind(game=game, by=game.organizer)
    assert LogEntry.objects.filter(game=game, kind="reminder_sent").count() == 1
    type(seats["cat"].user).objects.filter(pk=seats["cat"].user.pk).update(email="cat@example.com")
    with django_capture_on_commit_callbacks(execute=True):
        assert game_remind(game=game, by=game.organizer) == ["cat"]
    with pytest.raises(GameStateError, match="ann, bob and cat were already reminded"):
        game_remind(game=game, by=game.organizer)


def test_a_seat_handed_over_can_be_reminded_though_its_old_holder_was(
    django_capture_on_commit_callbacks,
) -> None:
    from games.services.organizer import game_remind

    game, seats = start_fixed(NAMES, deadline_hours=24)
    with django_capture_on_commit_callbacks(execute=True):
        assert game_remind(game=game, by=game.organizer) == ["ann", "bob", "cat"]
    (dan,) = make_users(["dan"])
    with django_capture_on_commit_callbacks(execute=True):
        seat_replace(seat=seats["cat"], new_user=dan, by=game.organizer)
    with django_capture_on_commit_callbacks(execute=True):
        assert game_remind(game=game, by=game.organizer) == ["cat"]  # dan holds it now
    assert OutboxMessage.objects.filter(key__startswith="nudge:", to="dan@example.com").count() == 1


def test_an_organizer_who_plays_is_not_reminded_by_themselves(django_capture_on_commit_callbacks) -> None:
    """And with no order in yet, nobody is told the others wait for them."""
    from games.services.organizer import game_remind

    game, seats = start_fixed(NAMES, deadline_hours=24)
    game.organizer = seats["ann"].user  # an organizer at the table
    game.save(update_fields=["organizer"])
    with django_capture_on_commit_callbacks(execute=True):
        assert game_remind(game=game, by=seats["ann"].user) == ["bob", "cat"]
    nudges = list(OutboxMessage.objects.filter(game=game, key__startswith="nudge:"))
    assert sorted(m.to for m in nudges) == ["bob@example.com", "cat@example.com"]
    for message in nudges:
        assert "The organizer asks for it.\n" in message.body  # no count when none is in
    state = current_state(game=game)
    for name in ("bob", "cat"):
        with django_capture_on_commit_callbacks(execute=True):
            order_submit(seat=seats[name], text=RULES.legal_orders(state, name)[0], source="web")
    with pytest.raises(GameStateError, match="Only your own order for prompt 1 is missing."):
        game_remind(game=game, by=seats["ann"].user)


def test_the_players_are_told_the_organizers_reason(client) -> None:
    """The reason typed for an extension or a pause went to the log only."""
    game, _seats = start_fixed(NAMES, deadline_hours=24)
    deadline_extend(game=game, by=game.organizer, hours=2, reason="Bob is\ntravelling.")
    [extended] = OutboxMessage.objects.filter(kind="notice", subject__endswith="] Deadline extended")[:1]
    assert "The organizer's reason: Bob is travelling." in extended.body
    client.force_login(game.organizer)
    client.post(f"/games/{game.pk}/organizer/pause/", {"reason": "the league's summer break"})
    game.refresh_from_db()
    assert game.status == "paused"
    paused = OutboxMessage.objects.filter(kind="notice", subject__endswith="] Game paused").first()
    assert "deadlines are suspended. The organizer's reason: the league's summer break." in paused.body
    entry = LogEntry.objects.filter(game=game, kind="game_paused").get()
    assert entry.payload["reason"] == "the league's summer break"
    game_resume(game=game, by=game.organizer)
    deadline_extend(game=game, by=game.organizer, hours=1, reason="")
    last = OutboxMessage.objects.filter(kind="notice", subject__endswith="] Deadline extended").order_by("-id")[0]
    assert "reason" not in last.body.split("extended by 1 hour;", 1)[1].split("\n", 1)[0]


def test_who_acted_is_logged_and_a_site_administrator_is_not_called_the_organizer(
    django_capture_on_commit_callbacks,
) -> None:
    """M4 (an organizer's journey): staff may use the organizer tools in any game, one they
    play in too, and the log and every email then said "the organizer"."""
    from games.log_text import log_summary
    from games.services.games import game_create
    from games.services.organizer import game_privacy_set, game_remind

    game, seats = start_fixed(NAMES, deadline_hours=24)
    ann = seats["ann"].user  # a site administrator, and a player at this table
    ann.is_staff = True
    ann.save(update_fields=["is_staff"])
    (dan,) = make_users(["dan"])
    with django_capture_on_commit_callbacks(execute=True):
        deadline_extend(game=game, by=game.organizer, hours=2, reason="")
        deadline_extend(game=game, by=ann, hours=1, reason="snow")
        assert game_remind(game=game, by=ann) == ["bob", "cat"]
        game_pause(game=game, by=ann, reason="server move")
        game_resume(game=game, by=ann)
        seat_replace(seat=seats["cat"], new_user=dan, by=ann)
        game_end(game=game, by=ann, reason="club closed")
    kinds = ("deadline_extended", "reminder_sent", "game_paused", "game_resumed", "seat_replaced", "game_ended")
    acted = [
        (e.kind, e.payload.get("by"), e.payload.get("as"))
        for e in LogEntry.objects.filter(game=game, kind__in=kinds).order_by("seq")
    ]
    assert acted == [
        ("deadline_extended", "organizer", "organizer"),
        *[(kind, "ann", "staff") for kind in kinds],
    ]

    def notice(subject: str, to: str = "bob") -> str:
        return OutboxMessage.objects.filter(to=f"{to}@example.com", subject__endswith=f"] {subject}").latest("id").body

    first = OutboxMessage.objects.filter(to="bob@example.com", subject__endswith="] Deadline extended").earliest("id")
    assert "the deadline of decision 1 was extended by 2 hours;" in first.body  # the organizer's, as before
    assert "a site administrator (ann) extended the deadline of decision 1 by 1 hour;" in notice("Deadline extended")
    assert "The site administrator's reason: snow." in notice("Deadline extended")
    assert (
        "a site administrator (ann) paused the game; deadlines are suspended. The site "
        "administrator's reason: server move." in notice("Game paused")
    )
    assert "a site administrator (ann) resumed the game; the deadline is " in notice("Game resumed")
    assert "a site administrator (ann) handed the seat cat to another player" in notice("Seat cat has a new player")
    assert "a site administrator (ann) handed your seat cat to another player" in notice(
        "Your seat was handed to another player", to="cat"
    )
    assert "a site administrator (ann) ended the game early: club closed" in notice("Game ended")
    nudge = OutboxMessage.objects.get(to="bob@example.com", key__startswith="nudge:")
    assert "Reminder from a site administrator: your order for" in nudge.subject
    assert "A site administrator (ann) asks for it." in nudge.body
    bodies = " ".join(OutboxMessage.objects.filter(game=game).values_list("body", flat=True))
    assert not re.search(r"(?i)the organizer('s reason| paused| resumed| handed| ended| asks)", bodies)

    paused = LogEntry.objects.get(game=game, kind="game_paused")
    assert log_summary(ruleset="5x", kind="game_paused", payload=paused.payload) == (
        "A site administrator (ann) paused the game at decision 1 (server move)."
    )
    extended = LogEntry.objects.filter(game=game, kind="deadline_extended").earliest("seq")
    assert log_summary(ruleset="5x", kind="deadline_extended", payload=extended.payload) == (
        "The organizer (organizer) extended decision 1's deadline by 2 hours."
    )
    # New entries verify as the old ones do (the chain covers any payload).
    game.refresh_from_db()
    assert verify_export(json.loads(json.dumps(game_export(game=game)))) == []

    forming = game_create(organizer=game.organizer, ruleset="5x", seats_count=3)
    game_privacy_set(game=forming, by=ann, private=True)
    changed = LogEntry.objects.get(game=forming, kind="privacy_changed")
    assert (changed.payload["by"], changed.payload["as"]) == ("ann", "staff")


def test_the_organizer_panel_says_when_the_waiting_seats_were_reminded(
    client, django_capture_on_commit_callbacks
) -> None:
    """An organizer's journey: the Remind button stayed after a reminder, and a second
    click answered "...were already reminded"; the panel now says when, and the button
    is off until a seat that was not reminded waits (a new holder, say)."""
    from games.services.organizer import game_remind
    from tests.games.web_support import visible_text

    game, seats = start_fixed(NAMES, deadline_hours=24)
    client.force_login(game.organizer)
    panel = client.get(f"/games/{game.pk}/").content.decode()
    assert "were reminded" not in panel and "disabled" not in panel.split('id="remind-form"')[1].split("</form>")[0]
    with django_capture_on_commit_callbacks(execute=True):
        game_remind(game=game, by=game.organizer)
    html = client.get(f"/games/{game.pk}/").content.decode()
    form = html.split('id="remind-form"')[1].split("</form>")[0]
    text = visible_text(form)
    assert "Waiting for ann, bob, cat. They were all reminded for decision 1 (draft) on " in text  # in words too
    assert "Each player is reminded once per decision" in text
    assert re.search(r"<button[^>]*disabled[^>]*>Remind them now by email</button>", form)
    # A seat handed over meanwhile may be reminded: the button says whom.
    (dan,) = make_users(["dan"])
    with django_capture_on_commit_callbacks(execute=True):
        seat_replace(seat=seats["cat"], new_user=dan, by=game.organizer)
    form = client.get(f"/games/{game.pk}/").content.decode().split('id="remind-form"')[1].split("</form>")[0]
    assert "ann and bob were reminded for decision 1 (draft) on " in visible_text(form)
    assert re.search(r"<button[^>]*>Remind cat now by email</button>", form) and "disabled" not in form
    # One left whom no email reaches: said so, not "nobody is left to remind".
    type(dan).objects.filter(pk=dan.pk).update(email="")
    form = client.get(f"/games/{game.pk}/").content.decode().split('id="remind-form"')[1].split("</form>")[0]
    assert "Each player is reminded once per decision. cat cannot be reminded: no email address." in visible_text(form)
    assert "nobody is left" not in form


def test_the_extension_email_says_1_hour_and_fractions_of_hours_in_minutes() -> None:
    # Regression (h3 audit L2): "extended by 1 hours"; an extension of 1.5 hours (the
    # service takes fractions) read "1.5 hours".
    game, _seats = start_fixed(NAMES, deadline_hours=24)
    said = []
    for hours in (1, 1.5, 0.25, 24, 36):
        # the limit of 3 extensions is not the point (nor the notices' once-only keys)
        Prompt.objects.filter(game=game).update(extensions=0)
        OutboxMessage.objects.all().delete()
        deadline_extend(game=game, by=game.organizer, hours=hours, reason="")
        said.append(
            OutboxMessage.objects.filter(to="bob@example.com", subject__endswith="] Deadline extended")
            .latest("id").body.split("extended by ", 1)[1].split(";", 1)[0]
        )  # fmt: skip
    # ... and a day or more in days ("7 days" read "168 hours")
    assert said == ["1 hour", "1 hour and 30 minutes", "15 minutes", "1 day", "1 day and 12 hours"]


def test_the_pause_notice_says_what_the_prompt_gets_back_on_resuming(
    django_capture_on_commit_callbacks,
) -> None:
    """A user report: "Game paused" said deadlines were suspended, not how long the open
    prompt would have once the game resumed (the remaining time is kept, organizer.py)."""
    game, seats = start_fixed(NAMES, deadline_hours=48, grace_minutes=60)
    # 1 day 3 hours left (and a few seconds the test takes).
    Prompt.objects.filter(game=game, number=1).update(
        deadline=timezone.now() + timedelta(days=1, hours=3, seconds=20)
    )
    game_pause(game=game, by=game.organizer, reason="server move")
    paused = OutboxMessage.objects.get(to=seats["bob"].user.email, subject__endswith="] Game paused")
    assert (
        "The organizer's reason: server move. When the game resumes, decision 1's deadline "
        "will be 1 day and 3 hours after the resumption (the time it had left when paused)."
    ) in " ".join(paused.body.split())
    with django_capture_on_commit_callbacks(execute=True):
        game_resume(game=game, by=game.organizer)
    resumed = OutboxMessage.objects.get(to=seats["bob"].user.email, subject__endswith="] Game resumed")
    assert "the game is running again; the deadline is " in resumed.body
    # Quiet hours: the deadline may move to their end, and the notice says so.
    Game.objects.filter(pk=game.pk).update(quiet_hours_start=22, quiet_hours_end=7)
    Prompt.objects.filter(game=game, number=1).update(
        deadline=timezone.now() + timedelta(hours=5, minutes=30, seconds=20)
    )
    game_pause(game=game, by=game.organizer)
    paused = OutboxMessage.objects.filter(to=seats["bob"].user.email, subject__endswith="] Game paused")
    assert (
        "When the game resumes, decision 1's deadline will be 5 hours and 30 minutes after the "
        "resumption (the time it had left when paused), moved to the end of the game's quiet "
        "hours if it falls in them."
    ) in " ".join(paused.order_by("-id")[0].body.split())


def test_the_pause_notice_in_the_grace_says_what_is_left_of_it() -> None:
    game, seats = start_fixed(NAMES, deadline_hours=10, grace_minutes=60)
    Prompt.objects.filter(game=game, number=1).update(deadline=timezone.now() - timedelta(minutes=20, seconds=20))
    game_pause(game=game, by=game.organizer)
    paused = OutboxMessage.objects.get(to=seats["ann"].user.email, subject__endswith="] Game paused")
    assert (
        "Decision 1's deadline had passed when the game was paused: when it resumes, orders are "
        "taken for 40 minutes more (the grace that was left), then the missing ones get "
        "default orders."
    ) in " ".join(paused.body.split())
    Game.objects.filter(pk=game.pk).update(status=Game.Status.ACTIVE)
    Prompt.objects.filter(game=game, number=1).update(
        deadline=timezone.now() - timedelta(minutes=90), paused_remaining_seconds=None
    )
    Game.objects.filter(pk=game.pk).update(grace_minutes=60)
    game_pause(game=game, by=game.organizer)
    paused = OutboxMessage.objects.filter(to=seats["ann"].user.email, subject__endswith="] Game paused")
    assert (
        "Decision 1's deadline and grace had passed when the game was paused: when it resumes, "
        "the orders still missing get default orders."
    ) in " ".join(paused.order_by("-id")[0].body.split())


def test_an_extension_and_a_pause_across_a_clock_change_count_real_hours(
    monkeypatch, django_capture_on_commit_callbacks,
) -> None:
    """Paris, 25 Oct 2026: the clocks go back from 03:00 CEST to 02:00 CET at 01:00 UTC.
    Quiet hours 22:00-07:00 Paris. Worked out by hand on the clock."""
    from datetime import UTC, datetime

    game, _seats = start_fixed(NAMES, deadline_hours=24, quiet_hours_start=22, quiet_hours_end=7,
                               quiet_hours_time_zone="Europe/Paris")  # fmt: skip
    prompt = Prompt.objects.get(game=game, number=1)
    # Deadline Sat 24 Oct 20:00 CEST (18:00 UTC); 24 hours more: Sun 18:00 UTC, 19:00 CET.
    Prompt.objects.filter(pk=prompt.pk).update(deadline=datetime(2026, 10, 24, 18, 0, tzinfo=UTC))
    deadline_extend(game=game, by=game.organizer, hours=24, reason="")
    prompt.refresh_from_db()
    assert prompt.deadline == datetime(2026, 10, 25, 18, 0, tzinfo=UTC)
    # From Sat 20:00 CEST again, 11 hours: Sun 05:00 UTC, 06:00 CET, in the quiet hours:
    # their end, 07:00 CET, 06:00 UTC (on the clock of the summer, it would be 05:00 UTC).
    Prompt.objects.filter(pk=prompt.pk).update(deadline=datetime(2026, 10, 24, 18, 0, tzinfo=UTC))
    deadline_extend(game=game, by=game.organizer, hours=11, reason="")
    prompt.refresh_from_db()
    assert prompt.deadline == datetime(2026, 10, 25, 6, 0, tzinfo=UTC)
    # Paused Sat 12:00 CEST (10:00 UTC) with the deadline at 20:00 CEST: 8 hours kept.
    Prompt.objects.filter(pk=prompt.pk).update(deadline=datetime(2026, 10, 24, 18, 0, tzinfo=UTC))
    monkeypatch.setattr(timezone, "now", lambda: datetime(2026, 10, 24, 10, 0, tzinfo=UTC))
    game_pause(game=game, by=game.organizer)
    assert Prompt.objects.get(pk=prompt.pk).paused_remaining_seconds == 8 * 3600
    # Resumed Sun 12:00 CET (11:00 UTC), after the change: 8 real hours, 19:00 UTC, 20:00 CET.
    monkeypatch.setattr(timezone, "now", lambda: datetime(2026, 10, 25, 11, 0, tzinfo=UTC))
    with django_capture_on_commit_callbacks(execute=True):
        game_resume(game=game, by=game.organizer)
    prompt.refresh_from_db()
    assert prompt.deadline == datetime(2026, 10, 25, 19, 0, tzinfo=UTC)
    # Paused again at once (8 hours kept), resumed Sun 14:30 CET (13:30 UTC): 21:30 UTC is
    # 22:30 CET, in the quiet hours: Mon 07:00 CET, 06:00 UTC.
    game_pause(game=game, by=game.organizer)
    monkeypatch.setattr(timezone, "now", lambda: datetime(2026, 10, 25, 13, 30, tzinfo=UTC))
    with django_capture_on_commit_callbacks(execute=True):
        game_resume(game=game, by=game.organizer)
    prompt.refresh_from_db()
    assert prompt.deadline == datetime(2026, 10, 26, 6, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("zone", "start", "end", "deadline_utc", "expected_utc", "at_the_end"),
    [
        # New York springs forward at 02:00 EST (07:00 UTC): quiet hours ending at 02:00
        # end when the clocks jump to 03:00 EDT, not at a 02:00 anyone's clock shows.
        ("America/New_York", 22, 2, "2027-03-14T05:30", "2027-03-14T07:00", False),
        # Berlin springs forward at 02:00 CET (01:00 UTC) the same way.
        ("Europe/Berlin", 23, 2, "2027-03-28T00:15", "2027-03-28T01:00", False),
        # Berlin falls back at 03:00 CEST: quiet hours ending at 03:00 end at 03:00 CET.
        ("Europe/Berlin", 0, 3, "2027-10-30T23:30", "2027-10-31T02:00", True),
        # New York falls back at 02:00 EDT: quiet hours ending at 02:00 end at 02:00 EST.
        ("America/New_York", 0, 2, "2027-11-07T04:30", "2027-11-07T07:00", True),
    ],
)
def test_an_extension_moved_across_a_clock_change_is_told_truly(
    zone, start, end, deadline_utc, expected_utc, at_the_end,  # noqa: ANN001
) -> None:
    """Regression (review): a deadline pushed out of the quiet hours across a clock
    change that skips their end was said to be "(the end of the game's quiet hours)"
    though it is not at their end on the game's clock."""
    from datetime import UTC, datetime
    from zoneinfo import ZoneInfo

    game, _seats = start_fixed(NAMES, deadline_hours=24)
    Game.objects.filter(pk=game.pk).update(
        quiet_hours_start=start, quiet_hours_end=end, quiet_hours_time_zone=zone
    )
    game.refresh_from_db()
    Prompt.objects.filter(game=game, number=1).update(
        deadline=datetime.fromisoformat(deadline_utc).replace(tzinfo=UTC) - timedelta(hours=1)
    )
    deadline_extend(game=game, by=game.organizer, hours=1, reason="")
    prompt = Prompt.objects.get(game=game, number=1)
    assert prompt.deadline == datetime.fromisoformat(expected_utc).replace(tzinfo=UTC)
    local = prompt.deadline.astimezone(ZoneInfo(zone))
    assert ((local.hour, local.minute) == (end, 0)) is at_the_end
    notice = OutboxMessage.objects.filter(kind="notice", subject__endswith="] Deadline extended").first()
    assert ("(the end of the game's quiet hours)" in notice.body) is at_the_end
    if not at_the_end:
        assert f"quiet hours, which end at {end:02d}:00 ({zone})" in notice.body
        assert "the clocks go forward" in notice.body
