"""A whole Swiss tournament through the services: 16 players, 4 rounds of 4-player 5X
games played to the end with the engine's default orders; standings and ratings are
checked against a direct computation."""

from __future__ import annotations

import re
from datetime import timedelta
from itertools import combinations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from games.errors import ValidationError
from games.models import Game
from games.services.games import game_create
from games.services.organizer import game_end
from tests.games.core_support import play_defaults
from tournaments import selectors
from tournaments.models import RatingEntry, Round, Table
from tournaments.ratings import rate
from tournaments.services import results, rounds
from tournaments.services import tournaments as tsvc
from tournaments.services.common import TournamentError

pytestmark = pytest.mark.django_db


def make_users(n: int, prefix: str = "p") -> list:
    User = get_user_model()
    return [User.objects.create_user(f"{prefix}{i:02d}", f"{prefix}{i:02d}@example.com", "pw") for i in range(n)]


def repeat_free_split_exists(players: list[int], met: set[frozenset], size: int) -> bool:
    """Brute force: can ``players`` be split into tables of ``size`` with no pair that met?"""
    if not players:
        return True
    first, rest = players[0], players[1:]
    for others in combinations([p for p in rest if frozenset((first, p)) not in met], size - 1):
        group = (first, *others)
        if all(frozenset(pair) not in met for pair in combinations(group, 2)):
            left = [p for p in rest if p not in others]
            if repeat_free_split_exists(left, met, size):
                return True
    return False


def play_to_the_end(game: Game) -> None:
    """Every pending seat sends the engine's default order until the game is over."""
    assert play_defaults(game), "the game did not end"


def test_sixteen_players_four_rounds_of_5x(django_capture_on_commit_callbacks):
    organizer, *players = make_users(17)
    organizer.is_staff = True  # a league administrator: rated in the league's pool
    organizer.save()
    t = tsvc.tournament_create(
        organizer=organizer, name="Winter league", ruleset="5x", table_sizes=[4], rounds_count=4,
        tiebreaks=["buchholz", "sonneborn_berger"],
    )
    tsvc.tournament_open(tournament=t, by=organizer)
    for user in players:
        tsvc.registration_add(tournament=t, user=user)

    finished_rankings = []  # (table pk, ranking by user id) in the order results were recorded
    for number in range(1, 5):
        rnd = rounds.round_pair(tournament=t, by=organizer)
        assert rnd.number == number
        assert rnd.tables.count() == 4 and not rnd.byes.exists()
        rounds.round_start(rnd=rnd, by=organizer)
        for table in rnd.tables.select_related("game"):
            seating = list(table.game.seats.order_by("position").values_list("user_id", flat=True))
            regs = dict(t.registrations.values_list("pk", "user_id"))
            assert seating == [regs[p] for p in table.players], "seats follow the paired order"
            play_to_the_end(table.game)
        assert results.results_collect() == 4
        rnd.refresh_from_db()
        assert rnd.status == Round.Status.FINISHED
        for table in Table.objects.filter(round=rnd).order_by("recorded_at", "id"):
            table.game.refresh_from_db()
            by_name = dict(table.game.seats.values_list("name", "user_id"))
            finished_rankings.append((table.pk, [[by_name[n] for n in g] for g in table.game.ranking]))

    # No avoidable repeat: whenever a round has a repeat meeting, a brute-force search
    # confirms that no repeat-free split into tables of 4 existed for that round.
    met: set[frozenset] = set()
    for rnd in Round.objects.filter(tournament=t).order_by("number"):
        pairs = [frozenset(p) for tb in rnd.tables.all() for p in combinations(tb.players, 2)]
        if any(p in met for p in pairs):
            everyone = [p for tb in rnd.tables.all() for p in tb.players]
            assert not repeat_free_split_exists(everyone, met, 4), f"avoidable repeat in round {rnd.number}"
        met.update(pairs)

    # Standings: points computed directly from the games' rankings (1, 2/3, 1/3, 0;
    # tied players share their places' points).
    expected_points = {u.pk: 0.0 for u in players}
    ppp = [1.0, 2 / 3, 1 / 3, 0.0]
    for _pk, ranking in finished_rankings:
        place = 0
        for group in ranking:
            share = sum(ppp[place:place + len(group)]) / len(group)
            for user_id in group:
                expected_points[user_id] += share
            place += len(group)
    table = selectors.standings(tournament=t)
    assert {row["user"].pk: pytest.approx(row["points"]) for row in table} == expected_points
    assert [row["points"] for row in table] == sorted((row["points"] for row in table), reverse=True)
    assert table[0]["rank"] == 1

    # Ratings: the stored ledger equals a direct recomputation over the games in order.
    direct = rate([(f"t{pk}", [[str(u) for u in g] for g in ranking]) for pk, ranking in finished_rankings])
    stored = {}
    for entry in RatingEntry.objects.filter(pool="5x").order_by("seq"):
        stored[str(entry.user_id)] = entry.rating_after
    assert stored == pytest.approx(direct.ratings)
    assert RatingEntry.objects.filter(pool="5x").count() == 16 * 4
    call_command("recompute_ratings")  # raises CommandError on any difference


