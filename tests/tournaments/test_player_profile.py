"""A player's public page (/players/<name>/): ratings, public games and tournaments;
nothing of private games; no page for a closed account."""

from __future__ import annotations

import itertools
import re

import pytest
from django.contrib.auth import get_user_model

from games.models import Game, Seat
from games.services.games import game_create, game_join
from tests.games.core_support import make_game, play_defaults
from tournaments.models import RatingEntry
from tournaments.services.tournaments import registration_add, tournament_create, tournament_open


def _user(name: str):
    return get_user_model().objects.get(username=name)


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.mark.django_db
def test_the_page_shows_public_games_with_places_and_never_a_private_one(client) -> None:
    game, _ = make_game(["ann", "bob", "cat"])
    assert play_defaults(game)
    game.refresh_from_db()
    ann_seat = Seat.objects.get(game=game, user__username="ann").name
    # The expected place, read from the ranking itself.
    place, position = None, 1
    for group in game.ranking:
        if ann_seat in group:
            place = ("tied " if len(group) > 1 else "") + {1: "1st", 2: "2nd", 3: "3rd"}[position]
            break
        position += len(group)
    won = ann_seat in game.ranking[0]
    secret = game_create(organizer=_user("ann"), ruleset="5x", seats_count=3, name="Secret league", is_private=True)
    game_join(game=secret, user=_user("ann"), invite_token=secret.invite_token)
    running, _ = make_game(["ann", "dan", "eve"])
    Game.objects.filter(pk=running.pk).update(name="Tuesday table")
    forming = game_create(organizer=_user("bob"), ruleset="6x5", seats_count=3, name="Open six")
    game_join(game=forming, user=_user("ann"))

    page = client.get("/players/ann/")
    assert page.status_code == 200
    text = _text(page.content.decode())
    assert "Secret league" not in text  # private: to nobody
    assert f"{place} of 3" in text
    assert f"1 game played to the end, {int(won)} won" in text
    assert "Tuesday table" in text and "Open six" in text and "waiting for players" in text
    assert f'href="/games/{game.pk}/"' in page.content.decode()
    client.force_login(_user("ann"))  # her own page: still not there, and she is told why
    own = _text(client.get("/players/ann/").content.decode())
    assert "Secret league" not in own and "Your private games are not shown here" in own
    # The header links to it.
    assert 'href="/players/ann/"' in client.get("/games/").content.decode()


@pytest.mark.django_db
def test_a_seat_handed_over_is_not_the_players_game(client) -> None:
    game, seats = make_game(["ann", "bob", "cat"])
    Game.objects.filter(pk=game.pk).update(name="Left early")
    seats["ann"].status = Seat.Status.REPLACED
    seats["ann"].save(update_fields=["status"])
    assert "Left early" not in client.get("/players/ann/").content.decode()
    assert "Left early" in client.get("/players/bob/").content.decode()


@pytest.mark.django_db
def test_ratings_in_every_pool_and_tournaments_entered_but_not_drafts(client) -> None:
    ann = get_user_model().objects.create_user(username="ann", email="ann@example.com")
    boss = get_user_model().objects.create_user(username="boss", email="boss@example.com")
    for pool, steps in {"league:5x": [1500.0, 1520.4, 1534.6], "cup": [1500.0, 1487.3]}.items():
        for seq, (before, after) in enumerate(itertools.pairwise(steps), start=1):
            RatingEntry.objects.create(
                pool=pool, seq=seq, user=ann, game_key=f"g{seq}", rating_before=before,
                expected=0.5, actual=1.0, k=40, rating_after=after,
            )  # fmt: skip
    running = tournament_create(organizer=boss, name="Winter Open", ruleset="5x", table_sizes=[3], rounds_count=3)
    tournament_open(tournament=running, by=boss)
    registration_add(tournament=running, user=ann)
    tournament_create(organizer=ann, name="Unannounced Cup", ruleset="5x", table_sizes=[3], rounds_count=3)
    body = client.get("/players/ann/").content.decode()
    text = _text(body)
    assert "league:5x : 1535 after 2 rated games" in text
    assert "cup : 1487 after 1 rated game" in text
    assert 'href="/ratings/league:5x/"' in body and "<svg" in body
    assert "Winter Open" in text and "Unannounced Cup" not in text  # a draft is not public
    # The pool's list links to the players' pages.
    assert 'href="/players/ann/"' in client.get("/ratings/league:5x/").content.decode()


