"""Findings of an organizer's walk through a Swiss tournament: withdrawals between the
pairing and the start, byes made by hand, tie-breaks on the tournament's own scale, the
create form's bounds, drafts kept private, and the admin's reach."""

from __future__ import annotations

import html
import random

import pytest
from django.contrib.auth import get_user_model
from django.core import mail

from games.errors import ValidationError
from games.models import Game
from tests.tournaments.test_tournament_services import _open_cup, _results_by_hand, make_users
from tournaments import selectors, standings
from tournaments.models import Round, Tournament
from tournaments.services import rounds
from tournaments.services import tournaments as tsvc
from tournaments.services.common import TournamentError

pytestmark = pytest.mark.django_db


# --- a withdrawal after the pairing, before the start ---------------------------------


def test_a_withdrawn_player_with_a_pairing_bye_blocks_the_start_until_re_paired():
    organizer, _users, t, regs = _open_cup("wb", 3)  # duels: one bye a round
    rnd = rounds.round_pair(tournament=t, by=organizer)
    bye = rnd.byes.get()
    withdrawn = next(r for r in regs if r.pk == bye.registration_id)
    tsvc.registration_withdraw(registration=withdrawn, by=withdrawn.user)
    mail.outbox.clear()
    with pytest.raises(TournamentError, match=f"{withdrawn.user.username} withdrew after this round"):
        rounds.round_start(rnd=rnd, by=organizer)
    assert not Game.objects.exists() and Round.objects.get(pk=rnd.pk).status == Round.Status.PAIRED
    assert not [m for m in mail.outbox if withdrawn.user.email in m.to]
    rounds.round_repair(rnd=rnd, by=organizer)
    rnd = Round.objects.get(pk=rnd.pk)
    assert not rnd.byes.exists() and rnd.tables.count() == 1  # the two left play
    rounds.round_start(rnd=rnd, by=organizer)
    assert withdrawn.pk not in [r["registration"].pk for r in selectors.standings(tournament=t)]


def test_withdrawing_before_round_one_starts_is_withdrawing_before_the_tournament():
    organizer, _users, t, regs = _open_cup("wp", 4)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    gone = regs[0]
    tsvc.registration_withdraw(registration=gone, by=gone.user)
    gone.refresh_from_db()
    assert gone.withdrawn_after_round == 0  # round 1 was paired, never started with it
    rounds.round_repair(rnd=rnd, by=organizer)
    rnd = Round.objects.get(pk=rnd.pk)
    rounds.round_start(rnd=rnd, by=organizer)
    _results_by_hand(rnd, organizer, "offline")
    shown = [row["registration"].pk for row in selectors.standings(tournament=t)]
    assert gone.pk not in shown and len(shown) == 3
    assert selectors.entrants_count(tournament=t) == 3
    with pytest.raises(TournamentError, match="after its first round was paired: you cannot register again"):
        tsvc.registration_add(tournament=t, user=gone.user)


def test_withdrawing_during_a_started_round_counts_that_round():
    organizer, _users, t, regs = _open_cup("ws", 4)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    tsvc.registration_withdraw(registration=regs[0], by=regs[0].user)
    regs[0].refresh_from_db()
    assert regs[0].withdrawn_after_round == 1
    _results_by_hand(rnd, organizer, "offline")
    assert regs[0].pk in [row["registration"].pk for row in selectors.standings(tournament=t)]


# --- byes made by hand -----------------------------------------------------------------


def test_a_requested_bye_named_in_a_hand_pairing_is_kept_not_refused():
    """An organizer's journey: the panel lists "Byes this round: Zoe (requested bye)";
    typed back into a hand pairing it was refused ("Not playing round 1")."""
    organizer, _users, t, regs = _open_cup("rb", 5, ruleset="5x", table_sizes=(4,))
    tsvc.bye_request(registration=regs[4], round_number=1, by=regs[4].user)
    ids = [r.pk for r in regs]
    rnd, warnings = rounds.round_pair_by_hand(
        tournament=t, tables=[ids[:4]], byes=[ids[4]], by=organizer
    )
    assert warnings == [] and rnd is not None
    assert [(b.registration_id, b.kind) for b in rnd.byes.all()] == [(ids[4], "requested")]


