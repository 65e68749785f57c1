"""The tournament pages: the organizer's panel end to end, public pages, refusals."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tournaments import selectors
from tournaments.models import Round, Table, Tournament
from tournaments.services import results, rounds

pytestmark = pytest.mark.django_db


@pytest.fixture
def people():
    from django.contrib.auth.models import Permission

    User = get_user_model()
    org = User.objects.create_user("org", "org@example.com", "pw")
    # A league administrator: may enter other players (players register themselves).
    org.user_permissions.add(Permission.objects.get(codename="add_registration"))
    players = [User.objects.create_user(n, f"{n}@example.com", "pw") for n in ("ann", "bob", "cat", "dan")]
    return org, players


def test_organizer_runs_a_round_from_the_panel(client, people):
    org, players = people
    client.force_login(org)
    resp = client.post(reverse("tournaments:create"), {
        "name": "Spring open", "ruleset": "6x5", "opt__6x5__goals": "1", "table_sizes": "2",
        "rounds_count": 2, "deadline_hours": 24, "tiebreaks": ["buchholz", "wins"],
    })
    t = Tournament.objects.get(name="Spring open")
    assert resp.status_code == 302 and resp.url == reverse("tournaments:manage", args=[t.slug])
    act = lambda name, **data: client.post(reverse("tournaments:manage_action", args=[t.slug, name]), data)  # noqa: E731
    act("open")
    for p in players:
        act("register", user=p.username)
    assert t.registrations.count() == 4
    act("pair")
    rnd = Round.objects.get(tournament=t, number=1)
    assert rnd.tables.count() == 2
    act("start")
    rnd.refresh_from_db()
    assert rnd.status == "started" and all(tb.game_id for tb in rnd.tables.all())

    page = client.get(reverse("tournaments:round", args=[t.slug, 1])).content.decode()
    for p in players:
        assert p.username in page
    # Each table's game by the name its page and emails give it, not "Game 12".
    panel = client.get(reverse("tournaments:manage", args=[t.slug])).content.decode()
    for tb in rnd.tables.all():
        link = f'<a href="{reverse("games:detail", args=[tb.game_id])}">Spring open R1 · table {tb.number}</a>'
        assert link in page and link in panel
    # While round 1 is played nobody has a result or a bye: the standings are all zero
    # (no virtual opponents' Buchholz) and the page says the round is under way.
    from tournaments.selectors import standings

    assert all(r["points"] == 0 and set(r["tiebreaks"].values()) == {0} for r in standings(tournament=t))
    detail = client.get(reverse("tournaments:detail", args=[t.slug])).content.decode()
    assert "Round 1 is under way" in detail and "Standings after round" not in detail
    # A player's tournament page links to the game they play now.
    client.force_login(players[0])
    mine = client.get(reverse("tournaments:detail", args=[t.slug])).content.decode()
    game = next(tb.game for tb in rnd.tables.all() if t.registrations.get(user=players[0]).pk in tb.players)
    assert 'id="my-game"' in mine and reverse("games:detail", args=[game.pk]) in mine
    client.force_login(org)
    assert 'id="my-game"' not in client.get(reverse("tournaments:detail", args=[t.slug])).content.decode()
    panel = client.get(reverse("tournaments:manage", args=[t.slug])).content.decode()
    assert "<td>Round started (round 1)</td>" in panel and "round_started" not in panel
    # A result by hand is refused while the table's game is played (the panel says so) ...
    first = rnd.tables.first()
    names = [
        get_user_model().objects.get(pk=t.registrations.get(pk=p).user_id).username
        for p in first.players
    ]
    refused = client.post(
        reverse("tournaments:manage_action", args=[t.slug, "result"]),
        {"table": first.pk, "ranking": " > ".join(names), "reason": "played offline"},
        follow=True,
    )
    assert "still being played" in refused.content.decode()
    assert Table.objects.get(pk=first.pk).ranking is None
    # ... so the organizer ends the games (played offline), then enters both results.
    from games.services.organizer import game_end

    for table in rnd.tables.all():
        game_end(game=table.game, by=org, reason="played offline")
    for table in rnd.tables.all():
        winner = get_user_model().objects.get(pk=t.registrations.get(pk=table.players[1]).user_id)
        loser = get_user_model().objects.get(pk=t.registrations.get(pk=table.players[0]).user_id)
        resp = act("result", table=table.pk, ranking=f"{winner.username} > {loser.username}", reason="played offline")
        assert resp.status_code == 302
    rnd.refresh_from_db()
    assert rnd.status == "finished"
    # The panel shows each table's result and that it was entered by hand.
    panel = client.get(reverse("tournaments:manage", args=[t.slug])).content.decode()
    assert panel.count("(entered by hand)") == 2 and "pending" not in panel
    detail = client.get(reverse("tournaments:detail", args=[t.slug])).content.decode()
    assert "Buchholz" in detail and "Wins" in detail
    assert "Standings after round 1" in detail and 'id="round-open"' not in detail
    # Two winners with 1 point, each with one opponent on 0: Buchholz 0; the losers' 1.
    rows = standings(tournament=t)
    assert sorted((r["points"], r["tiebreaks"]["buchholz"]) for r in rows) == [(0, 1), (0, 1), (1, 0), (1, 0)]
    reg = t.registrations.get(pk=rnd.tables.first().players[1])
    player = client.get(reverse("tournaments:player", args=[t.slug, reg.pk])).content.decode()
    assert "<svg" in player and "rating-chart" in player  # a rating graph from the ledger
    assert results.ratings_differences(pool=t.rating_pool) == []


def test_bad_input_gets_a_message_not_a_500(client, people):
    org, players = people
    client.force_login(org)
    resp = client.post(reverse("tournaments:create"), {
        "name": "Bad", "ruleset": "5x", "points_per_place": "{not json", "table_sizes": "4, x",
        "rounds_count": 2, "deadline_hours": 24,
    })
    assert resp.status_code == 200
    body = resp.content.decode()
    assert "not valid JSON" in body and "whole numbers" in body
    deep = client.post(reverse("tournaments:create"), {
        "name": "Deep", "ruleset": "5x", "points_per_place": '{"4": ' + "[" * 5000 + "]" * 5000 + "}",
        "table_sizes": "4", "rounds_count": 2, "deadline_hours": 24,
    })
    assert deep.status_code == 200 and "nested too deeply" in deep.content.decode()
    resp = client.post(reverse("tournaments:create"), {
        "name": "Too big", "ruleset": "5x", "table_sizes": "7", "rounds_count": 2,
        "deadline_hours": 24,
    })
    assert "a table of 7 is not possible" in resp.content.decode()
    t = Tournament.objects.create(name="X", slug="x", organizer=org, ruleset="5x", table_sizes=[3], rounds_count=1)
    resp = client.post(reverse("tournaments:manage_action", args=[t.slug, "pair"]), follow=True)
    assert resp.status_code == 200 and "Open the tournament before pairing" in resp.content.decode()
    resp = client.post(reverse("tournaments:manage_action", args=[t.slug, "register"]), {"user": "nobody"}, follow=True)
    assert "No user" in resp.content.decode()


def test_strangers_cannot_manage(client, people):
    org, players = people
    t = Tournament.objects.create(name="X", slug="x", organizer=org, ruleset="5x", table_sizes=[3], rounds_count=1)
    client.force_login(players[0])
    # A draft is not there for them at all; an open tournament says who may manage it.
    assert client.post(reverse("tournaments:manage_action", args=[t.slug, "open"])).status_code == 404
    assert client.get(reverse("tournaments:manage", args=[t.slug])).status_code == 404
    t.refresh_from_db()
    assert t.status == "draft"
    Tournament.objects.filter(pk=t.pk).update(status="open")
    resp = client.post(reverse("tournaments:manage_action", args=[t.slug, "close"]), {"confirm": "1"}, follow=True)
    assert "Only the tournament" in resp.content.decode()
    t.refresh_from_db()
    assert t.status == "open"
    resp = client.get(reverse("tournaments:manage", args=[t.slug]))
    assert resp.status_code == 302


def test_public_pages_render_for_anonymous_visitors(client, people):
    org, _players = people
    Tournament.objects.create(name="Public", slug="public", organizer=org, ruleset="5x", table_sizes=[3],
                              rounds_count=1, status="open")
    assert "Public" in client.get(reverse("tournaments:list")).content.decode()
    page = client.get(reverse("tournaments:detail", args=["public"]))
    assert page.status_code == 200
    # A visitor is shown how to take part: log in (or sign up), then back to this page.
    assert 'href="/accounts/login/?next=/tournaments/public/">Log in to register</a>' in page.content.decode()
    assert 'href="/accounts/signup/?next=/tournaments/public/">sign up</a>' in page.content.decode()
    Tournament.objects.filter(slug="public").update(rating_pool="own:5x")
    detail = client.get(reverse("tournaments:detail", args=["public"])).content.decode()
    assert (f'rated in <a href="{reverse("rating_pool", args=["own:5x"])}">the own:5x ratings</a> '
            "(the organizer's own pool: the league's ratings do not move)") in detail.replace("&#x27;", "'")
    # A player's walk: "deadline 48 h per decision" where "2 days" reads at once (the default).
    assert " · deadline 2 days per decision" in detail
    Tournament.objects.filter(slug="public").update(deadline_hours=36)
    assert " · deadline 1 day and 12 hours per decision" in client.get(
        reverse("tournaments:detail", args=["public"])).content.decode()
    Tournament.objects.filter(slug="public").update(status="closed")
    assert "register-cta" not in client.get(reverse("tournaments:detail", args=["public"])).content.decode()
    assert client.get(reverse("tournaments:detail", args=["nope"])).status_code == 404


def test_player_requests_a_bye_and_is_not_paired(client, people):
    from tournaments.services import rounds
    from tournaments.services import tournaments as tsvc

    org, players = people
    t = tsvc.tournament_create(organizer=org, name="Byes", ruleset="6x5", table_sizes=[2], rounds_count=2)
    tsvc.tournament_open(tournament=t, by=org)
    for p in players:
        tsvc.registration_add(tournament=t, user=p)
    client.force_login(players[0])
    resp = client.post(reverse("tournaments:bye", args=[t.slug]), {"round": "1"}, follow=True)
    assert "Bye requested for round 1" in resp.content.decode()
    resp = client.post(reverse("tournaments:bye", args=[t.slug]), {"round": "9"}, follow=True)
    assert "can be requested for a round that is not paired yet" in resp.content.decode()
    rnd = rounds.round_pair(tournament=t, by=org)
    reg = t.registrations.get(user=players[0])
    assert all(reg.pk not in tb.players for tb in rnd.tables.all())
    bye = rnd.byes.get(registration=reg)
    assert bye.kind == "requested" and bye.points == 0.5
    # The three others: one table of two and one pairing bye.
    assert rnd.tables.count() == 1 and rnd.byes.filter(kind="pairing").count() == 1


def test_closing_needs_confirming_and_a_closed_tournament_is_final(client, people):
    from tournaments.services import tournaments as tsvc

    org, players = people
    t = tsvc.tournament_create(organizer=org, name="Final", ruleset="6x5", table_sizes=[2], rounds_count=2)
    tsvc.tournament_open(tournament=t, by=org)
    for p in players:
        tsvc.registration_add(tournament=t, user=p)
    client.force_login(org)
    act = lambda name, **data: client.post(  # noqa: E731
        reverse("tournaments:manage_action", args=[t.slug, name]), data, follow=True
    )
    assert "Tick the box to confirm" in act("close").content.decode()
    t.refresh_from_db()
    assert t.status == "open"
    assert "The tournament is closed." in act("close", confirm="yes").content.decode()
    t.refresh_from_db()
    assert t.status == "closed"
    # A second close (a double click's second request): said so, not the success again.
    again = act("close", confirm="yes").content.decode()
    assert "The tournament was already closed: nothing changed." in again
    assert "The tournament is closed." not in again
    assert t.log.filter(kind="tournament_closed").count() == 1

    reg = t.registrations.get(user=players[0])
    page = act("withdraw", registration=reg.pk).content.decode()
    assert "This tournament is closed: its standings are final." in page
    assert "closed: no more rounds can be paired" in act("pair").content.decode()
    client.force_login(players[0])
    resp = client.post(reverse("tournaments:bye", args=[t.slug]), {"round": "2"}, follow=True)
    assert "This tournament is closed" in resp.content.decode()
    resp = client.post(reverse("tournaments:withdraw", args=[t.slug]), follow=True)
    assert "This tournament is closed" in resp.content.decode()
    reg.refresh_from_db()
    assert reg.status == "active" and reg.requested_byes == []
    assert not t.log.filter(kind__in=["registration_withdrawn", "bye_requested", "round_paired"]).exists()


@pytest.mark.parametrize("table", ["abc", "", "-1", "99999999999999999999999", "1.5", "999999",
                                   "9" * 5000, "0" * 4400 + "1"])  # past int()'s 4,300 digits: a 500
def test_result_for_a_table_that_is_no_id_is_refused(client, people, table):
    org, _players = people
    t = Tournament.objects.create(name="X", slug="x", organizer=org, ruleset="5x", table_sizes=[3],
                                  rounds_count=1, status="open")
    client.force_login(org)
    resp = client.post(reverse("tournaments:manage_action", args=[t.slug, "result"]),
                       {"table": table, "ranking": "ann > bob"}, follow=True)
    assert resp.status_code == 200
    assert "Choose a table of this tournament." in resp.content.decode()


def _create(client, **fields):
    data = {"name": "Autumn cup", "ruleset": "5x", "table_sizes": "4, 3", "rounds_count": 3,
            "deadline_hours": 24, "opt__5x__leaders": "on"}
    data.update(fields)
    return client.post(reverse("tournaments:create"), data)


def test_create_form_shows_each_games_options_and_keeps_the_chosen_ones(client, people):
    org, _players = people
    client.force_login(org)
    page = client.get(reverse("tournaments:create")).content.decode()
    # One fieldset per game, its options as fields (no JSON to write).
    for ruleset in ("5x", "6x5", "4x-dice"):
        assert f'data-ruleset-options="{ruleset}"' in page
    assert 'name="opt__5x__all_leaders"' in page and 'name="opt__4x-dice__dice"' in page
    assert 'name="options"' not in page
    # 5X with all leaders; a value left in another game's hidden field (out of range
    # for 6x5) neither blocks the form nor reaches the tournament.
    resp = _create(client, opt__5x__all_leaders="on", opt__6x5__goals="99",
                   points_per_place="4: 3 2 1 0\n3: 2, 1, 0")
    t = Tournament.objects.get(name="Autumn cup")
    assert resp.status_code == 302
    assert t.options == {"leaders": True, "all_leaders": True}
    assert t.points_per_place == {"4": [3.0, 2.0, 1.0, 0.0], "3": [2.0, 1.0, 0.0]}
    resp = _create(client, name="Dice cup", ruleset="4x-dice", table_sizes="2",
                   **{"opt__4x-dice__dice": "2"})
    assert resp.status_code == 302
    assert Tournament.objects.get(name="Dice cup").options == {"dice": 2}


@pytest.mark.parametrize(
    ("points", "message"),
    [
        ("4 3 2 1 0", "as a table size, a colon and the points"),
        ("4: three two one none", "as a table size, a colon and the points"),
        ("4:", "as a table size, a colon and the points"),
        ("4: 3 2 1", "must be 4 numbers"),
        ("4: 3 2 1 0; 4: 1 1 0 0", "given twice"),
        ("4: 0 1 2 3", "must not increase"),
        ("4: nan nan nan nan", "must be 4 numbers"),
        ('{"4": [Infinity, 1, 0, 0]}', "must be 4 numbers"),
        ("5: 4 3 2 1 0", "tables of 5, which are not allowed"),
        ("[1, 0]", "as a table size, a colon and the points"),
    ],
)
def test_bad_points_per_place_are_refused_with_the_reason(client, people, points, message):
    org, _players = people
    client.force_login(org)
    resp = _create(client, points_per_place=points)
    assert resp.status_code == 200
    assert message in resp.content.decode()
    assert not Tournament.objects.exists()


def test_a_bad_option_of_the_chosen_game_is_refused(client, people):
    org, _players = people
    client.force_login(org)
    resp = _create(client, ruleset="6x5", table_sizes="2", opt__6x5__goals="9")
    assert resp.status_code == 200
    assert "less than or equal to 5" in resp.content.decode()
    assert not Tournament.objects.exists()


def test_players_actions_answer_in_words(client, people):
    """A player's own buttons: registering twice, withdrawing or asking a bye while not
    registered get a message, not a 404; withdrawing says what happens to a game under way."""
    from tournaments.models import Registration

    org, players = people
    t = Tournament.objects.create(name="X", slug="x", organizer=org, ruleset="5x", table_sizes=[3],
                                  rounds_count=2, status="open")
    client.force_login(players[0])
    for name in ("withdraw", "bye"):
        resp = client.post(reverse(f"tournaments:{name}", args=[t.slug]), {"round": "1"}, follow=True)
        assert resp.status_code == 200
        assert "You are not registered in this tournament." in resp.content.decode()
    assert not Registration.objects.exists()
    first = client.post(reverse("tournaments:register", args=[t.slug]), follow=True)
    assert "You are registered." in first.content.decode()
    again = client.post(reverse("tournaments:register", args=[t.slug]), follow=True)
    assert "You are already registered." in again.content.decode()
    assert Registration.objects.filter(tournament=t, user=players[0]).count() == 1
    gone = client.post(reverse("tournaments:withdraw", args=[t.slug]), follow=True)
    assert "A game of yours already under way goes on" in gone.content.decode()
    assert Registration.objects.get(tournament=t, user=players[0]).status == "withdrawn"


def test_a_refused_panel_form_shows_what_was_typed_once(client, people):
    """A refused result, hand pairing or registration comes back with its text in the
    same form (the table's own form, not the others'), once."""
    from tournaments.services import rounds
    from tournaments.services import tournaments as tsvc

    org, players = people
    t = tsvc.tournament_create(organizer=org, name="Typed", ruleset="6x5", table_sizes=[2],
                               rounds_count=2)  # fmt: skip
    tsvc.tournament_open(tournament=t, by=org)
    for p in players:
        tsvc.registration_add(tournament=t, user=p)
    client.force_login(org)
    act = lambda name, **data: client.post(reverse("tournaments:manage_action", args=[t.slug, name]), data)  # noqa: E731
    panel = reverse("tournaments:manage", args=[t.slug])

    act("pair_by_hand", tables="ann bob\ncat zed")
    page = client.get(panel).content.decode()
    assert "zed" in page and "ann bob\ncat zed</textarea>" in page
    assert "</textarea>" in client.get(panel).content.decode()
    assert "cat zed" not in client.get(panel).content.decode()  # shown once

    act("register", user="nobody-here")
    page = client.get(panel).content.decode()
    assert 'value="nobody-here" aria-invalid="true"' in page

    rnd = rounds.round_pair(tournament=t, by=org)
    rounds.round_start(rnd=rnd, by=org)
    first, second = rnd.tables.order_by("number")
    act("result", table=str(second.pk), round="1", ranking="ann > <b>nobody</b>", reason="no show")
    page = client.get(panel).content.decode()
    forms = page.split('name="table" value="')[1:]
    mine = next(f for f in forms if f.startswith(f'{second.pk}"'))
    other = next(f for f in forms if f.startswith(f'{first.pk}"'))
    assert 'value="ann &gt; &lt;b&gt;nobody&lt;/b&gt;" aria-invalid="true"' in mine.split("</form>")[0]
    assert 'value="no show"' in mine.split("</form>")[0]
    assert "no show" not in other.split("</form>")[0]
    assert Table.objects.get(pk=second.pk).ranking in (None, [])
    # Another tournament's panel never shows this one's draft.
    act("result", table=str(second.pk), round="1", ranking="x", reason="kept for Typed")
    t2 = tsvc.tournament_create(organizer=org, name="Other", ruleset="6x5", table_sizes=[2],
                                rounds_count=1)  # fmt: skip
    assert "kept for Typed" not in client.get(reverse("tournaments:manage", args=[t2.slug])).content.decode()


def test_a_player_sees_its_bye_and_may_take_back_a_requested_one(client):
    """From a league player's walk: a bye was told by email only (the tournament's page
    said nothing), and a requested bye could not be taken back."""
    from tests.tournaments.test_tournament_services import _open_cup

    organizer, players, t, regs = _open_cup("byp", 4, rounds_count=3)
    ann = players[0]
    client.force_login(ann)
    client.post(f"/tournaments/{t.slug}/bye/", {"round": "1"})
    client.post(f"/tournaments/{t.slug}/bye/", {"round": "2"})
    page = client.get(f"/tournaments/{t.slug}/").content.decode()
    assert 'aria-label="Take back the bye for round 2"' in page
    taken = client.post(f"/tournaments/{t.slug}/bye/cancel/", {"round": "2"}, follow=True)
    assert "Bye for round 2 taken back: you will be paired." in taken.content.decode()
    regs[0].refresh_from_db()
    assert regs[0].requested_byes == [1]
    again = client.post(f"/tournaments/{t.slug}/bye/cancel/", {"round": "2"}, follow=True)
    assert "No bye was requested for round 2." in again.content.decode()
    assert client.post(f"/tournaments/{t.slug}/bye/cancel/", {"round": "x"}).status_code == 302
    assert client.post(f"/tournaments/{t.slug}/bye/cancel/", {"round": "9" * 5000}).status_code == 302
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    page = client.get(f"/tournaments/{t.slug}/").content.decode()
    assert 'id="my-bye">Round 1: you have a requested bye (' in page
    late = client.post(f"/tournaments/{t.slug}/bye/cancel/", {"round": "1"}, follow=True)
    assert "Round 1 is paired already" in late.content.decode()
    regs[0].refresh_from_db()
    assert regs[0].requested_byes == [1]


def test_a_garbled_round_in_a_bye_request_or_take_back_is_refused_and_changes_nothing(client):
    from tests.tournaments.test_tournament_services import _open_cup

    organizer, players, t, regs = _open_cup("byg", 4, rounds_count=3)
    client.force_login(players[0])
    client.post(f"/tournaments/{t.slug}/bye/", {"round": "2"})
    for raw in ["", "x", "-1", "2.0", "\u0663", "9" * 5000, "12345"]:
        asked = client.post(f"/tournaments/{t.slug}/bye/", {"round": raw}, follow=True)
        assert asked.status_code == 200
        assert "Choose the round you will miss." in asked.content.decode()
        taken = client.post(f"/tournaments/{t.slug}/bye/cancel/", {"round": raw}, follow=True)
        assert taken.status_code == 200
        assert "Choose the round whose bye you take back." in taken.content.decode()
    regs[0].refresh_from_db()
    assert regs[0].requested_byes == [2]
    padded = client.post(f"/tournaments/{t.slug}/bye/", {"round": " 3 "}, follow=True)
    assert "Bye requested for round 3." in padded.content.decode()
    regs[0].refresh_from_db()
    assert regs[0].requested_byes == [2, 3]


def test_a_bye_request_that_leaves_players_unseated_says_so(client):
    """From a league player's walk: six players at tables of 3; one bye request left five,
    and two more got pairing byes with no warning to anyone."""
    from tests.tournaments.test_tournament_services import _open_cup

    _organizer, players, t, _regs = _open_cup("byw", 6, table_sizes=(3,), rounds_count=3)
    client.force_login(players[0])
    asked = client.post(f"/tournaments/{t.slug}/bye/", {"round": "2"}, follow=True).content.decode()
    assert ("With the byes asked for round 2, 5 players remain for tables of 3: 2 of them will "
            "get a pairing bye unless someone else joins or asks for one.") in asked  # fmt: skip
    client.force_login(players[1])
    second = client.post(f"/tournaments/{t.slug}/bye/", {"round": "2"}, follow=True).content.decode()
    assert "4 players remain for tables of 3: 1 of them will get a pairing bye" in second
    client.force_login(players[2])
    third = client.post(f"/tournaments/{t.slug}/bye/", {"round": "2"}, follow=True).content.decode()
    assert "Bye requested for round 2." in third and "pairing bye" not in third  # one table of 3


def test_too_few_players_left_by_bye_requests_are_counted_in_english():
    """It read "1 player(s) remain: too few for a table of 2"."""
    from tests.tournaments.test_tournament_services import _open_cup

    _organizer, _players, t, regs = _open_cup("byf", 3, table_sizes=(3,))
    for reg in regs[:1]:
        reg.requested_byes = [1]
        reg.save(update_fields=["requested_byes"])
    assert selectors.pairing_byes_ahead(tournament=t, round_number=1) == (
        "With the byes asked for round 1, 2 players remain: too few for a table of 3."
    )
    regs[1].requested_byes = [1]
    regs[1].save(update_fields=["requested_byes"])
    assert selectors.pairing_byes_ahead(tournament=t, round_number=1) == (
        "With the byes asked for round 1, 1 player remains: too few for a table of 3."
    )


def test_round_page_and_panel_say_which_seats_each_table_waits_for(client):
    """From the organizer's side: chasing slow players meant opening every table's game."""
    import engine
    from games.selectors import current_state
    from games.services.orders import order_submit
    from tests.tournaments.test_tournament_services import _open_cup

    organizer, players, t, regs = _open_cup("wtf", 4)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    first, second = rnd.tables.select_related("game").order_by("number")
    pending = list(first.game.prompts.get(number=1).pending)
    assert len(pending) == 1  # 6x5: one seat moves at a time
    mover = first.game.seats.get(name=pending[0])
    waiting_second = list(second.game.prompts.get(number=1).pending)

    def cells(html: str) -> list[str]:
        return re.findall(r'<span class="waiting-for">([^<]*)</span>', html)

    page = client.get(f"/tournaments/{t.slug}/rounds/1/").content.decode()
    assert cells(page) == [pending[0], ", ".join(waiting_second)]
    # Where the game stands, as its emails say it (6x5 counts turns), not a prompt number
    # (an organizer's journey: organizers do not know prompts).
    assert '<span class="muted small">(turn 1)</span>' in page and "(prompt 1)" not in page
    # The player's own box on the tournament's page says whether its order is wanted.
    other = first.game.seats.exclude(pk=mover.pk).get()
    client.force_login(mover.user)
    mine = client.get(f"/tournaments/{t.slug}/").content.decode()
    assert re.search(r'id="my-game">[^\n]*<strong>your order is needed</strong> by ', mine)  # as the home page says it
    client.force_login(other.user)
    theirs = client.get(f"/tournaments/{t.slug}/").content.decode()
    assert re.search(r'id="my-game">[^\n]*: nothing to order now\.</p>', theirs)
    client.logout()
    text = engine.get("6x5").legal_orders(current_state(game=first.game), mover.name)[0]
    sealed = order_submit(seat=mover, text=text, source="web")  # not resolved here
    page = client.get(f"/tournaments/{t.slug}/rounds/1/").content.decode()
    assert cells(page) == [", ".join(waiting_second)]
    assert "every order is in" in page
    assert text not in page and sealed.salt not in page  # who sealed is public, not what
    client.force_login(mover.user)
    mine = client.get(f"/tournaments/{t.slug}/").content.decode()
    assert "your order is needed" not in mine and ": nothing to order now." in mine
    client.force_login(organizer)
    panel = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    assert cells(panel) == [", ".join(waiting_second)]
    assert "every order is in" in panel and "(deadline " in panel
    # A game that ended early (here a walkover) leaves its prompt open: nobody is waited for.
    from games.services.games import seat_resign

    seat_resign(seat=second.game.seats.get(name=waiting_second[0]))
    page = client.get(f"/tournaments/{t.slug}/rounds/1/").content.decode()
    assert cells(page) == []


def test_the_organizer_reminds_every_player_a_round_waits_for(client, django_capture_on_commit_callbacks):
    from games.models import OutboxMessage
    from tests.tournaments.test_tournament_services import _open_cup

    organizer, players, t, regs = _open_cup("rmr", 4)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    client.force_login(organizer)
    assert 'id="remind-round"' not in client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    rounds.round_start(rnd=rnd, by=organizer)
    assert 'id="remind-round"' in client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    url = reverse("tournaments:manage_action", args=[t.slug, "remind"])
    with django_capture_on_commit_callbacks(execute=True):
        done = client.post(url, follow=True).content.decode()
    assert "Reminder sent to 2 players at 2 tables." in done  # 6x5: one seat to move a table
    waiting = sorted(
        name for table in rnd.tables.select_related("game") for name in table.game.prompts.get(number=1).pending
    )
    nudged = OutboxMessage.objects.filter(key__startswith="nudge:", game__in=[tb.game for tb in rnd.tables.all()])
    assert sorted(m.seat.name for m in nudged) == waiting
    again = client.post(url, follow=True).content.decode()
    assert "Nobody to remind in round 1" in again
    assert "reminded for their decision already." in again  # the API's word: prompt
    assert t.log.filter(kind="players_reminded", payload__players=2).count() == 1
    client.force_login(players[0])
    refused = client.post(url, follow=True).content.decode()
    assert "Only the tournament&#x27;s organizer can manage it." in refused
    assert nudged.count() == 2


def test_a_round_reminder_goes_on_past_a_busy_table_and_says_so(monkeypatch):
    """From a review: a busy table (GameBusy is a GameStateError) was skipped as if it had
    nobody to remind; with every table busy the organizer read 'Nobody to remind'."""
    from games.errors import GameBusy
    from games.services import organizer as organizer_services
    from tests.tournaments.test_tournament_services import _open_cup

    organizer, players, t, regs = _open_cup("rmb", 4)
    rnd = rounds.round_start(rnd=rounds.round_pair(tournament=t, by=organizer), by=organizer)
    first = rnd.tables.order_by("number").first()
    real = organizer_services.game_remind

    def busy_first(*, game, by):
        if game.pk == first.game_id:
            raise GameBusy("This game is busy; try again in a moment.")
        return real(game=game, by=by)

    monkeypatch.setattr(organizer_services, "game_remind", busy_first)
    done = rounds.round_remind(rnd=rnd, by=organizer)
    assert (done["players"], done["tables"]) == (1, 1)
    assert done["failed"] == ["table 1: This game is busy; try again in a moment"]  # the panel ends it
    monkeypatch.setattr(organizer_services, "game_remind", lambda **kw: (_ for _ in ()).throw(GameBusy("busy")))
    from tournaments.services.common import TournamentError

    with pytest.raises(TournamentError, match="No reminder sent: table 1: busy; table 2: busy"):
        rounds.round_remind(rnd=rnd, by=organizer)


def test_the_organizer_extends_every_deadline_of_the_round_at_once(client, people):
    """One game at a time was the only way (a holiday, a server outage: every table)."""
    from games.models import LogEntry, OutboxMessage, Prompt
    from tournaments.services import rounds
    from tournaments.services import tournaments as tsvc

    org, players = people
    t = tsvc.tournament_create(organizer=org, name="Winter", ruleset="6x5", table_sizes=[2],
                               rounds_count=2, deadline_hours=24)  # fmt: skip
    tsvc.tournament_open(tournament=t, by=org)
    for p in players:
        tsvc.registration_add(tournament=t, user=p)
    rnd = rounds.round_start(rnd=rounds.round_pair(tournament=t, by=org), by=org)
    games = [tb.game for tb in rnd.tables.order_by("number")]
    before = {g.pk: Prompt.objects.get(game=g, status="open").deadline for g in games}
    client.force_login(org)
    panel = client.get(reverse("tournaments:manage", args=[t.slug])).content.decode()
    assert 'id="extend-round"' in panel
    url = reverse("tournaments:manage_action", args=[t.slug, "extend"])
    bad = client.post(url, {"hours": "0"}, follow=True).content.decode()
    assert "a whole number from 1 to 168. Nothing was extended." in bad
    done = client.post(url, {"hours": "12", "reason": "the winter break"}, follow=True).content.decode()
    assert "Deadline extended by 12 hours at 2 tables; their players are told." in done
    for g in games:
        after = Prompt.objects.get(game=g, status="open").deadline
        assert round((after - before[g.pk]).total_seconds()) == 12 * 3600
        entry = LogEntry.objects.get(game=g, kind="deadline_extended")
        assert entry.payload["reason"] == "the winter break"
    notices = OutboxMessage.objects.filter(kind="notice", subject__endswith="] Deadline extended")
    assert notices.count() == 4 and all("the winter break" in m.body for m in notices)
    assert "Deadlines extended (round 1): the winter break" in done
    # A stranger cannot.
    client.force_login(players[0])
    client.post(url, {"hours": "12"})
    assert Prompt.objects.get(game=games[0], status="open").deadline == before[games[0].pk] + timedelta(hours=12)


def test_an_organizer_who_is_not_staff_learns_nothing_of_accounts_by_address(client, people):
    """Anyone may make a tournament; its Register form told whether an address had an
    account (one refusal for an account, another for none)."""
    from tournaments.services import tournaments as tsvc

    _admin, players = people
    org = get_user_model().objects.create_user("plain", "plain@example.com", "pw")  # no rights
    t = tsvc.tournament_create(organizer=org, name="Probe", ruleset="6x5", table_sizes=[2], rounds_count=1)
    tsvc.tournament_open(tournament=t, by=org)
    client.force_login(org)
    url = reverse("tournaments:manage_action", args=[t.slug, "register"])
    said = []
    for who in (players[0].email, "nobody@example.org"):
        answer = client.post(url, {"user": who}, follow=True)
        said.append([str(m) for m in answer.context["messages"]])
    assert said[0] == said[1] and "only site administrators can find a player by email address" in said[0][0]
    assert not t.registrations.exists()


def _duel_cup_with_players(client, org, players, name: str) -> Tournament:
    """A 6x5 duel tournament ``name`` made on the panel by ``org`` (logged in), open,
    with ``players`` registered."""
    client.force_login(org)
    client.post(reverse("tournaments:create"), {
        "name": name, "ruleset": "6x5", "opt__6x5__goals": "1", "table_sizes": "2",
        "rounds_count": 2, "deadline_hours": 24, "tiebreaks": ["buchholz"],
    })  # fmt: skip
    t = Tournament.objects.get(name=name)
    client.post(reverse("tournaments:manage_action", args=[t.slug, "open"]))
    for p in players:
        client.post(reverse("tournaments:manage_action", args=[t.slug, "register"]), {"user": p.username})
    return t


def _first_table_game(client, org, players, name: str):
    """``_duel_cup_with_players``, its round 1 started: the tournament and table 1's game."""
    t = _duel_cup_with_players(client, org, players, name)
    rnd = rounds.round_pair(tournament=t, by=org)
    rounds.round_start(rnd=rnd, by=org)
    return t, rnd.tables.order_by("number").first().game


