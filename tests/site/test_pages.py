"""Site pages: the landing page, the shared layout, API docs and the error pages."""

import pytest


@pytest.mark.django_db
def test_anonymous_home_is_a_welcome_page(client) -> None:
    html = client.get("/").content.decode()
    assert "Create an account" in html
    assert 'href="/accounts/signup/"' in html and 'href="/accounts/login/"' in html


@pytest.mark.django_db
def test_account_pages_use_the_site_layout(client) -> None:
    html = client.get("/accounts/login/").content.decode()
    assert 'class="site-nav"' in html and 'class="account-card"' in html
    assert "/static/fivex/site.css" in html and "/static/vendor/htmx.min.js" in html


@pytest.mark.django_db
def test_api_docs_and_schema_are_served_without_a_cdn(client) -> None:
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    html = docs.content.decode()
    assert "cdn.jsdelivr.net" not in html
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in html
    # A language, a skip link to the documentation Swagger UI draws (with its own <main>).
    assert '<html lang="en">' in html
    assert 'href="#swagger-ui"' in html and '<div id="swagger-ui" tabindex="-1">' in html
    schema = client.get("/api/schema/")
    assert schema.status_code == 200
    assert b"FiveX API" in schema.content


@pytest.mark.django_db
def test_unknown_page_gets_the_site_404(client) -> None:
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()
    assert 'class="site-nav"' in response.content.decode()


def test_server_error_page_renders_without_a_request_context() -> None:
    # Django renders 500.html with an empty context; it must not fail itself.
    from django.template.loader import render_to_string

    html = render_to_string("500.html", {})
    assert "Something went wrong on our side" in html


@pytest.mark.django_db
def test_the_api_docs_page_answers_other_methods_without_an_error(client) -> None:
    assert client.get("/api/docs/").status_code == 200
    for method in (client.options, client.post, client.delete):
        answer = method("/api/docs/")
        assert answer.status_code == 405 and answer["Allow"] == "GET, HEAD"
        # JSON, as every other answer under /api/ (it was an empty HTML page).
        assert answer["Content-Type"] == "application/json"
        assert answer.json() == {
            "error": "method_not_allowed",
            "message": f'Method "{answer.request["REQUEST_METHOD"]}" not allowed.',
        }


