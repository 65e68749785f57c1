"""Inviting players to a forming game by name: each emailed the game's link once, shown
the invitation on their games page, free to decline it (the organizer is told); a wrong
name invites nobody; a rematch invites the old game's players the same way."""

from __future__ import annotations

import html as html_lib

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from games.errors import GameStateError, PermissionDenied, ValidationError
from games.models import Game, GameInvitation, OutboxMessage
from games.services import invitations
from games.services.games import game_create, game_join
from games.services.invitations import invitation_decline, invite_players
from games.services.rematch import game_rematch
from tests.games.core_support import make_game, make_users, play_defaults
from tests.games.web_support import token_client
from tests.games.web_support import visible_text as _visible


def visible_text(html: str) -> str:
    return html_lib.unescape(_visible(html))


pytestmark = pytest.mark.django_db


def _user(name: str):
    return get_user_model().objects.get(username=name)


@pytest.fixture
def forming():
    ann, *_ = make_users(["ann", "bob", "cat", "dan", "eve"])
    game = game_create(
        organizer=ann, ruleset="5x", seats_count=4, name="Friday league", is_private=True
    )
    game_join(game=game, user=ann, invite_token=game.invite_token)
    return game


def invitation_mails() -> dict[str, OutboxMessage]:
    mails = list(OutboxMessage.objects.filter(kind="invitation"))
    out = {m.to: m for m in mails}
    assert len(out) == len(mails), "a player was emailed twice"
    return out


def test_the_organizer_invites_by_name_and_each_is_emailed_the_invitation_link(forming, client):
    game = forming
    client.force_login(_user("ann"))
    answer = client.post(
        reverse("games:invite_players", args=[game.pk]), {"players": "bob, @Cat"}, follow=True
    )
    assert "Invited bob and cat: each was emailed the game's link." in visible_text(
        answer.content.decode()
    )
    assert set(
        GameInvitation.objects.filter(game=game).values_list("user__username", flat=True)
    ) == {"bob", "cat"}
    mails = invitation_mails()
    assert set(mails) == {"bob@example.com", "cat@example.com"}
    for mail in mails.values():
        assert "ann invites you to a game" in mail.subject
        assert f"/games/{game.pk}/invite/{game.invite_token}/" in mail.body
    page = visible_text(client.get(reverse("games:detail", args=[game.pk])).content.decode())
    assert "Invited by name: bob (waiting) Take back cat (waiting) Take back" in page

    # Named again with others: nobody is emailed twice, and each one not invited says why.
    result = invite_players(game=game, by=_user("ann"), names=["BOB", "ann", "dan"])
    assert result == {
        "invited": ["dan"],
        "skipped": {"bob": "invited already", "ann": "you: join the game yourself"},
    }
    assert set(invitation_mails()) == {"bob@example.com", "cat@example.com", "dan@example.com"}

    # bob takes his seat from the link; the organizer's page says he joined.
    game_join(game=game, user=_user("bob"), invite_token=game.invite_token)
    assert invite_players(game=game, by=_user("ann"), names="bob")["skipped"] == {
        "bob": "has a seat already"
    }
    page = visible_text(client.get(reverse("games:detail", args=[game.pk])).content.decode())
    assert "bob (joined) cat (waiting) Take back dan (waiting) Take back" in page


def test_one_unknown_name_and_nobody_is_invited(forming, client):
    game = forming
    client.force_login(_user("ann"))
    answer = client.post(
        reverse("games:invite_players", args=[game.pk]), {"players": "bob zora cat"}, follow=True
    )
    text = visible_text(answer.content.decode())
    assert "No player is called zora: nobody was invited." in text
    assert 'value="bob zora cat"' in answer.content.decode()  # the form keeps what was typed
    assert (
        not GameInvitation.objects.exists()
        and not OutboxMessage.objects.filter(kind="invitation").exists()
    )
    for names in ("", " , ;", [], ["bob", 3], {"bob": 1}, " ".join(f"p{i}" for i in range(21))):
        with pytest.raises(ValidationError):
            invite_players(game=game, by=_user("ann"), names=names)
    assert not GameInvitation.objects.exists()