def test_start_starts_the_pairing_the_page_showed(client, people):
    """A race audit: Start clicked while someone re-paired the round started the new
    pairing, which the organizer had never seen. The button carries the pairing shown."""
    import re

    org, players = people
    t = _duel_cup_with_players(client, org, players, "Race cup")
    act = lambda name, **data: client.post(  # noqa: E731
        reverse("tournaments:manage_action", args=[t.slug, name]), data, follow=True)
    act("pair")
    panel = client.get(reverse("tournaments:manage", args=[t.slug])).content.decode()
    shown = re.search(r'<input type="hidden" name="pairing" value="([0-9a-f]{16})">', panel).group(1)
    rnd = Round.objects.get(tournament=t, number=1)
    # Meanwhile the round is paired again by hand: the first table's players swap seats.
    first, second = rnd.tables.order_by("number")
    rounds.round_pair_by_hand(tournament=t, tables=[list(reversed(first.players)), second.players],
                              by=org, force=True)  # fmt: skip
    assert rounds.pairing_digest(rnd=rnd) != shown
    refused = act("start", pairing=shown)
    said = [str(m) for m in refused.context["messages"]]
    assert "Round 1 was paired again since your page showed it: check the new pairing, then start it. Nothing was started." in said
    rnd.refresh_from_db()
    assert rnd.status == "paired"
    act("start", pairing=rounds.pairing_digest(rnd=rnd))
    rnd.refresh_from_db()
    assert rnd.status == "started"