@pytest.mark.django_db
def test_home_lists_the_games_waiting_for_my_order_first(client) -> None:
    """Newest first, except that the games waiting for the player's order lead, the
    nearest deadline first."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Prompt
    from games.services.orders import order_submit
    from tests.games.core_support import make_game

    first, seats1 = make_game(["ann", "bob", "cat"])  # oldest: waits for ann, due latest
    second, seats2 = make_game(["ann", "bob", "dan"])  # ann has sent her order
    third, seats3 = make_game(["ann", "eve", "fay"])  # waits for ann, due soonest
    fourth, _ = make_game(["bob", "cat", "dan"])  # not ann's
    now = timezone.now()
    Prompt.objects.filter(game=first, status="open").update(deadline=now + timedelta(hours=40))
    Prompt.objects.filter(game=third, status="open").update(deadline=now + timedelta(hours=2))
    from games.selectors import legal_orders

    order_submit(seat=seats2["ann"], text=legal_orders(seat=seats2["ann"])[0], source="web")
    client.force_login(seats1["ann"].user)
    html = client.get("/").content.decode()
    positions = [html.index(f'href="/games/{g.pk}/"') for g in (third, first, second)]
    assert positions == sorted(positions), positions
    assert f'href="/games/{fourth.pk}/"' not in html


@pytest.mark.django_db
def test_home_lists_the_games_going_on_and_only_the_last_finished_ones(client) -> None:
    """A league player's walk and a data-at-scale audit: the home page listed every game
    the player ever had (382 rows for one), and games the player only organizes looked
    like its own."""
    import re

    from games.services.games import seat_resign
    from games.services.organizer import game_end
    from tests.games.core_support import make_game

    going, seats = make_game(["ann", "bob", "cat"])
    ann = seats["ann"].user
    resigned, others = make_game(["ann", "dan", "eve"])
    seat_resign(seat=others["ann"])
    from games.services.games import game_create

    organized = game_create(organizer=ann, ruleset="5x", seats_count=3, name="Hosting")
    over = []
    for i in range(12):
        game = game_create(organizer=ann, ruleset="6x5", seats_count=2, name=f"Old {i:02d}")
        game_end(game=game, by=ann, reason="done")
        over.append(game)
    client.force_login(ann)
    html = client.get("/").content.decode()
    head, tail = html.split('id="finished-games"', 1)
    rows = dict(re.findall(r'href="/games/(\d+)/">[^<]*</a></td>.*?<td data-label="You">(player|organizer|resigned)</td>',
                           head, re.S))  # fmt: skip
    assert rows == {
        str(going.pk): "player",
        str(resigned.pk): "resigned",
        str(organized.pk): "organizer",
    }
    from games.services.handover import seat_replace
    from tests.games.web_support import make_user

    going.refresh_from_db()
    seat_replace(seat=seats["bob"], new_user=make_user("sub"), by=going.organizer)
    client.force_login(seats["bob"].user)
    bob_home = client.get("/").content.decode()
    assert re.search(rf'href="/games/{going.pk}/">[^<]*</a></td>.*?<td data-label="You">seat handed over</td>',
                     bob_home, re.S)  # fmt: skip
    listed = re.findall(r'href="/games/(\d+)/">Old (\d+)</a>', tail)
    assert [name for _pk, name in listed] == [f"{i:02d}" for i in range(11, 1, -1)]  # newest 10
    assert "2 more finished games</a> in your games list." in tail


@pytest.mark.django_db
def test_the_programmers_links_stay_out_of_a_players_way(client) -> None:
    """First-time walk: "API docs" in the main navigation and an "API token" button on
    the games list greeted players who will never write a program. The API is in the
    footer and in the account pages."""
    from django.contrib.auth import get_user_model

    client.force_login(get_user_model().objects.create_user("pla", "pla@example.com", "pw"))
    html = client.get("/games/").content.decode()
    nav = html[html.index('<nav class="site-nav"') : html.index("</nav>")]
    assert "/api/docs/" not in nav and ">API token<" not in html
    footer = html[html.index('<footer class="site-footer">') :]
    assert 'href="/api/docs/">API docs</a>' in footer
    assert 'href="/account/api-tokens/"' in client.get("/accounts/email/").content.decode()


@pytest.mark.django_db
def test_home_says_where_the_player_finished_and_that_it_also_organized(client) -> None:
    """First-time walk: a finished game the player played and organized read "player",
    with no place."""
    import re

    from games.services.games import game_create, game_join, seat_resign
    from tests.games.web_support import make_user

    ann, bob = make_user("ann"), make_user("bob")
    game = game_create(organizer=ann, ruleset="6x5", seats_count=2, name="Duel")
    game_join(game=game, user=ann)
    game_join(game=game, user=bob)
    seat_resign(seat=game.seats.get(user=bob))  # a walkover: ann first, bob second
    client.force_login(ann)
    html = client.get("/").content.decode()
    tail = html.split('id="finished-games"', 1)[1]
    assert re.search(rf'href="/games/{game.pk}/">Duel</a></td>.*?<td data-label="You">player and organizer, 1st of 2</td>',
                     tail, re.S), tail  # fmt: skip
    client.force_login(bob)
    tail = client.get("/").content.decode().split('id="finished-games"', 1)[1]
    assert re.search(r'<td data-label="You">resigned, 2nd of 2</td>', tail), tail


@pytest.mark.django_db
def test_a_bad_request_under_the_api_is_json_and_a_page_stays_html(client) -> None:
    # Regression (API fuzzing): a Host the site does not answer to (Django's
    # DisallowedHost, a 400 made outside any view) was Django's HTML page under /api/ too,
    # where every answer is JSON {"error", "message"}.
    answer = client.get("/api/games/", HTTP_HOST="evil.example")
    assert answer.status_code == 400
    assert answer["Content-Type"] == "application/json"
    assert answer.json() == {
        "error": "bad_request",
        "message": "The request's Host header names a site this server does not serve.",
    }
    assert client.get("/api/ping/", HTTP_HOST="evil.example").json()["error"] == "bad_request"
    page = client.get("/games/", HTTP_HOST="evil.example")
    assert page.status_code == 400 and page["Content-Type"].startswith("text/html")