def test_only_the_organizer_invites_and_only_while_the_game_forms(forming, client):
    game = forming
    with pytest.raises(PermissionDenied):
        invite_players(game=game, by=_user("bob"), names="cat")
    with pytest.raises(PermissionDenied):  # not told which names are players'
        invite_players(game=game, by=_user("bob"), names="cat zora")
    client.force_login(_user("bob"))
    game_join(game=game, user=_user("bob"), invite_token=game.invite_token)
    answer = client.post(
        reverse("games:invite_players", args=[game.pk]), {"players": "cat"}, follow=True
    )
    assert "Only the organizer of this game can do that." in visible_text(answer.content.decode())
    assert 'id="invite-players"' not in answer.content.decode()  # no form for a player
    for name in ("cat", "dan"):
        game_join(game=game, user=_user(name), invite_token=game.invite_token)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    with pytest.raises(GameStateError):
        invite_players(game=game, by=_user("ann"), names="eve")
    assert not GameInvitation.objects.exists()


def test_a_game_has_so_many_invitations_and_no_more(forming, monkeypatch):
    game = forming
    monkeypatch.setattr(invitations, "INVITATIONS_PER_GAME", 2)
    invite_players(game=game, by=_user("ann"), names="bob")
    with pytest.raises(GameStateError) as refused:
        invite_players(game=game, by=_user("ann"), names="cat dan")
    assert refused.value.code == "invitations_capped"
    assert list(GameInvitation.objects.values_list("user__username", flat=True)) == ["bob"]
    invite_players(game=game, by=_user("ann"), names="cat")  # one left
    assert invite_players(game=game, by=_user("ann"), names="bob cat")[
        "skipped"
    ]  # no new one: no refusal


def test_the_invited_player_sees_it_on_the_games_page_and_declines(forming, client):
    game = forming
    invite_players(game=game, by=_user("ann"), names="bob cat")
    client.force_login(_user("bob"))
    home = visible_text(client.get(reverse("home")).content.decode())
    assert "ann invites you to Friday league (5X): take your seat or decline on the Games page" in home
    html = client.get(reverse("games:list")).content.decode()
    assert "ann invites you to Friday league (5X, 4 players)" in visible_text(html)
    assert f'href="/games/{game.pk}/invite/{game.invite_token}/"' in html

    answer = client.post(reverse("games:invitation_decline", args=[game.pk]), follow=True)
    text = visible_text(answer.content.decode())
    assert "You declined the invitation to Friday league." in text
    assert "invites you to Friday league" not in text
    assert "invites you to" not in visible_text(client.get(reverse("home")).content.decode())
    told = OutboxMessage.objects.filter(kind="notice", to="ann@example.com")
    assert [m.subject for m in told] == ["[Friday league] bob declined your invitation"]
    # Declined again (a double click): nothing more; invited again: skipped.
    client.post(reverse("games:invitation_decline", args=[game.pk]))
    assert told.count() == 1
    assert invite_players(game=game, by=_user("ann"), names="bob")["skipped"] == {"bob": "declined"}
    # Nobody else's invitation changed; a stranger has none to decline.
    assert GameInvitation.objects.get(user__username="cat").declined_at is None
    client.force_login(_user("eve"))
    assert client.post(reverse("games:invitation_decline", args=[game.pk])).status_code == 404
    # cat joins: the invitation is answered, and a seated player declines nothing.
    game_join(game=game, user=_user("cat"), invite_token=game.invite_token)
    client.force_login(_user("cat"))
    assert "invites you to" not in visible_text(client.get(reverse("games:list")).content.decode())
    with pytest.raises(GameStateError):
        invitation_decline(game_id=game.pk, user=_user("cat"))


