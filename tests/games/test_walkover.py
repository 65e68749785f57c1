"""A game whose every seat but one resigned ends at once: the last player wins (a
walkover). A two-player game was played out against default orders (a tournament round
waited for it); the log and the export verify."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from django.core.management import call_command

import engine
from engine.audit import verify_export
from games.errors import GameStateError
from games.models import Game, LogEntry, OutboxMessage, Prompt
from games.selectors import current_state
from games.selectors_log import game_export, game_export_unchecked
from games.services.games import game_create, game_join, seat_resign
from games.services.orders import order_submit
from tests.conftest import ROOT
from tests.games.core_support import eager_celery, make_users, start_fixed

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]


def _duel():
    org, ann, bob = make_users(["org", "ann", "bob"])
    game = game_create(organizer=org, ruleset="6x5", options={}, seats_count=2, name="Duel")
    game_join(game=game, user=ann)
    game_join(game=game, user=bob)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    return game, {s.user.username: s for s in game.seats.select_related("user")}


def test_resigning_a_duel_ends_it_and_the_other_player_wins(
    django_capture_on_commit_callbacks, tmp_path
) -> None:
    game, seats = _duel()
    # a few moves first, so the replay has something to check
    for _ in range(3):
        prompt = Prompt.objects.get(game=game, status=Prompt.Status.OPEN)
        state = current_state(game=game)
        with django_capture_on_commit_callbacks(execute=True):
            for name in prompt.pending:
                seat = game.seats.get(name=name)
                order_submit(seat=seat, text=engine.get("6x5").legal_orders(state, name)[0], source="web")
    open_before = Prompt.objects.get(game=game, status=Prompt.Status.OPEN)
    ann, bob = seats["ann"], seats["bob"]
    with django_capture_on_commit_callbacks(execute=True):
        seat_resign(seat=ann)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.ranking == [[bob.name], [ann.name]]
    assert game.end_reason == f"every player but {bob.name} resigned; {bob.name} wins"
    last = LogEntry.objects.filter(game=game).order_by("-seq").first()
    assert last.kind == "game_walkover"
    assert last.payload["winner"] == bob.name and last.payload["seed"] == game.seed
    # The prompt that was open stays unanswered; no new one opens; orders are refused.
    assert not Prompt.objects.filter(game=game, number__gt=open_before.number).exists()
    assert not LogEntry.objects.filter(game=game, kind="nmr_applied", payload__seat=ann.name).exists()
    with pytest.raises(GameStateError):
        order_submit(seat=bob, text="anything", source="web")
    with pytest.raises(GameStateError):
        seat_resign(seat=bob)
    # Both players are told, once.
    told = OutboxMessage.objects.filter(game=game, subject__endswith=f"Game over: {bob.name} wins")
    assert sorted(m.to for m in told) == ["ann@example.com", "bob@example.com"]
    # with the final ranking (a participant's journey: one line, no ranking)
    assert all(f"Final ranking: 1st {bob.name}; 2nd {ann.name} (resigned)." in m.body for m in told)
    # The log verifies, here and offline from the export.
    call_command("verify_game", str(game.pk))
    export = game_export(game=game)
    assert verify_export(export) == []
    path = tmp_path / "walkover.json"
    path.write_text(json.dumps(export))
    run = subprocess.run([sys.executable, "-m", "engine", "verify", str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_walkover_comes_when_the_second_to_last_player_resigns() -> None:
    game, seats = start_fixed(["ann", "bob", "cat"])
    seat_resign(seat=seats["cat"])
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE  # two still play
    seat_resign(seat=seats["ann"])
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.ranking == [["bob"], ["ann", "cat"]]
    assert verify_export(game_export_unchecked(game=game), final_state=current_state(game=game)) == []


def test_verify_refuses_a_walkover_the_resignations_do_not_show() -> None:
    game, seats = start_fixed(["ann", "bob", "cat"])
    seat_resign(seat=seats["cat"])
    seat_resign(seat=seats["ann"])
    game.refresh_from_db()
    export = game_export_unchecked(game=game)
    # An export whose log drops ann's resignation (hashes aside) names a walkover with
    # two seats still playing.
    entries = [e for e in export["entries"] if not (e["kind"] == "seat_resigned" and e["payload"]["seat"] == "ann")]
    problems = verify_export({**export, "entries": entries}, final_state=current_state(game=game))
    assert any("a walkover, but 2 seats had not resigned" in p for p in problems), problems
    # A walkover whose stored ranking puts a resigned seat first.
    wrong = {**export, "game": {**export["game"], "ranking": [["ann"], ["bob", "cat"]]}}
    problems = verify_export(wrong, final_state=current_state(game=game))
    assert "the stored ranking differs from the walkover's ranking" in problems


def test_the_page_warns_before_and_says_after(client) -> None:
    game, seats = _duel()
    ann, bob = seats["ann"], seats["bob"]
    client.force_login(ann.user)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert 'id="resign-ends"' in page and "the other player wins" in page
    done = client.post(f"/games/{game.pk}/resign/", {"confirm": "yes"}, follow=True).content.decode()
    assert f"You resigned: the game is over (every player but {bob.name} resigned; {bob.name} wins)." in done
    assert f'id="end-reason">Game over: every player but {bob.name} resigned; {bob.name} wins.</div>' in done
    assert " to play</span>" not in done  # nobody is to act any more
    # The result in a panel of its own, above the board as it stood.
    result = done.split('id="final-result"', 1)[1].split("</div>", 1)[0]
    assert "<h2>Final result</h2>" in result
    assert f"<li>1. {bob.name}</li>" in result
    assert f'<li>2. {ann.name} <span class="muted small">(resigned)</span></li>' in result
    from games.mail.command_texts import game_over_text

    bob = type(bob).objects.select_related("game").get(pk=bob.pk)  # as the gateway loads it
    assert game_over_text(bob, "STATUS") == (
        f"STATUS: the game is over (every player but {bob.name} resigned; {bob.name} wins); orders "
        f"sealed for the decision that was open stay sealed. The game's page: "
        f"http://127.0.0.1:8000/games/{game.pk}/"
    )
    assert "every order" not in game_over_text(bob, "SHOW")
    log = client.get(f"/games/{game.pk}/log/").content.decode()
    assert f"Every player but {bob.name} resigned: {bob.name} wins." in log


def test_a_three_player_game_does_not_warn_before_the_first_resignation(client) -> None:
    game, seats = start_fixed(["ann", "bob", "cat"])
    client.force_login(seats["ann"].user)
    answer = client.get(f"/games/{game.pk}/")
    assert answer.status_code == 200
    html = answer.content.decode()
    assert "Resign" in html  # the resign form is there, without the warning
    assert 'id="resign-ends"' not in html and "the other player wins" not in html


def test_the_api_says_why_the_game_ended(client) -> None:
    game, seats = _duel()
    client.force_login(seats["ann"].user)
    assert client.post(f"/api/games/{game.pk}/resign/", content_type="application/json").status_code == 200
    assert client.get(f"/api/games/{game.pk}/").json()["game"]["status"] == "finished"
    body = client.get("/api/games/").json()
    rows = body["results"] if isinstance(body, dict) else body
    (mine,) = [g for g in rows if g["id"] == game.pk]
    bob = seats["bob"].name
    assert mine["ranking"] == [[bob], [seats["ann"].name]]
    assert mine["end_reason"] == f"every player but {bob} resigned; {bob} wins"


def test_a_game_cancelled_before_its_start_says_so(client) -> None:
    from games.services.organizer import game_end

    org, ann = make_users(["org", "ann"])
    game = game_create(organizer=org, ruleset="6x5", options={}, seats_count=2, name="Never")
    game_join(game=game, user=ann)
    game_end(game=game, by=org, reason="cancelled before the start")
    client.force_login(ann)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert 'id="end-reason">The organizer cancelled the game before it started.</div>' in page
    assert 'id="final-result"' not in page  # it never started: no board, no result


def test_a_game_ended_by_its_organizer_says_the_board_is_where_it_stopped(client) -> None:
    from games.services.organizer import game_end

    game, seats = start_fixed(["ann", "bob", "cat"])
    game_end(game=game, by=game.organizer, reason="the league closed")
    client.force_login(seats["ann"].user)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "The organizer ended the game early: the league closed. It has no ranking." in page
    result = page.split('id="final-result"', 1)[1].split("</div>", 1)[0]
    assert "<h2>Ended without a ranking</h2>" in result and "<li>" not in result
    assert "Below is the table as the game ended, every hand turned face up." in result


def test_a_game_ended_by_a_site_administrator_says_so(client) -> None:
    from django.contrib.auth import get_user_model

    from games.services.organizer import game_end

    game, seats = start_fixed(["ann", "bob", "cat"])
    staff = get_user_model().objects.create_user("root", "root@example.test", "pw", is_staff=True)
    game_end(game=game, by=staff, reason="abuse")
    client.force_login(seats["ann"].user)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "A site administrator (root) ended the game early: abuse. It has no ranking." in page
    assert "The organizer ended" not in page
