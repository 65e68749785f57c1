"""A forfeit in the tie-breaks, end to end: a non-staff organizer ends a duel's game over
the API, then enters its result on the panel ticked "not played (a forfeit)". The
standings (page, API, the round's email) count it FIDE's way (C.02 13.15): an unplayed
round for both of its players, not a game played."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from games.models import OutboxMessage
from tests.games.web_support import token_client
from tournaments import selectors
from tournaments.models import Round
from tournaments.services import rounds
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db


def _pair(t, organizer, tables):
    rnd, warnings = rounds.round_pair_by_hand(tournament=t, tables=tables, by=organizer)
    assert rnd is not None, warnings
    rounds.round_start(rnd=rnd, by=organizer)
    return rnd


def _decide(client, api, t, rnd, number, ranking, *, forfeit=False):
    """End table ``number``'s game over the API, then enter ``ranking`` on the panel."""
    table = rnd.tables.get(number=number)
    ended = api.post(f"/api/games/{table.game_id}/end/", {"confirm": True, "reason": "decided by hand"},
                     format="json")
    assert ended.status_code == 200, ended.content
    post = {"table": table.pk, "ranking": ranking, "reason": "see the log", "round": rnd.number}
    if forfeit:
        post["forfeit"] = "1"
    answer = client.post(f"/tournaments/{t.slug}/manage/result/", post, follow=True)
    assert f"Result recorded for table {number} of round {rnd.number}: " in answer.content.decode()


def test_a_forfeit_is_no_played_game_in_buchholz_sb_and_played(client):
    # Regression (an end-to-end audit): a forfeit entered by hand counted as a played game
    # in Buchholz, Sonneborn-Berger and the "Played" column.
    User = get_user_model()
    organizer = User.objects.create_user("ffboss", "ffboss@example.com", "pw")  # not staff
    users = {n: User.objects.create_user(n, f"{n}@example.com", "pw") for n in ("ffa", "ffb", "ffc", "ffd")}
    t = tsvc.tournament_create(organizer=organizer, name="Forfeit cup", ruleset="6x5", table_sizes=[2],
                               rounds_count=2, tiebreaks=["buchholz", "sonneborn_berger"])
    tsvc.tournament_open(tournament=t, by=organizer)
    reg = {n: tsvc.registration_add(tournament=t, user=u).pk for n, u in users.items()}
    client.force_login(organizer)
    api = token_client(organizer)
    # R1: ffa beats ffb by forfeit (ffb never showed), ffc beats ffd over the board.
    r1 = _pair(t, organizer, [[reg["ffa"], reg["ffb"]], [reg["ffc"], reg["ffd"]]])
    _decide(client, api, t, r1, 1, "ffa > ffb", forfeit=True)
    _decide(client, api, t, r1, 2, "ffc > ffd")
    # R2: ffc beats ffa, ffb beats ffd.
    r2 = _pair(t, organizer, [[reg["ffc"], reg["ffa"]], [reg["ffb"], reg["ffd"]]])
    _decide(client, api, t, r2, 1, "ffc > ffa")
    _decide(client, api, t, r2, 2, "ffb > ffd")
    r2.refresh_from_db()
    assert r2.status == Round.Status.FINISHED

    # Worked by hand, duels scored [1, 0] (win 1, draw 1/2), n = 2 rounds. The forfeit is
    # round 1 for ffa (won, SfPR = 1) and ffb (lost, SfPR = 0), both with 0 points before it.
    # Virtual opponents, Svon = SPR + (1 - SfPR) + 1/2 (n - R):
    va = 0 + (1 - 1) + 0.5 * (2 - 1)  # 1/2
    vb = 0 + (1 - 0) + 0.5 * (2 - 1)  # 3/2
    # Totals as they enter others' tie-breaks (own forfeit round a draw):
    ta = 0.5 + 0  # ffa: forfeit (draw), lost to ffc
    tb = 0.5 + 1  # ffb: forfeit (draw), beat ffd
    tc = 1 + 1
    td = 0 + 0
    expected = {
        # player: (points, played, Buchholz, Sonneborn-Berger)
        "ffa": (1, 1, va + tc, 1 * va + 0 * tc),
        "ffb": (1, 1, vb + td, 0 * vb + 1 * td),
        "ffc": (2, 2, td + ta, 1 * td + 1 * ta),
        "ffd": (0, 2, tc + tb, 0 * tc + 0 * tb),
    }
    assert expected["ffa"][2:] == (2.5, 0.5) and expected["ffb"][2:] == (1.5, 0.0)  # the arithmetic above

    rows = {row["user"].username: row for row in selectors.standings(tournament=t)}
    got = {n: (r["points"], r["played"], r["tiebreaks"]["buchholz"], r["tiebreaks"]["sonneborn_berger"])
           for n, r in rows.items()}
    assert got == expected
    # The API says the same.
    data = api.get(f"/api/tournaments/{t.slug}/").json()
    by_api = {s["player"]: (s["points"], s["played"], s["tiebreaks"]["buchholz"],
                            s["tiebreaks"]["sonneborn_berger"]) for s in data["standings"]}
    assert by_api == expected
    # And the round's email, where ffa and ffb (level on 1 point) show what parted them.
    mail = OutboxMessage.objects.filter(to="ffb@example.com", body__contains="Round 2").order_by("pk").last()
    assert "ffa — 1 point (Buchholz 2.5, Sonneborn–Berger 0.5)" in mail.body
    assert "ffb — 1 point (Buchholz 1.5, Sonneborn–Berger 0)" in mail.body
