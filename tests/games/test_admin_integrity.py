"""The admin cannot break a game (an operations audit: a finished 5X game turned into 4X
Dice for 5 seats answered 500 on every page and the API, while verify_game still said
OK; prompt deadlines were edited past the organizer's capped, logged extensions; games,
prompts and emails could be added by hand)."""

from __future__ import annotations

import pytest

import engine
from games.mail.models import InboundMail
from games.models import Game, LogEntry, OutboxMessage, Prompt, SealedOrder, SeatOffer
from games.selectors import current_prompt, current_state
from games.services.orders import order_submit
from tests.games.core_support import make_users, start_fixed

pytestmark = pytest.mark.django_db


def test_what_a_game_is_cannot_be_edited_in_the_admin(admin_client):
    game, _seats = start_fixed(["ann", "bob", "cat"])
    page = admin_client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert 'name="name"' in page  # editable
    for field in ("ruleset", "options", "seats_count", "engine_version", "organizer"):
        assert f'name="{field}"' not in page, field
    answer = admin_client.post(f"/admin/games/game/{game.pk}/change/", {
        "name": "Renamed", "ruleset": "4x-dice", "seats_count": 5, "options": "{}",
        "deadline_hours": 24, "grace_minutes": 0, "quiet_hours_time_zone": "UTC",
        "reminder_hours": 12, "early_resolution_delay_seconds": 0,
        "seats-TOTAL_FORMS": 3, "seats-INITIAL_FORMS": 3,
        **{f"seats-{i}-id": seat.pk for i, seat in enumerate(game.seats.order_by("position"))},
    })  # fmt: skip
    assert answer.status_code == 302, answer.context["adminform"].form.errors
    game.refresh_from_db()
    assert (game.name, game.ruleset, game.seats_count) == ("Renamed", "5x", 3)
    assert admin_client.get(f"/games/{game.pk}/").status_code == 200


def test_a_forming_games_deadline_policy_keeps_the_sites_bounds_in_the_admin(admin_client):
    # A deadline of 1e8 hours overflowed every next prompt's deadline; a quiet hour of 99
    # was taken.
    from games.services.games import game_create

    (organizer,) = make_users(["org"])
    game = game_create(organizer=organizer, ruleset="5x", options={}, seats_count=3, name="Open")
    page = admin_client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert 'name="deadline_hours"' in page  # editable before the start
    for bad, said in (({"deadline_hours": 1e8}, "The deadline must be between"),
                      ({"quiet_hours_start": 99, "quiet_hours_end": 7}, "whole hours from 0 to 23")):
        refused = admin_client.post(f"/admin/games/game/{game.pk}/change/", _game_form(game, **bad))
        assert refused.status_code == 200 and said in refused.content.decode()
        game.refresh_from_db()
        assert game.deadline_hours == 48 and game.quiet_hours_start is None


def test_prompts_and_emails_are_shown_not_made_or_moved(admin_client):
    game, _seats = start_fixed(["ann", "bob", "cat"])
    prompt = Prompt.objects.get(game=game, number=1)
    before = prompt.deadline
    page = admin_client.get(f"/admin/games/prompt/{prompt.pk}/change/")
    assert page.status_code == 200 and 'name="deadline_0"' not in page.content.decode()
    admin_client.post(f"/admin/games/prompt/{prompt.pk}/change/", {"deadline_0": "2030-01-01"})
    prompt.refresh_from_db()
    assert prompt.deadline == before
    for model in ("game", "prompt", "outboxmessage"):
        assert admin_client.get(f"/admin/games/{model}/add/").status_code == 403, model
    assert Game.objects.count() == 1


def _order_game(capture):
    """A started game with one sealed order in its open prompt, and a seat offer."""
    game, seats = start_fixed(["ann", "bob", "cat"])
    prompt = current_prompt(game=game)
    name = next(n for n in prompt.pending if n not in prompt.forced)
    legal = engine.get(game.ruleset).legal_orders(current_state(game=game), name)
    with capture(execute=True):
        order = order_submit(seat=seats[name], text=legal[0], source="web")
    (dave,) = make_users(["dave"])
    offer = SeatOffer.objects.create(game=game, seat=seats["bob"], to_user=dave, by=game.organizer)
    return game, prompt, order, offer


def test_game_records_cannot_be_deleted_in_the_admin(admin_client, django_capture_on_commit_callbacks):
    # A staff member deleting a sealed order or the open prompt silently corrupted a
    # running game (its log still announced the order; verify_game said OK).
    game, prompt, order, offer = _order_game(django_capture_on_commit_callbacks)
    entry = LogEntry.objects.filter(game=game).order_by("seq").first()
    rows = {"game": game, "prompt": prompt, "sealedorder": order, "seatoffer": offer,
            "logentry": entry}  # fmt: skip
    for model, row in rows.items():
        assert admin_client.get(f"/admin/games/{model}/{row.pk}/delete/").status_code == 403, model
        listing = admin_client.get(f"/admin/games/{model}/").content.decode()
        assert 'value="delete_selected"' not in listing, model
        admin_client.post(f"/admin/games/{model}/", {
            "action": "delete_selected", "_selected_action": [row.pk], "post": "yes",
        })  # fmt: skip
        assert type(row).objects.filter(pk=row.pk).exists(), model
    assert SealedOrder.objects.filter(pk=order.pk).exists() and SeatOffer.objects.count() == 1
    # An offer is made on the site (the form here answered 500: it has no "by").
    assert admin_client.get("/admin/games/seatoffer/add/").status_code == 403


