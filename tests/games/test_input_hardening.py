"""Input that once broke things quietly (found by a security review): control characters
in names and emails, a player name that looks like an email address, and a stranger
probing a tournament's manage actions."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core import mail

from games.models import Game, OutboxMessage
from games.services.games import game_create, game_join
from games.services.outbox_sending import outbox_send
from tests.games.web_support import make_user, token_client

pytestmark = pytest.mark.django_db


def test_a_line_break_in_a_game_name_cannot_make_its_emails_unsendable(
    django_capture_on_commit_callbacks,
):
    made = token_client(make_user("nl")).post(
        "/api/games/", {"ruleset": "5x", "seats_count": 3, "name": "A\r\nBcc: x@evil.test"},
        format="json",
    )  # fmt: skip
    assert made.status_code == 201
    game = Game.objects.get(pk=made.json()["id"])
    assert game.name == "A Bcc: x@evil.test"
    for name in ("nl1", "nl2", "nl3"):
        game_join(game=game, user=make_user(name))
    started = OutboxMessage.objects.filter(game=game, kind="game_started")
    assert started.count() == 3
    for message in started:
        assert outbox_send(message_id=message.pk)[0] == "sent"
    assert len(mail.outbox) == 3
    assert all("\n" not in m.subject and m.bcc == [] for m in mail.outbox)


def test_a_line_break_in_a_tournament_name_is_one_line():
    from tournaments.services.tournaments import tournament_create

    t = tournament_create(organizer=make_user("tn"), name="Cup\nFinals\x00", ruleset="6x5",
                          table_sizes=[2], rounds_count=1)  # fmt: skip
    assert t.name == "Cup Finals"


def test_a_nul_in_an_email_is_dropped_and_the_order_taken(settings):
    from games.mail.models import InboundMail
    from games.mail.processing import process_message
    from games.models import SealedOrder
    from games.services.seats import seat_reply_address

    settings.ORDERS_DOMAIN = "orders.example"
    users = [make_user(n) for n in ("nul1", "nul2", "nul3")]
    game = game_create(organizer=users[0], ruleset="5x", options={"leaders": False}, seats_count=3)
    for user in users:
        game_join(game=game, user=user)
    seat = game.seats.get(name="nul1")
    address = seat_reply_address(seat=seat)
    raw = (
        f"From: Nul <nul1@example.test>\r\nTo: {address}\r\nSubject: =?utf-8?q?a=00b?=\r\n"
        "Message-ID: <nul-1@example.test>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
        "PLAY EXPLORE\x00\r\n\r\nthanks\x00 nul\r\n"
    ).encode()
    row = process_message(raw, address, source="pipe", envelope_sender="nul1@exa\x00mple.test")
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert SealedOrder.objects.get(seat=seat, is_current=True).text == "PLAY EXPLORE"
    stored = InboundMail.objects.get(pk=row.pk)
    assert "\x00" not in stored.envelope_sender + stored.sender
    [reply] = OutboxMessage.objects.filter(kind="mail_reply")
    assert "\x00" not in reply.subject + reply.body


def test_a_player_name_cannot_contain_an_at_sign(client):
    answer = client.post("/accounts/signup/", {
        "email": "squat@example.com", "username": "dave@example.test",
        "password1": "correct-horse-battery-7", "password2": "correct-horse-battery-7",
    })  # fmt: skip
    assert answer.status_code == 200
    assert "A player name cannot contain &quot;@&quot;." in answer.content.decode()
    assert not get_user_model().objects.filter(email="squat@example.com").exists()


def test_an_address_finds_its_owner_not_a_player_named_like_it():
    from games.selectors_players import player_by_name_or_email

    dave = get_user_model().objects.create_user("dave", "dave@example.test", "pw")
    # An account made before names were checked, named like dave's address.
    squatter = get_user_model().objects.create_user("Dave@example.test", "sq@example.test", "pw")
    assert player_by_name_or_email(text=" DAVE@example.test ", emails=True) == dave
    assert player_by_name_or_email(text="dave") == dave
    assert player_by_name_or_email(text="nobody@example.test", emails=True) is None
    # Without ``emails`` (any organizer but staff) an address finds nobody, not even the
    # account named like it.
    assert player_by_name_or_email(text="dave@example.test") is None
    assert player_by_name_or_email(text="\x00") is None
    assert squatter.pk != dave.pk


def test_a_stranger_learns_nothing_from_a_tournaments_manage_actions(client):
    from tournaments.services.tournaments import tournament_create, tournament_open

    owner = make_user("own")
    t = tournament_create(organizer=owner, name="Cup M", ruleset="6x5",
                          table_sizes=[2], rounds_count=1)  # fmt: skip
    make_user("known")
    client.force_login(make_user("stranger"))
    # A draft is not there at all for a stranger.
    draft = client.post(f"/tournaments/{t.slug}/manage/register/", {"user": "known"})
    assert draft.status_code == 404
    tournament_open(tournament=t, by=owner)
    answers = [
        client.post(f"/tournaments/{t.slug}/manage/register/", {"user": who}, follow=True)
        for who in ("known@example.test", "unknown@example.test", "\x00")
    ]
    texts = [a.content.decode() for a in answers]
    assert all(a.status_code == 200 for a in answers)
    assert all("Only the tournament&#x27;s organizer can manage it." in page for page in texts)
    assert not any("No user" in page for page in texts)
    assert not t.registrations.exists()


def test_names_lose_bidi_overrides_and_invisible_spaces():
    """Regression (pen test): a game named with U+202E showed reversed in titles, emails
    and the API; a zero-width space makes two names look alike."""
    from games.presentation import one_line

    assert one_line("\u202egnp.exe") == "gnp.exe"
    assert one_line("Spring\u200b Cup\u2066\u2069\ufeff") == "Spring Cup"
    assert one_line("\u200fCup\u200e\u061c") == "Cup"  # direction marks
    assert one_line("caf\u00e9 \u05e9\u05dc\u05d5\u05dd") == "caf\u00e9 \u05e9\u05dc\u05d5\u05dd"  # RTL text stays
    assert one_line("\U0001f468\u200d\U0001f469") == "\U0001f468\u200d\U0001f469"  # emoji joiner stays


def test_an_api_refusal_quotes_a_long_input_shortened():
    """Regression: a refusal quoted what it refused whole, in its message and again in
    ``fields``: a 100 KB ruleset name came back as a 200 KB answer (and a 4,000-character
    order as 8 KB). A run without spaces past 80 characters is shown by its first 40 and
    "…"; what the refusal says is unchanged."""
    api = token_client(make_user("longin"))
    answer = api.post("/api/games/", {"ruleset": "x" * 100_000, "seats_count": 3}, format="json")
    assert answer.status_code == 400 and len(answer.content) < 1_000
    body = answer.json()
    assert body["message"].startswith("ruleset: ") and ("x" * 39 + "…") in body["message"]
    assert "x" * 41 not in answer.content.decode()
    answer = api.post("/api/games/", {"ruleset": "5x", "seats_count": 3, "options": {"y" * 50_000: 1}},
                      format="json")  # fmt: skip
    assert answer.status_code == 400 and len(answer.content) < 1_000
    assert "unknown option" in answer.json()["message"] and ("y" * 39 + "…") in answer.json()["message"]
    # A short refusal is quoted as it was.
    answer = api.post("/api/games/", {"ruleset": "5y", "seats_count": 3}, format="json")
    assert answer.status_code == 400 and '"5y"' in answer.json()["message"]