@pytest.mark.django_db
def test_no_page_for_a_closed_account_or_nobody(client) -> None:
    get_user_model().objects.create_user(username="gone", email="gone@example.com", is_active=False)
    assert client.get("/players/gone/").status_code == 404
    assert client.get("/players/nobody/").status_code == 404
    assert client.get("/players/%00/").status_code == 404


@pytest.mark.django_db
def test_a_newcomers_page_says_so_plainly(client) -> None:
    get_user_model().objects.create_user(username="newbie", email="newbie@example.com")
    text = _text(client.get("/players/newbie/").content.decode())
    assert "no game played to the end yet" in text and "0 won" not in text


@pytest.mark.django_db
def test_the_game_pages_seats_link_to_their_players_pages(client) -> None:
    game, _ = make_game(["ann", "bob", "cat"])
    get_user_model().objects.filter(username="cat").update(is_active=False)  # closed: no page
    body = client.get(f"/games/{game.pk}/").content.decode()
    seats = body.split('<ul class="plain seats"', 1)[1].split("</ul>", 1)[0]
    assert 'href="/players/ann/"' in seats and 'href="/players/bob/"' in seats
    assert 'href="/players/cat/"' not in seats and ">cat<" in seats


@pytest.mark.django_db
def test_the_page_says_how_the_player_kept_their_deadlines(client) -> None:
    """Orders sent (web, API, email) against deadlines a default order filled, in public
    games; a resigned seat's defaults and a private game's count for nothing."""
    from datetime import timedelta

    from django.utils import timezone

    import engine
    from games.selectors import current_state
    from games.services.games import seat_resign
    from games.services.orders import order_submit
    from games.services.resolution import prompt_resolve

    def expire(game: Game, number: int) -> None:
        game.prompts.filter(number=number).update(deadline=timezone.now() - timedelta(minutes=1))
        assert prompt_resolve(game_id=game.pk, prompt_number=number, fill_missing=True)

    def send(game: Game, seats: dict, name: str, source: str) -> None:
        prompt = game.prompts.get(resolved_at__isnull=True)
        text = engine.get(game.ruleset).legal_orders(current_state(game=game), name)[0]
        assert name in prompt.pending
        order_submit(seat=seats[name], text=text, source=source)

    game, seats = make_game(["ann", "bob", "cat"])
    seats = {s.name: s for s in game.seats.all()}
    send(game, seats, "ann", "web")
    send(game, seats, "bob", "api")
    expire(game, 1)  # the draft: cat missed it
    send(game, seats, "cat", "email")
    seat_resign(seat=Seat.objects.get(game=game, name="ann"))  # her defaults from now on
    expire(game, 2)  # round 1's play: bob missed it, ann had resigned
    hidden, _ = make_game(["cat", "dan", "eve"])
    Game.objects.filter(pk=hidden.pk).update(is_private=True)
    expire(hidden, 1)  # cat missed a private game's draft: not shown

    def said(name: str) -> str:
        html = client.get(f"/players/{name}/").content.decode()
        found = re.search(r'id="player-deadlines">(.*?)</p>', html, re.S)
        return _text(found[1]).strip() if found else ""

    assert said("ann").startswith("Deadlines kept: 100% — 1 order sent in time, no deadline missed.")
    assert said("bob").startswith("Deadlines kept: 50% — 1 order sent in time, 1 deadline missed")
    assert said("cat").startswith("Deadlines kept: 50% — 1 order sent in time, 1 deadline missed")
    assert said("dan") == ""  # only a private game: nothing to say
