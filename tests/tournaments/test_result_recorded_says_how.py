"""The panel's answer to a result entered by hand says the result as recorded and how it
counts. A double forfeit's row comes ticked "nobody played" (its result as it stands);
an organizer who typed a winner over it ("they did play after all") read only
"Result recorded." while it stayed a double forfeit: no points for anyone."""

from __future__ import annotations

import html
import re

import pytest

from games.services.organizer import game_end
from tests.tournaments.test_tournament_services import _open_cup
from tournaments.services import results, rounds

pytestmark = pytest.mark.django_db


def _flash(answer) -> str:
    found = re.search(r'<li class="message success">(.*?)</li>', answer.content.decode(), re.S)
    assert found, answer.content.decode()[:2000]
    return html.unescape(found.group(1)).strip()


def test_the_answer_says_the_result_and_how_it_counts(client):
    organizer, _users, t, _regs = _open_cup("rs", 2)
    rnd = rounds.round_start(rnd=rounds.round_pair(tournament=t, by=organizer), by=organizer)
    table = rnd.tables.select_related("game").get()
    game_end(game=table.game, by=organizer, reason="nobody came")
    results.result_enter(table=table, ranking=[], by=organizer, reason="nobody came", scoreless=True)
    first, second = (t.registrations.get(pk=p).user.username for p in table.players)
    client.force_login(organizer)
    post = {"table": table.pk, "ranking": f"{second} > {first}", "reason": "they did play",
            "round": "1", "nobody_played": "1"}  # the row came ticked
    answer = client.post(f"/tournaments/{t.slug}/manage/result/", post, follow=True)
    assert _flash(answer) == (
        f"Result recorded for table 1 of round 1: {second} > {first} (nobody played: no "
        "points, not rated)."
    )
    del post["nobody_played"]
    answer = client.post(f"/tournaments/{t.slug}/manage/result/", post, follow=True)
    assert _flash(answer) == f"Result recorded for table 1 of round 1: {second} > {first}."
    post.update(ranking=f"{first} > {second}", forfeit="1")
    answer = client.post(f"/tournaments/{t.slug}/manage/result/", post, follow=True)
    assert _flash(answer) == f"Result recorded for table 1 of round 1: {first} > {second} (a forfeit, not rated)."
