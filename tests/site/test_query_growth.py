"""Pages whose SQL queries grew with the site's data (a data-at-scale audit: 5,000 users,
3,400 games, a 200-player tournament): the count must not depend on how many rows a page
lists."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games.selectors_lists import games_for_user
from games.services.games import game_create, game_join
from tournaments.services import results, rounds
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db


def _users(prefix: str, n: int) -> list:
    return [
        get_user_model().objects.create_user(f"{prefix}{i}", f"{prefix}{i}@example.test", "pw")
        for i in range(n)
    ]


def _queries(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_the_games_list_names_organizers_without_a_query_each() -> None:
    organizers = _users("org", 6)
    client = Client()
    game_create(organizer=organizers[0], ruleset="5x", seats_count=3)
    one = _queries(client, "/games/")
    for organizer in organizers[1:]:
        game_create(organizer=organizer, ruleset="5x", seats_count=3)
    page = client.get("/games/").content.decode()
    assert all(o.username in page for o in organizers)
    assert _queries(client, "/games/") == one


def test_a_round_page_reads_the_open_prompts_in_one_query() -> None:
    def started_round(prefix: str, players: int):
        organizer, *people = _users(prefix, players + 1)
        t = tsvc.tournament_create(organizer=organizer, name=f"Cup {prefix}", ruleset="6x5",
                                   table_sizes=[2], rounds_count=1)  # fmt: skip
        tsvc.tournament_open(tournament=t, by=organizer)
        for user in people:
            tsvc.registration_add(tournament=t, user=user)
        rnd = rounds.round_pair(tournament=t, by=organizer)
        rounds.round_start(rnd=rnd, by=organizer)
        return t

    client = Client()
    small, big = started_round("s", 2), started_round("b", 8)  # 1 table, 4 tables
    page = client.get(f"/tournaments/{big.slug}/rounds/1/").content.decode()
    assert len(re.findall(r"<td[^>]*><time datetime=\"[^\"]+\"[^>]*>\w{3} \d{1,2} \w{3} \d{4}, \d\d:\d\d", page)) == 4  # each table's deadline
    assert _queries(client, f"/tournaments/{big.slug}/rounds/1/") == _queries(
        client, f"/tournaments/{small.slug}/rounds/1/"
    )


def test_a_players_rating_history_reads_its_games_with_it(client) -> None:
    from tests.tournaments.test_tournament_services import _finished_duel_round, _results_by_hand

    organizer, players, t, _rnd = _finished_duel_round("hist")
    player = t.registrations.get(user=players[0])
    url = f"/tournaments/{t.slug}/players/{player.pk}/"
    one = _queries(client, url)
    rnd2 = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd2, by=organizer)
    _results_by_hand(rnd2, organizer, "offline")
    results.ratings_sync(pool=t.rating_pool)
    assert _queries(client, url) == one


def test_a_players_games_are_those_seated_at_or_organized() -> None:
    ann, bob, cat = _users("p", 3)
    organized = game_create(organizer=ann, ruleset="5x", seats_count=3)
    seated = game_create(organizer=bob, ruleset="5x", seats_count=3)
    game_join(game=seated, user=ann)
    game_join(game=organized, user=ann)  # organizer and seated: listed once
    game_create(organizer=cat, ruleset="5x", seats_count=3)
    assert list(games_for_user(user=ann)) == [seated, organized]
    assert games_for_user(user=ann).count() == 2


def test_admin_pages_do_not_grow_with_the_site(admin_client) -> None:
    """The outbox's change form listed every seat and game of the site (950 KB at 13,000
    seats); the tournament admin read each registration's player and tournament, and
    each table's round and tournament, one query at a time."""
    from games.models import OutboxMessage
    from tests.tournaments.test_tournament_services import _finished_duel_round

    _organizer, _players, small, _rnd = _finished_duel_round("adm")
    message = OutboxMessage.objects.create(to="a@example.test", subject="s", body="b")
    form = admin_client.get(f"/admin/games/outboxmessage/{message.pk}/change/").content.decode()
    assert '<select name="seat"' not in form and '<select name="game"' not in form
    game_form = admin_client.get(f"/admin/games/game/{small.rounds.get().tables.first().game_id}/change/")
    assert '<select name="organizer"' not in game_form.content.decode()

    def counts() -> tuple[int, ...]:
        urls = ["/admin/tournaments/table/", "/admin/tournaments/round/",
                f"/admin/tournaments/tournament/{small.pk}/change/"]  # fmt: skip
        return tuple(_queries(admin_client, url) for url in urls)

    counts()  # the first visit of a page may write the session
    before = counts()
    _finished_duel_round("adn")  # more tables and rounds
    for i in range(4):  # more registrations (as the admin shows them: without a round)
        user = get_user_model().objects.create_user(f"late{i}", f"late{i}@example.test", "pw")
        small.registrations.create(user=user)
    assert counts() == before


def test_the_admins_game_page_reads_its_seats_players_at_once(admin_client) -> None:
    """Performance audit: the game's change page read each seat's player on its own."""
    games = []
    for prefix, seats in (("two", 2), ("six", 6)):
        users = _users(prefix, seats)
        game = game_create(organizer=users[0], ruleset="4x-dice", seats_count=seats)
        for user in users[:-1]:  # one seat left open: the game stays forming
            game_join(game=game, user=user)
        games.append(game)
    urls = [f"/admin/games/game/{game.pk}/change/" for game in games]
    _queries(admin_client, urls[0])  # the first visit may write the session
    assert _queries(admin_client, urls[0]) == _queries(admin_client, urls[1])
