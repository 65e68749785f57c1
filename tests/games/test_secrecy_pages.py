"""Nothing of another seat's hand, sealed order, bid or salt reaches a player or a
spectator through any page or API response before the rules reveal it.

Deal (fixed): ann GANDHI+CAESAR, bob QIN+DIDO, cat NAPOLEON+TOKUGAWA; seating ann, bob,
cat (each passes to the left). bob keeps DIDO all along: nobody else may ever see it
while the game runs. bob passes QIN to cat: ann and spectators never learn it.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from games.models import SealedOrder
from games.services import games as game_services
from tests.games.web_support import body_text, eager_celery, make_user  # noqa: F401

pytestmark = pytest.mark.django_db

DEAL = {"ann": ["GANDHI", "CAESAR"], "bob": ["QIN", "DIDO"], "cat": ["NAPOLEON", "TOKUGAWA"]}


def words(*items: str) -> list[re.Pattern[str]]:
    return [re.compile(rf"\b{re.escape(item)}\b") for item in items]


DIDO = words("DIDO", "Dido")
QIN = words("QIN", "Qin Shi Huang")


def every_response(client: Client, game_id: int) -> dict[str, str]:
    """Every page and API answer the client's user can get about the game."""
    urls = [
        "/",
        reverse("games:list"),
        reverse("games:detail", args=[game_id]),
        reverse("games:status", args=[game_id]),
        reverse("games:log", args=[game_id]),
        reverse("games:feed", args=[game_id]),
        reverse("games:export", args=[game_id]),
        "/api/games/",
        f"/api/games/{game_id}/",
        f"/api/games/{game_id}/log/",
        f"/api/games/{game_id}/export/",
    ]
    # The review's steps: a prompt not resolved yet has none (404).
    steps = [reverse("games:review", args=[game_id])] + [
        reverse("games:review_step", args=[game_id, n]) for n in (1, 2, 3, 4)
    ]
    out = {}
    for url in urls + steps:
        answer = client.get(url, follow=True)
        allowed = (200, 401, 403, 409, 404) if url in steps[1:] else (200, 401, 403, 409)
        assert answer.status_code in allowed, (url, answer.status_code)
        out[url] = body_text(answer)
    return out


def assert_hidden(pages: dict[str, str], patterns: list[re.Pattern[str]], literals: list[str], who: str):
    for url, text in pages.items():
        for pattern in patterns:
            assert not pattern.search(text), f"{pattern.pattern} visible to {who} at {url}"
        for literal in literals:
            assert literal not in text, f"{literal!r} visible to {who} at {url}"


@pytest.fixture
def table(django_capture_on_commit_callbacks):
    users = {n: make_user(n) for n in ("ann", "bob", "cat", "zed")}
    game = game_services.game_create(
        organizer=users["ann"], ruleset="5x", seats_count=4, setup={"deal": DEAL}
    )
    for name in ("ann", "bob", "cat"):
        game_services.game_join(game=game, user=users[name])
    with django_capture_on_commit_callbacks(execute=True):
        game_services.game_start(game=game, user=users["ann"], fixed_order=["ann", "bob", "cat"])
    clients = {}
    for name, user in users.items():
        clients[name] = Client()
        clients[name].force_login(user)
    clients["anonymous"] = Client()
    return game, clients


def submit(client: Client, game_id: int, text: str) -> None:
    answer = client.post(reverse("games:order", args=[game_id]), {"text": text})
    assert answer.status_code == 302


def salt_of(game, seat: str) -> str:
    return SealedOrder.objects.get(
        prompt__game=game, prompt__status="open", seat_name=seat, is_current=True
    ).salt