def test_bye_and_late_entry_and_correction():
    organizer, *players = make_users(7, prefix="q")
    t = tsvc.tournament_create(organizer=organizer, name="Duel cup", ruleset="6x5", table_sizes=[2],
                               rounds_count=3)
    tsvc.tournament_open(tournament=t, by=organizer)
    for user in players[:5]:
        tsvc.registration_add(tournament=t, user=user)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    # Five players at tables of two: exactly one pairing bye, worth a win (1 point).
    byes = list(rnd.byes.all())
    assert len(byes) == 1 and byes[0].kind == "pairing" and byes[0].points == 1.0
    # Re-pairing before the start is allowed and logged; after the start it is refused.
    rounds.round_repair(rnd=rnd, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    with pytest.raises(TournamentError, match="can no longer be re-paired"):
        rounds.round_repair(rnd=rnd, by=organizer)
    late = tsvc.registration_add(tournament=t, user=players[5])
    assert late.first_round == 2
    # The organizer enters a result by hand (with a reason) instead of playing: not
    # while the table's game is being played (its result would come from the game) ...
    table = rnd.tables.first()
    a, b = table.players
    with pytest.raises(TournamentError, match="still being played"):
        results.result_enter(table=table, ranking=[[b], [a]], by=organizer, reason="a forfeited")
    assert Table.objects.get(pk=table.pk).ranking is None
    # ... but once the organizer has ended it.
    for each in rnd.tables.all():
        game_end(game=each.game, by=organizer, reason="decided by the organizer")
    results.result_enter(table=table, ranking=[[b], [a]], by=organizer, reason="a forfeited")
    for other in rnd.tables.exclude(pk=table.pk):
        x, y = other.players
        results.result_enter(table=other, ranking=[[x, y]], by=organizer, reason="agreed draw")
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.FINISHED
    points = {row["registration"].pk: row["points"] for row in selectors.standings(tournament=t)}
    assert points[b] == 1.0 and points[a] == 0.0 and points[late.pk] == 0.0
    kinds = list(t.log.values_list("kind", flat=True))
    assert kinds.count("round_paired") == 2 and "result_entered" in kinds
    entry = t.log.get(kind="result_entered", payload__table=table.number)
    assert entry.actor == organizer and entry.payload["reason"] == "a forfeited"
    # Round 2 pairs the late entry too and nobody meets the same opponent again.
    rnd2 = rounds.round_pair(tournament=t, by=organizer)
    placed = [p for tb in rnd2.tables.all() for p in tb.players]
    assert late.pk in placed and len(placed) == 6
    first = {frozenset(tb.players) for tb in rnd.tables.all()}
    assert not first & {frozenset(tb.players) for tb in rnd2.tables.all()}


def test_pairing_is_logged_and_replays_byte_for_byte():
    from tournaments.pairing import pair_json

    organizer, *players = make_users(10, prefix="r")
    t = tsvc.tournament_create(organizer=organizer, name="Replay", ruleset="5x", table_sizes=[4, 3],
                               rounds_count=2)
    tsvc.tournament_open(tournament=t, by=organizer)
    for user in players:
        tsvc.registration_add(tournament=t, user=user)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    entry = t.log.get(kind="round_paired")
    assert entry.payload["seed"] == rnd.seed
    assert pair_json(entry.payload["input"]) == entry.payload["output"]
    sizes = sorted(len(tb.players) for tb in rnd.tables.all())
    # Nine players split into allowed sizes without a bye: three tables of 3.
    assert sizes == [3, 3, 3] and not rnd.byes.exists()


def test_only_the_organizer_manages():
    organizer, stranger = make_users(2, prefix="s")
    t = tsvc.tournament_create(organizer=organizer, name="Mine", ruleset="5x", table_sizes=[3], rounds_count=1)
    from games.errors import PermissionDenied

    with pytest.raises(PermissionDenied):
        tsvc.tournament_open(tournament=t, by=stranger)
    with pytest.raises(PermissionDenied):
        rounds.round_pair(tournament=t, by=stranger)


def test_4x_dice_tournament_with_tables_of_up_to_six():
    organizer, *players = make_users(7, prefix="d")  # 6 players
    t = tsvc.tournament_create(organizer=organizer, name="Dice night", ruleset="4x-dice", table_sizes=[6, 3],
                               rounds_count=1, options={"dice": 4})
    tsvc.tournament_open(tournament=t, by=organizer)
    for user in players:
        tsvc.registration_add(tournament=t, user=user)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    # Six players and tables of 6 preferred: one table of six, no bye.
    assert [len(tb.players) for tb in rnd.tables.all()] == [6] and not rnd.byes.exists()
    rounds.round_start(rnd=rnd, by=organizer)
    table = rnd.tables.select_related("game").get()
    assert table.game.ruleset == "4x-dice" and table.game.options["dice"] == 4
    assert table.game.seats.count() == 6
    play_to_the_end(table.game)
    assert results.results_collect() == 1
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.FINISHED
    assert len(selectors.standings(tournament=t)) == 6


def _open_cup(prefix: str, players: int, *, ruleset: str = "6x5", table_sizes=(2,),
              rounds_count: int = 2):
    """Tournament "Cup <prefix>", open, with ``players`` registered (users
    ``<prefix>01``...; ``<prefix>00`` organizes). Returns (organizer, players, t, regs)."""
    organizer, *users = make_users(players + 1, prefix=prefix)
    t = tsvc.tournament_create(organizer=organizer, name=f"Cup {prefix}", ruleset=ruleset,
                               table_sizes=list(table_sizes), rounds_count=rounds_count)
    tsvc.tournament_open(tournament=t, by=organizer)
    regs = [tsvc.registration_add(tournament=t, user=user) for user in users]
    return organizer, users, t, regs


def _results_by_hand(rnd: Round, organizer, reason: str) -> None:
    """End every table's game and enter its result: the first seat beats the second."""
    for table in rnd.tables.all():
        game_end(game=table.game, by=organizer, reason="offline")
        results.result_enter(table=table, ranking=[[table.players[0]], [table.players[1]]],
                             by=organizer, reason=reason)


def _finished_duel_round(prefix: str):
    """A 2-player 6x5 tournament whose round 1 has been played (results by hand after
    the organizer ended the games)."""
    organizer, players, t, _regs = _open_cup(prefix, 4)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    _results_by_hand(rnd, organizer, "played offline")
    return organizer, players, t, rnd


def test_a_closed_tournament_keeps_its_results():
    organizer, _players, t, rnd = _finished_duel_round("cl")
    tsvc.tournament_close(tournament=t, by=organizer)
    table = rnd.tables.first()
    before = Table.objects.get(pk=table.pk).ranking
    with pytest.raises(TournamentError, match="closed: its results are final"):
        results.result_enter(table=table, ranking=[[table.players[1]], [table.players[0]]],
                             by=organizer, reason="second thoughts")
    assert Table.objects.get(pk=table.pk).ranking == before
    assert not t.log.filter(kind="result_corrected").exists()


def test_entering_another_player_takes_a_league_administrator():
    from django.contrib.auth.models import Permission

    from games.errors import PermissionDenied

    organizer, player = make_users(2, prefix="en")
    t = tsvc.tournament_create(organizer=organizer, name="Open", ruleset="6x5", table_sizes=[2],
                               rounds_count=1)
    tsvc.tournament_open(tournament=t, by=organizer)
    with pytest.raises(PermissionDenied, match="register themselves"):
        tsvc.registration_add(tournament=t, user=player, by=organizer)
    assert not t.registrations.exists()
    tsvc.registration_add(tournament=t, user=player)  # by themselves: fine
    other = make_users(1, prefix="en2")[0]
    organizer.user_permissions.add(Permission.objects.get(codename="add_registration"))
    organizer = get_user_model().objects.get(pk=organizer.pk)  # fresh permission cache
    tsvc.registration_add(tournament=t, user=other, by=organizer)
    assert t.registrations.count() == 2


def test_one_broken_table_does_not_hold_back_other_tournaments_results(caplog):
    broken = []
    for name in ("a", "b"):
        org, *people = make_users(3, prefix=f"br{name}")
        t = tsvc.tournament_create(organizer=org, name=f"T{name}", ruleset="6x5",
                                   table_sizes=[2], rounds_count=1)
        tsvc.tournament_open(tournament=t, by=org)
        for user in people[:2]:
            tsvc.registration_add(tournament=t, user=user)
        rnd = rounds.round_pair(tournament=t, by=org)
        rounds.round_start(rnd=rnd, by=org)
        table = rnd.tables.get()
        Game.objects.filter(pk=table.game_id).update(
            status=Game.Status.FINISHED, ranking=[[s.name] for s in table.game.seats.all()]
        )
        broken.append(table)
    # The first table names a registration that is gone (an old admin delete).
    Table.objects.filter(pk=broken[0].pk).update(players=[999999, broken[0].players[1]])
    assert results.results_collect() == 1
    assert Table.objects.get(pk=broken[1].pk).ranking is not None
    assert Table.objects.get(pk=broken[0].pk).ranking is None
    assert "recording the result of tournament table" in caplog.text


def test_the_admin_cannot_delete_or_edit_what_standings_rest_on(admin_client):
    organizer, _players, t, rnd = _finished_duel_round("ad")
    reg = t.registrations.first()
    page = admin_client.get(f"/admin/tournaments/tournament/{t.pk}/change/")
    assert page.status_code == 200
    text = page.content.decode()
    assert 'name="registrations-0-DELETE"' not in text
    assert 'name="table_sizes"' not in text and 'name="name"' in text
    assert admin_client.get(f"/admin/tournaments/tournament/{t.pk}/delete/").status_code == 403
    table = rnd.tables.first()
    assert admin_client.post(
        f"/admin/tournaments/table/{table.pk}/change/", {"ranking": "[]"}
    ).status_code == 403
    assert admin_client.get("/admin/tournaments/tournamentlog/add/").status_code == 403
    assert t.registrations.filter(pk=reg.pk).exists()
    assert Table.objects.get(pk=table.pk).ranking is not None


def test_a_player_who_withdrew_after_the_pairing_is_not_seated():
    organizer, _players, t, regs = _open_cup("wd", 4)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    seated = next(r for r in regs if any(r.pk in tb.players for tb in rnd.tables.all()))
    tsvc.registration_withdraw(registration=seated, by=seated.user)
    with pytest.raises(TournamentError, match=f"{seated.user.username} withdrew after this round"):
        rounds.round_start(rnd=rnd, by=organizer)
    assert not Game.objects.exists()
    rounds.round_repair(rnd=rnd, by=organizer)
    rnd = Round.objects.get(pk=rnd.pk)
    assert all(seated.pk not in tb.players for tb in rnd.tables.all())
    rounds.round_start(rnd=rnd, by=organizer)
    assert Game.objects.count() == rnd.tables.count() == 1  # three left: a table and a bye


def test_a_seat_that_resigned_ranks_last_at_its_table():
    from games.services.games import seat_resign

    organizer, _players, t, _regs = _open_cup("rs", 3, ruleset="5x", table_sizes=(3,),
                                              rounds_count=1)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    table = rnd.tables.get()
    game = table.game
    seats = {s.position: s for s in game.seats.all()}
    seat_resign(seat=seats[1])
    # The game's own ranking puts the resigned seat first (its default orders scored well).
    Game.objects.filter(pk=game.pk).update(
        status=Game.Status.FINISHED,
        ranking=[[seats[1].name], [seats[0].name, seats[2].name]],
    )
    assert results.results_collect() == 1
    table = Table.objects.get(pk=table.pk)
    assert table.ranking == [[table.players[0], table.players[2]], [table.players[1]]]


def test_a_player_who_withdrew_before_round_one_is_not_in_the_standings(client):
    from django.urls import reverse

    organizer, _players, t, regs = _open_cup("ns", 5)
    tsvc.registration_withdraw(registration=regs[0], by=regs[0].user)  # before round 1
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    _results_by_hand(rnd, organizer, "offline")
    tsvc.registration_withdraw(registration=regs[1], by=regs[1].user)  # after playing
    shown = [row["registration"].pk for row in selectors.standings(tournament=t)]
    assert regs[0].pk not in shown and regs[1].pk in shown and len(shown) == 4
    listing = client.get(reverse("tournaments:list")).content.decode()
    row = listing[listing.index("Cup ns") :].split("</tr>")[0]
    assert '<td data-label="Players">4</td>' in row and '<td data-label="Rounds">1 / 2</td>' in row
    # The final emails' standings say who withdrew, as the page does (the tournaments
    # audit: "8. fay — 0 points" ranked a player who had left with no word of it).
    tsvc.tournament_close(tournament=t, by=organizer)
    gone, stayed = regs[1].user.username, regs[2].user.username
    [mail] = _mails(t, key__contains=":closed:")[regs[2].user.email]
    lines = mail.body.splitlines()
    assert any(f". {gone} (withdrawn) — " in line for line in lines), mail.body
    assert any(f". {stayed} — " in line for line in lines), mail.body


def test_pages_after_the_last_round_and_hand_pairing_errors_name_players(client):
    from django.urls import reverse

    organizer, _players, t, rnd = _finished_duel_round("lr")
    t.rounds_count = 1
    t.save(update_fields=["rounds_count"])
    client.force_login(organizer)
    panel = client.get(reverse("tournaments:manage", args=[t.slug])).content.decode()
    assert "Pair next round" not in panel and "close the tournament" in panel
    tsvc.tournament_close(tournament=t, by=organizer)
    detail = client.get(reverse("tournaments:detail", args=[t.slug])).content.decode()
    assert "Final standings" in detail and "Standings after round" not in detail


def test_hand_pairing_names_the_players_it_refuses():
    organizer, players, t, regs = _open_cup("hp", 4)
    tsvc.registration_withdraw(registration=regs[3], by=regs[3].user)
    with pytest.raises(ValidationError) as refused:
        rounds.round_pair_by_hand(
            tournament=t, tables=[[regs[0].pk, regs[3].pk]], byes=[regs[1].pk], by=organizer
        )
    assert str(refused.value) == (
        f"Not playing round 1: {players[3].username} (withdrawn, a requested bye, or a late "
        "entry from a later round)."
    )


def test_a_player_with_a_bye_is_told_by_email_once():
    from games.models import OutboxMessage

    organizer, _players, t, _regs = _open_cup("by", 3)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    [bye] = rnd.byes.all()
    rounds.round_start(rnd=rnd, by=organizer)
    [mail] = OutboxMessage.objects.filter(kind="tournament").exclude(key__contains=":registered:")
    assert mail.to == bye.registration.user.email
    assert mail.subject == "Cup by: round 1 has started — you have a bye"
    assert "1 point in the standings" in mail.body and "/tournaments/" in mail.body


def test_a_deactivated_player_is_sent_no_tournament_email():
    """A staff audit: a closed account was still sent game emails; tournaments' too."""
    from games.models import OutboxMessage

    organizer, _players, t, _regs = _open_cup("off", 3)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    [bye] = rnd.byes.all()
    type(bye.registration.user).objects.filter(pk=bye.registration.user_id).update(is_active=False)
    rounds.round_start(rnd=rnd, by=organizer)
    sent = OutboxMessage.objects.filter(kind="tournament").exclude(key__contains=":registered:")
    assert not sent.filter(to=bye.registration.user.email).exists()


def _mails(t, **filters) -> dict[str, list]:
    """The tournament's emails by recipient, but the registrations' confirmations."""
    from games.models import OutboxMessage

    out: dict[str, list] = {}
    for mail in OutboxMessage.objects.filter(kind="tournament", key__startswith=f"tournament:{t.pk}:",
                                             **filters).exclude(key__contains=":registered:").order_by("id"):
        out.setdefault(mail.to, []).append(mail)
    return out


def test_players_and_organizer_are_emailed_when_a_round_ends_and_when_a_result_changes():
    organizer, players, t, regs = _open_cup("ro", 4)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    user_of = {r.pk: r.user for r in regs}
    first, second = rnd.tables.order_by("number")
    for table in (first, second):
        game_end(game=table.game, by=organizer, reason="offline")

    # The first table's result, while the other is still missing: its two players hear it.
    results.result_enter(table=first, ranking=[[first.players[0]], [first.players[1]]],
                         by=organizer, reason="played offline")
    winner, loser = (user_of[p] for p in first.players)
    told = _mails(t)
    assert set(told) == {winner.email, loser.email}
    [to_winner] = told[winner.email]
    assert to_winner.subject == "Cup ro: the organizer entered your result of round 1"
    assert f"Your result at table 1: 1st of 2, 1 point ({winner} > {loser})." in to_winner.body
    assert "Reason: played offline" in to_winner.body and "It was" not in to_winner.body
    assert f"2nd of 2, 0 points ({winner} > {loser})" in told[loser.email][0].body

    # The last result ends the round: one email each (not a second "entered"), and the
    # organizer is told to pair round 2.
    results.result_enter(table=second, ranking=[[second.players[1]], [second.players[0]]],
                         by=organizer, reason="played offline")
    over = _mails(t, key__contains=":over:")
    assert set(over) == {u.email for u in players} | {organizer.email}
    assert not _mails(t, key__contains=":result:").keys() - {winner.email, loser.email}
    third, fourth = (user_of[p] for p in second.players)  # fourth won table 2
    [mail] = over[fourth.email]
    assert mail.subject == "Cup ro: round 1 is over — you are tied 1st of 4"
    assert f"Your result at table 2: 1st of 2, 1 point ({fourth} > {third}). Entered by the organizer: played offline." in mail.body
    assert "You are tied 1st of 4 with 1 point." in mail.body
    assert "Round 2 of 2 starts when the organizer pairs and starts it" in mail.body
    # Players level on points show the tie-breaks (by hand: a winner's opponents scored 0,
    # a loser's 1; Sonneborn–Berger counts the points of the opponents beaten: 0 each).
    assert f"  3. {third} — 0 points (Buchholz 1, Sonneborn–Berger 0)\n" in mail.body
    assert f"  1. {fourth} — 1 point (Buchholz 0, Sonneborn–Berger 0)  <- you" in mail.body
    assert over[third.email][0].subject == "Cup ro: round 1 is over — you are tied 3rd of 4"
    [to_organizer] = over[organizer.email]
    assert to_organizer.subject == "Cup ro: every result of round 1 is in"
    assert "Pair round 2" in to_organizer.body and f"/tournaments/{t.slug}/manage/" in to_organizer.body

    # Ending the round again sends nothing more.
    assert results.round_check_finished(rnd=rnd)
    assert sum(map(len, _mails(t, key__contains=":over:").values())) == 5

    # A correction of a finished round: the table's players get the old and the new result.
    results.result_enter(table=first, ranking=[[first.players[1]], [first.players[0]]],
                         by=organizer, reason="score sheet misread")
    corrected = _mails(t, subject="Cup ro: the organizer corrected your result of round 1")
    assert set(corrected) == {winner.email, loser.email}
    body = corrected[loser.email][0].body
    assert f"1st of 2, 1 point ({loser} > {winner})" in body
    assert f"It was: {winner} > {loser}." in body and "Reason: score sheet misread" in body
    # ... and their places now (by hand: table 1's new winner and table 2's share 1 point).
    assert "Your place in the standings now: tied 1st of 4 with 1 point." in body
    assert ("Your place in the standings now: tied 3rd of 4 with 0 points."
            in corrected[winner.email][0].body)


def test_a_player_who_withdrew_during_a_round_still_gets_its_result():
    organizer, players, t, regs = _open_cup("wd", 4)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    table = rnd.tables.order_by("number").first()
    quitter = next(r for r in regs if r.pk == table.players[1])
    tsvc.registration_withdraw(registration=quitter, by=quitter.user)
    _results_by_hand(rnd, organizer, "played offline")
    over = _mails(t, key__contains=":over:")
    assert set(over) == {u.email for u in players} | {organizer.email}
    [mail] = over[quitter.user.email]
    assert f"Your result at table {table.number}: 2nd of 2, 0 points" in mail.body
    assert "You have withdrawn from the tournament: you will not be paired again." in mail.body
    assert "starts when the organizer pairs and starts it" not in mail.body
    stayer = next(r for r in regs if r.pk == table.players[0])
    assert "Round 2 of 2 starts when the organizer pairs and starts it" in over[stayer.user.email][0].body


@pytest.mark.parametrize("reason", ["", "   ", "\x00\x01"])
def test_a_result_by_hand_needs_a_reason(reason):
    organizer, players, t, regs = _open_cup("nr" + str(len(reason)), 2)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    [table] = rnd.tables.all()
    game_end(game=table.game, by=organizer, reason="offline")
    with pytest.raises(ValidationError, match="Say why"):
        results.result_enter(table=table, ranking=[[table.players[0]], [table.players[1]]],
                             by=organizer, reason=reason)
    assert Table.objects.get(pk=table.pk).ranking is None


def test_a_result_reason_is_one_clean_line_of_at_most_500_characters():
    organizer, players, t, regs = _open_cup("rl", 4)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    first, second = rnd.tables.order_by("number")
    game_end(game=first.game, by=organizer, reason="offline")
    ranking = [[first.players[0]], [first.players[1]]]
    with pytest.raises(ValidationError, match="too long .501 characters; at most 500"):
        results.result_enter(table=first, ranking=ranking, by=organizer, reason="x" * 501)
    results.result_enter(table=first, ranking=ranking, by=organizer,
                         reason="sheet\x00 lost\r\nplayed  offline")
    entry = t.log.filter(kind="result_entered").get()
    assert entry.payload["reason"] == "sheet lost played offline"
    winner = next(r.user.email for r in regs if r.pk == first.players[0])
    [mail] = _mails(t)[winner]
    assert "Reason: sheet lost played offline" in mail.body and "\x00" not in mail.body


def test_every_player_gets_the_final_standings_when_the_tournament_closes():
    organizer, players, t, regs = _open_cup("fs", 4)
    user_of = {r.pk: r.user for r in regs}
    for _ in range(2):
        rnd = rounds.round_pair(tournament=t, by=organizer)
        rounds.round_start(rnd=rnd, by=organizer)
        _results_by_hand(rnd, organizer, "played offline")
    # Every table's first seat won: the player who won both rounds is alone on 2 points.
    wins = {u.pk: 0 for u in players}
    for table in Table.objects.filter(round__tournament=t):
        wins[user_of[table.players[0]].pk] += 1
    [champion] = [u for u in players if wins[u.pk] == 2]
    [last] = [u for u in players if wins[u.pk] == 0]
    assert not _mails(t, key__contains=":closed:")
    tsvc.tournament_close(tournament=t, by=organizer)
    closed = _mails(t, key__contains=":closed:")
    assert set(closed) == {u.email for u in players}
    [mail] = closed[champion.email]
    assert mail.subject == "Cup fs is over — you finished 1st of 4"
    assert "You finished 1st of 4 with 2 points. You won!" in mail.body
    [mail] = closed[last.email]
    assert mail.subject == "Cup fs is over — you finished 4th of 4"
    assert f"Winner: {champion}." in mail.body and f"  4. {last} — 0 points  <- you" in mail.body
    # Closing twice sends nothing more.
    tsvc.tournament_close(tournament=t, by=organizer)
    assert sum(map(len, _mails(t, key__contains=":closed:").values())) == 4


def test_the_home_page_lists_the_players_tournaments(client):
    organizer, players, t, regs = _open_cup("hp", 4)
    other_org, *_ = make_users(1, prefix="ot")
    draft = tsvc.tournament_create(organizer=other_org, name="Secret draft", ruleset="6x5",
                                   table_sizes=[2], rounds_count=1)  # fmt: skip
    rounds.round_pair(tournament=t, by=organizer)
    tsvc.registration_withdraw(registration=regs[3], by=regs[3].user)
    client.force_login(players[0])
    html = client.get("/").content.decode()
    assert "Your tournaments" in html and "Cup hp" in html and "round 1 of 2" in html
    assert "round 1 of 2 finished" not in html
    assert '<td class="whole" data-label="You">player</td>' in html and "Secret draft" not in html and "manage" not in html
    client.force_login(players[3])
    assert '<td class="whole" data-label="You">withdrawn</td>' in client.get("/").content.decode()
    client.force_login(organizer)
    assert f'organizer · <a href="/tournaments/{t.slug}/manage/">manage</a>' in client.get("/").content.decode()
    client.force_login(other_org)  # its own draft only
    html = client.get("/").content.decode()
    assert "Secret draft" in html and "Cup hp" not in html and draft.status == "draft"
    client.force_login(make_users(1, prefix="nn")[0])
    assert "Your tournaments" not in client.get("/").content.decode()


def test_a_tournaments_quiet_hours_go_to_every_table_game(client):
    organizer, *players = make_users(5, prefix="qh")
    client.force_login(organizer)
    form = client.get("/tournaments/new/").content.decode()
    assert 'name="quiet_hours_time_zone"' in form
    answer = client.post("/tournaments/new/", {
        "name": "Night owls", "ruleset": "6x5", "table_sizes": "2", "rounds_count": 1,
        "deadline_hours": 24, "tiebreaks": ["buchholz"], "quiet_hours_start": 22,
        "quiet_hours_end": 7, "quiet_hours_time_zone": "Europe/Lisbon",
    })  # fmt: skip
    assert answer.status_code == 302, answer.content.decode()[:2000]
    from tournaments.models import Tournament

    t = Tournament.objects.get(name="Night owls")
    assert (t.quiet_hours_start, t.quiet_hours_end, t.quiet_hours_time_zone) == (22, 7, "Europe/Lisbon")
    assert "none from 22:00 to 07:00 Europe/Lisbon" in client.get(f"/tournaments/{t.slug}/").content.decode()
    # A reader in Tokyo is told when that is there too (Lisbon is UTC+0 in winter, +1 in summer).
    from games.services.players import player_time_zone_set

    player_time_zone_set(user=organizer, time_zone="Asia/Tokyo")
    page = client.get(f"/tournaments/{t.slug}/").content.decode()
    assert re.search(r"none from 22:00 to 07:00 Europe/Lisbon; (07:00-16:00|06:00-15:00) in Asia/Tokyo"
                     r"(, [^)]* as the clocks change)?\)", page)
    tsvc.tournament_open(tournament=t, by=organizer)
    for user in players:
        tsvc.registration_add(tournament=t, user=user)
    rnd = rounds.round_start(rnd=rounds.round_pair(tournament=t, by=organizer), by=organizer)
    games = [table.game for table in rnd.tables.all()]
    assert len(games) == 2
    assert {(g.quiet_hours_start, g.quiet_hours_end, g.quiet_hours_time_zone) for g in games} == {
        (22, 7, "Europe/Lisbon")
    }
    half = client.post("/tournaments/new/", {
        "name": "Half", "ruleset": "6x5", "table_sizes": "2", "rounds_count": 1,
        "deadline_hours": 24, "quiet_hours_start": 22,
    })  # fmt: skip
    assert half.status_code == 200 and "Quiet hours need both a start and an end hour" in half.content.decode()
    assert not Tournament.objects.filter(name="Half").exists()


def test_only_league_administrators_rate_in_the_leagues_pools():
    from django.contrib.auth.models import Permission

    anyone, admin, staff, *players = make_users(5, prefix="lp")
    admin.user_permissions.add(Permission.objects.get(codename="add_registration"))
    staff.is_staff = True
    staff.save()

    def pool(organizer, asked=""):
        t = tsvc.tournament_create(organizer=organizer, name=f"Cup {organizer}", ruleset="6x5",
                                   table_sizes=[2], rounds_count=1, rating_pool=asked)
        return t.rating_pool

    # Anyone may run a tournament, with players anyone can sign up: it is rated in a pool
    # of the organizer's own, never the league's.
    assert pool(anyone) == "lp00:6x5"
    assert pool(anyone, "5x") == "lp00:5x"
    assert pool(admin) == "6x5" and pool(staff, "winter") == "winter"
    # A name too long to fit beside the pool is never cut (a cut could drop the colon,
    # or give two users one pool): the user's id stands in, "#" being in no name.
    User = get_user_model()
    long_a = User.objects.create_user("league5x" + "_" * 56 + "alice", "a@example.com", "pw")
    long_b = User.objects.create_user("league5x" + "_" * 56 + "bob", "b@example.com", "pw")
    assert pool(long_a) == f"#{long_a.pk}:6x5" and pool(long_b) == f"#{long_b.pk}:6x5"

    # A duel played in the organizer's own pool leaves the league's ratings alone.
    t = tsvc.tournament_create(organizer=anyone, name="Friends", ruleset="6x5", table_sizes=[2],
                               rounds_count=1)
    tsvc.tournament_open(tournament=t, by=anyone)
    for user in players:
        tsvc.registration_add(tournament=t, user=user)
    rnd = rounds.round_pair(tournament=t, by=anyone)
    rounds.round_start(rnd=rnd, by=anyone)
    _results_by_hand(rnd, anyone, "played offline")
    assert set(RatingEntry.objects.values_list("pool", flat=True)) == {"lp00:6x5"}


@pytest.mark.django_db
def test_recompute_ratings_says_so_when_there_is_nothing_to_recompute():
    from io import StringIO

    out = StringIO()
    call_command("recompute_ratings", stdout=out)
    assert out.getvalue() == "no rating pools yet: nothing to recompute\n"


@pytest.mark.django_db
def test_recompute_ratings_counts_its_differences_in_english():
    """A ledger row no rated game accounts for is a difference: one read "1 difference(s)
    found"; now "1 difference found", and two "2 differences found"."""
    from io import StringIO

    from django.core.management import CommandError

    ann, bob = make_users(2, prefix="rr")

    def stray(user, seq):  # a row for a game that was never rated: no tournament uses the pool
        RatingEntry.objects.create(pool="stray", seq=seq, user=user, game_key=f"x{seq}", rating_before=1500.0,
                                   expected=0.5, actual=1.0, k=32.0, rating_after=1516.0)  # fmt: skip

    stray(ann, 1)
    out = StringIO()
    with pytest.raises(CommandError) as raised:
        call_command("recompute_ratings", stdout=out)
    assert str(raised.value) == "1 difference found"
    assert out.getvalue() == f"stray: game x1, user {ann.pk}: in the ledger but not a rated game\n"
    stray(bob, 2)
    with pytest.raises(CommandError) as raised:
        call_command("recompute_ratings", stdout=StringIO())
    assert str(raised.value) == "2 differences found"


def test_a_tables_game_links_back_to_its_round(client):
    """The game page and its log say which tournament round the game belongs to, and the
    link opens that round's page, which links to the game in turn."""
    organizer, players, t, _regs = _open_cup("lnk", 4)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    table = rnd.tables.order_by("number").first()
    round_path = f"/tournaments/{t.slug}/rounds/1/"
    client.force_login(players[0])
    for page in (f"/games/{table.game_id}/", f"/games/{table.game_id}/log/"):
        html = client.get(page).content.decode()
        assert f'Part of <a href="{round_path}">Cup lnk, round 1</a>' in html, page
    round_page = client.get(round_path)
    assert round_page.status_code == 200
    assert f'href="/games/{table.game_id}/"' in round_page.content.decode()
    # A game made outside a tournament says nothing of the kind.
    other = game_create(organizer=organizer, ruleset="6x5", seats_count=2)
    assert "Part of" not in client.get(f"/games/{other.pk}/").content.decode()


def test_a_round_link_under_a_script_prefix_is_stored_from_the_root_and_shown_under_it(client):
    """Behind a proxy's path (/fivex/) the round is started from a page under the prefix;
    the game keeps the path from the site's root (as the migration writes it) and its
    pages link under the prefix they are served at (it was stored with the prefix, and a
    page served elsewhere would have linked to it)."""
    from django.urls import set_script_prefix

    organizer, players, t, _regs = _open_cup("pfx", 4)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    set_script_prefix("/fivex/")
    try:
        rounds.round_start(rnd=rnd, by=organizer)
        game = Game.objects.get(pk=rnd.tables.order_by("number").first().game_id)
        assert game.part_of_path == f"/tournaments/{t.slug}/rounds/1/"
        client.force_login(players[0])
        html = client.get(f"/games/{game.pk}/").content.decode()
    finally:
        set_script_prefix("/")
    assert f'Part of <a href="/fivex/tournaments/{t.slug}/rounds/1/">' in html


@pytest.mark.parametrize("path", ["https://evil.example/", "//evil.example/", "rounds/1/",
                                  "/\\evil.example/"])
def test_a_games_part_of_link_stays_on_the_site(path):
    (organizer,) = make_users(1, prefix="pth")
    with pytest.raises(ValidationError):
        game_create(organizer=organizer, ruleset="6x5", seats_count=2, part_of=("x", path))


def test_the_migration_links_existing_tables_games_to_their_rounds():
    import importlib

    from django.apps import apps

    organizer, _players, t, _regs = _open_cup("mig", 4)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    ids = [tb.game_id for tb in rnd.tables.all()]
    Game.objects.filter(pk__in=ids).update(part_of_label="", part_of_path="")  # as before it
    importlib.import_module("tournaments.migrations.0006_games_part_of").forwards(apps, None)
    assert set(Game.objects.filter(pk__in=ids).values_list("part_of_label", "part_of_path")) == {
        ("Cup mig, round 1", f"/tournaments/{t.slug}/rounds/1/")
    }


def test_rating_a_pool_costs_the_same_queries_whatever_its_history():
    """From a data-at-scale audit: one query per rated table of the pool's whole history
    (its tournament's registrations), for every result recorded: 9,000+ queries and 40 s
    for 24 results of a 200-player tournament."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    organizer, _players, t, rnd = _finished_duel_round("qpa")  # 2 rated tables
    with CaptureQueriesContext(connection) as few:
        results.ratings_sync(pool=t.rating_pool, rebuild=True)
    rnd2 = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd2, by=organizer)
    _results_by_hand(rnd2, organizer, "played offline")  # 4 rated tables now
    with CaptureQueriesContext(connection) as more:
        results.ratings_sync(pool=t.rating_pool, rebuild=True)
    assert RatingEntry.objects.filter(pool=t.rating_pool).count() == 8
    assert len(more.captured_queries) == len(few.captured_queries)


def test_collecting_results_rates_each_pool_once(monkeypatch, django_capture_on_commit_callbacks):
    """Every table's result is recorded, then each pool touched is rated once (a replay
    of the pool per table made a round's results quadratic in the pool's history)."""
    organizer, _players, t, _regs = _open_cup("once", 4)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    for table in rnd.tables.select_related("game"):
        play_to_the_end(table.game)
    synced = []
    real = results.ratings_sync
    monkeypatch.setattr(results, "ratings_sync", lambda **kw: synced.append(kw) or real(**kw))
    assert results.results_collect() == 2
    assert synced == [{"pool": t.rating_pool}]
    # The ledger is what a recomputation from scratch gives.
    assert RatingEntry.objects.filter(pool=t.rating_pool).count() == 4
    assert results.ratings_differences(pool=t.rating_pool) == []


def test_a_tournament_with_short_deadlines_reminds_its_tables_in_time():
    organizer, players, t, _regs = _open_cup("rmd", 4)
    Tournament = type(t)
    Tournament.objects.filter(pk=t.pk).update(deadline_hours=12)
    t.refresh_from_db()
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    assert {tb.game.reminder_hours for tb in rnd.tables.select_related("game")} == {6}
    made = tsvc.tournament_create(organizer=organizer, name="Short", ruleset="6x5",
                                  table_sizes=[2], rounds_count=1, deadline_hours=12)  # fmt: skip
    assert made.deadline_hours == 12


def test_an_organizer_who_plays_gets_one_email_when_a_round_ends(django_capture_on_commit_callbacks):
    """From a league player's walk: the playing organizer got "round 2 is over — you are
    tied 1st" and "every result of round 2 is in" at once, with the same standings."""
    from games.models import OutboxMessage

    organizer, *people = make_users(4, prefix="pog")
    t = tsvc.tournament_create(organizer=organizer, name="Cup pog", ruleset="6x5",
                               table_sizes=[2], rounds_count=2)  # fmt: skip
    tsvc.tournament_open(tournament=t, by=organizer)
    for user in (organizer, *people):
        tsvc.registration_add(tournament=t, user=user)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    for table in rnd.tables.select_related("game"):
        play_to_the_end(table.game)
    assert results.results_collect() == 2
    over = OutboxMessage.objects.filter(kind="tournament", subject__contains="round 1")
    mine = list(over.filter(to=organizer.email))
    assert len(mine) == 1, [m.subject for m in mine]
    assert "round 1 is over — you are" in mine[0].subject
    assert "As the organizer: Pair round 2, check the tables and start it." in mine[0].body
    assert f"/tournaments/{t.slug}/manage/" in mine[0].body
    assert over.filter(to=people[0].email).count() == 1