def test_pairing_by_hand_warns_about_byes_the_tables_could_avoid():
    organizer, _users, t, regs = _open_cup("hb", 7, ruleset="5x", table_sizes=(4, 3))
    ids = [r.pk for r in regs]
    names = sorted(r.user.username for r in regs[3:])
    rnd, warnings = rounds.round_pair_by_hand(
        tournament=t, tables=[ids[:3]], byes=ids[3:], by=organizer
    )
    assert rnd is None and not Round.objects.exists()  # nothing saved without "anyway"
    assert t.bye_points == 0.5  # the default with tables of 4 or 3
    assert warnings == [
        f"4 pairing byes ({', '.join(names)}) where 0 would do: tables of 4 or 3 can seat "
        "more of them (a pairing bye scores 0.5 points)."
    ]
    rnd, _ = rounds.round_pair_by_hand(
        tournament=t, tables=[ids[:3]], byes=ids[3:], by=organizer, force=True
    )
    assert rnd.warnings == warnings and rnd.byes.count() == 4
    # One bye the tables could avoid reads in the singular (it read "1 pairing bye(s)"),
    # and a bye worth 1 "1 point" (it read "1 points").
    Tournament.objects.filter(pk=t.pk).update(bye_points=1.0)
    t.refresh_from_db()
    _rnd, one = rounds.round_pair_by_hand(tournament=t, tables=[ids[:3], ids[3:6]], byes=ids[6:], by=organizer)
    assert one == [
        f"1 pairing bye ({regs[6].user.username}) where 0 would do: tables of 4 or 3 can seat "
        "more of them (a pairing bye scores 1 point)."
    ]
    with pytest.raises(ValidationError) as lone:
        rounds.round_pair_by_hand(tournament=t, tables=[ids[:1]], byes=ids[1:], by=organizer)
    assert str(lone.value) == "Table 1 has 1 player; allowed: 4, 3."
    with pytest.raises(ValidationError) as two:
        rounds.round_pair_by_hand(tournament=t, tables=[ids[:2]], byes=ids[2:], by=organizer)
    assert str(two.value) == "Table 1 has 2 players; allowed: 4, 3."
    # The fewest byes possible raise no warning (7 players at tables of 4 only: 3 byes).
    organizer2, _u, t2, regs2 = _open_cup("hc", 7, ruleset="5x", table_sizes=(4,))
    ids2 = [r.pk for r in regs2]
    rnd2, warnings2 = rounds.round_pair_by_hand(
        tournament=t2, tables=[ids2[:4]], byes=ids2[4:], by=organizer2
    )
    assert warnings2 == [] and rnd2 is not None


# --- tie-breaks on the tournament's own scale ------------------------------------------


def _random_rounds(rng: random.Random, players: list[str], n_rounds: int) -> list[standings.Round]:
    out = []
    for _ in range(n_rounds):
        order = players[:]
        rng.shuffle(order)
        bye, seated = order[0], order[1:]  # 9 players: a bye and two tables of 4
        games = []
        for k in range(0, len(seated), 4):
            table = seated[k:k + 4]
            rng.shuffle(table)
            ranking = [[p] for p in table]
            if rng.random() < 0.3:  # a shared place now and then
                ranking = [ranking[0] + ranking[1], *ranking[2:]]
            games.append(standings.Game(ranking=ranking))
        out.append(standings.Round(games=games, unplayed={bye: 0.5}))
    return out


@pytest.mark.parametrize("seed", range(25))
def test_scaling_every_points_table_never_reorders_the_standings(seed):
    rng = random.Random(seed)
    players = [f"p{i}" for i in range(9)]
    rounds_ = _random_rounds(rng, players, 3)
    base = [3.0, 2.0, 1.0, 0.0]
    tiebreaks = ("buchholz", "sonneborn_berger", "buchholz_cut1", "average_opponent")

    def order(factor: float) -> list[tuple[str, int]]:
        scaled = [
            standings.Round(games=r.games, unplayed={p: v * factor for p, v in r.unplayed.items()})
            for r in rounds_
        ]
        rows = standings.compute(
            players, scaled, {4: [v * factor for v in base]}, tiebreaks, scale_size=4
        )
        return [(row.player, row.rank) for row in rows]

    assert order(1.0) == order(1 / 3) == order(10.0)


def test_an_unplayed_round_is_valued_on_the_preferred_tables_scale():
    """A virtual opponent at tables of 4 scored 3-2-1-0: the player's result complemented
    by a first place (3), then average places (1.5) for the rounds after."""
    players = ["a", "b", "c", "d", "e"]
    r1 = standings.Round(games=[standings.Game(ranking=[["a"], ["b"], ["c"], ["d"]])], unplayed={"e": 0.0})
    rows = standings.compute(players, [r1, r1], {4: [3, 2, 1, 0]}, ("buchholz",), scale_size=4)
    e = next(row for row in rows if row.player == "e")
    # Round 1: 0 + (3 - 0) + 1.5 (one later round); round 2: 0 + 3 + 0.
    assert e.tiebreaks["buchholz"] == pytest.approx(4.5 + 3.0)


# --- the create form's bounds and the slug ----------------------------------------------


