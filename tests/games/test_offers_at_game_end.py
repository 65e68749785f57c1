"""A seat offer still waiting when the game ends is closed and logged before the entry
that ends the game, whoever ended it: its rules, a walkover (this file) or the organizer
(test_seat_offers). It was closed unlogged when the rules or a walkover ended the game,
so the public log showed an offer made and never answered."""

from __future__ import annotations

import json
import subprocess
import sys
from io import StringIO

import pytest
from django.core.management import call_command

from engine.audit import verify_export
from games.log_text import log_summary
from games.models import Game, LogEntry, OutboxMessage, SeatOffer
from games.selectors import current_state
from games.selectors_log import game_export, game_export_unchecked
from games.services.games import seat_resign
from games.services.handover import seat_offer
from tests.conftest import ROOT
from tests.games.core_support import eager_celery, make_users, play_defaults, start_fixed

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]


def _game_with_an_offer() -> tuple[Game, dict, SeatOffer]:
    game, seats = start_fixed(["ann", "bob", "cat"])
    (dave,) = make_users(["dave"])
    offer = seat_offer(seat=seats["bob"], new_user=dave, by=game.organizer)
    return game, seats, offer


def _ends_with_the_offer_closed(game: Game, offer: SeatOffer, ending: str, tmp_path) -> None:
    offer.refresh_from_db()
    assert offer.status == SeatOffer.Status.WITHDRAWN
    kinds = list(LogEntry.objects.filter(game=game).order_by("seq").values_list("kind", "payload"))
    assert kinds[-1][0] == ending  # the ending entry stays the last
    kinds_count = len(kinds)
    assert kinds[-2] == ("seat_offer_withdrawn", {"seat": "bob", "offer": offer.pk, "why": "game_over"})
    assert log_summary(ruleset="5x", kind=kinds[-2][0], payload=kinds[-2][1]) == (
        "The offer of seat bob lapsed: the game is over."
    )
    told = OutboxMessage.objects.filter(to="dave@example.com").order_by("-id").first()
    assert "the seat bob is no longer offered to you: the game is over." in told.body
    # Both verifiers accept the record.
    assert verify_export(game_export_unchecked(game=game), final_state=current_state(game=game)) == []
    out = StringIO()
    call_command("verify_game", str(game.pk), stdout=out)
    assert "OK" in out.getvalue()
    # And offline, as anyone checks the downloaded record.
    path = tmp_path / "export.json"
    path.write_text(json.dumps(game_export(game=game)), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "engine", "verify", str(path)], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert run.returncode == 0 and f"head: entry {kinds_count} ({ending})" in run.stdout, run.stdout


def test_an_offer_waiting_when_the_rules_end_the_game_is_logged_before_its_end(tmp_path) -> None:
    game, _seats, offer = _game_with_an_offer()
    assert play_defaults(game)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    _ends_with_the_offer_closed(game, offer, "game_finished", tmp_path)


def test_an_offer_waiting_when_a_walkover_ends_the_game_is_logged_before_its_end(tmp_path) -> None:
    game, seats, offer = _game_with_an_offer()
    seat_resign(seat=seats["cat"])
    seat_resign(seat=seats["ann"])
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    _ends_with_the_offer_closed(game, offer, "game_walkover", tmp_path)
