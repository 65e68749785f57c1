"""Taking an invitation back, at its edges: a name no database text can hold (review
finding)."""

from __future__ import annotations

import pytest
from django.test import Client

from games.models import GameInvitation
from games.services.games import game_create
from games.services.invitations import invite_players
from tests.games.web_support import make_user, token_client


def _invited(private: bool = True):
    ann, bob = make_user("ann"), make_user("bob")
    game = game_create(organizer=ann, ruleset="5x", seats_count=3, is_private=private)
    assert invite_players(game=game, by=ann, names="bob")["invited"] == ["bob"]
    return game, ann, bob


@pytest.mark.django_db
def test_a_name_holding_a_nul_is_no_invitation_not_a_server_error():
    # Seen failing: 500 (PostgreSQL takes no NUL in a text) over the API and the page.
    game, ann, _bob = _invited()
    for name in ("%00", "bob%00", "%00bob"):
        answer = token_client(ann).delete(f"/api/games/{game.pk}/invitations/{name}/")
        assert answer.status_code == 404, (name, answer.content)
        assert answer.json()["error"] == "not_found"
    web = Client()
    web.force_login(ann)
    answer = web.post(f"/games/{game.pk}/invitations/withdraw/", {"player": "bob\x00"}, follow=True)
    assert answer.status_code == 200
    assert "is invited to this game" in answer.content.decode()
    assert GameInvitation.objects.get(game=game).withdrawn_at is None  # nothing changed