@pytest.mark.parametrize(
    "points", [[1e308, 1e308, 0, 0], [10**400, 0, 0, 0], [1001, 0, 0, 0], [0, 0, 0, -1001]]
)
def test_points_per_place_are_bounded(points):
    organizer = make_users(1, prefix="pb")[0]
    with pytest.raises(ValidationError, match="numbers from -1000 to 1000"):
        tsvc.tournament_create(organizer=organizer, name="Big", ruleset="5x", table_sizes=[4],
                               rounds_count=3, points_per_place={"4": points})
    assert not Tournament.objects.exists()


@pytest.mark.parametrize("field,value", [("bye_points", 1e308), ("requested_bye_points", -1),
                                         ("bye_points", float("nan"))])
def test_bye_points_are_bounded(field, value):
    organizer = make_users(1, prefix="bb")[0]
    with pytest.raises(ValidationError, match="scores 0 to 1000 points"):
        tsvc.tournament_create(organizer=organizer, name="Byes", ruleset="5x", table_sizes=[4],
                               rounds_count=3, **{field: value})


def test_the_create_form_answers_huge_points_with_a_form_error(client):
    organizer = make_users(1, prefix="cf")[0]
    client.force_login(organizer)
    response = client.post("/tournaments/new/", {
        "name": "Huge", "ruleset": "5x", "table_sizes": "4", "rounds_count": "3",
        "deadline_hours": "48", "points_per_place": "4: 1e308 1e308 0 0",
        "tiebreaks": ["buchholz"],
    })
    assert response.status_code == 200
    assert b"numbers from -1000 to 1000" in response.content
    assert not Tournament.objects.exists()


def test_a_tournament_named_new_gets_a_page_of_its_own(client):
    organizer = make_users(1, prefix="nw")[0]
    t = tsvc.tournament_create(organizer=organizer, name="New", ruleset="5x", table_sizes=[4],
                               rounds_count=3)
    assert t.slug == "new-2"
    tsvc.tournament_open(tournament=t, by=organizer)
    page = client.get(f"/tournaments/{t.slug}/")
    assert page.status_code == 200 and b"<h1>New</h1>" in page.content


# --- drafts stay private on every page ------------------------------------------------


def test_a_drafts_player_and_round_pages_are_not_public(client):
    organizer = make_users(1, prefix="dr")[0]
    t = tsvc.tournament_create(organizer=organizer, name="Secret Winter Cup", ruleset="6x5",
                               table_sizes=[2], rounds_count=2)
    reg = tsvc.registration_add(tournament=t, user=organizer, by=organizer)
    stranger = get_user_model().objects.create_user("nosy", "nosy@example.com", "pw")
    for who in (None, stranger):
        if who is not None:
            client.force_login(who)
        for path in (f"/tournaments/{t.slug}/", f"/tournaments/{t.slug}/players/{reg.pk}/",
                     f"/tournaments/{t.slug}/rounds/1/"):
            response = client.get(path)
            assert response.status_code == 404, (who, path)
            assert b"Secret Winter Cup" not in response.content
    client.force_login(organizer)
    assert client.get(f"/tournaments/{t.slug}/players/{reg.pk}/").status_code == 200


# --- the admin ------------------------------------------------------------------------


def test_the_admin_changes_only_a_drafts_name_and_adds_none(admin_client):
    organizer = make_users(1, prefix="ad")[0]
    t = tsvc.tournament_create(organizer=organizer, name="Bad9", ruleset="5x", table_sizes=[4],
                               rounds_count=3)
    page = admin_client.get(f"/admin/tournaments/tournament/{t.pk}/change/").content.decode()
    assert 'name="name"' in page
    for field in ("ruleset", "table_sizes", "points_per_place", "tiebreaks", "status"):
        assert f'name="{field}"' not in page, field
    admin_client.post(f"/admin/tournaments/tournament/{t.pk}/change/", {
        "name": "Renamed", "ruleset": "chess", "table_sizes": "[9, 0]", "status": "open",
        "registrations-TOTAL_FORMS": "0", "registrations-INITIAL_FORMS": "0",
    })
    t.refresh_from_db()
    assert (t.name, t.ruleset, t.table_sizes, t.status) == ("Renamed", "5x", [4], "draft")
    assert admin_client.get("/admin/tournaments/tournament/add/").status_code == 403


# --- the panel and the player's page ------------------------------------------------------


def test_register_player_is_offered_only_to_league_administrators(client):
    organizer, _users, t, _regs = _open_cup("rp", 2)
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    assert "Register player" not in page and "Players register themselves" in page
    organizer.is_staff = True
    organizer.save()
    assert "Register player" in client.get(f"/tournaments/{t.slug}/manage/").content.decode()