def test_only_emails_done_with_may_be_deleted_in_the_admin(admin_client):
    # A queued email (a prompt's orders, a deadline) or an inbound message not yet read (a
    # player's order) deleted is lost without a trace; one sent or dealt with is what the
    # retention sweep deletes anyway.
    queued = OutboxMessage.objects.create(to="ann@example.com", subject="s", body="b")
    sent = OutboxMessage.objects.create(to="ann@example.com", subject="s", body="b", status="sent")
    waiting = InboundMail.objects.create(raw=b"x", message_id="<1@x>", recipient_digest="1")
    done = InboundMail.objects.create(raw=b"x", message_id="<2@x>", recipient_digest="2",
                                      status="processed")  # fmt: skip
    for model, keep, drop in (("games/outboxmessage", queued, sent),
                              ("mail/inboundmail", waiting, done)):  # fmt: skip
        assert admin_client.get(f"/admin/{model}/{keep.pk}/delete/").status_code == 403, model
        assert admin_client.get(f"/admin/{model}/{drop.pk}/delete/").status_code == 200, model
        page = admin_client.post(f"/admin/{model}/", {
            "action": "delete_selected", "_selected_action": [keep.pk, drop.pk], "post": "yes",
        })  # fmt: skip
        assert type(keep).objects.filter(pk=keep.pk).exists(), model
        assert type(drop).objects.filter(pk=drop.pk).exists(), model  # nothing, not half
        assert "still to be" in page.content.decode(), model
        admin_client.post(f"/admin/{model}/", {
            "action": "delete_selected", "_selected_action": [drop.pk], "post": "yes",
        })  # fmt: skip
        assert not type(drop).objects.filter(pk=drop.pk).exists(), model


POLICY = {"deadline_hours": 24, "grace_minutes": 0, "quiet_hours_time_zone": "UTC",
          "reminder_hours": 12, "early_resolution_delay_seconds": 0}  # fmt: skip


def _game_form(game, **changes) -> dict:  # noqa: ANN001
    seats = list(game.seats.order_by("position", "id"))
    return {
        "name": game.name, **POLICY, "seats-TOTAL_FORMS": len(seats),
        "seats-INITIAL_FORMS": len(seats), **{f"seats-{i}-id": s.pk for i, s in enumerate(seats)},
        **changes,
    }  # fmt: skip


def test_a_started_games_policy_privacy_and_sender_check_are_not_edited_in_the_admin(admin_client):
    # A staff audit: the admin changed a running game's deadlines, privacy and sender
    # check past the organizer's tools (capped, logged, the players told) and the log.
    game, _seats = start_fixed(["ann", "bob", "cat"])
    page = admin_client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    fields = ("deadline_hours", "grace_minutes", "quiet_hours_start", "quiet_hours_end",
              "quiet_hours_time_zone", "reminder_hours", "early_resolution_delay_seconds",
              "is_private", "require_sender_match")  # fmt: skip
    for field in fields:
        assert f'name="{field}"' not in page, field
    assert 'name="name"' in page
    answer = admin_client.post(f"/admin/games/game/{game.pk}/change/", _game_form(
        game, name="Renamed", deadline_hours=1, is_private="on", require_sender_match="on"))
    assert answer.status_code == 302
    game.refresh_from_db()
    assert (game.name, game.deadline_hours, game.is_private, game.require_sender_match) == (
        "Renamed", 48, False, False)  # fmt: skip


def test_a_forming_games_privacy_changed_in_the_admin_is_logged(admin_client):
    from games.services.games import game_create

    (organizer,) = make_users(["org"])
    game = game_create(organizer=organizer, ruleset="5x", options={}, seats_count=3, name="Open")
    answer = admin_client.post(f"/admin/games/game/{game.pk}/change/",
                               _game_form(game, is_private="on", deadline_hours=30))  # fmt: skip
    assert answer.status_code == 302
    game.refresh_from_db()
    assert (game.is_private, game.deadline_hours) == (True, 30)
    entry = LogEntry.objects.get(game=game, kind="privacy_changed")
    assert entry.payload["private"] is True and entry.payload["as"] == "staff"  # who changed it


def test_invitations_are_listed_read_only_in_the_admin(admin_client):
    from django.utils import timezone

    from games.models import GameInvitation
    from games.services.games import game_create
    from games.services.invitations import invite_players

    (ann, bob, cat) = make_users(["ann", "bob", "cat"])
    game = game_create(organizer=ann, ruleset="5x", seats_count=3, name="Invites")
    invite_players(game=game, by=ann, names=["bob", "cat"])
    GameInvitation.objects.filter(user=cat).update(declined_at=timezone.now())
    listing = admin_client.get("/admin/games/gameinvitation/", {"game": game.pk})
    assert listing.status_code == 200
    text = listing.content.decode()
    assert "bob" in text and "cat" in text and "Invites" in text
    game_page = admin_client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert f'href="/admin/games/gameinvitation/?game={game.pk}">invitations</a>' in game_page
    invitation = GameInvitation.objects.get(user=bob)
    assert admin_client.get("/admin/games/gameinvitation/add/").status_code == 403
    assert admin_client.get(f"/admin/games/gameinvitation/{invitation.pk}/delete/").status_code == 403
    page = admin_client.get(f"/admin/games/gameinvitation/{invitation.pk}/change/")
    assert page.status_code == 200 and 'name="user"' not in page.content.decode()
    # Only its own filters: a lookup into a hidden field is refused, not answered.
    assert admin_client.get("/admin/games/gameinvitation/", {"game__seed__gte": 0}).status_code in (
        302, 400
    )
