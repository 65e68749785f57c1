"""A tournament table's result follows its game's end within seconds: the game's end
queues the results sweep (by name), instead of leaving the table 'pending' until the
beat's next minute."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth import get_user_model

from games.models import Game
from games.services.games import seat_resign
from games.services.organizer import game_end
from tests.games.core_support import play_defaults
from tests.tournaments.test_tournament_services import make_users
from tournaments.models import Round, Table
from tournaments.services import rounds
from tournaments.services import tournaments as tsvc

RESULTS_TASK = "tournaments.tasks.collect_results"


def _started_table(prefix: str, *, ruleset: str = "5x", size: int = 3,
                   options: dict | None = None) -> tuple[object, Table]:
    """A one-table tournament of ``ruleset`` at a table of ``size``, its round 1 started:
    (organizer, table)."""
    organizer, *players = make_users(size + 1, prefix=prefix)
    t = tsvc.tournament_create(organizer=organizer, name=f"Cup {prefix}", ruleset=ruleset,
                               table_sizes=[size], rounds_count=1, options=options or {})
    tsvc.tournament_open(tournament=t, by=organizer)
    for user in players:
        tsvc.registration_add(tournament=t, user=user)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    return organizer, rnd.tables.select_related("game").get()


def _queued_names(callbacks) -> list[str]:
    return [getattr(getattr(cb, "task", None), "name", None) for cb in callbacks]


@pytest.mark.django_db
def test_every_way_a_game_ends_queues_the_results_sweep(django_capture_on_commit_callbacks):
    _, table = _started_table("w")
    seats = list(table.game.seats.order_by("position"))
    with django_capture_on_commit_callbacks() as callbacks:
        seat_resign(seat=seats[0])
    assert RESULTS_TASK not in _queued_names(callbacks)  # the game goes on
    with django_capture_on_commit_callbacks() as callbacks:
        seat_resign(seat=seats[1])  # a walkover
    table.game.refresh_from_db()
    assert table.game.status == Game.Status.FINISHED
    assert _queued_names(callbacks).count(RESULTS_TASK) == 1

    organizer, table = _started_table("e")
    with django_capture_on_commit_callbacks() as callbacks:
        game_end(game=table.game, by=organizer, reason="the club closed")
    assert _queued_names(callbacks).count(RESULTS_TASK) == 1

    _, table = _started_table("p")
    with django_capture_on_commit_callbacks() as callbacks:
        assert play_defaults(table.game)  # played to the end by the engine's rules
    table.game.refresh_from_db()
    assert table.game.status == Game.Status.FINISHED
    assert _queued_names(callbacks).count(RESULTS_TASK) == 1


@pytest.mark.worker
def test_a_walkover_is_recorded_by_the_worker_without_the_beat(celery_worker_process):
    _, table = _started_table("k")
    seats = list(table.game.seats.order_by("position"))
    seat_resign(seat=seats[0])
    seat_resign(seat=seats[1])  # seats[2] wins; no beat runs in this test
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # the result, then (another transaction) the round's end
        table.refresh_from_db()
        if table.ranking is not None and Round.objects.get(pk=table.round_id).status == Round.Status.FINISHED:
            break
        time.sleep(0.2)
    ranking = table.ranking and [set(group) for group in table.ranking]
    assert ranking == [{table.players[2]}, set(table.players[:2])], celery_worker_process.log()
    assert table.result_source == "game"
    assert Round.objects.get(pk=table.round_id).status == Round.Status.FINISHED


@pytest.mark.django_db
def test_games_ending_together_queue_one_sweep(django_capture_on_commit_callbacks, monkeypatch):
    """A code review: every game's end queued a sweep of its own, each replaying its rating
    pool; games ending within GAME_OVER_DELAY_SECONDS share the first one's sweep, which
    runs that much later (after their ends committed)."""
    from celery.app.task import Task
    from celery.canvas import Signature

    from games.services.queueing import GAME_OVER_DELAY_SECONDS

    sent = []
    monkeypatch.setattr(Signature, "apply_async", lambda self, *a, **kw: sent.append((self.name, kw)))
    monkeypatch.setattr(Task, "apply_async", lambda self, *a, **kw: sent.append((self.name, kw)))
    tables = [_started_table(prefix)[1] for prefix in ("t1", "t2", "t3")]
    for table in tables:
        seats = list(table.game.seats.order_by("position"))
        with django_capture_on_commit_callbacks(execute=True):
            seat_resign(seat=seats[0])
            seat_resign(seat=seats[1])
    swept = [kw for name, kw in sent if name == RESULTS_TASK]
    assert len(swept) == 1 and swept[0]["countdown"] == GAME_OVER_DELAY_SECONDS, sent


def _duel_cup(prefix: str, max_turns: int = 2):
    """A 6x5 duel whose games end after ``max_turns`` turns: (organizer, table)."""
    return _started_table(prefix, ruleset="6x5", size=2, options={"max_turns": max_turns})


@pytest.mark.django_db
def test_a_game_a_seat_never_played_counts_but_is_not_rated():
    """A participant's journey: a game in which a player never sent an order (every one a
    default at its deadline) was a rated result, as if the defaults had played; it counts
    in the standings as it ended, and moves no rating (as chess servers abort a game
    without moves)."""
    from datetime import timedelta

    from games.models import OutboxMessage, Prompt
    from games.services.deadlines import overdue_prompt_resolve
    from games.services.orders import order_submit
    from games.services.resolution import prompt_resolve
    from tournaments.models import RatingEntry, TournamentLog
    from tournaments.services import results

    _, table = _duel_cup("nr")
    game = table.game
    first = Prompt.objects.get(game=game, number=1)
    [mover] = first.pending
    order_submit(seat=game.seats.get(name=mover), text="PLACE BLUE 1,0", source="web")
    assert prompt_resolve(game_id=game.pk, prompt_number=1)
    second = Prompt.objects.get(game=game, number=2)
    [idle] = second.pending  # never orders: its default is entered at the deadline
    assert overdue_prompt_resolve(game_id=game.pk, prompt_number=2,
                                  now=second.deadline + timedelta(days=1))
    game.refresh_from_db()
    assert game.status == "finished"
    assert results.results_collect() == 1
    table.refresh_from_db()
    assert table.ranking is not None and table.rated is False
    idle_user = game.seats.get(name=idle).user.username
    entry = TournamentLog.objects.get(tournament=table.round.tournament, kind="result_recorded")
    assert entry.payload["no_orders_from"] == [idle_user]
    assert not RatingEntry.objects.filter(game=game).exists()
    told = OutboxMessage.objects.filter(kind="tournament", body__contains="Your result at table")
    assert told.count() == 2
    assert all(f"Not rated: {idle_user} sent no order in the game" in m.body for m in told)


@pytest.mark.django_db
def test_a_seat_that_resigns_before_ordering_loses_a_rated_game():
    """A code review: a resignation before any order made the table unrated, so
    resigning at once spared a rating; a resignation is a loss, rated."""
    from tournaments.models import RatingEntry
    from tournaments.services import results

    _, table = _duel_cup("rs")
    game = table.game
    seat_resign(seat=game.seats.order_by("position").last())  # perhaps before its first turn
    assert results.results_collect() == 1
    table.refresh_from_db()
    assert table.rated is True
    assert RatingEntry.objects.filter(game=game).count() == 2


@pytest.mark.django_db
def test_the_opponents_of_a_player_who_withdraws_mid_game_are_told(client):
    """A participant's journey: an opponent learnt of a withdrawal from the standings."""
    from games.models import OutboxMessage
    from tournaments.models import Registration

    _, table = _started_table("wd")
    gone = Registration.objects.get(pk=table.players[0])
    tsvc.registration_withdraw(registration=gone, by=gone.user)
    told = OutboxMessage.objects.filter(kind="tournament", subject__endswith=f"{gone.user.username} withdrew")
    others = Registration.objects.filter(pk__in=table.players[1:]).select_related("user")
    assert sorted(m.to for m in told) == sorted(r.user.email for r in others)
    body = told.first().body
    assert f"Your game with {gone.user.username} (round 1, table {table.number}) goes on" in body
    assert f"/games/{table.game_id}/" in body
    # the withdrawn player's page: not "withdrew after round 1" while round 1 is played
    client.force_login(gone.user)
    page = client.get(f"/tournaments/{table.round.tournament.slug}/").content.decode()
    assert "You withdrew: you are not paired after round 1." in page
    # the notice's keys: told once whatever calls it again
    from tournaments.services import notices

    notices.withdrawn_mid_game(tournament=table.round.tournament, registration=gone)
    assert told.count() == 2