def test_a_pools_rating_list_is_each_players_last_ledger_row():
    """The list is read in SQL (each player's count and last row) instead of replaying the
    whole ledger on every public page; it says what the ledger says."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    organizer, _players, t, _rnd = _finished_duel_round("rlst")
    rnd2 = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd2, by=organizer)
    _results_by_hand(rnd2, organizer, "offline")
    with CaptureQueriesContext(connection) as reads:
        rows = selectors.rating_list(pool=t.rating_pool)
    assert len(reads.captured_queries) == 2
    ledger = list(RatingEntry.objects.filter(pool=t.rating_pool).order_by("seq"))
    expected = {}
    for entry in ledger:  # the last row of each player wins
        expected[entry.user_id] = (entry.rating_after, entry.rating_after - entry.rating_before,
                                   sum(e.user_id == entry.user_id for e in ledger))  # fmt: skip
    assert {r["user"].pk: (r["rating"], r["change"], r["games"]) for r in rows} == expected
    assert [r["rating"] for r in rows] == sorted((r["rating"] for r in rows), reverse=True)
    assert all(r["games"] == 2 for r in rows)


def _rate_by_hand_later(table: Table, *, minutes: int) -> None:
    """A table's result stored as the collection stores it (first seat wins), recorded
    ``minutes`` from now, without rating it."""
    Table.objects.filter(pk=table.pk).update(
        ranking=[[table.players[0]], [table.players[1]]], result_source="game",
        recorded_at=timezone.now() + timedelta(minutes=minutes),
    )  # fmt: skip


def test_a_result_recorded_before_rated_games_rewrites_the_ledger_in_order():
    """A game that finished first but whose result is recorded after later games were
    rated (a failed sync, a late commit) comes first in the pool's history: appending
    its rows after the others numbered them over rows already there and left the later
    games rated without it (the stored ratings differed from a recomputation)."""
    organizer, _players, t, _rnd = _finished_duel_round("ooo")
    rnd2 = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd2, by=organizer)
    first, second = rnd2.tables.order_by("number")
    _rate_by_hand_later(second, minutes=10)
    results.ratings_sync(pool=t.rating_pool)
    _rate_by_hand_later(first, minutes=5)  # finished before `second`
    results.ratings_sync(pool=t.rating_pool)
    assert results.ratings_differences(pool=t.rating_pool) == []
    seqs = list(RatingEntry.objects.filter(pool=t.rating_pool).values_list("seq", flat=True))
    assert sorted(seqs) == list(range(1, 9))
    keys = RatingEntry.objects.filter(pool=t.rating_pool).order_by("seq").values_list("game_key", flat=True)
    assert list(keys)[4:] == [f"t{first.pk}"] * 2 + [f"t{second.pk}"] * 2


def test_a_pool_whose_rating_was_missed_is_caught_up_by_the_next_collection():
    organizer, _players, t, _rnd = _finished_duel_round("lag")
    rnd2 = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd2, by=organizer)
    for table in rnd2.tables.all():
        _rate_by_hand_later(table, minutes=1)  # recorded; the sync after it failed
    assert results.lagging_pools() == {t.rating_pool}
    assert results.results_collect() == 0  # nothing new to record, yet the pool is rated
    assert RatingEntry.objects.filter(pool=t.rating_pool).count() == 8
    assert results.ratings_differences(pool=t.rating_pool) == []
    assert results.lagging_pools() == set()


def test_a_resignation_at_a_duel_table_is_its_result_at_once():
    """A duel whose player resigns is over (a walkover): the round no longer waits for
    the other player to play the game out against default orders."""
    from games.models import Seat
    from games.services.games import seat_resign

    organizer, _players, t, _regs = _open_cup("wko", 4)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    table = rnd.tables.select_related("game").order_by("number").first()
    quitter = Seat.objects.get(game=table.game, position=1)
    seat_resign(seat=quitter)
    assert results.results_collect() == 1
    table.refresh_from_db()
    assert table.ranking == [[table.players[0]], [table.players[1]]]


@pytest.mark.parametrize("ruleset", ["4x-dice", "6x5"])
def test_seat_one_of_a_tournament_table_moves_first(ruleset):
    """tournaments.md: seat 1 moves first, and the pairing alternates it in two-player
    games. The engines draw the first player from the seed unless ``setup.first`` names
    one: the tournament names seat 1's player (it was Bob, seat 2, at every table seen)."""
    from games.selectors import current_state

    organizer, *players = make_users(9, prefix="m")
    t = tsvc.tournament_create(organizer=organizer, name="Duels", ruleset=ruleset,
                               table_sizes=[2], rounds_count=2)  # fmt: skip
    tsvc.tournament_open(tournament=t, by=organizer)
    for user in players[:8]:
        tsvc.registration_add(tournament=t, user=user)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    regs = {r.pk: r.user for r in t.registrations.select_related("user")}
    tables = list(rnd.tables.all())
    assert len(tables) == 4  # eight players, two a table
    for table in tables:
        seat_one = table.game.seats.get(user=regs[table.players[0]])
        assert seat_one.position == 0
        state = current_state(game=table.game)
        # 4X Dice keeps the first seat; 6x5 the seat to move (turn 1: the first).
        first = state["first"] if ruleset == "4x-dice" else state["players"][state["current"]]
        assert first == seat_one.name
        assert table.game.setup == {"first": seat_one.name}


