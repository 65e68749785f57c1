"""README: a seat offer lapsing "when the game ends ... (both sides are told; logged)",
and the organizer hears of what a site administrator does to their game."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from games.models import LogEntry, OutboxMessage
from games.services import handover
from games.services.organizer import deadline_extend, game_end, game_pause, game_resume
from tests.games.core_support import eager_celery, make_users, start_fixed

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]
NAMES = ["ann", "bob", "cat"]


def _to_organizer() -> list[str]:
    return list(OutboxMessage.objects.filter(to="organizer@example.com").order_by("id").values_list("subject", flat=True))


def test_staffs_actions_are_emailed_to_the_organizer_and_an_offer_closed_by_the_end_is_logged() -> None:
    # Regression (h3 audit L5): an offer closed by the game's end left no log entry, and
    # the organizer (no seat) was never emailed when staff paused, handed a seat, ended.
    game, seats = start_fixed(NAMES, deadline_hours=24)
    (eve, fay) = make_users(["eve", "fay"])
    staff = get_user_model().objects.create_user("boss", "boss@example.com", is_staff=True)
    offer = handover.seat_offer(seat=seats["ann"], new_user=fay, by=game.organizer)
    before = len(_to_organizer())
    deadline_extend(game=game, by=staff, hours=2, reason="")
    game_pause(game=game, by=staff, reason="maintenance")
    game_resume(game=game, by=staff)
    handover.seat_replace(seat=seats["cat"], new_user=eve, by=staff)
    game_end(game=game, by=staff, reason="club closed")
    told = _to_organizer()[before:]
    assert [subject.split("] ", 1)[1] for subject in told] == [
        "Deadline extended", "Game paused", "Game resumed", "Seat cat has a new player", "Game ended",
    ], told  # fmt: skip
    ended = OutboxMessage.objects.filter(to="organizer@example.com").latest("id").body
    assert "a site administrator (boss) ended the game early: club closed" in ended
    assert "club closed\n\nYour offer of the seat ann to fay was closed; they are told." in ended
    withdrawn = LogEntry.objects.filter(game=game, kind="seat_offer_withdrawn").get()
    assert withdrawn.payload["offer"] == offer.pk and withdrawn.payload["why"] == "game_ended"
    assert (withdrawn.payload["by"], withdrawn.payload["as"]) == ("boss", "staff")
    from games.log_text import log_summary

    assert log_summary(ruleset="5x", kind=withdrawn.kind, payload=withdrawn.payload) == (
        "The offer of seat ann lapsed: a site administrator (boss) ended the game."
    )
    # the entry that ends the game stays the log's last: the game still verifies
    assert LogEntry.objects.filter(game=game).latest("seq").kind == "game_ended"
    out = StringIO()
    call_command("verify_game", str(game.pk), stdout=out)
    assert "OK" in out.getvalue(), out.getvalue()


def test_the_organizers_own_actions_are_not_emailed_back_to_them() -> None:
    game, seats = start_fixed(NAMES, deadline_hours=24)
    (fay,) = make_users(["fay"])
    handover.seat_offer(seat=seats["ann"], new_user=fay, by=game.organizer)
    before = len(_to_organizer())
    game_pause(game=game, by=game.organizer)
    game_end(game=game, by=game.organizer)
    assert _to_organizer()[before:] == []
    withdrawn = LogEntry.objects.filter(game=game, kind="seat_offer_withdrawn").get()
    assert (withdrawn.payload["why"], withdrawn.payload["as"]) == ("game_ended", "organizer")