def test_the_api_invites_lists_and_declines(forming):
    game = forming
    ann, bob = token_client(_user("ann")), token_client(_user("bob"))
    url = f"/api/games/{game.pk}/invitations/"
    answer = ann.post(url, {"players": ["bob", "zora"]}, format="json")
    assert answer.status_code == 400 and "zora" in answer.json()["message"]
    assert ann.post(url, {"players": "bob"}, format="json").status_code == 400  # a list
    answer = ann.post(url, {"players": ["bob", "cat"]}, format="json")
    assert answer.status_code == 200
    assert answer.json() == {"game": game.pk, "invited": ["bob", "cat"], "skipped": {}}
    again = ann.post(url, {"players": ["bob"]}, format="json").json()
    assert again["invited"] == [] and again["skipped"] == {"bob": "invited already"}
    assert len(invitation_mails()) == 2

    # Not the organizer's: a private game bob holds no seat in is not shown to him (404);
    # seated, he still may not read or send its invitations (403).
    assert bob.get(url).status_code == 404
    game_join(game=game, user=_user("cat"), invite_token=game.invite_token)
    cat = token_client(_user("cat"))
    assert cat.get(url).status_code == 403
    assert cat.post(url, {"players": ["dan"]}, format="json").status_code == 403
    declined = bob.post(f"/api/games/{game.pk}/invitation/decline/", {}, format="json")
    assert declined.status_code == 200 and declined.json()["state"] == "declined"
    listed = ann.get(url).json()["invitations"]
    assert [(i["player"], i["state"]) for i in listed] == [("bob", "declined"), ("cat", "joined")]
    dan = token_client(_user("dan"))
    assert (
        dan.post(f"/api/games/{game.pk}/invitation/decline/", {}, format="json").status_code == 404
    )


def test_a_rematch_invites_the_old_players_by_name_with_its_own_email():
    game, _ = make_game(["ann", "bob", "cat"])
    assert play_defaults(game)
    new = game_rematch(game=game, by=_user("ann"))
    assert set(
        GameInvitation.objects.filter(game=new).values_list("user__username", flat=True)
    ) == {"bob", "cat"}
    assert OutboxMessage.objects.filter(kind="rematch").count() == 2
    assert not OutboxMessage.objects.filter(kind="invitation").exists()  # one email each, not two
    invitation_decline(game_id=new.pk, user=_user("bob"))
    assert (
        OutboxMessage.objects.filter(kind="notice", subject__contains="bob declined").count() == 1
    )


def test_the_data_download_has_the_invitations_and_closing_the_account_erases_them(forming):
    from fivex_site.account_close import account_close
    from fivex_site.account_export import account_export

    game = forming
    invite_players(game=game, by=_user("ann"), names="bob cat")
    invitation_decline(game_id=game.pk, user=_user("cat"))
    [bob] = account_export(user=_user("bob"))["invitations"]
    assert (bob["game"], bob["invited_by"], bob["declined_at"]) == (game.pk, "ann", None)
    [cat] = account_export(user=_user("cat"))["invitations"]
    assert cat["declined_at"] is not None and cat["invited_at"].endswith("Z")

    account_close(user=_user("bob"))
    assert list(GameInvitation.objects.values_list("user__username", flat=True)) == ["cat"]
    assert account_export(user=_user("bob"))["invitations"] == []


def test_a_rematchs_organizer_inviting_someone_new_emails_them():
    # The rematch's own email stood in for the invitation email of every player invited to
    # a rematch, a new one named later by its organizer too: nobody emailed them.
    game, _ = make_game(["ann", "bob", "cat"])
    make_users(["dan"])
    assert play_defaults(game)
    new = game_rematch(game=game, by=_user("ann"))
    assert invite_players(game=new, by=_user("ann"), names="dan")["invited"] == ["dan"]
    assert set(invitation_mails()) == {"dan@example.com"}