def test_extending_a_round_reports_a_table_at_its_cap_and_extends_the_rest(settings):
    from games.services.organizer import deadline_extend

    settings.GAMES_MAX_DEADLINE_EXTENSIONS = 1
    organizer, *players = make_users(5, prefix="x")
    t = tsvc.tournament_create(organizer=organizer, name="Capped", ruleset="6x5",
                               table_sizes=[2], rounds_count=1)  # fmt: skip
    tsvc.tournament_open(tournament=t, by=organizer)
    for user in players:
        tsvc.registration_add(tournament=t, user=user)
    rnd = rounds.round_start(rnd=rounds.round_pair(tournament=t, by=organizer), by=organizer)
    first, second = [tb.game for tb in rnd.tables.order_by("number")]
    deadline_extend(game=first, by=organizer, hours=1)  # table 1 used its one extension
    done = rounds.round_extend(rnd=rnd, by=organizer, hours=2, reason="snow")
    assert done["tables"] == 1 and done["failed"] == ["table 1: extended 1 time already, the limit"]
    with pytest.raises(TournamentError, match="^No deadline extended: every table's deadline has been extended 1 time already, the limit.$"):
        rounds.round_extend(rnd=rnd, by=organizer, hours=2)
    from games.errors import PermissionDenied

    with pytest.raises(PermissionDenied):
        rounds.round_extend(rnd=rnd, by=players[0], hours=2)  # not the organizer
    entry = t.log.get(kind="deadlines_extended")
    assert entry.payload == {"round": 1, "hours": 2, "tables": 1, "reason": "snow"}