def test_a_refused_panel_form_ties_its_error_to_its_field(client, people):
    """An accessibility audit: the result and pairing forms came back with the field
    marked invalid but nothing saying why beside it (the reason was only the message at
    the top)."""
    import re

    org, players = people
    t = _duel_cup_with_players(client, org, players, "Tied cup")
    act = lambda name, **data: client.post(reverse("tournaments:manage_action", args=[t.slug, name]), data)  # noqa: E731
    act("register", user="nobody_here")
    panel = client.get(reverse("tournaments:manage", args=[t.slug])).content.decode()
    assert '<span class="errorlist" id="register-error">No user &#x27;nobody_here&#x27;.</span>' in panel
    assert re.search(r'name="user"[^>]*value="nobody_here" aria-invalid="true" aria-describedby="register-error"', panel)
    act("pair_by_hand", tables="ann zed")
    panel = client.get(reverse("tournaments:manage", args=[t.slug])).content.decode()
    error = re.search(r'<p class="errorlist" id="pair-tables-error">([^<]+)</p>', panel)
    assert error and "zed" in error.group(1)
    assert 'aria-describedby="pair-tables-help pair-tables-error" aria-invalid="true">ann zed</textarea>' in panel


def test_pair_by_hand_neither_echoes_a_huge_name_nor_keeps_a_huge_draft(client, people):
    # Regression (an audit): an unknown name came back whole in the flash message (100 KB
    # in, 100 KB out) and in the session's draft.
    from django.contrib.auth import get_user_model

    from tournaments.forms import tables_limit

    org, players = people
    t = _duel_cup_with_players(client, org, players, "Long names")
    client.force_login(org)
    url = reverse("tournaments:manage_action", args=[t.slug, "pair_by_hand"])
    panel = reverse("tournaments:manage", args=[t.slug])
    client.get(panel)  # the setup's messages, read
    # A line per table, names of at most the username's length: four players, a bye line.
    longest = get_user_model()._meta.get_field("username").max_length
    assert tables_limit(players=4) == 4 * (longest + 2) + 200
    # An unknown name within the bound: shown by its first 40 characters.
    name = "z" * 40 + "y" * 100
    answer = client.post(url, {"tables": f"ann bob\ncat {name}"}, follow=True)
    assert _said(answer) == [f"Line 2: '{'z' * 40}…' is not an active player."]
    assert f"cat {name}</textarea>" in answer.content.decode()  # the draft, to fix it
    # 100 KB: refused for its length, said in a line; the draft keeps none of it.
    huge = "ann bob\n" + "x" * 100_000
    answer = client.post(url, {"tables": huge}, follow=True)
    limit = tables_limit(players=4)
    assert _said(answer) == [
        f"The pairing is too long (100008 characters; at most {limit} for 4 players: "
        f"a line per table, names of at most {longest} characters). Nothing was paired."]
    assert "xxxxx" not in answer.content.decode()
    assert t.rounds.count() == 0
    # The textarea says its bound too.
    assert f'maxlength="{limit}"' in answer.content.decode()
    # Nothing of it stays in the session (the draft, the messages).
    client.post(url, {"tables": huge})
    assert len(str(dict(client.session))) < 2000
    # A result's ranking shortens an unknown name the same way.
    from django import forms as django_forms

    from tournaments.forms import parse_ranking

    with pytest.raises(django_forms.ValidationError) as refused:
        parse_ranking(f"ann > {name}", {"ann": 1, "bob": 2})
    assert refused.value.messages == [f"'{'z' * 40}…' is not at this table (players: ann, bob)."]