def test_a_player_says_who_may_invite_them_by_name(forming, client):
    """Settings → Invitations: anyone (the default), players they have played a game
    with, or nobody; an organizer who may not is told why, nobody is emailed, and the
    others named with them are invited as usual. A rematch invites its players anyway."""
    game = forming
    # ann and cat played a game together (it started); ann and dan never did.
    played, _ = make_game(["ann", "cat", "bob"])
    client.force_login(_user("cat"))
    settings_url = reverse("games:player_settings")
    assert 'value="anyone" checked' in client.get(settings_url).content.decode()
    answer = client.post(settings_url, {"form": "invitations", "invitations": "played_with"})
    assert answer.status_code == 302 and answer["Location"].endswith("#invitations")
    client.force_login(_user("dan"))
    client.post(settings_url, {"form": "invitations", "invitations": "nobody"})
    wrong = client.post(settings_url, {"form": "invitations", "invitations": "friends"})
    assert wrong.status_code == 400
    assert "Who may invite you: one of anyone, played_with, nobody." in visible_text(
        wrong.content.decode()
    )
    assert 'value="nobody" checked' in wrong.content.decode()  # unchanged

    result = invite_players(game=game, by=_user("ann"), names="bob cat dan")
    assert result == {"invited": ["bob", "cat"], "skipped": {"dan": "takes no invitations"}}
    assert set(invitation_mails()) == {"bob@example.com", "cat@example.com"}

    # eve played nothing with bob: bob, as organizer of a game, may not invite cat.
    other = game_create(organizer=_user("eve"), ruleset="5x", seats_count=3, name="Eve's")
    assert invite_players(game=other, by=_user("eve"), names=["cat", "bob"]) == {
        "invited": ["bob"],
        "skipped": {"cat": "takes invitations only from players they have played with"},
    }
    # The organizer's page says so.
    client.force_login(_user("eve"))
    other2 = game_create(organizer=_user("eve"), ruleset="5x", seats_count=3, name="Eve's 2")
    page = client.post(
        reverse("games:invite_players", args=[other2.pk]), {"players": "dan"}, follow=True
    )
    assert "Not invited: dan (takes no invitations)." in visible_text(page.content.decode())
    assert not GameInvitation.objects.filter(game=other2).exists()

    # A rematch of the game cat played still invites her.
    assert play_defaults(played)
    with_dan_nobody = game_rematch(game=played, by=_user("ann"))
    assert GameInvitation.objects.filter(game=with_dan_nobody, user=_user("cat")).exists()
    from fivex_site.account_export import account_export

    assert account_export(user=_user("dan"))["account"]["invitations"] == "nobody"


def _forming_game(organizer, name: str) -> Game:
    return game_create(organizer=organizer, ruleset="5x", seats_count=4, name=name)


def test_one_player_is_not_emailed_invitation_after_invitation_by_the_same_organizer():
    # Guards against using invitations to flood a player's inbox: every forming game
    # (60 an hour may be made) could invite the same player, each an email.
    ann, bob, _cat = make_users(["ann", "bob", "cat"])
    waiting = [_forming_game(ann, f"Game {i}") for i in range(invitations.WAITING_FROM_ONE)]
    for game in waiting:
        assert invite_players(game=game, by=ann, names="bob")["invited"] == ["bob"]
    one_more = _forming_game(ann, "One more")
    result = invite_players(game=one_more, by=ann, names="bob cat")
    assert result["invited"] == ["cat"]
    assert "waiting" in result["skipped"]["bob"]
    assert len(OutboxMessage.objects.filter(kind="invitation", to=bob.email)) == len(waiting)
    # Declining one (or the game starting) frees a place: invited again, emailed.
    invitation_decline(game_id=waiting[0].pk, user=bob)
    assert invite_players(game=one_more, by=ann, names="bob")["invited"] == ["bob"]


def test_one_organizer_invites_so_many_players_a_day_and_no_more():
    # Guards against an organizer making game after game to email strangers in bulk.
    ann, *others = make_users(["ann", "bob", "cat"])
    older = _forming_game(ann, "Earlier games")
    users = make_users([f"p{i}" for i in range(invitations.INVITATIONS_PER_DAY)])
    GameInvitation.objects.bulk_create(
        GameInvitation(game=older, user=u, invited_by=ann) for u in users
    )
    game = _forming_game(ann, "Today's")
    with pytest.raises(GameStateError) as refused:
        invite_players(game=game, by=ann, names="bob")
    assert refused.value.code == "invitations_capped"
    assert not GameInvitation.objects.filter(game=game).exists()
    # A day later the count starts again.
    from datetime import timedelta

    from django.utils import timezone

    GameInvitation.objects.filter(game=older).update(
        created_at=timezone.now() - timedelta(hours=25)
    )
    assert invite_players(game=game, by=ann, names="bob")["invited"] == ["bob"]


