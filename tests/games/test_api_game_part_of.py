"""What a game is part of, over the API: the seat view (``GET /api/games/{id}/``) and the
games lists say which tournament's round a game is a table of, as the game's page does
("Part of <tournament>, round <n>", linking the round's page), and null for any other
game, without a query per game."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from fivex_site.links import public_url
from games.models import Game
from games.services.games import game_create, game_join
from tests.games.web_support import make_user, token_client
from tournaments.services import rounds
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db


def tournament_game(name: str, organizer, players: list) -> Game:
    """The game of the single table of round 1 of a new two-player 6x5 tournament."""
    t = tsvc.tournament_create(organizer=organizer, name=name, ruleset="6x5", table_sizes=[2],
                               rounds_count=2)  # fmt: skip
    tsvc.tournament_open(tournament=t, by=organizer)
    for user in players:
        tsvc.registration_add(tournament=t, user=user)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    return rnd.tables.get().game


def expected(game: Game, name: str) -> dict:
    slug = game.tournament_table.round.tournament.slug
    return {"label": f"{name}, round 1", "url": public_url(f"/tournaments/{slug}/rounds/1/")}


def test_a_games_view_and_the_lists_name_its_tournaments_round_and_other_games_none(client) -> None:
    org, ann, bob = make_user("org"), make_user("ann"), make_user("bob")
    game = tournament_game("Winter Cup", org, [ann, bob])
    casual = game_create(organizer=ann, ruleset="5x", seats_count=3)
    ours = expected(game, "Winter Cup")
    # The round's page, as the game's page links it ("Part of ...").
    page = client.get(f"/games/{game.pk}/").content.decode()
    link = re.search(r'Part of <a href="([^"]+)">([^<]+)</a>', page)
    assert link is not None and public_url(link.group(1)) == ours["url"]
    assert link.group(2) == ours["label"] == "Winter Cup, round 1"

    api = token_client(ann)
    seat_view = api.get(f"/api/games/{game.pk}/")  # a seat in a running game: the hand-written SQL
    assert seat_view.status_code == 200, seat_view.content
    assert seat_view.json()["seat"] and seat_view.json()["game"]["part_of"] == ours
    spectator = token_client(org).get(f"/api/games/{game.pk}/")  # no seat: the ORM's path
    assert spectator.json()["seat"] is None and spectator.json()["game"]["part_of"] == ours
    forming = api.get(f"/api/games/{casual.pk}/")
    assert forming.status_code == 200 and forming.json()["game"]["part_of"] is None

    listed = {g["id"]: g["part_of"] for g in api.get("/api/games/").json()}
    assert listed == {game.pk: ours, casual.pk: None}
    opened = {g["id"]: g["part_of"] for g in api.get("/api/games/open/").json()}
    assert opened == {casual.pk: None}


def test_the_games_list_says_what_games_are_part_of_without_a_query_per_game() -> None:
    org, ann = make_user("org"), make_user("ann")
    rivals = [make_user(f"r{i}") for i in range(4)]
    api = token_client(ann)

    def list_queries() -> tuple[int, list]:
        api.get("/api/games/")  # the token's last use, written once
        with CaptureQueriesContext(connection) as queries:
            answer = api.get("/api/games/")
        assert answer.status_code == 200
        return len(queries), [g["part_of"] for g in answer.json()]

    tournament_game("Cup 0", org, [ann, rivals[0]])
    game_join(game=game_create(organizer=org, ruleset="5x", seats_count=3), user=ann)
    one, named = list_queries()
    assert sorted(t["label"].split(",")[0] if t else "" for t in named) == ["", "Cup 0"]
    for i in (1, 2, 3):
        tournament_game(f"Cup {i}", org, [ann, rivals[i]])
    more, named = list_queries()
    assert sorted(t["label"].split(",")[0] if t else "" for t in named) == ["", "Cup 0", "Cup 1", "Cup 2", "Cup 3"]
    assert more == one


def test_the_schema_documents_what_a_game_is_part_of(client) -> None:
    schema = client.get("/api/schema/", {"format": "json"}).json()
    components = schema["components"]["schemas"]
    part_of = components["PartOf"]
    assert set(part_of["properties"]) == set(part_of["required"]) == {"label", "url"}
    assert part_of["properties"]["url"]["format"] == "uri"
    for name in ("Game", "MyGame", "GameBrief"):
        field = components[name]["properties"]["part_of"]
        assert field["oneOf"] == [{"$ref": "#/components/schemas/PartOf"}, {"type": "null"}], name
        assert field["description"], name
        assert "part_of" in components[name]["required"], name
