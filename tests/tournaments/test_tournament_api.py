"""The tournaments' read-only API: public lists and one tournament's settings, standings
and rounds, as the pages show them."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from games.services.organizer import game_end
from tournaments.models import Tournament
from tournaments.services import results, rounds
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db


def _users(*names):
    User = get_user_model()
    return [User.objects.create_user(n, f"{n}@example.com", "pw") for n in names]


@pytest.fixture
def duel_cup():
    """A 5-player 6x5 duel tournament whose round 1 is over: two tables decided by hand
    (the first seat won) and one pairing bye."""
    organizer, *players = _users("org", "ann", "bob", "cat", "dan", "eve")
    organizer.is_staff = True
    organizer.save()
    t = tsvc.tournament_create(organizer=organizer, name="Duel cup", ruleset="6x5", table_sizes=[2],
                               rounds_count=3, quiet_hours_start=22, quiet_hours_end=7,
                               quiet_hours_time_zone="Europe/Paris")  # fmt: skip
    tsvc.tournament_open(tournament=t, by=organizer)
    for user in players:
        tsvc.registration_add(tournament=t, user=user)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    for table in rnd.tables.all():
        game_end(game=table.game, by=organizer, reason="offline")
        results.result_enter(table=table, ranking=[[table.players[0]], [table.players[1]]],
                             by=organizer, reason="played offline")  # fmt: skip
    return t


def test_one_tournament_in_full(client, duel_cup):
    t = duel_cup
    names = {r.pk: r.user.username for r in t.registrations.select_related("user")}
    data = client.get(f"/api/tournaments/{t.slug}/").json()  # anonymous: public
    assert {k: data[k] for k in ("slug", "name", "ruleset", "status", "organizer", "table_sizes",
                                 "rounds_count", "rounds_paired", "entrants", "rating_pool")} == {
        "slug": t.slug, "name": "Duel cup", "ruleset": "6x5", "status": "running",
        "organizer": "org", "table_sizes": [2], "rounds_count": 3, "rounds_paired": 1,
        "entrants": 5, "rating_pool": "6x5",
    }  # fmt: skip
    assert data["url"].endswith(f"/tournaments/{t.slug}/")
    assert data["quiet_hours"] == {"start": 22, "end": 7, "time_zone": "Europe/Paris"}
    assert data["points_per_place"] == {"2": [1.0, 0.0]}
    [rnd] = data["rounds"]
    assert rnd["number"] == 1 and rnd["status"] == "finished"
    tables = t.rounds.get(number=1).tables.order_by("number")
    assert rnd["tables"] == [
        {"number": tb.number, "players": [names[p] for p in tb.players], "game": tb.game_id,
         "ranking": [[names[tb.players[0]]], [names[tb.players[1]]]], "result_source": "organizer", "rated": True,
         "nobody_played": False}
        for tb in tables
    ]  # fmt: skip
    [bye] = t.rounds.get(number=1).byes.all()
    assert rnd["byes"] == [{"player": names[bye.registration_id], "kind": "pairing", "points": 1.0}]
    # Standings: the two winners and the bye on 1 point, the two losers on 0.
    winners = {names[tb.players[0]] for tb in tables} | {names[bye.registration_id]}
    points = {row["player"]: row["points"] for row in data["standings"]}
    assert points == {n: (1.0 if n in winners else 0.0) for n in names.values()}
    assert [row["rank"] for row in data["standings"]] == [1, 1, 1, 4, 4]
    assert all(row["played"] in (0, 1) and not row["withdrawn"] for row in data["standings"])
    assert all(row["rating"] > 0 for row in data["standings"])
    assert [tb["key"] for tb in data["tiebreaks"]] == list(t.tiebreaks)


def test_the_list_pages_and_leaves_drafts_out(client, duel_cup):
    (other,) = _users("zed")
    draft = tsvc.tournament_create(organizer=other, name="Not yet", ruleset="5x", table_sizes=[3],
                                   rounds_count=1)  # fmt: skip
    second = tsvc.tournament_create(organizer=other, name="Open one", ruleset="5x",
                                    table_sizes=[3], rounds_count=1)  # fmt: skip
    tsvc.tournament_open(tournament=second, by=other)
    listed = client.get("/api/tournaments/")
    assert listed.status_code == 200 and listed["X-Total-Count"] == "2"
    assert [t["slug"] for t in listed.json()] == [second.slug, duel_cup.slug]  # newest first
    assert draft.slug not in listed.content.decode()
    # A draft is nobody's business but its organizer's (and staff's), by address too.
    assert client.get(f"/api/tournaments/{draft.slug}/").status_code == 404
    assert client.get(f"/tournaments/{draft.slug}/").status_code == 404
    client.force_login(other)
    assert client.get(f"/api/tournaments/{draft.slug}/").json()["status"] == "draft"
    assert client.get(f"/tournaments/{draft.slug}/").status_code == 200
    client.logout()
    first_page = client.get("/api/tournaments?limit=1")  # the slash is optional
    assert [t["slug"] for t in first_page.json()] == [second.slug]
    assert 'limit=1&offset=1>; rel="next"' in first_page["Link"]
    assert first_page.json()[0]["entrants"] == 0 and first_page.json()[0]["rounds_paired"] == 0


@pytest.mark.parametrize(
    ("path", "code", "error"),
    [("/api/tournaments/no-such-cup/", 404, "not_found"),
     ("/api/tournaments/?limit=0", 400, "invalid"),
     ("/api/tournaments/?offset=-1", 400, "invalid"),
     ("/api/tournaments/?limit=5&colour=red", 400, "invalid")],
)  # fmt: skip
def test_bad_requests_get_json_errors(client, db, path, code, error):
    response = client.get(path)
    assert response.status_code == code
    assert response.json()["error"] == error and response.json()["message"]


def test_the_api_is_read_only(client, duel_cup):
    (user,) = _users("mallory")
    client.force_login(user)
    response = client.post(f"/api/tournaments/{duel_cup.slug}/", {}, content_type="application/json")
    assert response.status_code == 405 and response.json()["error"]
    assert Tournament.objects.get(pk=duel_cup.pk).name == "Duel cup"


def test_the_schema_lists_the_tournament_endpoints(client, db):
    paths = client.get("/api/schema/?format=json").json()["paths"]
    assert "/api/tournaments/" in paths and "/api/tournaments/{slug}/" in paths
    assert "/api/tournaments" not in paths


def test_ratings_by_pool_on_the_api_and_the_pages(client, duel_cup):
    names = {r.pk: r.user.username for r in duel_cup.registrations.select_related("user")}
    tables = list(duel_cup.rounds.get(number=1).tables.order_by("number"))
    winners = sorted(names[tb.players[0]] for tb in tables)
    losers = sorted(names[tb.players[1]] for tb in tables)
    # Two-player Elo from 1500, K = 40: a win scores 1 against an expected 0.5, +20.
    assert client.get("/api/ratings/").json() == [{"pool": "6x5", "players": 4, "games": 2}]
    data = client.get("/api/ratings/6x5/").json()
    assert data["pool"] == "6x5"
    assert [(r["rank"], r["player"], r["rating"], r["games"], r["change"]) for r in data["players"]] == [
        (1, winners[0], 1520.0, 1, 20.0), (1, winners[1], 1520.0, 1, 20.0),
        (3, losers[0], 1480.0, 1, -20.0), (3, losers[1], 1480.0, 1, -20.0),
    ]  # fmt: skip
    assert data["players"][0]["last_played"].endswith("Z")
    second = client.get("/api/ratings/6x5/?limit=2&offset=2")  # paged like the other lists
    assert [r["player"] for r in second.json()["players"]] == losers
    assert second["X-Total-Count"] == "4" and 'limit=2&offset=0>; rel="prev"' in second["Link"]
    assert client.get("/api/ratings/6x5/?limit=0").status_code == 400
    assert client.get("/api/ratings/nowhere/").status_code == 404

    page = client.get("/ratings/").content.decode()
    assert 'href="/ratings/6x5/"' in page
    pool_page = client.get("/ratings/6x5/").content.decode()
    assert (
        f'<td>1</td><td><a href="/players/{winners[0]}/">{winners[0]}</a></td><td>1520</td><td>1</td>'
        in pool_page
    )
    assert "+20.0" in pool_page and "-20.0" in pool_page
    assert client.get("/ratings/nowhere/").status_code == 404
    for odd in ("%00", "a%00b", "x" * 65):  # no column holds these: no pool, not a 500
        assert client.get(f"/ratings/{odd}/").status_code == 404
        assert client.get(f"/api/ratings/{odd}/").json()["error"] == "not_found"
    assert 'href="/ratings/"' in client.get("/tournaments/").content.decode()


@pytest.mark.parametrize("pool", ["winter league", "a/b", "x" * 49, "<b>"])
def test_a_rating_pools_name_is_a_plain_word(db, pool):
    from games.errors import ValidationError

    (organizer,) = _users("org")
    with pytest.raises(ValidationError, match="rating pool's name"):
        tsvc.tournament_create(organizer=organizer, name="Cup", ruleset="5x", table_sizes=[3],
                               rounds_count=1, rating_pool=pool)  # fmt: skip
    assert not Tournament.objects.exists()


def test_a_pool_named_after_a_users_id_has_its_pages(client, db):
    from django.urls import reverse

    (organizer,) = _users("p" * 70)  # too long a name to stand beside the pool
    t = tsvc.tournament_create(organizer=organizer, name="Long", ruleset="6x5", table_sizes=[2],
                               rounds_count=1)  # fmt: skip
    assert t.rating_pool == f"#{organizer.pk}:6x5"
    url = reverse("rating_pool", args=[t.rating_pool])
    assert url == f"/ratings/%23{organizer.pk}:6x5/"
    assert "No rated game in this pool yet." in client.get(url).content.decode()
    assert client.get(f"/api/ratings/%23{organizer.pk}:6x5/").json() == {"pool": t.rating_pool, "players": []}


def test_a_pool_named_before_names_were_checked_still_has_its_pages(client, duel_cup):
    """A pool with a slash (named before pool names were checked, or in the admin) is
    listed and has its page; "last game" is when the game ended, not when a rebuild of
    the pool's ledger wrote the row."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Game
    from tournaments.models import RatingEntry

    RatingEntry.objects.filter(pool="6x5").update(pool="club/2025")
    Tournament.objects.filter(pk=duel_cup.pk).update(rating_pool="club/2025")
    long_ago = timezone.now() - timedelta(days=30)
    Game.objects.filter(tournament_table__round__tournament=duel_cup).update(finished_at=long_ago)
    assert 'href="/ratings/club/2025/"' in client.get("/ratings/").content.decode()
    assert client.get("/ratings/club/2025/").status_code == 200
    data = client.get("/api/ratings/club/2025/").json()
    assert data["pool"] == "club/2025" and len(data["players"]) == 4
    assert {p["last_played"] for p in data["players"]} == {
        long_ago.isoformat().replace("+00:00", "Z")
    }


