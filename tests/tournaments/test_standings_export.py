"""An organizer exports the results: the tournament's page links a CSV of its standings
(rank, player, points, each tie-break in the tournament's order, games played, whether
the player withdrew, rating in the tournament's pool and its change over the event) that a spreadsheet opens; a draft's
is as private as its page."""

from __future__ import annotations

import csv
import io

import pytest

from tests.tournaments.test_tournament_services import _finished_duel_round, _open_cup
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db


def _rows(answer) -> list[list[str]]:
    return list(csv.reader(io.StringIO(answer.content.decode("utf-8-sig"))))


def test_the_standings_download_as_csv(client):
    organizer, _players, t, first = _finished_duel_round("ex")
    winners = sorted(str(t.registrations.get(pk=tb.players[0]).user) for tb in first.tables.all())
    losers = sorted(str(t.registrations.get(pk=tb.players[1]).user) for tb in first.tables.all())
    gone = t.registrations.get(user__username=losers[1])
    tsvc.registration_withdraw(registration=gone, by=organizer)
    page = client.get(f"/tournaments/{t.slug}/").content.decode()
    assert f'href="/tournaments/{t.slug}/standings.csv"' in page
    answer = client.get(f"/tournaments/{t.slug}/standings.csv")
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/csv")
    assert f'filename="{t.slug}-standings.csv"' in answer["Content-Disposition"]
    pool = t.rating_pool
    assert _rows(answer) == [
        ["Rank", "Player", "Points", "Buchholz", "Sonneborn–Berger", "Played", "Withdrawn",
         f"Rating ({pool})", "Rating change (this tournament)"],
        # a duel won: 1 point, its opponent had 0; K 40 at even ratings: +20 / -20
        ["1", winners[0], "1", "0", "0", "1", "no", "1520.0", "20"],
        ["1", winners[1], "1", "0", "0", "1", "no", "1520.0", "20"],
        ["3", losers[0], "0", "1", "0", "1", "no", "1480.0", "-20"],
        ["3", losers[1], "0", "1", "0", "1", "yes", "1480.0", "-20"],
    ]  # fmt: skip


def test_a_drafts_standings_are_its_organizers_alone(client):
    organizer, _users, t, _regs = _open_cup("ed", 2)
    t.status = "draft"
    t.save(update_fields=["status"])
    assert client.get(f"/tournaments/{t.slug}/standings.csv").status_code == 404
    client.force_login(organizer)
    assert client.get(f"/tournaments/{t.slug}/standings.csv").status_code == 200


def test_a_name_a_spreadsheet_would_run_is_written_as_text(client, django_user_model):
    organizer, _users, t, _regs = _open_cup("ef", 2)
    sneaky = django_user_model.objects.create_user("-2+3", "s@example.com", "pw")
    tsvc.registration_add(tournament=t, user=sneaky)
    names = [row[1] for row in _rows(client.get(f"/tournaments/{t.slug}/standings.csv"))[1:]]
    assert "'-2+3" in names and "-2+3" not in names