def test_sealed_cards_and_bids_stay_hidden_until_revealed(table, eager_celery, django_capture_on_commit_callbacks):  # noqa: F811
    game, clients = table
    observers = ("ann", "cat", "zed", "anonymous")

    # Draft: bob's hand (QIN, DIDO) and his sealed pass are his alone.
    submit(clients["bob"], game.pk, "PASS QIN")
    salt = salt_of(game, "bob")
    own = every_response(clients["bob"], game.pk)
    assert re.search(r"\bDIDO\b", own[f"/api/games/{game.pk}/"])  # bob sees his own hand
    assert "PASS QIN" in own[reverse("games:detail", args=[game.pk])]  # and his receipt
    for who in observers:
        pages = every_response(clients[who], game.pk)
        assert_hidden(pages, DIDO + QIN, [salt, "PASS QIN"], who)

    with django_capture_on_commit_callbacks(execute=True):
        submit(clients["ann"], game.pk, "PASS CAESAR")
        submit(clients["cat"], game.pk, "PASS TOKUGAWA")
    # The draft resolved: cat received QIN (and may see it); bob kept DIDO.
    cat_view = clients["cat"].get(f"/api/games/{game.pk}/").json()
    assert "QIN" in cat_view["view"]["hand"]
    assert cat_view["prompt"]["phase"] == "play"
    for who in ("ann", "anonymous"):
        assert_hidden(every_response(clients[who], game.pk), DIDO + QIN, [salt], who)
    assert_hidden(every_response(clients["cat"], game.pk), DIDO, [salt], "cat")

    # Play: bob's sealed card is hidden; he then replaces it.
    submit(clients["bob"], game.pk, "PLAY DIDO")
    salt = salt_of(game, "bob")
    for who in observers:
        assert_hidden(every_response(clients[who], game.pk), DIDO, [salt, "PLAY DIDO"], who)
    submit(clients["bob"], game.pk, "PLAY EXPAND")
    replaced_salt = salt
    salt = salt_of(game, "bob")
    for who in ("ann", "zed"):
        pages = every_response(clients[who], game.pk)
        # ("PLAY EXPAND" itself is among everyone's legal orders: not a secret text.)
        assert_hidden(pages, DIDO, [salt, replaced_salt], who)
        assert "bob" in pages[reverse("games:status", args=[game.pk])]  # bob's order is in: public

    with django_capture_on_commit_callbacks(execute=True):
        submit(clients["ann"], game.pk, "PLAY EXPAND")
        submit(clients["cat"], game.pk, "PLAY EXPLORE")
    ann_view = clients["ann"].get(f"/api/games/{game.pk}/").json()
    assert ann_view["prompt"]["phase"] == "bid"
    assert ann_view["view"]["players"]["bob"]["played"] == "EXPAND"  # revealed now

    # Bid: bob's sealed bid is hidden from ann (the other bidder) and everyone else.
    submit(clients["bob"], game.pk, "BID 2")
    bid_salt = salt_of(game, "bob")
    for who in observers:
        pages = every_response(clients[who], game.pk)
        # ann may bid too, so "BID 2" is one of her own buttons; the others see no bid text.
        hidden_texts = [] if who == "ann" else ["BID 2"]
        assert_hidden(pages, DIDO, [bid_salt, replaced_salt, *hidden_texts], who)
        if who != "anonymous":
            api_view = clients[who].get(f"/api/games/{game.pk}/").json()
            assert "bid" not in api_view["view"]["players"]["bob"]


def test_6x5_goals_of_other_seats_stay_hidden(django_capture_on_commit_callbacks):
    import engine
    from engine.base import dumps
    from games import selectors

    ann, bob = make_user("ann"), make_user("bob")
    goals = {
        "ann": [[[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]]],
        "bob": [[[0, 0], [0, 1], [0, 2], [1, 2], [2, 2]]],
    }
    game = game_services.game_create(
        organizer=ann, ruleset="6x5", seats_count=2, setup={"goals": goals}
    )
    with django_capture_on_commit_callbacks(execute=True):
        for user in (ann, bob):
            game_services.game_join(game=game, user=user)
    game.refresh_from_db()
    state = selectors.current_state(game=game)
    bob_secrets = engine.get("6x5").secrets(state, "bob")
    ann_secrets = engine.get("6x5").secrets(state, "ann")
    assert bob_secrets and ann_secrets
    client = Client()
    client.force_login(ann)
    mine = dumps(client.get(f"/api/games/{game.pk}/").json())
    assert all(fragment in mine for fragment in ann_secrets)  # the check can see goals
    for url in (f"/api/games/{game.pk}/", f"/api/games/{game.pk}/log/", "/api/games/"):
        text = dumps(client.get(url).json())
        for fragment in bob_secrets:
            assert fragment not in text, url
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert "1 hidden" in page  # bob's row: a count, no drawing
    assert page.count('aria-label="goal: ') == 1  # ann's own goal only


def test_6x5_visible_goals_shows_every_seats_goals_and_still_not_the_deck(django_capture_on_commit_callbacks):
    """With ``visible_goals`` (6x5.md: "everyone sees everyone's goals"), another seat's
    goals are on a player's page and API view, and on a spectator's; the goal deck (the
    cards not drawn yet) stays hidden from everyone."""
    import engine
    from engine.base import dumps
    from games import selectors

    ann, bob, eve = make_user("ann"), make_user("bob"), make_user("eve")
    goals = {
        "ann": [[[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]]],
        "bob": [[[0, 0], [0, 1], [0, 2], [1, 2], [2, 2]]],
    }
    game = game_services.game_create(
        organizer=ann, ruleset="6x5", seats_count=2, setup={"goals": goals}, options={"visible_goals": True}
    )
    with django_capture_on_commit_callbacks(execute=True):
        for user in (ann, bob):
            game_services.game_join(game=game, user=user)
    game.refresh_from_db()
    state = selectors.current_state(game=game)
    assert engine.get("6x5").secrets(state, "bob") == []  # nothing of bob's is secret now
    bob_goal = dumps(state["goals"]["bob"][0])  # as the engine keeps it (canonical form)
    deck = [dumps(card) for card in state["deck"][:3]]
    assert deck  # the next cards exist: their absence below means something
    for user in (ann, eve, None):  # a player, a signed-in outsider, an anonymous visitor
        client = Client()
        seen = []
        if user is not None:  # the API is for signed-in users
            client.force_login(user)
            view = dumps(client.get(f"/api/games/{game.pk}/").json())
            assert bob_goal in view, user
            seen.append(view)
        page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
        assert page.count('aria-label="goal: ') == 2, user  # ann's and bob's drawn
        assert "1 hidden" not in page, user
        seen.append(page)
        for card in deck:
            assert not any(card in text for text in seen), (user, card)