def test_the_panel_marks_a_result_a_forfeit(client, people):
    """The panel's "not played (a forfeit): not rated" box reaches the result: counted,
    not rated (test_tournament_services checks the ratings)."""
    from games.services.organizer import game_end

    org, players = people
    t = _duel_cup_with_players(client, org, players, "Forfeit cup")
    rnd = rounds.round_pair(tournament=t, by=org)
    rounds.round_start(rnd=rnd, by=org)
    table = rnd.tables.order_by("number").first()
    game_end(game=table.game, by=org, reason="no-show")
    names = {r.pk: r.user.username for r in t.registrations.select_related("user")}
    client.post(reverse("tournaments:manage_action", args=[t.slug, "result"]), {
        "table": table.pk, "round": 1, "ranking": f"{names[table.players[0]]} > {names[table.players[1]]}",
        "reason": "no-show", "forfeit": "1",
    })  # fmt: skip
    table.refresh_from_db()
    assert table.ranking == [[table.players[0]], [table.players[1]]] and table.rated is False
    panel = client.get(reverse("tournaments:manage", args=[t.slug])).content.decode()
    assert "(entered by hand; a forfeit, not rated)" in panel
    assert re.search(r'<input type="checkbox" name="forfeit" value="1" checked>', panel)
    # Players see it too (first-time walk: only the organizer's panel said so): on the
    # round's page, in their history and in the email telling them the result.
    round_page = client.get(reverse("tournaments:round", args=[t.slug, 1])).content.decode()
    assert "(entered by the organizer; not played: a forfeit, not rated)" in round_page
    history = client.get(reverse("tournaments:player", args=[t.slug, table.players[0]])).content.decode()
    assert "(a forfeit, not rated)" in history
    from games.models import OutboxMessage

    told = OutboxMessage.objects.filter(kind="tournament", subject__contains="entered your result")
    assert told.count() == 2
    assert all("Not played (a forfeit): it counts in the standings, not in the ratings." in m.body for m in told)


