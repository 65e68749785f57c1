"""Play again with the same players: a game over makes one private rematch, its other
players invited by email; asked twice (or by two players at once) it is the same game."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from games.errors import GameStateError, PermissionDenied
from games.models import Game, OutboxMessage
from games.services.games import game_create, game_join
from games.services.rematch import game_rematch
from tests.concurrency import at_once
from tests.games.core_support import make_game, play_defaults

NAMES = ["ann", "bob", "cat"]


def _finished(**policy) -> tuple[Game, dict]:
    game, seats = make_game(NAMES, **policy)
    assert play_defaults(game)
    game.refresh_from_db()
    assert game.status == "finished"
    return game, seats


def _user(name: str):
    return get_user_model().objects.get(username=name)


@pytest.mark.django_db
def test_a_player_asks_and_the_others_are_invited_to_the_same_game_again() -> None:
    game, _ = _finished(deadline_hours=72, grace_minutes=30, reminder_hours=6, talk_open=False)
    ann = _user("ann")
    new = game_rematch(game=game, by=ann)
    assert new.created is True
    new.refresh_from_db()
    assert new.rematch_of_id == game.pk and new.pk != game.pk
    assert (new.status, new.is_private, new.organizer) == ("forming", True, ann)
    assert (new.ruleset, new.options, new.seats_count) == ("5x", game.options, 3)
    assert (new.deadline_hours, new.grace_minutes, new.reminder_hours) == (72, 30, 6)
    assert new.talk_open is False  # no table talk, as before
    assert new.name == f"{game.title} (rematch)"
    assert list(new.seats.values_list("user__username", flat=True)) == ["ann"]
    assert new.seed_commitment == "" or new.seed_commitment != game.seed_commitment
    mails = {m.to: m for m in OutboxMessage.objects.filter(kind="rematch")}
    assert set(mails) == {"bob@example.com", "cat@example.com"}  # not the one who asked
    for mail in mails.values():
        assert "ann asks for a rematch" in mail.subject
        assert f"/games/{new.pk}/invite/{new.invite_token}/" in mail.body
    # The others take their seats from the link; the last one starts it.
    for name in ("bob", "cat"):
        game_join(game=new, user=_user(name), invite_token=new.invite_token)
    new.refresh_from_db()
    assert new.status == "active"
    assert new.seed_commitment != game.seed_commitment  # a new deal


@pytest.mark.django_db
def test_asked_again_by_anyone_it_is_the_same_rematch_and_no_email_more() -> None:
    game, _ = _finished()
    first = game_rematch(game=game, by=_user("ann"))
    emails = OutboxMessage.objects.count()
    for name in ("ann", "bob"):
        again = game_rematch(game=game, by=_user(name))
        assert (again.pk, again.created) == (first.pk, False)
    assert Game.objects.filter(rematch_of=game).count() == 1
    assert OutboxMessage.objects.count() == emails
    # A rematch of the rematch counts.
    for name in ("bob", "cat"):
        game_join(game=first, user=_user(name), invite_token=first.invite_token)
    first.refresh_from_db()
    assert play_defaults(first)
    second = game_rematch(game=first, by=_user("cat"))
    assert second.name == f"{game.title} (rematch 2)"


@pytest.mark.django_db
def test_a_rematch_is_refused_while_the_game_runs_to_strangers_and_for_tournament_tables() -> None:
    running, _ = make_game(NAMES)
    with pytest.raises(GameStateError, match="is over"):
        game_rematch(game=running, by=_user("ann"))
    game, _ = _finished()
    stranger = get_user_model().objects.create_user(username="zed", email="zed@example.com")
    with pytest.raises(PermissionDenied, match="players and its organizer"):
        game_rematch(game=game, by=stranger)
    table, _ = _finished()
    Game.objects.filter(pk=table.pk).update(part_of_label="Spring Cup R1 · table 1", part_of_path="/tournaments/spring/")
    table.refresh_from_db()
    with pytest.raises(GameStateError, match="Spring Cup R1 · table 1"):
        game_rematch(game=table, by=_user("ann"))
    cancelled = game_create(organizer=_user("ann"), ruleset="5x", seats_count=3)
    Game.objects.filter(pk=cancelled.pk).update(status="abandoned")
    cancelled.refresh_from_db()
    with pytest.raises(GameStateError):
        game_rematch(game=cancelled, by=_user("ann"))
    assert not Game.objects.filter(rematch_of__isnull=False).exists()
    assert not OutboxMessage.objects.filter(kind="rematch").exists()
    # The organizer who did not play may ask: seated in nothing, every player invited.
    new = game_rematch(game=game, by=game.organizer)
    assert new.seats.count() == 0
    assert OutboxMessage.objects.filter(kind="rematch").count() == 3


@pytest.mark.django_db
def test_the_game_page_offers_it_to_players_only_and_then_links_to_it(client) -> None:
    game, _ = _finished()
    page = f"/games/{game.pk}/"
    stranger = get_user_model().objects.create_user(username="zed", email="zed@example.com")
    client.force_login(stranger)
    body = client.get(page).content.decode()
    assert 'id="rematch-ask"' not in body and 'id="rematch"' not in body
    client.force_login(_user("ann"))
    assert 'id="rematch-ask"' in client.get(page).content.decode()
    answer = client.post(f"{page}rematch/")
    new = Game.objects.get(rematch_of=game)
    assert answer.status_code == 302 and answer["Location"] == f"/games/{new.pk}/"
    body = client.get(page).content.decode()
    assert 'id="rematch-ask"' not in body
    assert f'href="/games/{new.pk}/"' in body and "1 of 3 seats taken" in body
    # Bob's page links to the invitation; his click on an old page's button lands there too.
    client.force_login(_user("bob"))
    body = client.get(page).content.decode()
    assert f"/games/{new.pk}/invite/{new.invite_token}/" in body and "take your seat there" in body
    answer = client.post(f"{page}rematch/", follow=True)
    assert answer.redirect_chain[-1][0] == f"/games/{new.pk}/invite/{new.invite_token}/"
    assert "ann asked for this rematch already: nothing new was made." in answer.content.decode()
    assert Game.objects.filter(rematch_of=game).count() == 1
    # A stranger's post is refused and does not lead to the private rematch's invitation.
    client.force_login(stranger)
    answer = client.post(f"{page}rematch/", follow=True)
    assert answer.redirect_chain[-1][0] == page
    assert "Only the game&#x27;s players and its organizer" in answer.content.decode()
    assert new.invite_token not in answer.content.decode()
    assert Game.objects.filter(rematch_of=game).count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_players_asking_at_the_same_moment_make_one_rematch() -> None:
    game, _ = _finished()
    users = [_user("ann"), _user("bob")]
    made, errors = at_once(*[lambda user=user: game_rematch(game=game, by=user) for user in users])
    assert errors == []
    assert len({new.pk for new in made}) == 1
    assert sorted(new.created for new in made) == [False, True]
    assert Game.objects.filter(rematch_of=game).count() == 1
    assert OutboxMessage.objects.filter(kind="rematch").count() == 2


@pytest.mark.django_db
def test_the_api_makes_the_rematch_once_and_answers_it_again(client) -> None:
    game, _ = _finished()
    url = f"/api/games/{game.pk}/rematch/"
    client.force_login(_user("ann"))
    made = client.post(url, content_type="application/json")
    assert made.status_code == 201, made.content
    new = Game.objects.get(rematch_of=game)
    assert made.json()["id"] == new.pk and made.json()["invite_token"] == new.invite_token
    assert made.json()["status"] == "forming" and made.json()["organizer"] == "ann"
    assert made["Location"].endswith(f"/api/games/{new.pk}/")
    client.force_login(_user("bob"))  # another player: the same game, 200
    again = client.post(url, content_type="application/json")
    assert again.status_code == 200 and again.json()["id"] == new.pk
    client.force_login(get_user_model().objects.create_user(username="zed", email="zed@example.com"))
    refused = client.post(url, content_type="application/json")
    assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
    assert new.invite_token not in refused.content.decode()
    running, _ = make_game(["dan", "eve", "fay"])
    client.force_login(_user("dan"))
    busy = client.post(f"/api/games/{running.pk}/rematch/", content_type="application/json")
    assert busy.status_code == 409 and "is over" in busy.json()["message"]
    junk = client.post(url, {"x": 1}, content_type="application/json")
    assert junk.status_code == 400
    assert Game.objects.filter(rematch_of__isnull=False).count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("ruleset", "options"), [("4x-dice", {"dice": 4}), ("6x5", {"goals": 2, "visible_goals": True})]
)
def test_the_rematch_keeps_each_rulesets_options(ruleset, options) -> None:
    from games.services.games import game_create_seated
    from tests.games.core_support import make_users

    users = make_users(["ann", "bob"])
    game = game_create_seated(
        organizer=users[0], ruleset=ruleset, options=options, users=users, is_private=False
    )
    assert play_defaults(game, prompts=2000)
    new = game_rematch(game=game, by=users[1])
    new.refresh_from_db()
    for key, value in options.items():
        assert new.options[key] == value
    assert new.options == game.options and new.seats_count == 2