def test_no_bye_request_or_register_once_every_round_is_paired(client):
    organizer, users, t, regs = _open_cup("ar", 4, rounds_count=1)
    client.force_login(users[0])
    assert b"Request a bye" in client.get(f"/tournaments/{t.slug}/").content
    rounds.round_pair(tournament=t, by=organizer)
    page = client.get(f"/tournaments/{t.slug}/").content
    assert b"Request a bye" not in page
    # The tournament's state refuses it (a 409 over the API); a round it does not have is
    # the request's fault.
    with pytest.raises(TournamentError, match="every round of this tournament has been paired"):
        tsvc.bye_request(registration=regs[0], round_number=1, by=users[0])
    with pytest.raises(ValidationError, match="Every round of this tournament has been paired"):
        tsvc.bye_request(registration=regs[0], round_number=2, by=users[0])


# --- nobody decides their own game ------------------------------------------------------


def test_an_organizer_who_plays_cannot_enter_their_own_tables_result(client):
    from games.errors import PermissionDenied
    from games.services.organizer import game_end
    from tournaments.models import Table
    from tournaments.services import results

    organizer, users, t, regs = _open_cup("ow", 1)
    mine = tsvc.registration_add(tournament=t, user=organizer)  # the organizer plays too
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    table = rnd.tables.get()
    assert mine.pk in table.players
    # A site administrator ends it: the organizer plays in it, so may not end it.
    staff = get_user_model().objects.create_user("judge", "judge@example.com", "pw", is_staff=True)
    with pytest.raises(PermissionDenied, match="You play in this game"):
        game_end(game=table.game, by=organizer, reason="offline")
    game_end(game=table.game, by=staff, reason="offline")
    other = next(p for p in table.players if p != mine.pk)
    me_first = [[mine.pk], [other]]
    for ranking in (me_first, [[mine.pk, other]]):  # a win, or a shared first place
        with pytest.raises(PermissionDenied, match="You play at table 1: you may only concede it"):
            results.result_enter(table=table, ranking=ranking, by=organizer, reason="I won")
    assert Table.objects.get(pk=table.pk).ranking is None
    # Through the panel: the same refusal, nothing recorded.
    client.force_login(organizer)
    response = client.post(
        f"/tournaments/{t.slug}/manage/result/",
        {"table": table.pk, "ranking": f"{organizer.username} > {users[0].username}", "reason": "I won"},
        follow=True,
    )
    assert b"You play at table 1" in response.content
    assert Table.objects.get(pk=table.pk).ranking is None
    # Conceding is allowed (the round can always finish) ...
    results.result_enter(table=table, ranking=[[other], [mine.pk]], by=organizer, reason="I resign")
    assert Table.objects.get(pk=table.pk).ranking == [[other], [mine.pk]]
    # ... and staff who do not play there decide anything.
    results.result_enter(table=table, ranking=me_first, by=staff, reason="offline, seen by the judge")
    assert Table.objects.get(pk=table.pk).ranking == me_first


# --- the create form: tie-breaks in order, byes, late entries ----------------------------


def _create_form(**extra):
    data = {"name": "Ordered", "ruleset": "5x", "table_sizes": "4, 3", "rounds_count": "3",
            "deadline_hours": "48", "quiet_hours_time_zone": "UTC"}
    data.update(extra)
    return data


def test_the_create_form_keeps_the_tie_breaks_in_the_order_given(client):
    organizer = make_users(1, prefix="to")[0]
    client.force_login(organizer)
    response = client.post("/tournaments/new/", _create_form(
        tiebreaks=["direct_encounter", "buchholz", "wins"], points_per_place="4: 3 2 1 0\n3: 3 1.5 0",
        bye_points="2", requested_bye_points="", allow_late_entry="",
    ))
    assert response.status_code == 302, response.content.decode()[-2000:]
    t = Tournament.objects.get()
    assert t.tiebreaks == ["direct_encounter", "buchholz", "wins"]
    assert t.bye_points == 2.0
    assert t.requested_bye_points == 1.5  # half a first place of the first table size
    assert t.allow_late_entry is False


def test_the_form_lists_the_chosen_tie_breaks_first_in_their_order(client):
    organizer = make_users(1, prefix="tl")[0]
    client.force_login(organizer)
    page = client.get("/tournaments/new/").content.decode()
    keys = [k for k in ("buchholz", "sonneborn_berger", "buchholz_cut1") if f'data-tiebreak="{k}"' in page]
    assert page.index('data-tiebreak="buchholz"') < page.index('data-tiebreak="sonneborn_berger"')
    assert keys and 'value="buchholz" checked' in page and 'value="wins" checked' not in page
    # A refused form shows the order that was posted.
    page = client.post("/tournaments/new/", _create_form(
        name="", tiebreaks=["wins", "buchholz_cut1"],
    )).content.decode()
    assert page.index('data-tiebreak="wins"') < page.index('data-tiebreak="buchholz_cut1"')
    assert page.index('data-tiebreak="buchholz_cut1"') < page.index('data-tiebreak="buchholz"')
    assert 'value="wins" checked' in page and 'value="buchholz" checked' not in page


