"""A private game is watched only by its players, its organizer and staff: its pages, its
status poll, its log and its API answers are a 404 to anyone else (ids are sequential).
Public games and tournament tables stay open to everyone."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.test import Client
from django.urls import reverse

from games.models import Game
from games.services import games as game_services
from tests.games.web_support import eager_celery, make_user, token_client

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]


def _pages(game_id: int) -> list[str]:
    return [
        reverse("games:detail", args=[game_id]),
        reverse("games:status", args=[game_id]),
        reverse("games:log", args=[game_id]),
        reverse("games:export", args=[game_id]),
    ]


def _api(game_id: int) -> list[str]:
    return [f"/api/games/{game_id}/", f"/api/games/{game_id}/log/", f"/api/games/{game_id}/export/"]


@pytest.fixture
def people():
    users = {n: make_user(n) for n in ("org", "ann", "bob", "cat", "eve")}
    users["eve"].is_staff = True
    users["eve"].save(update_fields=["is_staff"])
    return users


def _game(people, capture, *, private: bool) -> Game:
    game = game_services.game_create(
        organizer=people["org"], ruleset="5x", seats_count=3, name="Club", is_private=private
    )
    with capture(execute=True):
        for name in ("ann", "bob"):
            game_services.game_join(game=game, user=people[name], invite_token=game.invite_token)
    return game


def _browser(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def test_strangers_get_a_404_everywhere(people, django_capture_on_commit_callbacks) -> None:
    game = _game(people, django_capture_on_commit_callbacks, private=True)
    for client in (_browser(), _browser(people["cat"])):
        for url in _pages(game.pk):
            answer = client.get(url)
            assert answer.status_code == 404, url
            assert "Club" not in answer.content.decode()
    api = token_client(people["cat"])
    for url in _api(game.pk):
        answer = api.get(url)
        assert answer.status_code == 404, url
        assert answer.json()["error"] == "not_found"
        assert "Club" not in answer.content.decode()
    # The same answer as for a game that does not exist.
    assert api.get("/api/games/999999/").json() == api.get(f"/api/games/{game.pk}/").json()


def test_players_organizer_and_staff_watch_it(people, django_capture_on_commit_callbacks) -> None:
    game = _game(people, django_capture_on_commit_callbacks, private=True)
    for name in ("ann", "bob", "org", "eve"):
        client = _browser(people[name])
        assert client.get(reverse("games:detail", args=[game.pk])).status_code == 200, name
        assert client.get(reverse("games:status", args=[game.pk])).status_code == 200, name
        assert client.get(reverse("games:log", args=[game.pk])).status_code == 200, name
        view = token_client(people[name]).get(f"/api/games/{game.pk}/")
        assert view.status_code == 200, name
        assert view.json()["game"]["name"] == "Club"
    # Not finished: the export says so instead (a 409 with the reason), not a 404.
    assert token_client(people["ann"]).get(f"/api/games/{game.pk}/export/").status_code == 409


def test_the_invitation_link_lets_a_stranger_in(people, django_capture_on_commit_callbacks) -> None:
    game = _game(people, django_capture_on_commit_callbacks, private=True)
    cat = _browser(people["cat"])
    invite = cat.get(reverse("games:invite", args=[game.pk, game.invite_token]))
    assert invite.status_code == 200 and "Take a seat" in invite.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        joined = cat.post(
            reverse("games:join", args=[game.pk]), {"invite_token": game.invite_token}
        )
    assert joined.status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert cat.get(reverse("games:detail", args=[game.pk])).status_code == 200
    # Once seated, always allowed: a resigned player still watches the game.
    game_services.seat_resign(seat=game.seats.get(name="cat"))
    assert cat.get(reverse("games:detail", args=[game.pk])).status_code == 200


def test_public_games_are_open_to_everyone(people, django_capture_on_commit_callbacks) -> None:
    game = _game(people, django_capture_on_commit_callbacks, private=False)
    detail, status, log = _pages(game.pk)[:3]
    for url in (detail, log):
        answer = _browser().get(url)
        assert answer.status_code == 200 and game.name in answer.content.decode(), url
    answer = _browser().get(status)
    assert answer.status_code == 200 and answer.json()["seats"] == 2  # ann and bob joined
    answer = token_client(people["cat"]).get(f"/api/games/{game.pk}/")
    assert answer.status_code == 200 and answer.json()["game"]["name"] == game.name


def test_tournament_tables_are_public(people) -> None:
    from tournaments.models import Table
    from tournaments.services import rounds
    from tournaments.services import tournaments as tsvc

    organizer = people["org"]
    t = tsvc.tournament_create(
        organizer=organizer, name="Open cup", ruleset="6x5", table_sizes=[2], rounds_count=1
    )
    tsvc.tournament_open(tournament=t, by=organizer)
    for name in ("ann", "bob"):
        tsvc.registration_add(tournament=t, user=people[name])
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    game = Table.objects.get(round=rnd).game
    assert game.is_private is False
    assert _browser(people["cat"]).get(reverse("games:detail", args=[game.pk])).status_code == 200

    # Tables started before tables were public are made public by the migration.
    Game.objects.filter(pk=game.pk).update(is_private=True)
    other = Game.objects.create(
        organizer=organizer, ruleset="5x", seats_count=3, is_private=True, name="Not a table"
    )
    migration = importlib.import_module("tournaments.migrations.0002_table_games_public")
    migration.forwards(apps, None)
    assert Game.objects.get(pk=game.pk).is_private is False
    assert Game.objects.get(pk=other.pk).is_private is True