def test_the_panel_enters_a_double_forfeit_nobody_scores(client, people):
    """A game neither player turned up for, played offline or ended by its organizer: the
    panel could only rank them (at best level, half a point each, or a forfeit with a
    winner). "Nobody played (a double forfeit)" scores 0 for both (FIDE's 0-0), with the
    ranking left empty; it is not rated, and pages, standings and emails say so."""
    from games.models import OutboxMessage
    from games.services.organizer import game_end
    from tournaments import selectors

    org, players = people
    t = _duel_cup_with_players(client, org, players, "Double cup")
    rnd = rounds.round_pair(tournament=t, by=org)
    rounds.round_start(rnd=rnd, by=org)
    table = rnd.tables.order_by("number").first()
    game_end(game=table.game, by=org, reason="nobody came")
    url = reverse("tournaments:manage_action", args=[t.slug, "result"])
    both = client.post(url, {"table": table.pk, "round": 1, "ranking": "", "reason": "nobody came",
                             "forfeit": "1", "nobody_played": "1"}, follow=True)  # fmt: skip
    assert "a forfeit has a winner, a double forfeit none" in both.content.decode()
    table.refresh_from_db()
    assert table.ranking is None
    client.post(url, {"table": table.pk, "round": 1, "ranking": "", "reason": "nobody came",
                      "nobody_played": "1"})  # fmt: skip
    table.refresh_from_db()
    assert table.ranking == [table.players]  # everyone level
    assert table.scoreless is True and table.rated is False
    points = {row["registration"].pk: row["points"] for row in selectors.standings(tournament=t)}
    assert points[table.players[0]] == 0 and points[table.players[1]] == 0
    panel = client.get(reverse("tournaments:manage", args=[t.slug])).content.decode()
    assert "(entered by hand; nobody played: no points, not rated)" in panel
    assert re.search(r'<input type="checkbox" name="nobody_played" value="1" checked>', panel)
    round_page = client.get(reverse("tournaments:round", args=[t.slug, 1])).content.decode()
    assert "(entered by the organizer; nobody played: no points, not rated)" in round_page
    history = client.get(reverse("tournaments:player", args=[t.slug, table.players[0]])).content.decode()
    assert "(nobody played: no points, not rated)" in history
    told = OutboxMessage.objects.filter(kind="tournament", subject__contains="entered your result")
    assert told.count() == 2
    assert all("no points. Nobody played it (a forfeit for everyone)" in m.body for m in told)
    # A ranking typed with the box ticked is kept as typed but scores nobody, and makes
    # nobody a forfeit winner (who would then come after others for a pairing bye).
    client.post(url, {"table": table.pk, "round": 1, "reason": "typed anyway", "nobody_played": "1",
                      "ranking": " > ".join(t.registrations.get(pk=p).user.username
                                            for p in table.players)})  # fmt: skip
    table.refresh_from_db()
    assert len(table.ranking) == 2 and table.scoreless
    assert selectors.forfeit_winners(tournament=t, before=2) == []
    points = {row["registration"].pk: row["points"] for row in selectors.standings(tournament=t)}
    assert points[table.players[0]] == 0 and points[table.players[1]] == 0
    client.post(url, {"table": table.pk, "round": 1, "ranking": "", "reason": "nobody came",
                      "nobody_played": "1"})  # fmt: skip
    # the same again (a double click) changes nothing and says so
    again = client.post(url, {"table": table.pk, "round": 1, "ranking": "", "reason": "nobody came",
                              "nobody_played": "1"}, follow=True)  # fmt: skip
    assert "nothing was changed" in again.content.decode()
    # entered, corrected to the typed ranking, corrected back: two players told each time
    assert OutboxMessage.objects.filter(kind="tournament", subject__contains="your result").count() == 6