@pytest.mark.django_db
def test_a_withdrawal_tells_the_players_who_play_its_game_now():
    """A code review: the notice went to the paired players (a seat handed to a
    substitute: the old player was told, the substitute not), and said the withdrawing
    player "may still play" a game they had resigned or handed over."""
    from games.models import OutboxMessage
    from games.services.handover import seat_replace
    from tournaments.models import Registration

    organizer, table = _started_table("ws")
    seats = list(table.game.seats.order_by("position"))
    sub = get_user_model().objects.create_user("subby", "subby@example.com", "pw")
    staff = get_user_model().objects.create_user("staffer", "staffer@example.com", "pw", is_staff=True)
    seat_replace(seat=seats[1], new_user=sub, by=staff)
    gone = Registration.objects.get(pk=table.players[0])
    tsvc.registration_withdraw(registration=gone, by=gone.user)
    told = OutboxMessage.objects.filter(kind="tournament", subject__endswith=f"{gone.user.username} withdrew")
    assert sorted(m.to for m in told) == sorted(["subby@example.com", seats[2].user.email])
    # a player who resigned their seat first: nobody is told a game of theirs goes on
    _, table2 = _started_table("wt")
    first = table2.game.seats.order_by("position").first()
    seat_resign(seat=first)
    left = Registration.objects.get(pk=table2.players[0])
    tsvc.registration_withdraw(registration=left, by=left.user)
    assert not OutboxMessage.objects.filter(subject__endswith=f"{left.user.username} withdrew").exists()