def test_a_forfeit_counts_in_the_standings_but_not_in_the_ratings(client):
    """A result entered for a game not played out (the organizer ended it) was rated like
    any game; FIDE does not rate forfeits. Marked a forfeit, it gives the points and no
    rating change; corrected to a played result, it is rated again."""
    organizer, players, t, rnd = _finished_duel_round("ff")
    first, second = rnd.tables.order_by("number")
    pool = t.rating_pool
    rated_before = set(RatingEntry.objects.filter(pool=pool).values_list("game_key", flat=True))
    assert rated_before == {f"t{first.pk}", f"t{second.pk}"}
    results.result_enter(table=first, ranking=[[first.players[1]], [first.players[0]]],
                         by=organizer, reason="no-show: forfeit", rated=False)  # fmt: skip
    keys = set(RatingEntry.objects.filter(pool=pool).values_list("game_key", flat=True))
    assert keys == {f"t{second.pk}"}
    # The second table's players start from the initial rating: rated as if alone.
    expected = rate([(f"t{second.pk}", [[str(u)] for u in (
        t.registrations.get(pk=second.players[0]).user_id, t.registrations.get(pk=second.players[1]).user_id)])],
        initial=1500)  # fmt: skip
    for user_id, rating in expected.ratings.items():
        assert RatingEntry.objects.get(pool=pool, user_id=int(user_id)).rating_after == rating
    # The standings still count the forfeit's points: its winner leads with the other winner.
    points = {row["registration"].pk: row["points"] for row in selectors.standings(tournament=t)}
    assert points[first.players[1]] == points[second.players[0]] > points[first.players[0]]
    assert t.log.filter(kind="result_corrected").latest("seq").payload["rated"] is False
    assert str(t.rating_pool) not in results.lagging_pools()
    # Shown as such to the organizer and in the API.
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    assert "a forfeit, not rated" in page
    api = client.get(f"/api/tournaments/{t.slug}/").json()
    tables = {tb["number"]: tb for rn in api["rounds"] for tb in rn["tables"]}
    assert (tables[first.number]["rated"], tables[second.number]["rated"]) == (False, True)
    # Played after all: rated again.
    results.result_enter(table=first, ranking=[[first.players[1]], [first.players[0]]],
                         by=organizer, reason="it was played")  # fmt: skip
    keys = set(RatingEntry.objects.filter(pool=pool).values_list("game_key", flat=True))
    assert keys == rated_before