def test_a_table_ended_by_its_organizer_points_to_where_its_result_goes(client, people):
    """First-time organizer's walk: a table ended from its game page said "ABANDONED ...
    It has no ranking" for good, and nothing said its result is entered in the panel."""
    org, players = people
    t, game = _first_table_game(client, org, players, "Club cup")
    client.force_login(org)
    ended = client.post(
        reverse("games:organizer", args=[game.pk, "end"]), {"reason": "played at the club", "confirm": "on"},
        follow=True,
    )  # fmt: skip
    said = " ".join(str(m) for m in ended.context["messages"])
    assert "The game has been ended. It has no ranking here: enter its result in Club cup, round 1" in said, said
    page = ended.content.decode()
    round_url = reverse("tournaments:round", args=[t.slug, 1])
    assert re.search(
        r'The organizer ended the game early: played at the club\. It has no ranking here: its result in '
        rf'<a href="{round_url}">Club cup, round 1</a> is the one the organizer enters there\.', page
    ), page
    assert '<span class="badge abandoned">ended early</span>' in page
    listed = client.get(reverse("games:list")).content.decode()
    assert '<span class="badge abandoned">ended early</span>' in listed and ">abandoned<" not in listed


def test_the_standings_say_how_they_are_counted(client, people):
    """First-time walk: nothing said what the points (1 / 0.67 / 0.33 / 0) or a Buchholz
    that jumps from 0.33 to 4.06 mean."""
    org, players = people
    t = _duel_cup_with_players(client, org, players, "Counted cup")
    page = client.get(reverse("tournaments:detail", args=[t.slug])).content.decode()
    help_ = page[page.index('id="standings-help"'):page.index("</details>", page.index('id="standings-help"'))]
    assert "How the standings are counted" in help_
    assert "at a table of 2, 1 / 0 (from first place down" in help_
    assert "A bye scores 1, a bye you asked for 0.5." in help_, help_  # as the emails write it
    assert "<strong>Buchholz</strong>: the points of the players you met" in help_
    assert "Sonneborn" not in help_  # only the tie-breaks this tournament uses


def test_a_game_over_shows_no_empty_organizer_tools(client, people):
    """First-time walk: a finished or ended game showed an "Organizer tools" panel with
    nothing in it."""
    org, players = people
    t, game = _first_table_game(client, org, players, "Tools cup")
    client.force_login(org)
    url = reverse("games:detail", args=[game.pk])
    assert 'id="organizer"' in client.get(url).content.decode()
    client.post(reverse("games:organizer", args=[game.pk, "end"]), {"reason": "club", "confirm": "on"})
    assert 'id="organizer"' not in client.get(url).content.decode()


def test_the_panel_says_who_withdrew_after_the_round_was_paired(client, people):
    """An organizer's journey: a player withdrew from a paired round and the panel still
    seated them without a word until Start refused."""
    from tournaments.services import rounds
    from tournaments.services import tournaments as tsvc

    org, players = people
    t = tsvc.tournament_create(organizer=org, name="Gone", ruleset="6x5", table_sizes=[2], rounds_count=2)
    tsvc.tournament_open(tournament=t, by=org)
    for p in players:
        tsvc.registration_add(tournament=t, user=p)
    rounds.round_pair(tournament=t, by=org)
    client.force_login(org)
    url = reverse("tournaments:manage", args=[t.slug])
    before = client.get(url).content.decode()
    assert 'id="withdrawn-since"' not in before
    assert ">Start round 1</button>" in before
    reg = t.registrations.get(user=players[0])
    tsvc.registration_withdraw(registration=reg, by=players[0])  # the player, not the organizer
    page = client.get(url).content.decode()
    assert f"{players[0]} withdrew after this round was paired: re-pair it before starting it." in page
    # The tournaments audit: Start was still offered, and pressing it showed its refusal
    # beside this warning, two near-identical messages. Re-pairing is the step offered.
    assert ">Start round 1</button>" not in page
    assert '<button class="button" type="submit">Re-pair round 1</button>' in page


def test_history_and_standings_write_places_and_points_as_the_emails_do(client, people):
    """An organizer's journey: a player's history put the player after two who tied for
    2nd place at "3" (the result's email said 4th), a tied place had no mark, the
    standings wrote 1 beside 1.50, and a late entrant's or a withdrawn player's rounds
    read "not paired"."""
    from games.services.organizer import game_end
    from tournaments.services import tournaments as tsvc

    org, players = people
    User = get_user_model()
    late = User.objects.create_user("eve", "eve@example.com", "pw")
    t = tsvc.tournament_create(organizer=org, name="Ties cup", ruleset="5x", table_sizes=[4],
                               rounds_count=2, points_per_place={"4": [3, 2, 1, 0]})
    tsvc.tournament_open(tournament=t, by=org)
    regs = [tsvc.registration_add(tournament=t, user=u, by=org) for u in players]
    rnd = rounds.round_pair(tournament=t, by=org)
    rounds.round_start(rnd=rnd, by=org)
    table = rnd.tables.get()
    game_end(game=table.game, by=org, reason="the club closed")
    a, b, c, d = table.players
    results.result_enter(table=table, ranking=[[a], [b, c], [d]], by=org, reason="agreed")
    late_reg = tsvc.registration_add(tournament=t, user=late, by=org)  # enters in round 2
    gone = next(r for r in regs if r.pk == a)
    tsvc.registration_withdraw(registration=gone, by=org)
    rounds.round_pair(tournament=t, by=org)

    def history(reg_id: int) -> str:
        page = client.get(reverse("tournaments:player", args=[t.slug, reg_id])).content.decode()
        return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))

    assert "4th of 4" in history(d)
    assert "tied 2nd of 4" in history(b) and "tied 2nd of 4" in history(c)
    # The opponents in seat order (which players sit where is the pairing's, not the
    # registrations' order: under two test processes the ids, and so the seats, differ).
    names = {r.pk: r.user.username for r in regs}
    opponents = ", ".join(names[p] for p in (a, c, d))
    assert re.search(rf"{re.escape(opponents)} tied 2nd of 4 1\.5 ", history(b))  # place, points
    assert "1st of 4" in history(a) and "withdrawn" in history(a)
    assert "not entered yet (from round 2)" in history(late_reg.pk)
    assert "not paired" not in history(a) + history(late_reg.pk)
    standings = client.get(reverse("tournaments:detail", args=[t.slug])).content.decode()
    assert "<strong>1.5</strong>" in standings and "1.50" not in standings


@pytest.mark.parametrize(
    ("first_round", "withdrawn_after", "expected"),
    [
        # a late entrant who withdrew after round 1 started (a code review: "not paired")
        (2, 1, ["not entered yet (from round 2)", "withdrawn", "withdrawn"]),
        # a late entrant who withdrew while round 1 was only paired
        (2, 0, ["not entered yet (from round 2)", "withdrawn", "withdrawn"]),
        # a player who withdrew before round 1 started
        (1, 0, ["withdrawn", "withdrawn", "withdrawn"]),
    ],
)
def test_a_withdrawn_players_rounds_without_a_game_say_withdrawn(first_round, withdrawn_after, expected):
    from tournaments.models import Registration
    from tournaments.selectors import _absence

    reg = Registration(first_round=first_round, withdrawn_after_round=withdrawn_after,
                       status=Registration.Status.WITHDRAWN)
    assert [_absence(reg, n) for n in (1, 2, 3)] == expected
    # restored before round 1 was paired: active, whatever number was kept
    reg.status = Registration.Status.ACTIVE
    assert _absence(reg, 3) == "not paired"