def test_default_bye_values_follow_the_points_scale():
    organizer = make_users(1, prefix="bv")[0]
    t = tsvc.tournament_create(organizer=organizer, name="Scale", ruleset="5x", table_sizes=[4],
                               rounds_count=3, points_per_place={"4": [3, 2, 1, 0]})
    assert (t.bye_points, t.requested_bye_points) == (1.5, 1.5)
    plain = tsvc.tournament_create(organizer=organizer, name="Plain", ruleset="6x5",
                                   table_sizes=[2], rounds_count=3)
    assert (plain.bye_points, plain.requested_bye_points) == (1.0, 0.5)


# --- the panel: earlier rounds, the log, the list ---------------------------------------


def test_an_earlier_rounds_result_is_corrected_from_the_panel(client):
    from tournaments.models import Table

    organizer, users, t, regs = _open_cup("er", 4, rounds_count=3)
    first = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=first, by=organizer)
    _results_by_hand(first, organizer, "offline")
    second = rounds.round_pair(tournament=t, by=organizer)
    client.force_login(organizer)
    panel = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    assert "Round 2 — paired" in panel and 'href="?round=1"' in panel
    earlier = client.get(f"/tournaments/{t.slug}/manage/?round=1").content.decode()
    assert "Round 1 — finished" in earlier and "the actions below are for round 2" in earlier
    assert "Start round 2" in earlier  # the actions still act on the latest round
    table = first.tables.order_by("number").first()
    names = {r.pk: r.user.username for r in regs}
    loser, winner = table.players  # the hand result put players[0] first
    response = client.post(f"/tournaments/{t.slug}/manage/result/", {
        "table": table.pk, "round": "1", "reason": "scoresheet misread",
        "ranking": f"{names[winner]} > {names[loser]}",
    })
    assert response.status_code == 302 and response["Location"].endswith("/manage/?round=1")
    assert Table.objects.get(pk=table.pk).ranking == [[winner], [loser]]
    assert second.pk == Round.objects.get(number=2, tournament=t).pk


def test_the_log_names_whose_registration_changed(client):
    organizer, users, t, regs = _open_cup("lg", 2)
    tsvc.registration_withdraw(registration=regs[0], by=organizer)
    client.force_login(organizer)
    panel = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    assert f"Registration withdrawn: {users[0].username}" in panel


def test_the_tournament_list_is_newest_first(client):
    organizer = make_users(1, prefix="ls")[0]
    for name in ("Older", "Newer"):
        t = tsvc.tournament_create(organizer=organizer, name=name, ruleset="6x5",
                                   table_sizes=[2], rounds_count=2)
        tsvc.tournament_open(tournament=t, by=organizer)
    assert [t.name for t in selectors.tournaments_list()] == ["Newer", "Older"]


def test_a_player_entered_by_a_league_administrator_is_told():
    from games.models import OutboxMessage

    admin, player, other = make_users(3, prefix="la")
    admin.is_staff = True
    admin.save()
    t = tsvc.tournament_create(organizer=admin, name="League night", ruleset="6x5",
                               table_sizes=[2], rounds_count=3)
    tsvc.tournament_open(tournament=t, by=admin)
    tsvc.registration_add(tournament=t, user=player, by=admin)
    tsvc.registration_add(tournament=t, user=other)  # by themselves: a confirmation
    with pytest.raises(TournamentError, match="la01 is already registered."):  # again: nothing new
        tsvc.registration_add(tournament=t, user=player, by=admin)
    tsvc.registration_add(tournament=t, user=other)  # again: nothing new
    sent = list(OutboxMessage.objects.filter(kind="tournament").order_by("id"))
    assert [m.to for m in sent] == [player.email, other.email]
    assert sent[0].subject == f"League night: {admin.username} registered you"
    assert f"/tournaments/{t.slug}/" in sent[0].body and "withdraw" in sent[0].body
    # A player who registers is told so by email too (a participant's journey: on the
    # page only), with what comes next.
    assert sent[1].subject == "League night: you are registered"
    assert "(3 rounds, one game per round). Round 1 starts when the organizer pairs and starts it." in sent[1].body


# --- from the review of this change ------------------------------------------------------