def test_ratings_on_the_api_are_to_one_decimal(client, duel_cup):
    """The API gives ratings as the ratings contract prints them, to one decimal (a
    three-player game's Elo changes are thirds)."""
    from tournaments.models import RatingEntry

    ann = duel_cup.registrations.get(user__username="ann").user
    RatingEntry.objects.filter(pool="6x5", user=ann).delete()
    RatingEntry.objects.create(pool="6x5", seq=99, user=ann, game_key="x", rating_before=1500.0,
                               expected=1.0, actual=2.0, k=40.0, rating_after=1513.3333333)
    rows = {r["player"]: r for r in client.get("/api/ratings/6x5/").json()["players"]}
    assert (rows["ann"]["rating"], rows["ann"]["change"]) == (1513.3, 13.3)
    standings = client.get(f"/api/tournaments/{duel_cup.slug}/").json()["standings"]
    assert {r["player"]: r["rating"] for r in standings}["ann"] == 1513.3


def test_the_api_rounds_ratings_as_the_command_line_and_the_pages_do(client, duel_cup):
    """A rating on a half (2401.25) reads 2401.3 on the API, as `python -m tournaments.ratings`
    prints it and the pages show it (halves up), not 2401.2 (``round``'s half to even)."""
    from tournaments.models import RatingEntry

    entry = RatingEntry.objects.filter(pool="6x5").order_by("pk").first()
    RatingEntry.objects.filter(pk=entry.pk).update(rating_before=2400.0, rating_after=2401.25)
    name = entry.user.username
    row = next(r for r in client.get("/api/ratings/6x5/").json()["players"] if r["player"] == name)
    assert (row["rating"], row["change"]) == (2401.3, 1.3)
    cup = client.get(f"/api/tournaments/{duel_cup.slug}/").json()
    assert next(r for r in cup["standings"] if r["player"] == name)["rating"] == 2401.3


def test_ratings_that_read_the_same_share_a_rank(client, duel_cup):
    """The pool's page shows ratings whole (1520.5 and 1521.4 both read 1521): players whose
    ratings read the same share a rank, halves rounded up as the page rounds them."""
    from tournaments.models import RatingEntry

    first, second = RatingEntry.objects.filter(pool="6x5", rating_after=1520.0).order_by("pk")
    RatingEntry.objects.filter(pk=first.pk).update(rating_after=1520.5)
    RatingEntry.objects.filter(pk=second.pk).update(rating_after=1521.4)
    rows = client.get("/api/ratings/6x5/").json()["players"]
    assert [(r["player"], r["rank"]) for r in rows[:2]] == [
        (second.user.username, 1), (first.user.username, 1),
    ]  # fmt: skip