def test_a_late_entrant_is_told_when_they_play_and_hears_of_the_rounds_before(client, people):
    """A participant's journey: a late entrant read only "You are registered." and got no
    email when round 1 ended, though everyone's standings listed them."""
    from games.models import OutboxMessage
    from games.services.games import seat_resign
    from tournaments.services import tournaments as tsvc

    org, players = people
    User = get_user_model()
    late = User.objects.create_user("zoe", "zoe@example.com", "pw")
    t = tsvc.tournament_create(organizer=org, name="Late cup", ruleset="6x5", table_sizes=[2],
                               rounds_count=2, tiebreaks=["buchholz"])
    tsvc.tournament_open(tournament=t, by=org)
    for user in players:
        tsvc.registration_add(tournament=t, user=user)
    rnd = rounds.round_pair(tournament=t, by=org)
    rounds.round_start(rnd=rnd, by=org)
    client.force_login(late)
    # The page says so before the click (the walk: "Register" alone, then told after).
    page = html.unescape(client.get(reverse("tournaments:detail", args=[t.slug])).content.decode())
    assert "a late entry: you would play from round 2, the rounds before scoring 0" in page
    answer = client.post(reverse("tournaments:register", args=[t.slug]), follow=True)
    assert "You are registered: you play from round 2 (the rounds before score 0 for you)." in (
        html.unescape(answer.content.decode()))
    for table in rnd.tables.select_related("game"):
        seat_resign(seat=table.game.seats.order_by("position").first())
    assert results.results_collect() == 2
    [mail] = OutboxMessage.objects.filter(to="zoe@example.com", subject__contains="round 1 is over")
    assert "You entered late: you play from round 2; the rounds before score 0 for you." in mail.body
    assert "Round 2 of 2 starts when the organizer pairs and starts it" in mail.body


def test_a_participants_page_says_where_they_stand_whom_they_play_and_what_comes_next(client, people):
    """A participant's journey: no "you are 2nd of 4" on the page, no own row marked,
    nothing on whom a paired round seats one with or when the next round comes, and the
    games' options (every game a draw after 6 turns) nowhere."""
    from games.services.games import seat_resign
    from tournaments.services import tournaments as tsvc

    org, players = people
    t = tsvc.tournament_create(organizer=org, name="Own cup", ruleset="6x5", table_sizes=[2],
                               rounds_count=2, tiebreaks=["buchholz"], options={"max_turns": 6})
    tsvc.tournament_open(tournament=t, by=org)
    for user in players:
        tsvc.registration_add(tournament=t, user=user)
    rnd = rounds.round_pair(tournament=t, by=org)
    table = rnd.tables.order_by("number").first()
    names = dict(t.registrations.values_list("pk", "user__username"))
    me, other = (names[p] for p in table.players)
    client.force_login(get_user_model().objects.get(username=me))

    def page() -> str:
        text = client.get(reverse("tournaments:detail", args=[t.slug])).content.decode()
        return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text)))

    paired = page()
    assert f"Round 1 is paired: you play {other} at table {table.number}. It starts when" in paired
    assert "Each game: goals 1, visible goals off, change goal off, open game off, target off, max turns 6." in paired
    rounds.round_start(rnd=rnd, by=org)
    for tb in rnd.tables.select_related("game"):
        seat_resign(seat=tb.game.seats.order_by("position").last())  # the first seat wins
    results.results_collect()
    after = page()
    first_seat = names[table.players[0]]
    place = "tied 1st of 4 with 1 point" if me == first_seat else "tied 3rd of 4 with 0 points"
    assert f"You are {place} after round 1." in after
    assert f"{me} (you)" in after
    assert "Round 2 of 2 starts when the organizer pairs and starts it" in after
    raw = client.get(reverse("tournaments:detail", args=[t.slug])).content.decode()
    assert len(re.findall(r'<tr class="[^"]*\bme\b', raw)) == 1


def test_a_paired_round_with_a_withdrawn_player_says_it_is_paired_again(client, people):
    """A code review: a player who withdrew after the pairing read "you play ..." and the
    opponent "you play <them>", though the round must be paired again first."""
    from tournaments.services import tournaments as tsvc

    org, players = people
    t = tsvc.tournament_create(organizer=org, name="Gone cup", ruleset="6x5", table_sizes=[2],
                               rounds_count=2, tiebreaks=["buchholz"])
    tsvc.tournament_open(tournament=t, by=org)
    regs = {u.username: tsvc.registration_add(tournament=t, user=u) for u in players}
    rnd = rounds.round_pair(tournament=t, by=org)
    table = rnd.tables.order_by("number").first()
    by_pk = {r.pk: name for name, r in regs.items()}
    gone, stays = (by_pk[p] for p in table.players)
    tsvc.registration_withdraw(registration=regs[gone], by=regs[gone].user)

    def page(name: str) -> str:
        client.force_login(get_user_model().objects.get(username=name))
        text = client.get(reverse("tournaments:detail", args=[t.slug])).content.decode()
        return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text)))

    assert "is paired: you play" not in page(gone)
    assert f"Round 1 is paired, but {gone} withdrew since: the organizer pairs it again" in page(stays)


def _running_duel_cup(people, name: str):
    """A 6x5 duel tournament of ``people`` (4 players: 2 tables), round 1 being played."""
    from tournaments.services import tournaments as tsvc

    org, players = people
    t = tsvc.tournament_create(organizer=org, name=name, ruleset="6x5", table_sizes=[2],
                               rounds_count=2, deadline_hours=24)  # fmt: skip
    tsvc.tournament_open(tournament=t, by=org)
    for p in players:
        tsvc.registration_add(tournament=t, user=p)
    rnd = rounds.round_start(rnd=rounds.round_pair(tournament=t, by=org), by=org)
    return t, rnd