def test_tournaments_created_before_the_scale_change_keep_their_published_standings():
    import importlib

    from django.apps import apps

    organizer = make_users(1, prefix="sc")[0]
    t = tsvc.tournament_create(organizer=organizer, name="Old", ruleset="5x", table_sizes=[4],
                               rounds_count=3, points_per_place={"4": [3, 2, 1, 0]})
    assert t.tiebreak_scale_size is None  # new tournaments: the first table size
    migration = importlib.import_module("tournaments.migrations.0005_tiebreak_scale_size")
    migration.keep_published_scale(apps, None)
    t.refresh_from_db()
    assert t.tiebreak_scale_size == 2
    # The selector passes it on: the standings are those of the old scale.
    rng = random.Random(6)
    players = [f"p{i}" for i in range(9)]
    history = _random_rounds(rng, players, 3)
    old = standings.compute(players, history, {4: [3, 2, 1, 0]}, ("buchholz",), scale_size=2)
    new = standings.compute(players, history, {4: [3, 2, 1, 0]}, ("buchholz",), scale_size=4)
    assert [r.tiebreaks for r in old] != [r.tiebreaks for r in new]


def test_the_selector_uses_the_stored_scale(monkeypatch):
    organizer, _users, t, _regs = _open_cup("ss", 2, ruleset="5x", table_sizes=(4, 3))
    seen = []
    real = standings.compute

    def spy(*args, **kwargs):
        seen.append(kwargs["scale_size"])
        return real(*args, **kwargs)

    monkeypatch.setattr(standings, "compute", spy)
    selectors.standings(tournament=t)
    Tournament.objects.filter(pk=t.pk).update(tiebreak_scale_size=2)
    t.refresh_from_db()
    selectors.standings(tournament=t)
    assert seen == [4, 2]


def test_withdrawn_before_round_one_started_is_not_offered_register(client):
    organizer, users, t, regs = _open_cup("wr", 4)
    rounds.round_pair(tournament=t, by=organizer)
    tsvc.registration_withdraw(registration=regs[0], by=users[0])
    client.force_login(users[0])
    page = client.get(f"/tournaments/{t.slug}/").content.decode()
    assert "You withdrew before round 1 started; you cannot register again." in page
    assert ">Register</button>" not in page


def test_a_late_entrant_who_withdrew_before_their_first_round_never_took_part(client):
    organizer, users, t, regs = _open_cup("lw", 4, rounds_count=3)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    late_user = make_users(1, prefix="lx")[0]
    late = tsvc.registration_add(tournament=t, user=late_user)
    assert late.first_round == 2
    tsvc.registration_withdraw(registration=late, by=late_user)
    _results_by_hand(rnd, organizer, "offline")
    assert late.pk not in [r["registration"].pk for r in selectors.standings(tournament=t)]
    assert selectors.entrants_count(tournament=t) == 4
    assert next(x for x in selectors.tournaments_list() if x.pk == t.pk).entrants == 4
    client.force_login(late_user)
    page = client.get(f"/tournaments/{t.slug}/").content.decode()
    assert "You withdrew before round 2 started" in page and "You withdrew after" not in page


def test_odd_round_numbers_in_the_panel_are_ignored(client):
    organizer, _users, t, _regs = _open_cup("od", 2)
    rounds.round_pair(tournament=t, by=organizer)
    client.force_login(organizer)
    for value in ("²", "١", "-1", "99999", "x"):
        response = client.get(f"/tournaments/{t.slug}/manage/", {"round": value})
        assert response.status_code == 200, value
        assert "Round 1 — paired" in response.content.decode()


def test_a_points_table_with_negative_places_gets_default_byes_of_zero():
    organizer = make_users(1, prefix="ng")[0]
    t = tsvc.tournament_create(organizer=organizer, name="Negative", ruleset="5x", table_sizes=[4],
                               rounds_count=3, points_per_place={"4": [1, 0, -1, -2]})
    assert (t.bye_points, t.requested_bye_points) == (0.0, 0.5)


def test_player_actions_on_a_draft_are_404_to_strangers(client):
    organizer = make_users(1, prefix="dx")[0]
    t = tsvc.tournament_create(organizer=organizer, name="Hidden draft", ruleset="6x5",
                               table_sizes=[2], rounds_count=2)
    stranger = get_user_model().objects.create_user("peek", "peek@example.com", "pw")
    client.force_login(stranger)
    for action in ("register", "withdraw", "bye"):
        assert client.post(f"/tournaments/{t.slug}/{action}/").status_code == 404, action
        assert client.post(f"/tournaments/no-such-{action}/{action}/").status_code == 404
    assert not t.registrations.exists()


