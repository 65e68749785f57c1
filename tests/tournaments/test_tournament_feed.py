"""A tournament's Atom feed (/tournaments/SLUG/feed.atom): each round as it starts (who
plays whom, who sits out) and as it finishes (results, standings after it), the final
standings once closed; newest first; a draft's is a 404."""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET

import pytest
from django.urls import reverse

from games.services.organizer import game_end
from tests.tournaments.test_tournament_services import _open_cup
from tournaments.models import Round
from tournaments.services import results, rounds
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"


def feed(client, t) -> list[dict[str, str]]:
    answer = client.get(reverse("tournaments:feed", args=[t.slug]))
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("application/atom+xml")
    root = ET.fromstring(answer.content)
    return [
        {
            "title": e.findtext(f"{ATOM}title"),
            "link": e.find(f"{ATOM}link").get("href"),
            # The summary is HTML (escaped words, one line each): as a reader shows it.
            "summary": html.unescape((e.findtext(f"{ATOM}summary") or "").replace("<br>", "\n")),
        }
        for e in root.findall(f"{ATOM}entry")
    ]


def first_beats_second(rnd: Round, organizer) -> dict[int, tuple[str, str]]:
    """Each table's game ended by the organizer, the first seat entered as the winner."""
    played = {}
    for table in rnd.tables.select_related("game"):
        game_end(game=table.game, by=organizer, reason="offline")
        results.result_enter(table=table, ranking=[[table.players[0]], [table.players[1]]],
                             by=organizer, reason="played offline")
        names = {r.pk: r.user.username for r in rnd.tournament.registrations.select_related("user")}
        played[table.number] = (names[table.players[0]], names[table.players[1]])
    return played


def test_the_feed_follows_rounds_results_and_the_final_standings(client):
    organizer, players, t, regs = _open_cup("fd", 5)  # five players at tables of two: one sits out
    draft = tsvc.tournament_create(organizer=organizer, name="Secret plans", ruleset="6x5",
                                   table_sizes=[2], rounds_count=1)
    assert client.get(reverse("tournaments:feed", args=[draft.slug])).status_code == 404
    assert feed(client, t) == []  # open, nothing paired yet

    rnd = rounds.round_pair(tournament=t, by=organizer)
    assert feed(client, t) == []  # paired, not started: the pairing may still change
    rounds.round_start(rnd=rnd, by=organizer)
    names = {r.pk: r.user.username for r in t.registrations.select_related("user")}
    [started] = feed(client, t)
    assert started["title"] == "Round 1 started"
    assert started["link"].endswith(reverse("tournaments:round", args=[t.slug, 1]) + "#started")
    for table in rnd.tables.all():
        assert f"Table {table.number}: {names[table.players[0]]}, {names[table.players[1]]}." in started["summary"]
    [bye] = rnd.byes.all()
    assert f"Sitting out: {names[bye.registration_id]} (" in started["summary"]

    played = first_beats_second(rnd, organizer)
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.FINISHED
    entries = feed(client, t)
    assert [e["title"] for e in entries] == ["Round 1 results", "Round 1 started"]
    summary = entries[0]["summary"]
    for number, (winner, loser) in played.items():
        assert f"Table {number}: {winner} > {loser} (entered by the organizer)." in summary
        assert f". {winner} — 1 point" in summary  # a win is a point at a table of two
        assert f". {loser} — 0 points" in summary
    assert "Standings after round 1:" in summary

    rnd2 = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd2, by=organizer)
    first_beats_second(rnd2, organizer)
    tsvc.tournament_close(tournament=t, by=organizer)
    entries = feed(client, t)
    assert [e["title"] for e in entries] == [
        "Final standings", "Round 2 results", "Round 2 started", "Round 1 results", "Round 1 started",
    ]
    assert entries[0]["link"].endswith(reverse("tournaments:detail", args=[t.slug]) + "#closed")
    assert all(f". {name}" in entries[0]["summary"] for name in names.values())
    assert len({e["link"] for e in entries}) == 5  # each entry its own id
    # The tournament page offers it.
    page = client.get(reverse("tournaments:detail", args=[t.slug])).content.decode()
    assert f'href="{reverse("tournaments:feed", args=[t.slug])}"' in page
    assert 'rel="alternate" type="application/atom+xml"' in page


def test_a_tournament_closed_before_any_round_says_so(client):
    organizer, _players, t, _regs = _open_cup("fc", 2)
    tsvc.tournament_close(tournament=t, by=organizer)
    [closed] = feed(client, t)
    assert closed["title"] == "Closed"
    assert "no standings" in closed["summary"]


def test_the_feed_reads_as_much_with_three_rounds_played_as_with_one(client):
    """Regression: the feed (anyone's, polled by readers) read the registrations and every
    round again for each finished round's standings: 4 statements more a round (a league
    of 30 rounds, ~125). Now a fixed number."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    organizer, _players, t, _regs = _open_cup("fq", 4, rounds_count=3)
    counts = []
    for _ in range(3):
        rnd = rounds.round_pair(tournament=t, by=organizer)
        rounds.round_start(rnd=rnd, by=organizer)
        first_beats_second(rnd, organizer)
        with CaptureQueriesContext(connection) as ctx:
            entries = feed(client, t)
        counts.append(len(ctx.captured_queries))
    assert [e["title"] for e in entries][:2] == ["Round 3 results", "Round 3 started"]
    assert counts[0] == counts[1] == counts[2]


def test_each_entry_s_id_is_an_absolute_address(client, settings):
    """Regression: an entry's Atom id was a path ("/tournaments/cup/rounds/1/#started"):
    RFC 4287 wants an absolute IRI, which feed readers tell entries apart by."""
    settings.FIVEX_BASE_URL = "https://fivex.example"
    organizer, _players, t, _regs = _open_cup("fi", 4)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    first_beats_second(rnd, organizer)
    root = ET.fromstring(client.get(reverse("tournaments:feed", args=[t.slug])).content)
    ids = [e.findtext(f"{ATOM}id") for e in root.findall(f"{ATOM}entry")]
    base = f"https://fivex.example{reverse('tournaments:round', args=[t.slug, 1])}"
    assert ids == [f"{base}#results", f"{base}#started"]
