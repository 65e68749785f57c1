"""A rematch's organizer who takes back a player's invitation (and renews the link) keeps
that player out: the old game's page, its Rematch button and the API's rematch answer
no longer hand them the rematch's invitation link (review finding: they did, with the
renewed token, and the player joined)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from games.errors import PermissionDenied
from games.models import Game
from games.services.games import game_join
from games.services.invitations import invitation_withdraw
from games.services.organizer import invite_link_renew
from games.services.rematch import game_rematch
from tests.games.core_support import make_game, play_defaults
from tests.games.web_support import token_client

pytestmark = pytest.mark.django_db


def _user(name: str):
    return get_user_model().objects.get(username=name)


def _rematch_without_cat() -> tuple[Game, Game, str]:
    """A game over (ann, bob, cat), its rematch asked by ann, who took back cat's
    invitation and renewed the link; returns the old game, the rematch, the old token."""
    game, _ = make_game(["ann", "bob", "cat"])
    assert play_defaults(game)
    new = game_rematch(game=game, by=_user("ann"))
    old_token = str(new.invite_token)
    invitation_withdraw(game=new, by=_user("ann"), name="cat")
    new = invite_link_renew(game=new, by=_user("ann"))
    assert str(new.invite_token) != old_token
    return game, new, old_token


def test_the_old_games_page_gives_no_link_to_a_player_whose_invitation_was_taken_back(client):
    game, new, old_token = _rematch_without_cat()
    client.force_login(_user("cat"))
    body = client.get(f"/games/{game.pk}/").content.decode()
    assert str(new.invite_token) not in body and old_token not in body
    assert "took back your invitation" in body
    # bob, still invited, is linked to the renewed invitation
    client.force_login(_user("bob"))
    assert f"/games/{new.pk}/invite/{new.invite_token}/" in client.get(f"/games/{game.pk}/").content.decode()


def test_asking_for_the_rematch_again_does_not_hand_the_new_link_back(client):
    game, new, _ = _rematch_without_cat()
    cat = _user("cat")
    with pytest.raises(PermissionDenied, match="took back your invitation"):
        game_rematch(game=game, by=cat)
    client.force_login(cat)
    answer = client.post(f"/games/{game.pk}/rematch/", follow=True)
    assert str(new.invite_token) not in answer.content.decode()
    assert answer.redirect_chain[-1][0] == f"/games/{game.pk}/"
    assert "took back your invitation" in answer.content.decode()
    api = token_client(cat).post(f"/api/games/{game.pk}/rematch/", {}, format="json")
    assert api.status_code == 403, api.json()
    assert str(new.invite_token) not in api.content.decode()
    # so cat cannot take a seat; invited again, the link is theirs again
    assert not new.seats.filter(user=cat).exists()
    from games.services.invitations import invite_players

    invite_players(game=new, by=_user("ann"), names="cat")
    again = game_rematch(game=game, by=cat)
    assert again.pk == new.pk and again.created is False
    game_join(game=again, user=cat, invite_token=again.invite_token)
    assert new.seats.filter(user=cat).exists()
