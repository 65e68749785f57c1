"""An organizer who withdraws a player from the panel is told what is left to see to: the
player's game under way goes on (and counts, default orders standing in for theirs), and a round
paired with them must be re-paired before it starts. The panel said only
"Registration withdrawn."."""

from __future__ import annotations

import html
import re

import pytest

from tests.tournaments.test_tournament_services import _open_cup
from tournaments.services import rounds

pytestmark = pytest.mark.django_db


def _flash(answer) -> str:
    found = re.search(r'<[^>]*class="message success"[^>]*>(.*?)</', answer.content.decode(), re.S)
    assert found, answer.content.decode()[:2000]
    return html.unescape(found.group(1)).strip()


def test_withdrawn_mid_game_the_game_is_named(client):
    organizer, _users, t, _regs = _open_cup("wg", 4)
    rnd = rounds.round_start(rnd=rounds.round_pair(tournament=t, by=organizer), by=organizer)
    table = rnd.tables.get(number=2)
    gone = t.registrations.select_related("user").get(pk=table.players[1])
    client.force_login(organizer)
    answer = client.post(f"/tournaments/{t.slug}/manage/withdraw/", {"registration": gone.pk}, follow=True)
    assert _flash(answer) == (
        f"{gone.user} is withdrawn: not paired in the rounds to come. Their game in round 1 "
        "(table 2) goes on and its result counts: at each deadline they miss, their default "
        "order is played."
    )


def test_withdrawn_from_a_paired_round_the_re_pairing_is_asked(client):
    organizer, _users, t, _regs = _open_cup("wq", 4)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    gone = t.registrations.select_related("user").get(pk=rnd.tables.get(number=1).players[0])
    client.force_login(organizer)
    answer = client.post(f"/tournaments/{t.slug}/manage/withdraw/", {"registration": gone.pk}, follow=True)
    assert _flash(answer) == (
        f"{gone.user} is withdrawn: not paired in the rounds to come. Round 1 was paired "
        "with them: re-pair it before starting it."
    )


def test_the_round_names_a_withdrawn_player_at_their_table(client):
    organizer, _users, t, _regs = _open_cup("wt", 4)
    rnd = rounds.round_start(rnd=rounds.round_pair(tournament=t, by=organizer), by=organizer)
    table = rnd.tables.get(number=1)
    gone = t.registrations.select_related("user").get(pk=table.players[0])
    client.force_login(organizer)
    client.post(f"/tournaments/{t.slug}/manage/withdraw/", {"registration": gone.pk})
    page = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    cell = re.search(r'<td data-label="Players">(.*?)</td>', page).group(1)
    assert f'{gone.user} <span class="muted small">(withdrawn)</span>' in cell