def test_the_organizer_takes_an_invitation_back(forming, client):
    """A wrong name: the organizer takes the invitation back (page and API); the player
    no longer sees it nor can decline it; invited again, it shows again, with no second
    email; a joined or declined player's invitation, or a stranger's, is no such thing."""
    game = forming
    invite_players(game=game, by=_user("ann"), names="bob cat dan")
    invitation_decline(game_id=game.pk, user=_user("dan"))
    client.force_login(_user("ann"))
    answer = client.post(
        reverse("games:invitation_withdraw", args=[game.pk]), {"player": "BOB"}, follow=True
    )
    text = visible_text(answer.content.decode())
    assert "You took back bob's invitation" in text
    assert "bob (taken back) cat (waiting) Take back dan (declined)" in text
    # bob sees nothing of it any more, and cannot decline it.
    client.force_login(_user("bob"))
    assert "Friday league" not in visible_text(client.get(reverse("games:list")).content.decode())
    with pytest.raises(invitations.NotFound):
        invitation_decline(game_id=game.pk, user=_user("bob"))
    # Taken back twice: nothing changes; a declined one, or nobody invited: refused.
    again = invitations.invitation_withdraw(game=game, by=_user("ann"), name="bob")
    assert again.withdrawn_at is not None
    with pytest.raises(GameStateError, match="declined the invitation already"):
        invitations.invitation_withdraw(game=game, by=_user("ann"), name="dan")
    with pytest.raises(invitations.NotFound):
        invitations.invitation_withdraw(game=game, by=_user("ann"), name="eve")
    with pytest.raises(PermissionDenied):
        invitations.invitation_withdraw(game=game, by=_user("cat"), name="bob")
    # Over the API: cat's, then invited again: shown again, and not emailed twice.
    api = token_client(_user("ann"))
    url = f"/api/games/{game.pk}/invitations/cat/"
    taken = api.delete(url)
    assert taken.status_code == 200 and taken.json()["state"] == "taken back"
    assert token_client(_user("cat")).delete(url).status_code == 404  # a private game: not hers to see
    assert api.delete(f"/api/games/{game.pk}/invitations/nobody/").status_code == 404
    mails = len(invitation_mails())
    assert invite_players(game=game, by=_user("ann"), names="cat")["invited"] == ["cat"]
    assert len(invitation_mails()) == mails  # no second email
    client.force_login(_user("cat"))
    assert "Friday league" in visible_text(client.get(reverse("games:list")).content.decode())
    # Joined: nothing to take back.
    game_join(game=game, user=_user("cat"), invite_token=game.invite_token)
    answer = api.delete(url)
    assert answer.status_code == 409 and "has taken a seat" in answer.json()["message"]


def test_the_organizer_renews_the_invitation_link(forming, client):
    """A private game's link sent to a wrong address: a new one, the old one letting
    nobody in; a player invited by name holding the old link is sent to the new one."""
    from games.services.games import game_join as join
    from games.services.organizer import invite_link_renew

    game = forming
    invite_players(game=game, by=_user("ann"), names="bob")
    old = game.invite_token
    client.force_login(_user("ann"))
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert 'id="invite-link-renew"' in page
    answer = client.post(reverse("games:invite_link_renew", args=[game.pk]), follow=True)
    game.refresh_from_db()
    assert game.invite_token != old
    assert "The game has a new invitation link" in visible_text(answer.content.decode())
    assert game.invite_token in answer.content.decode()  # the new link on the page
    # The old link lets a stranger in no more.
    client.force_login(_user("eve"))
    assert client.get(reverse("games:invite", args=[game.pk, old])).status_code == 404
    with pytest.raises(PermissionDenied):
        join(game=game, user=_user("eve"), invite_token=old)
    # bob, invited by name, is sent from the old link to the new one.
    client.force_login(_user("bob"))
    answer = client.get(reverse("games:invite", args=[game.pk, old]))
    assert answer.status_code == 302
    assert answer["Location"] == reverse("games:invite", args=[game.pk, game.invite_token])
    # Only its organizer, only while forming.
    with pytest.raises(PermissionDenied):
        invite_link_renew(game=game, by=_user("bob"))