def _said(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_pairing_by_hand_while_a_round_is_played_says_the_round_is_not_finished(client, people):
    """L5 (an organizer's journey): the names were read first, and a typo answered
    "Line 1: 'zed' is not an active player." while the round could not be paired at all."""
    org, _players = people
    t, _rnd = _running_duel_cup(people, "Busy")
    client.force_login(org)
    url = reverse("tournaments:manage_action", args=[t.slug, "pair_by_hand"])
    said = _said(client.post(url, {"tables": "ann zed"}, follow=True))
    assert said == ["Round 1 is not finished yet: tables 1 and 2 are still being played."]
    assert t.rounds.count() == 1


def test_the_banner_names_the_opponents_while_the_round_is_played(client, people):
    # Regression (an audit): once the round started the banner said "Your game in round 1:
    # Cup · table 1 (active): nothing to order now.", no longer whom it seats them with.
    from tournaments.services import tournaments as tsvc

    org, players = people
    t = tsvc.tournament_create(organizer=org, name="Whom", ruleset="5x", table_sizes=[4], rounds_count=2)
    tsvc.tournament_open(tournament=t, by=org)
    for user in players:
        tsvc.registration_add(tournament=t, user=user)
    rnd = rounds.round_start(rnd=rounds.round_pair(tournament=t, by=org), by=org)
    table = rnd.tables.select_related("game").get()
    names = dict(t.registrations.values_list("pk", "user__username"))
    me, *others = (names[p] for p in table.players)  # in seat order
    client.force_login(get_user_model().objects.get(username=me))
    raw = client.get(reverse("tournaments:detail", args=[t.slug])).content.decode()
    banner = re.search(r'<p class="message info" id="my-game">(.*?)</p>', raw).group(1)
    text = html.unescape(re.sub(r"<[^>]+>", "", banner))
    assert text.startswith(f"Your game in round 1, against {others[0]}, {others[1]} and {others[2]} "
                           f"at table {table.number}: {table.game.title} (")


def test_pair_next_round_clicked_twice_says_the_round_is_paired_already(client, people):
    # Regression (an audit): the second click of a double click answered "Round 1 is not
    # finished yet." about the round the first click had just paired.
    from games.services.organizer import game_end
    from tournaments.services import tournaments as tsvc

    org, players = people
    t = tsvc.tournament_create(organizer=org, name="Twice", ruleset="6x5", table_sizes=[2], rounds_count=2)
    tsvc.tournament_open(tournament=t, by=org)
    for p in players:
        tsvc.registration_add(tournament=t, user=p)
    client.force_login(org)
    url = reverse("tournaments:manage_action", args=[t.slug, "pair"])
    assert _said(client.post(url, follow=True)) == ["The next round is paired. Check it, then start it."]
    assert _said(client.post(url, follow=True)) == [
        "Round 1 is paired already: check its tables, then start it (or re-pair it)."]
    assert t.rounds.count() == 1
    # Started, it is being played: that is what a click says then.
    rnd = rounds.round_start(rnd=t.rounds.get(), by=org)
    assert _said(client.post(url, follow=True)) == [
        "Round 1 is not finished yet: tables 1 and 2 are still being played."]
    # The round numbers are the real ones: round 2, once round 1 is over.
    for table in rnd.tables.select_related("game"):
        game_end(game=table.game, by=org, reason="offline")
        results.result_enter(table=table, ranking=[[table.players[0]], [table.players[1]]], by=org,
                             reason="played offline")
    assert _said(client.post(url, follow=True)) == ["The next round is paired. Check it, then start it."]
    assert _said(client.post(url, follow=True)) == [
        "Round 2 is paired already: check its tables, then start it (or re-pair it)."]
    assert t.rounds.count() == 2


def test_extending_past_the_cap_says_so_once_not_per_table(client, people, settings):
    """L5: "No deadline extended: table 1: This deadline has already been extended 3 times
    (the limit is 3).; table 2: ..." - the same sentence per table, a doubled '.;'."""
    settings.GAMES_MAX_DEADLINE_EXTENSIONS = 1
    org, _players = people
    t, _rnd = _running_duel_cup(people, "Capped")
    client.force_login(org)
    url = reverse("tournaments:manage_action", args=[t.slug, "extend"])
    assert "Deadline extended by 2 hours at 2 tables" in _said(client.post(url, {"hours": "2"}, follow=True))[0]
    said = _said(client.post(url, {"hours": "2"}, follow=True))
    assert said == ["No deadline extended: every table's deadline has been extended 1 time already, the limit."]


def test_the_round_extension_takes_whole_hours_as_a_games_does(client, people):
    """L5: the round's form took 1.5 hours, a game's organizer tool whole hours only (both
    inputs step by one hour)."""
    from games.models import LogEntry

    org, _players = people
    t, rnd = _running_duel_cup(people, "Whole")
    client.force_login(org)
    url = reverse("tournaments:manage_action", args=[t.slug, "extend"])
    said = _said(client.post(url, {"hours": "1.5"}, follow=True))
    assert said == ["Give the hours to add: a whole number from 1 to 168. Nothing was extended."]
    assert not LogEntry.objects.filter(kind="deadline_extended").exists()
    assert "Deadline extended by 3 hours at 2 tables" in _said(client.post(url, {"hours": "3"}, follow=True))[0]


def test_registering_a_registered_player_or_withdrawing_a_withdrawn_one_says_so(client, people):
    """L5: an organizer who is no league administrator read the league administrator's
    refusal for a player registered already (an administrator read "ann is registered."),
    and withdrawing a withdrawn registration said "Registration withdrawn." again."""
    from tournaments.models import Registration
    from tournaments.services import tournaments as tsvc

    admin, players = people
    ann = players[0]
    plain = get_user_model().objects.create_user("plain", "plain@example.com", "pw")  # no rights
    t = tsvc.tournament_create(organizer=plain, name="Again", ruleset="6x5", table_sizes=[2], rounds_count=1)
    tsvc.tournament_open(tournament=t, by=plain)
    tsvc.registration_add(tournament=t, user=ann)
    client.force_login(plain)
    act = lambda name, **data: client.post(reverse("tournaments:manage_action", args=[t.slug, name]), data, follow=True)  # noqa: E731
    assert _said(act("register", user="ann")) == ["ann is already registered."]
    ours = tsvc.tournament_create(organizer=admin, name="Ours", ruleset="6x5", table_sizes=[2], rounds_count=1)
    tsvc.tournament_open(tournament=ours, by=admin)
    tsvc.registration_add(tournament=ours, user=ann)
    client.force_login(admin)
    url = reverse("tournaments:manage_action", args=[ours.slug, "register"])
    assert _said(client.post(url, {"user": "ann"}, follow=True)) == ["ann is already registered."]

    client.force_login(plain)
    reg = Registration.objects.get(tournament=t, user=ann)
    assert _said(act("withdraw", registration=str(reg.pk))) == ["ann is withdrawn: not paired in the rounds to come."]
    assert _said(act("withdraw", registration=str(reg.pk))) == ["ann has withdrawn already: nothing was changed."]
    assert t.log.filter(kind="registration_withdrawn").count() == 1
    client.force_login(ann)
    again = client.post(reverse("tournaments:withdraw", args=[t.slug]), follow=True)
    assert _said(again) == ["You have withdrawn already: nothing was changed."]


def test_the_panel_log_shows_each_pairing_input_and_it_reproduces_the_round(client, people):
    """The tournaments audit: the README says every pairing's input, seed and output are in
    the audit log, and the panel showed only "Round paired". Its entry now holds the input
    as the pairing command reads it; run on that text, the command gives the round's tables."""
    import html
    import json
    import re
    import subprocess
    import sys

    from tournaments.services import rounds
    from tournaments.services import tournaments as tsvc

    org, players = people
    t = tsvc.tournament_create(organizer=org, name="Seeded", ruleset="6x5", table_sizes=[2], rounds_count=2)
    tsvc.tournament_open(tournament=t, by=org)
    for p in players:
        tsvc.registration_add(tournament=t, user=p)
    rnd = rounds.round_pair(tournament=t, by=org)
    client.force_login(org)
    page = client.get(reverse("tournaments:manage", args=[t.slug])).content.decode()
    assert f"Pairing input (seed {rnd.seed})" in page
    [shown] = re.findall(r'<pre class="pairing-input">(.*?)</pre>', page, re.S)
    text = html.unescape(shown)
    out = subprocess.run([sys.executable, "-m", "tournaments.pairing", "-"], input=text, capture_output=True,
                         text=True, check=True, timeout=60)  # fmt: skip
    assert json.loads(out.stdout)["tables"] == rnd.pairing_output["tables"]
    # Only to the organizer: the public page shows no pairing input.
    client.logout()
    assert "pairing-input" not in client.get(reverse("tournaments:detail", args=[t.slug])).content.decode()


def test_start_from_a_panel_shown_before_a_withdrawal_says_once_why_nothing_started(client, people):
    """The panel's Start, pressed on a page shown before a paired player withdrew: the
    refusal repeated the page's warning in other words ("withdrew after this round was
    paired: re-pair the round before starting it." above "... re-pair it before starting
    it."); now it says what happened, and the warning says why."""
    from tournaments.services import rounds
    from tournaments.services import tournaments as tsvc
    from tournaments.services.rounds import pairing_digest

    org, players = people
    t = tsvc.tournament_create(organizer=org, name="Stale", ruleset="6x5", table_sizes=[2], rounds_count=2)
    tsvc.tournament_open(tournament=t, by=org)
    for p in players:
        tsvc.registration_add(tournament=t, user=p)
    rnd = rounds.round_pair(tournament=t, by=org)
    seen = pairing_digest(rnd=rnd)  # what the stale page's Start button carries
    tsvc.registration_withdraw(registration=t.registrations.get(user=players[0]), by=players[0])
    client.force_login(org)
    page = client.post(reverse("tournaments:manage_action", args=[t.slug, "start"]),
                       {"pairing": seen}, follow=True).content.decode()  # fmt: skip
    assert "Round 1 was not started." in page
    assert page.count("withdrew after this round was paired") == 1  # the warning, once
    rnd.refresh_from_db()
    assert rnd.status == "paired" and not rnd.tables.exclude(game=None).exists()


def test_the_panel_says_how_each_player_kept_this_tournaments_deadlines(client):
    """The organizer sees, beside each registration, the deadlines they missed of those
    they had in this tournament's games (a no-show is withdrawn in time); a player with no
    prompt resolved yet shows a dash."""
    from datetime import timedelta

    from django.utils import timezone

    import engine
    from games.selectors import current_state
    from games.services.orders import order_submit
    from games.services.resolution import prompt_resolve
    from tests.tournaments.test_tournament_services import _open_cup

    organizer, players, t, _regs = _open_cup("dk", 4, ruleset="5x", table_sizes=(3,))
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    [table] = rnd.tables.select_related("game")
    game = table.game
    seats = {s.user.username: s for s in game.seats.select_related("user")}
    sitting_out = next(p.username for p in players if p.username not in seats)
    first, second, third = sorted(seats)
    prompt = game.prompts.get(number=1)
    for name in (first, second):  # the third misses the draft's deadline
        text = engine.get(game.ruleset).legal_orders(current_state(game=game), seats[name].name)[0]
        order_submit(seat=seats[name], text=text, source="web")
    prompt.__class__.objects.filter(pk=prompt.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    assert prompt_resolve(game_id=game.pk, prompt_number=1, fill_missing=True)

    client.force_login(organizer)
    page = client.get(reverse("tournaments:manage", args=[t.slug])).content.decode()
    assert "<th>Deadlines missed</th>" in page

    def cell(name: str) -> str:
        row = re.search(rf"<tr><td>{name}</td>(.*?)</tr>", page, re.S)
        assert row, name
        found = re.search(r'data-label="Deadlines missed">(.*?)</td>', row[1], re.S)
        return re.sub(r"<[^>]+>", "", found[1])

    assert cell(first) == "0 of 1" and cell(second) == "0 of 1"
    assert cell(third) == "1 of 1"
    assert cell(sitting_out) == "—"


def test_three_table_sizes_read_as_a_list(client):
    # A newcomer's walk: "tables of 3 or 4 or 5" on the tournament's page.
    from tests.games.web_support import make_user
    from tournaments.services import tournaments as tsvc

    org = make_user("sizes_org")
    t = tsvc.tournament_create(organizer=org, name="Sizes", ruleset="5x", table_sizes=[3, 4, 5],
                               rounds_count=2)  # fmt: skip
    tsvc.tournament_open(tournament=t, by=org)
    page = html.unescape(client.get(reverse("tournaments:detail", args=[t.slug])).content.decode())
    assert "tables of 3, 4 or 5 ·" in page