def test_a_drafts_round_page_is_not_public(client):
    organizer = make_users(1, prefix="dq")[0]
    t = tsvc.tournament_create(organizer=organizer, name="Draft with a round", ruleset="6x5",
                               table_sizes=[2], rounds_count=2)
    Round.objects.create(tournament=t, number=1)  # as an edit by hand would leave it
    assert client.get(f"/tournaments/{t.slug}/rounds/1/").status_code == 404
    client.force_login(organizer)
    assert client.get(f"/tournaments/{t.slug}/rounds/1/").status_code == 200


def test_conceding_at_a_bigger_table_moves_only_the_organizer():
    """At tables of three a playing organizer's concession keeps the others as the table
    stands (all level without a result): it cannot re-rank them."""
    from games.errors import PermissionDenied
    from games.services.organizer import game_end
    from tournaments.models import Table
    from tournaments.services import results

    organizer, users, t, regs = _open_cup("cb", 2, ruleset="5x", table_sizes=(3,), rounds_count=1)
    mine = tsvc.registration_add(tournament=t, user=organizer)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    table = rnd.tables.get()
    a, b = [p for p in table.players if p != mine.pk]
    staff = get_user_model().objects.create_user("judge2", "judge2@example.com", "pw", is_staff=True)
    game_end(game=table.game, by=staff, reason="offline")  # not the organizer: they play in it
    with pytest.raises(PermissionDenied, match="you may only concede it"):
        results.result_enter(table=table, ranking=[[a], [b], [mine.pk]], by=organizer, reason="x")
    results.result_enter(table=table, ranking=[[b, a], [mine.pk]], by=organizer, reason="I resign")
    assert Table.objects.get(pk=table.pk).ranking == [[b, a], [mine.pk]]
    # A judge's result stands: the organizer may still only move themselves to last.
    results.result_enter(table=table, ranking=[[a], [mine.pk], [b]], by=staff, reason="scoresheet")
    table = Table.objects.get(pk=table.pk)
    with pytest.raises(PermissionDenied, match="may only concede"):
        results.result_enter(table=table, ranking=[[b], [a], [mine.pk]], by=organizer, reason="x")
    results.result_enter(table=table, ranking=[[a], [b], [mine.pk]], by=organizer, reason="I concede")
    assert Table.objects.get(pk=table.pk).ranking == [[a], [b], [mine.pk]]


def test_a_re_pair_says_so_in_the_log(client):
    organizer, _users, t, _regs = _open_cup("rl", 4)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_repair(rnd=rnd, by=organizer)
    entries = list(t.log.filter(kind="round_paired").order_by("seq"))
    assert [e.payload.get("repaired", False) for e in entries] == [False, True]
    client.force_login(organizer)
    panel = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    assert panel.count("Round re-paired (round 1)") == 1
    assert panel.count("Round paired (round 1)") == 1


# --- pairs who must not meet, from the form ---------------------------------------------


def test_the_create_form_takes_pairs_who_must_not_meet_and_the_pairing_keeps_them_apart(client):
    organizer, ann, bob, cat, dan = make_users(5, prefix="fp")
    client.force_login(organizer)
    response = client.post("/tournaments/new/", _create_form(
        name="Family cup", ruleset="6x5", table_sizes="2", tiebreaks=["buchholz"],
        forbidden_pairs=f"{ann.username} {bob.username}\n{cat.username}, {dan.username}\n"
                        f"{bob.username} {ann.username}",  # the same pair again: once
    ))
    assert response.status_code == 302, response.content.decode()[-1500:]
    t = Tournament.objects.get(name="Family cup")
    assert t.forbidden_pairs == [sorted([ann.pk, bob.pk]), sorted([cat.pk, dan.pk])]
    panel = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    assert f"Never at the same table: {ann.username} &amp; {bob.username}" in panel
    tsvc.tournament_open(tournament=t, by=organizer)
    regs = {u.pk: tsvc.registration_add(tournament=t, user=u).pk for u in (ann, bob, cat, dan)}
    rnd = rounds.round_pair(tournament=t, by=organizer)
    tables = list(rnd.tables.all())
    assert len(tables) == 2  # four players, two a table
    for table in tables:
        assert set(table.players) not in ({regs[ann.pk], regs[bob.pk]}, {regs[cat.pk], regs[dan.pk]})