def test_the_same_result_entered_twice_changes_nothing_the_second_time():
    """A race audit: two clicks entering one result logged a "correction" from it to
    itself, emailed the table's players that their result was corrected, and rebuilt the
    ratings twice."""
    from games.models import OutboxMessage

    organizer, _players, t, rnd = _finished_duel_round("tw")
    table = rnd.tables.order_by("number").first()
    ranking = Table.objects.get(pk=table.pk).ranking
    log_before = t.log.count()
    mails_before = OutboxMessage.objects.count()
    ledger_before = list(RatingEntry.objects.filter(pool=t.rating_pool).values_list("pk", flat=True))
    with pytest.raises(ValidationError, match=r"result is already .*: nothing was changed"):
        results.result_enter(table=table, ranking=[list(reversed(g)) for g in ranking],
                             by=organizer, reason="double click")  # fmt: skip
    assert t.log.count() == log_before
    assert OutboxMessage.objects.count() == mails_before
    assert list(RatingEntry.objects.filter(pool=t.rating_pool).values_list("pk", flat=True)) == ledger_before


def test_a_table_game_is_named_so_its_rounds_and_the_tournaments_are_told_apart():
    """First-time organizer's walk: "[Winter Swiss — round 2, table 1] Your order: round 1,
    play" used one word for the tournament's round and the game's. A long tournament name
    gives way to the table's number."""
    organizer, _players, t, _regs = _open_cup("nm", 4)
    t.name = "W" * 120
    t.save(update_fields=["name"])
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    names = sorted(table.game.name for table in rnd.tables.all())
    assert names == ["W" * 107 + " R1 · table 1", "W" * 107 + " R1 · table 2"]
    assert all(len(name) <= 120 and "round" not in name for name in names)


