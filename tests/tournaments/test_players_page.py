"""Find a player (/players/): those who played in a public game or have a rating, the
most active first, or the names holding what was typed; private games count for nothing."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.models import Game
from tests.games.core_support import make_game, make_users, play_defaults
from tests.games.web_support import visible_text
from tournaments.models import RatingEntry

pytestmark = pytest.mark.django_db


def rows(client, **query) -> list[str]:
    html = client.get(reverse("players"), query).content.decode()
    body = (
        html.split('id="players-list"', 1)[1].split("</tbody>", 1)[0]
        if 'id="players-list"' in html
        else ""
    )
    return [visible_text(row).strip() for row in body.split("<tr>")[2:]]


def test_the_most_active_first_and_the_private_not_at_all(client):
    played, _ = make_game(["ann", "bob", "cat"])
    assert play_defaults(played)
    make_game(["ann", "dan", "eve"])  # going on
    secret, _ = make_game(["zed", "zoe", "ann"])
    Game.objects.filter(pk=secret.pk).update(is_private=True)
    make_users(["nobody"])  # never played
    [rated] = make_users(["rita"])  # rated in a tournament game only (its game private)
    RatingEntry.objects.create(
        pool="cup", seq=1, user=rated, game_key="g1", rating_before=1500, expected=0.5,
        actual=1, k=40, rating_after=1520,
    )  # fmt: skip
    listed = rows(client)
    assert "rita 0 0 1" in listed
    assert listed[0] == "ann 1 1 —"  # a finished game and one going on (the private one: nothing)
    names = [row.split()[0] for row in listed]
    assert set(names) == {
        "ann",
        "bob",
        "cat",
        "dan",
        "eve",
        "rita",
    }  # not zed, zoe (private only), nobody
    assert names.index("bob") < names.index("dan")  # played before playing


def test_finding_a_name(client):
    make_game(["anna", "hannah", "ann"])
    assert [r.split()[0] for r in rows(client, q="ANN")] == ["ann", "anna", "hannah"]  # exact first
    page = visible_text(client.get(reverse("players"), {"q": "zzz"}).content.decode())
    assert "No player's name holds “zzz”." in page
    assert client.get(reverse("players"), {"q": "a\x00b"}).status_code == 200
    for page in (reverse("games:list"), reverse("ratings"), reverse("player_profile", args=["ann"])):
        assert f'href="{reverse("players")}"' in client.get(page).content.decode(), page


def test_more_players_than_a_page_are_paged(client, monkeypatch):
    from tournaments import selectors

    monkeypatch.setattr(selectors, "PLAYERS_PAGE", 2)
    make_game(["ann", "bob", "cat"])
    make_game(["abe", "dan", "eve"])  # six players, each in one game going on: by name
    first = client.get(reverse("players")).content.decode()
    assert [r.split()[0] for r in rows(client)] == ["abe", "ann"]
    assert 'href="/players/?page=2" rel="next"' in first and 'rel="prev"' not in first
    assert [r.split()[0] for r in rows(client, page=2)] == ["bob", "cat"]
    last = client.get(reverse("players"), {"page": 3}).content.decode()
    assert [r.split()[0] for r in rows(client, page=3)] == ["dan", "eve"]
    assert 'href="/players/?page=2" rel="prev"' in last and 'rel="next"' not in last
    assert "this is page 3 (from number 5)" in visible_text(last)
    # A search is paged too, the exact name first, and keeps what was typed.
    assert [r.split()[0] for r in rows(client, q="ann")] == ["ann"]
    assert [r.split()[0] for r in rows(client, q="dan")] == ["dan"]
    found = client.get(reverse("players"), {"q": "e"}).content.decode()
    assert [r.split()[0] for r in rows(client, q="e")] == ["abe", "eve"]
    assert 'href="/players/?q=e&amp;page=2" rel="next"' not in found  # two only
    assert [r.split()[0] for r in rows(client, q="a")] == ["abe", "ann"]
    paged = client.get(reverse("players"), {"q": "a", "page": 2}).content.decode()
    assert [r.split()[0] for r in rows(client, q="a", page=2)] == ["cat", "dan"]
    assert 'href="/players/?q=a" rel="prev"' in paged
    # Past the end, or not a page number: the first page.
    for wrong in ("9", "0", "x", "²", "9" * 20):
        answer = client.get(reverse("players"), {"page": wrong})
        assert answer.status_code == 302 and answer["Location"] == "/players/", wrong


def test_an_exact_name_comes_first_however_many_names_hold_it():
    # Guards against the exact name being cut: the names holding the text were read in
    # alphabetical order and cut before the exact one was put first ("abob1" < "bob").
    from tournaments.selectors import players_directory

    users = make_users([f"abob{i}" for i in range(9)] + ["bob"])
    for n, user in enumerate(users):
        RatingEntry.objects.create(
            pool="cup", seq=n + 1, user=user, game_key=f"g{n}", rating_before=1500,
            expected=0.5, actual=1, k=40, rating_after=1520,
        )  # fmt: skip
    found = [row["name"] for row in players_directory(text="Bob", limit=2)]
    assert found == ["bob", "abob0"]
