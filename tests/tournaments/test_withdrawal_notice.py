"""A player the organizer withdraws is told, by email: who withdrew them, from which
tournament, and what becomes of the game they are seated in (it goes on) or of the
round paired with them (paired again without them). A player who withdraws themselves
is told on the page, not by email."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from games.models import OutboxMessage
from games.services.outbox_sending import outbox_send
from tournaments.models import Registration
from tournaments.services import rounds
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db


def _cup(prefix: str, *, start: bool):
    """A duel cup of four, round 1 paired (and started if ``start``), run by a non-staff
    organizer: (organizer, tournament, round 1)."""
    User = get_user_model()
    organizer = User.objects.create_user(f"{prefix}boss", f"{prefix}boss@example.com", "pw")
    t = tsvc.tournament_create(organizer=organizer, name=f"Cup {prefix}", ruleset="6x5", table_sizes=[2],
                               rounds_count=3)
    tsvc.tournament_open(tournament=t, by=organizer)
    for i in range(4):
        user = User.objects.create_user(f"{prefix}{i}", f"{prefix}{i}@example.com", "pw")
        tsvc.registration_add(tournament=t, user=user)
    rnd = rounds.round_pair(tournament=t, by=organizer)
    if start:
        rounds.round_start(rnd=rnd, by=organizer)
    return organizer, t, rnd


def test_a_player_the_organizer_withdraws_mid_game_is_told_by_email(client, smtp_sink):
    # Regression (an end-to-end audit): only the opponents of the running game were told.
    organizer, t, rnd = _cup("wo", start=True)
    table = rnd.tables.order_by("number").first()
    gone = Registration.objects.select_related("user").get(pk=table.players[0])
    client.force_login(organizer)
    answer = client.post(f"/tournaments/{t.slug}/manage/withdraw/", {"registration": gone.pk}, follow=True)
    assert f"{gone.user} is withdrawn: not paired in the rounds to come." in answer.content.decode()
    (mail,) = OutboxMessage.objects.filter(to=gone.user.email, subject__contains="withdrew you")
    assert outbox_send(message_id=mail.pk)[0] == "sent"
    (arrived,) = smtp_sink.wait_for(1)
    assert arrived.rcpt_tos == [gone.user.email]
    assert arrived.message["Subject"] == f"Cup wo: {organizer} withdrew you"
    body = arrived.message.get_body(("plain",)).get_content()
    assert f"{organizer} (the organizer) withdrew you from Cup wo: you are not paired in the rounds to come." in body
    assert (f"Your game of round 1 (table {table.number}) goes on: you may still play it, or resign "
            "it; at each deadline a missing order is filled with the default order. Its result "
            "counts in the standings as the game ends.") in body
    assert f"/games/{table.game_id}/" in body
    assert "Your results stay in the standings, marked withdrawn." in body
    assert "You cannot register again." in body
    assert f"If this is a mistake, ask the organizer ({organizer})." in body
    # The opponent is told as before; nobody else.
    told = sorted(OutboxMessage.objects.filter(kind="tournament", subject__contains="withdr").values_list("to", flat=True))
    opponent = Registration.objects.get(pk=table.players[1]).user.email
    assert told == sorted([gone.user.email, opponent])


def test_a_player_withdrawn_from_a_paired_round_is_told_it_is_paired_again(client):
    organizer, t, rnd = _cup("wp", start=False)
    staff = get_user_model().objects.create_user("wpstaff", "wpstaff@example.com", "pw", is_staff=True)
    table = rnd.tables.order_by("number").last()
    gone = Registration.objects.select_related("user").get(pk=table.players[1])
    tsvc.registration_withdraw(registration=gone, by=staff)
    (mail,) = OutboxMessage.objects.filter(to=gone.user.email, subject__contains="withdrew you")
    assert "wpstaff (a site administrator) withdrew you from Cup wp" in mail.body
    assert (f"Round 1 was paired with you at table {table.number}: it is paired again without "
            "you before it starts.") in mail.body
    assert "goes on" not in mail.body
    assert "You played no round: you are not in the standings." in mail.body
    assert "You cannot register again." in mail.body


def test_a_player_withdrawn_before_round_1_is_paired_may_register_again(client):
    User = get_user_model()
    organizer = User.objects.create_user("wrboss", "wrboss@example.com", "pw")
    t = tsvc.tournament_create(organizer=organizer, name="Cup wr", ruleset="6x5", table_sizes=[2], rounds_count=2)
    tsvc.tournament_open(tournament=t, by=organizer)
    player = User.objects.create_user("wr1", "wr1@example.com", "pw")
    reg = tsvc.registration_add(tournament=t, user=player)
    tsvc.registration_withdraw(registration=reg, by=organizer)
    (mail,) = OutboxMessage.objects.filter(to=player.email, subject__contains="withdrew you")
    assert "was paired with you" not in mail.body and "goes on" not in mail.body
    assert ("You may register again from the tournament's page until round 1 is paired.") in mail.body
    # ... and it is true.
    assert tsvc.registration_add(tournament=t, user=player).status == Registration.Status.ACTIVE


def test_a_player_who_withdraws_themselves_gets_no_email_about_it(client):
    organizer, t, rnd = _cup("ws", start=True)
    table = rnd.tables.order_by("number").first()
    gone = Registration.objects.select_related("user").get(pk=table.players[0])
    client.force_login(gone.user)
    answer = client.post(f"/tournaments/{t.slug}/withdraw/", follow=True)
    assert "You have withdrawn" in answer.content.decode()
    assert not OutboxMessage.objects.filter(to=gone.user.email, subject__contains="withdr").exists()
    assert OutboxMessage.objects.filter(to=Registration.objects.get(pk=table.players[1]).user.email,
                                        subject=f"Cup ws: {gone.user} withdrew").exists()


def test_the_organizer_is_told_when_a_player_withdraws_from_a_paired_round(client):
    """h3's organizer walk: a player withdrew themselves after round 1 was paired; the
    organizer, who had paired it to start it later, was told nothing until Start was
    missing from the panel (it waits for a re-pair)."""
    organizer, t, rnd = _cup("wq", start=False)
    table = rnd.tables.order_by("number").first()
    gone = Registration.objects.select_related("user").get(pk=table.players[0])
    client.force_login(gone.user)
    client.post(f"/tournaments/{t.slug}/withdraw/")
    (mail,) = OutboxMessage.objects.filter(to=organizer.email)
    assert mail.subject == f"Cup wq: {gone.user} withdrew after round 1 was paired"
    assert (f"{gone.user} withdrew from Cup wq after round 1 was paired (table "
            f"{table.number}). Round 1 cannot start as it is: re-pair it from the organizer "
            "panel, then start it.") in mail.body
    assert f"/tournaments/{t.slug}/manage/" in mail.body
    # The player is not emailed (the page told them): only their registration's email.
    assert not OutboxMessage.objects.filter(to=gone.user.email, subject__contains="withdr").exists()


def test_the_organizer_is_not_told_of_a_withdrawal_no_paired_round_waits_on(client):
    organizer, t, rnd = _cup("wr", start=True)
    gone = Registration.objects.select_related("user").get(pk=rnd.tables.first().players[0])
    tsvc.registration_withdraw(registration=gone, by=gone.user)  # round 1 being played
    assert not OutboxMessage.objects.filter(to=organizer.email).exists()
    other = Registration.objects.exclude(pk=gone.pk).select_related("user").first()
    rnd2_organizer_actions = OutboxMessage.objects.count()
    tsvc.registration_withdraw(registration=other, by=organizer)  # the organizer's own act
    assert not OutboxMessage.objects.filter(to=organizer.email).exists()
    assert OutboxMessage.objects.count() > rnd2_organizer_actions  # the player is told