def test_reading_a_pool_for_its_ratings_reads_no_pairing_data():
    """Performance audit: each rated table came with its round's pairing JSON (6-55 KB,
    decoded per table): a pool of 10,000 games took 6-8 s to read for every sync."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    _organizer, _players, t, rnd = _finished_duel_round("pg")
    with CaptureQueriesContext(connection) as queries:
        games = results.pool_games(pool=t.rating_pool)
    assert sorted(game_id for _key, _ranking, game_id in games) == sorted(
        rnd.tables.values_list("game_id", flat=True)
    )
    assert len(queries) == 2
    assert not any("pairing_input" in q["sql"] or "pairing_output" in q["sql"] for q in queries)


def test_an_automatic_pairing_tells_the_organizer_the_repeats_it_could_not_avoid():
    """An organizer's journey: round 3 seated two players together a third time and the
    panel said nothing (a hand pairing with the same table warned). Four players at one
    table of 4 meet again in round 2: every pair is named."""
    organizer, *players = make_users(5, prefix="rw")
    t = tsvc.tournament_create(organizer=organizer, name="Four", ruleset="5x", table_sizes=[4],
                               rounds_count=2, tiebreaks=["buchholz"])  # fmt: skip
    tsvc.tournament_open(tournament=t, by=organizer)
    for user in players:
        tsvc.registration_add(tournament=t, user=user)
    first = rounds.round_pair(tournament=t, by=organizer)
    assert first.warnings == []  # nobody had met
    rounds.round_start(rnd=first, by=organizer)
    [table] = first.tables.select_related("game")
    play_to_the_end(table.game)
    assert results.results_collect() == 1
    second = rounds.round_pair(tournament=t, by=organizer)
    assert len(second.warnings) == 6  # the six pairs of the one table
    assert all(w.startswith("Table 1: ") and w.endswith("have met once before.")
               for w in second.warnings)  # fmt: skip


def test_players_level_on_everything_are_listed_by_name():
    """A participant's journey: level players came in the order of their registrations'
    ids as text ("10" before "9"); by name now."""
    organizer, = make_users(1, prefix="lv")
    User = get_user_model()
    names = [f"{letter}ria" for letter in "kjihgfedcba"]  # registered in reverse order
    t = tsvc.tournament_create(organizer=organizer, name="Level", ruleset="5x", table_sizes=[3],
                               rounds_count=1)
    tsvc.tournament_open(tournament=t, by=organizer)
    for name in names:
        tsvc.registration_add(tournament=t, user=User.objects.create_user(name, f"{name}@example.com"))
    rows = selectors.standings(tournament=t)
    assert [r["user"].username for r in rows] == sorted(names)
    assert {r["rank"] for r in rows} == {1}


def test_the_home_page_says_when_a_round_is_finished(client):
    """A participant's journey: "round 1 of 2" read the same after round 1 ended."""
    from games.services.games import seat_resign

    organizer, players, t, _regs = _open_cup("hf", 2)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    client.force_login(players[0])
    assert "round 1 of 2</td>" in client.get("/").content.decode()
    table = rnd.tables.select_related("game").get()
    seat_resign(seat=table.game.seats.order_by("position").first())
    assert results.results_collect() == 1
    assert "round 1 of 2 finished</td>" in client.get("/").content.decode()