def test_a_player_forbidden_with_everyone_sits_out_and_the_organizer_is_told(client):
    # ann may meet none of the others: she and one more sit out (three cannot play at
    # tables of 2); the round was refused outright ("no way to seat the players").
    organizer, ann, bob, cat, dan = make_users(5, prefix="fx")
    client.force_login(organizer)
    response = client.post("/tournaments/new/", _create_form(
        name="Star cup", ruleset="6x5", table_sizes="2", tiebreaks=["buchholz"],
        forbidden_pairs="\n".join(f"{ann.username} {u.username}" for u in (bob, cat, dan)),
    ))  # fmt: skip
    assert response.status_code == 302, response.content.decode()[-1500:]
    t = Tournament.objects.get(name="Star cup")
    tsvc.tournament_open(tournament=t, by=organizer)
    regs = {u.pk: tsvc.registration_add(tournament=t, user=u).pk for u in (ann, bob, cat, dan)}
    rnd = rounds.round_pair(tournament=t, by=organizer)
    byes = set(rnd.byes.values_list("registration_id", flat=True))
    assert regs[ann.pk] in byes and len(byes) == 2
    [table] = rnd.tables.all()
    assert regs[ann.pk] not in table.players
    [warning] = rnd.warnings
    assert warning.startswith(f"2 pairing byes ({ann.username}, ") and ", 2 more than the table" in warning
    panel = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    assert "2 more than the table sizes need: the pairs who must not meet leave no other way" in panel


@pytest.mark.parametrize("text,message", [
    ("fp01", "Line 1: write two players"),
    ("fp01 nobody_here", "Line 1: no player nobody_here."),
    ("fp01 fp01", "Line 1: a pair is two different players."),
    # an organizer learns nothing of who has an account by email address
    ("fp01 fp01@example.com", "Line 1: Give the player&#x27;s name"),
])
def test_a_bad_pair_is_a_form_error_naming_its_line(client, text, message):
    organizer, _ann = make_users(2, prefix="fp")
    client.force_login(organizer)
    response = client.post("/tournaments/new/", _create_form(
        name="Bad pairs", ruleset="6x5", table_sizes="2", forbidden_pairs=text,
    ))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Tournament.objects.exists()


def test_a_league_administrator_may_name_pairs_by_email_address(client):
    organizer, ann, bob = make_users(3, prefix="fe")
    organizer.is_staff = True
    organizer.save()
    client.force_login(organizer)
    response = client.post("/tournaments/new/", _create_form(
        name="Staff cup", ruleset="6x5", table_sizes="2", tiebreaks=["buchholz"],
        forbidden_pairs=f"{ann.email.upper()} {bob.username}",
    ))  # fmt: skip
    assert response.status_code == 302
    assert Tournament.objects.get(name="Staff cup").forbidden_pairs == [sorted([ann.pk, bob.pk])]


def test_a_name_spelt_without_its_accent_is_refused_with_the_name_it_reads_as(client):
    """An organizer's journey: 'Zoe' for Zoë was refused as 'no player Zoe' with no hint
    (a name is looked up exactly: two accounts may differ by an accent only)."""
    organizer, _ = make_users(2, prefix="za")
    User = get_user_model()
    zoe = User.objects.create_user("Zoë", "zoe@example.com", "pw")
    User.objects.create_user("José", "jose@example.com", "pw")
    User.objects.create_user("Bjørn_Straße", "bjorn@example.com", "pw")
    client.force_login(organizer)
    response = client.post("/tournaments/new/", _create_form(
        name="Accent cup", ruleset="6x5", table_sizes="2", forbidden_pairs="zoe jose",
    ))
    page = html.unescape(response.content.decode())
    assert "Line 1: no player zoe or jose. Did you mean Zoë? Did you mean José?" in page
    # letters written otherwise without their mark (ø, ß: a code review)
    response = client.post("/tournaments/new/", _create_form(
        name="Accent cup", ruleset="6x5", table_sizes="2", forbidden_pairs="bjorn_strasse José",
    ))
    assert "Line 1: no player bjorn_strasse. Did you mean Bjørn_Straße?" in html.unescape(
        response.content.decode())
    assert not Tournament.objects.exists()
    # Spelt as the account is, the pair is taken; an exact name wins over a folded one.
    twin = User.objects.create_user("zoe", "zoe2@example.com", "pw")
    response = client.post("/tournaments/new/", _create_form(
        name="Accent cup", ruleset="6x5", table_sizes="2", tiebreaks=["buchholz"],
        forbidden_pairs="Zoë zoe",
    ))
    assert response.status_code == 302
    assert Tournament.objects.get().forbidden_pairs == [sorted([zoe.pk, twin.pk])]
    # Registering a player by name on the panel says the same.
    t = Tournament.objects.get()
    tsvc.tournament_open(tournament=t, by=organizer)
    response = client.post(f"/tournaments/{t.slug}/manage/register/", {"user": "JOSE"}, follow=True)
    panel = html.unescape(response.content.decode())
    assert "No user 'JOSE'. Did you mean José?" in panel


def test_the_register_field_asks_for_a_player_name_or_email(client):
    # Guards against "username or email": the site calls it a player name everywhere else.
    organizer, _users, t, _regs = _open_cup("rn", 2)
    organizer.is_staff = True
    organizer.save()
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    assert 'placeholder="player name or email"' in page and "username or email" not in page
