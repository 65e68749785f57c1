"""The organizer (not only staff in the admin) renames a tournament until its first round
is paired, and deletes a draft that has no games, from the panel and over the API;
renaming is logged in the tournament's audit log; anything else is refused with the
reason, nothing changed."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.games.web_support import make_user, token_client
from tournaments.models import Tournament, TournamentLog
from tournaments.services import rounds
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db


@pytest.fixture
def olga():
    return make_user("olga")  # a player, not staff: any player may organize


def _draft(organizer, name: str = "Wnter Cup") -> Tournament:
    return tsvc.tournament_create(
        organizer=organizer, name=name, ruleset="6x5", table_sizes=[2], rounds_count=2
    )


def _renamed(t: Tournament) -> list[dict]:
    return list(TournamentLog.objects.filter(tournament=t, kind="tournament_renamed")
                .order_by("seq").values_list("payload", flat=True))  # fmt: skip


def test_the_organizer_renames_a_draft_and_an_open_tournament_over_the_api(olga):
    # Regression: renaming took a site administrator (the admin's only editable field).
    t = _draft(olga)
    api = token_client(olga)
    url = f"/api/tournaments/{t.slug}/rename/"
    done = api.post(url, {"name": "  Winter Cup "}, format="json")
    assert done.status_code == 200, done.json()
    assert done.json()["name"] == "Winter Cup" and done.json()["slug"] == "wnter-cup"
    assert done.json()["log"][0]["kind"] == "tournament_renamed"
    assert _renamed(t) == [{"from": "Wnter Cup", "to": "Winter Cup"}]
    same = api.post(url, {"name": "Winter Cup"}, format="json")
    assert same.status_code == 409 and same.json()["error"] == "already_done"
    for bad in ({"name": ""}, {"name": "   "}, {"name": "x" * 121}, {}, {"name": 3}):
        answer = api.post(url, bad, format="json")
        assert answer.status_code == 400 and "name" in answer.json()["fields"], bad
    tsvc.tournament_open(tournament=t, by=olga)
    assert api.post(url, {"name": "Winter Cup 2026"}, format="json").status_code == 200
    assert Tournament.objects.get(pk=t.pk).name == "Winter Cup 2026"
    assert len(_renamed(t)) == 2
    stranger = token_client(make_user("sam")).post(url, {"name": "Mine"}, format="json")
    assert stranger.status_code == 403
    assert Tournament.objects.get(pk=t.pk).name == "Winter Cup 2026"


def test_a_tournament_with_a_round_paired_or_closed_is_not_renamed(olga):
    t = _draft(olga)
    tsvc.tournament_open(tournament=t, by=olga)
    for name in ("ann", "bob"):
        tsvc.registration_add(tournament=t, user=make_user(name))
    rounds.round_pair(tournament=t, by=olga)
    api = token_client(olga)
    refused = api.post(f"/api/tournaments/{t.slug}/rename/", {"name": "Other"}, format="json")
    assert refused.status_code == 409 and refused.json()["error"] == "conflict"
    assert refused.json()["message"] == (
        "A tournament is renamed until its first round is paired: its games and emails carry "
        "its name. Nothing was changed."
    )
    tsvc.tournament_close(tournament=t, by=olga)
    closed = api.post(f"/api/tournaments/{t.slug}/rename/", {"name": "Other"}, format="json")
    assert closed.status_code == 409
    assert Tournament.objects.get(pk=t.pk).name == "Wnter Cup" and not _renamed(t)


def test_the_organizer_deletes_a_draft_over_the_api(olga):
    t = _draft(olga)
    api = token_client(olga)
    url = f"/api/tournaments/{t.slug}/delete/"
    for bad in ({}, {"confirm": False}, {"confirm": "yes"}):
        assert api.post(url, bad, format="json").status_code == 400, bad
    assert token_client(make_user("sam")).post(url, {"confirm": True}, format="json").status_code == 404
    gone = api.post(url, {"confirm": True}, format="json")
    assert gone.status_code == 204
    assert not Tournament.objects.filter(pk=t.pk).exists()
    assert not TournamentLog.objects.filter(tournament_id=t.pk).exists()
    assert api.get(f"/api/tournaments/{t.slug}/organizer/").status_code == 404
    assert api.post(url, {"confirm": True}, format="json").status_code == 404


def test_only_a_draft_without_other_players_is_deleted(olga):
    opened = _draft(olga, "Open Cup")
    tsvc.tournament_open(tournament=opened, by=olga)
    api = token_client(olga)
    refused = api.post(f"/api/tournaments/{opened.slug}/delete/", {"confirm": True}, format="json")
    assert refused.status_code == 409 and refused.json()["message"] == (
        "Only a draft is deleted: this tournament is open for registration (close it instead). "
        "Nothing was changed."
    )
    staff = make_user("stan")
    staff.is_staff = True
    staff.save()
    entered = _draft(staff, "Staff Cup")
    tsvc.registration_add(tournament=entered, user=make_user("ann"), by=staff)  # entered in the draft
    said = token_client(staff).post(f"/api/tournaments/{entered.slug}/delete/", {"confirm": True},
                                    format="json")  # fmt: skip
    assert said.status_code == 409 and said.json()["message"] == (
        "ann is registered in this draft: withdraw them first (they were told they are "
        "registered). Nothing was changed."
    )
    assert Tournament.objects.filter(pk__in=[opened.pk, entered.pk]).count() == 2


def test_the_panel_renames_and_deletes_a_draft(olga):
    t = _draft(olga)
    client = Client()
    client.force_login(olga)
    page = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    assert 'id="rename-tournament"' in page and 'id="delete-draft"' in page
    done = client.post(f"/tournaments/{t.slug}/manage/rename/", {"name": "Winter Cup"}, follow=True)
    assert "Renamed: Winter Cup." in done.content.decode()
    assert Tournament.objects.get(pk=t.pk).name == "Winter Cup"
    assert "Tournament renamed: Wnter Cup → Winter Cup" in done.content.decode()  # the audit log
    empty = client.post(f"/tournaments/{t.slug}/manage/rename/", {"name": " "}, follow=True)
    assert "A tournament needs a name." in empty.content.decode()
    unconfirmed = client.post(f"/tournaments/{t.slug}/manage/delete/", {}, follow=True)
    assert "Tick the box to confirm" in unconfirmed.content.decode()
    assert Tournament.objects.filter(pk=t.pk).exists()
    gone = client.post(f"/tournaments/{t.slug}/manage/delete/", {"confirm": "yes"}, follow=True)
    assert gone.redirect_chain[-1][0] == "/tournaments/"
    assert "The draft Winter Cup was deleted." in gone.content.decode()
    assert not Tournament.objects.filter(pk=t.pk).exists()


def test_the_panel_offers_neither_once_a_round_is_paired_and_refuses_a_forged_form(olga):
    t = _draft(olga)
    tsvc.tournament_open(tournament=t, by=olga)
    for name in ("ann", "bob"):
        tsvc.registration_add(tournament=t, user=make_user(name))
    client = Client()
    client.force_login(olga)
    page = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    assert 'id="rename-tournament"' in page and 'id="delete-draft"' not in page
    rounds.round_pair(tournament=t, by=olga)
    page = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    assert 'id="rename-tournament"' not in page
    forged = client.post(f"/tournaments/{t.slug}/manage/rename/", {"name": "Other"}, follow=True)
    assert "A tournament is renamed until its first round is paired" in forged.content.decode()
    deleted = client.post(f"/tournaments/{t.slug}/manage/delete/", {"confirm": "yes"}, follow=True)
    assert "Only a draft is deleted" in deleted.content.decode()
    assert Tournament.objects.get(pk=t.pk).name == "Wnter Cup"
