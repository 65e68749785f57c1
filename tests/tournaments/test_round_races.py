"""The round lifecycle under concurrent requests (PostgreSQL: real row locks, one
connection per thread): two organizers pairing the same round, a result collected twice
at once, a start racing a re-pair, a result entered while the collector records it."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from games.models import Game
from tests.concurrency import at_once
from tests.games.core_support import play_defaults
from tournaments.models import RatingEntry, Round, Table
from tournaments.services import results, rounds
from tournaments.services import tournaments as tsvc

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _cup(prefix: str, players: int = 4):
    User = get_user_model()
    organizer, *users = [User.objects.create_user(f"{prefix}{i:02d}", f"{prefix}{i:02d}@example.com", "pw")
                         for i in range(players + 1)]  # fmt: skip
    staff = User.objects.create_user(f"{prefix}st", f"{prefix}st@example.com", "pw", is_staff=True)
    t = tsvc.tournament_create(organizer=organizer, name=f"Race {prefix}", ruleset="6x5",
                               table_sizes=[2], rounds_count=3)  # fmt: skip
    tsvc.tournament_open(tournament=t, by=organizer)
    for user in users:
        tsvc.registration_add(tournament=t, user=user)
    return organizer, staff, t


def test_two_organizers_pairing_the_same_round_at_once_pair_it_once() -> None:
    organizer, staff, t = _cup("rp")
    done, errors = at_once(lambda: rounds.round_pair(tournament=t, by=organizer),
                            lambda: rounds.round_pair(tournament=t, by=staff))  # fmt: skip
    assert len(done) == 1 and len(errors) == 1
    assert "paired already" in str(errors[0])
    assert list(t.rounds.values_list("number", flat=True)) == [1]
    assert Table.objects.filter(round__tournament=t).count() == 2
    assert t.log.filter(kind="round_paired").count() == 1


def test_a_start_racing_a_re_pair_does_one_of_them() -> None:
    """The panel's Start sends the digest of the pairing its page showed: a re-pair that
    wins the race makes the start refuse; a start that wins makes the re-pair refuse."""
    organizer, staff, t = _cup("rs")
    rnd = rounds.round_pair(tournament=t, by=organizer)
    seen = rounds.pairing_digest(rnd=rnd)
    for _ in range(2):
        done, errors = at_once(lambda seen=seen: rounds.round_start(rnd=rnd, by=organizer, pairing_seen=seen),
                                lambda: rounds.round_repair(rnd=rnd, by=staff))  # fmt: skip
        assert len(done) + len(errors) == 2
        rnd.refresh_from_db()
        tables = list(rnd.tables.all())
        games = sorted(Game.objects.filter(name__startswith="Race rs R1").values_list("pk", flat=True))
        assert len(tables) == 2
        if rnd.status == Round.Status.STARTED:
            # The start went first (the re-pair refused), or the re-pair gave the same
            # tables again (round 1, everyone level): the pairing the page showed started.
            assert [str(e) for e in errors] in (
                ["This round has started; it can no longer be re-paired."], [])
            assert rounds.pairing_digest(rnd=rnd) == seen
            assert games == sorted(tb.game_id for tb in tables)
            return
        assert "paired again since your page showed it" in str(errors[0])
        assert games == [] and all(tb.game_id is None for tb in tables)
        seen = rounds.pairing_digest(rnd=rnd)


def _started_round_of_finished_games(prefix: str):
    organizer, staff, t = _cup(prefix)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    for table in rnd.tables.select_related("game"):
        assert play_defaults(table.game)
    return organizer, staff, t, rnd


def test_results_collected_twice_at_once_are_recorded_and_rated_once() -> None:
    _organizer, _staff, t, rnd = _started_round_of_finished_games("rc")
    done, errors = at_once(results.results_collect, results.results_collect)
    assert errors == []
    assert sorted(done) == [0, 2] or sum(done) == 2  # each table recorded by one run
    assert t.log.filter(kind="result_recorded").count() == 2
    assert t.log.filter(kind="round_finished").count() == 1
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.FINISHED
    keys = list(RatingEntry.objects.filter(pool=t.rating_pool).values_list("game_key", "user_id"))
    assert len(keys) == len(set(keys)) == 4


def test_a_result_entered_while_the_collector_records_it_is_kept_once() -> None:
    organizer, _staff, t, rnd = _started_round_of_finished_games("re")
    table = rnd.tables.order_by("number").first()
    ranking = [[table.players[1]], [table.players[0]]]
    done, errors = at_once(
        results.results_collect,
        lambda: results.result_enter(table=table, ranking=ranking, by=organizer, reason="adjudicated"),
    )
    # Either order is fine: the collector's result then the correction, or the entered
    # result that the collector leaves alone. Never both applied over each other.
    assert all("nothing was changed" in str(e) for e in errors), errors
    table.refresh_from_db()
    assert table.ranking is not None
    recorded = t.log.filter(kind="result_recorded", payload__table=table.number).count()
    entered = t.log.filter(kind__in=["result_entered", "result_corrected"],
                           payload__table=table.number).count()  # fmt: skip
    assert recorded <= 1 and entered <= 1 and recorded + entered >= 1
    keys = list(RatingEntry.objects.filter(pool=t.rating_pool).values_list("game_key", "user_id"))
    assert len(keys) == len(set(keys)) == 4
    assert t.log.filter(kind="round_finished").count() == 1
