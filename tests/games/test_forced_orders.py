"""A seat with exactly one legal order is not asked: the site enters that order for it
when the prompt opens (engine.md's forced prompts; the runner keeps such seats pending,
as 5x.md lists them and the conformance cases expect)."""

from __future__ import annotations

import hashlib
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

import engine
from engine.base import events_for
from games.mail.command_texts import show_text, status_text
from games.models import Game, LogEntry, OutboxMessage, Prompt, SealedOrder
from games.selectors import current_state
from tests.games.web_support import (
    DEAL,  # everybody keeps its first leader; CLEOPATRA and NAPOLEON can only bid 3
    DRAFT,
    NAMES,
    dealt_5x_game,
    eager_celery,
    submit_orders,
    visible_text,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]



@pytest.fixture
def game(django_capture_on_commit_callbacks) -> Game:
    return dealt_5x_game(
        django_capture_on_commit_callbacks, names=NAMES, organizer="ann", deal=DEAL, name="Forced"
    )


def _mail(game: Game, name: str, prompt_number: int) -> str:
    """The body of the email telling ``name`` that prompt ``prompt_number`` resolved."""
    return OutboxMessage.objects.get(
        key=f"resolved:{game.pk}:{prompt_number}:{game.seats.get(name=name).pk}"
    ).body


def test_a_seat_whose_only_legal_bid_is_its_minimum_is_not_asked(
    game, client, django_capture_on_commit_callbacks
) -> None:
    capture = django_capture_on_commit_callbacks
    submit_orders(game, capture, DRAFT)
    submit_orders(game, capture, {"ann": "PLAY CLEOPATRA", "bob": "PLAY EXPAND", "cat": "PLAY EXPLORE"})
    bid = Prompt.objects.get(game=game, number=3)
    assert (bid.phase, sorted(bid.pending), bid.forced, bid.status) == (
        "bid", ["ann", "bob"], ["ann"], "open",
    )  # fmt: skip
    # ann holds 3 resources and CLEOPATRA bids at least 3: BID 3 is entered for her.
    order = SealedOrder.objects.get(prompt=bid, seat_name="ann", is_current=True)
    assert (order.text, order.source) == ("BID 3", "forced")
    assert not SealedOrder.objects.filter(prompt=bid, seat_name="bob").exists()
    entry = LogEntry.objects.get(game=game, kind="order_forced")
    assert entry.payload == {
        "prompt": 3, "seat": "ann", "commitment": order.commitment, "source": "forced",
    }  # fmt: skip
    assert order.commitment == hashlib.sha256(f"{order.salt}:BID 3".encode()).hexdigest()  # salt:text
    assert "BID 3" not in str(entry.payload)  # sealed like any order until the reveal

    # The emails after the play: ann is told, bob is asked.
    ann_mail, bob_mail = _mail(game, "ann", 2), _mail(game, "bob", 2)
    assert "YOUR ORDER IS NEEDED" not in ann_mail
    assert "BID 3 is your only legal order for decision 3 (round 1, bid), so it was entered for you" in ann_mail
    assert "the decision waits for bob." in ann_mail
    assert "YOUR ORDER IS NEEDED for decision 3" in bob_mail
    assert "only legal order" not in bob_mail

    # ann's page says so and offers no form; bob's asks for his bid.
    client.force_login(game.seats.get(name="ann").user)
    page = visible_text(client.get(reverse("games:detail", args=[game.pk])).content.decode())
    assert "This is your only legal order, so it was entered for you" in page
    assert "Order sealed: BID 3" in page
    assert "Send order" not in page and "Replace my order" not in page
    assert "Waiting for bob" in page
    client.force_login(game.seats.get(name="bob").user)
    page = visible_text(client.get(reverse("games:detail", args=[game.pk])).content.decode())
    assert "Send order" in page and "only legal order" not in page

    # By email: SHOW and STATUS say the same.
    ann = game.seats.get(name="ann")
    assert "(entered for you: your only legal order)" in show_text(ann)
    assert "Your order: BID 3 (your only legal order, entered for you)" in status_text(ann)
    bob = game.seats.get(name="bob")
    assert "You have no order for it." in status_text(bob)

    log_html = client.get(reverse("games:log", args=[game.pk])).content.decode()
    log = visible_text(log_html)
    # The commitment is shortened on the page, whole in its title.
    assert "Only legal order entered" in log and order.commitment[:10] + "…" in log
    assert f'title="{order.commitment}"' in log_html
    assert "BID 3" not in log  # sealed until the reveal

    submit_orders(game, capture, {"bob": "BID 2"})
    bid.refresh_from_db()
    assert bid.status == Prompt.Status.RESOLVED
    revealed = LogEntry.objects.get(game=game, kind="orders_revealed", payload__prompt=3).payload
    assert revealed["orders"]["ann"]["text"] == "BID 3"
    assert revealed["orders"]["ann"]["source"] == "forced"
    assert revealed["orders"]["bob"]["text"] == "BID 2"
    out = StringIO()
    call_command("verify_game", str(game.pk), stdout=out)
    assert "OK" in out.getvalue()


def test_a_prompt_where_nobody_has_a_choice_resolves_by_itself(
    game, django_capture_on_commit_callbacks
) -> None:
    capture = django_capture_on_commit_callbacks
    ann = game.seats.get(name="ann")
    ann.email_every_prompt = False  # emailed only when asked
    ann.save(update_fields=["email_every_prompt"])
    submit_orders(game, capture, DRAFT)
    submit_orders(game, capture, {"ann": "PLAY CLEOPATRA", "bob": "PLAY EXPLORE", "cat": "PLAY NAPOLEON"})
    bid = Prompt.objects.get(game=game, number=3)
    assert (bid.phase, sorted(bid.pending), sorted(bid.forced)) == (
        "bid", ["ann", "cat"], ["ann", "cat"],
    )  # fmt: skip
    # Both could only bid 3: resolved without anyone being asked; NAPOLEON's 3½ wins.
    assert bid.status == Prompt.Status.RESOLVED
    assert {o.seat_name: (o.text, o.source) for o in bid.orders.filter(is_current=True)} == {
        "ann": ("BID 3", "forced"),
        "cat": ("BID 3", "forced"),
    }
    assert Prompt.objects.get(game=game, number=4).phase == "play"
    assert LogEntry.objects.filter(game=game, kind="order_forced").count() == 2
    assert Prompt.objects.get(game=game, number=4).status == Prompt.Status.OPEN
    table = engine.get("5x").report(current_state(game=game))
    assert table["wonders"]["built"] == {"A": "cat"}
    assert (table["players"]["ann"]["resources"], table["players"]["cat"]["resources"]) == (
        0,  # lost: CLEOPATRA pays 3
        2,  # won: paid 3, the Pyramids give 2
    )
    # ann, emailed only when asked, got no email for the bid prompt; the one asking her for
    # round 2's card tells both what happened at the play (her last email) and the bid.
    ann_keys = set(OutboxMessage.objects.filter(seat=ann).values_list("key", flat=True))
    assert f"resolved:{game.pk}:2:{ann.pk}" not in ann_keys
    mail = _mail(game, "ann", 3)
    assert "What happened since your last email" in mail
    play, bid_events = (
        [e["text"] for e in events_for(Prompt.objects.get(game=game, number=n).events, "ann")]
        for n in (2, 3)
    )
    assert play and bid_events
    for line in [*play, *bid_events]:
        assert line in mail


def test_every_list_of_who_owes_an_order_leaves_out_the_seat_the_rules_force(
    game, client, django_capture_on_commit_callbacks
) -> None:
    """One fixture, every surface: the bid where ann can only bid 3 (entered for her) asks
    bob alone. The home page, the games API's order_needed, the daily summary and the
    tournament tables' list agree: a seat whose order is forced owes no decision."""
    from datetime import UTC, datetime, time, timedelta

    from django.utils import timezone

    from games.selectors_lists import open_prompts_waiting, orders_needed
    from games.services.players import player_turn_emails_set
    from games.services.summaries import turn_summary_send
    from tests.games.web_support import token_client

    capture = django_capture_on_commit_callbacks
    ann, bob = (game.seats.get(name=n).user for n in ("ann", "bob"))
    for user in (ann, bob):  # their daily summaries, at 00:00 UTC, tell what follows
        player_turn_emails_set(user=user, turn_emails="daily", hour=0)
    submit_orders(game, capture, DRAFT)
    submit_orders(game, capture, {"ann": "PLAY CLEOPATRA", "bob": "PLAY EXPAND", "cat": "PLAY EXPLORE"})
    bid = Prompt.objects.get(game=game, number=3)
    assert (sorted(bid.pending), bid.forced, bid.status) == (["ann", "bob"], ["ann"], "open")

    def home(user) -> str:
        client.force_login(user)
        return visible_text(client.get(reverse("home")).content.decode())

    assert "your order is needed" not in home(ann)
    assert "your order is needed" in home(bob)
    assert orders_needed(user=ann) == {}
    assert list(orders_needed(user=bob)) == [game.pk]
    assert open_prompts_waiting(game_ids=[game.pk])[game.pk]["waiting"] == ["bob"]
    for user, expected in ((ann, []), (bob, [game.pk])):
        answer = token_client(user).get("/api/games/", {"order_needed": "true"})
        assert [g["id"] for g in answer.json()] == expected

    # The daily summaries of the same moment (00:30 UTC tomorrow).
    now = datetime.combine(timezone.now().astimezone(UTC).date() + timedelta(days=1), time(0, 30), tzinfo=UTC)
    ann_summary = turn_summary_send(user_id=ann.pk, day=now.date(), now=now)
    bob_summary = turn_summary_send(user_id=bob.pk, day=now.date(), now=now)
    assert ann_summary.subject == "Daily summary: no game waits for your order"
    assert "YOUR ORDER IS NEEDED" not in ann_summary.body
    assert "waits for bob" in ann_summary.body and "waits for ann" not in ann_summary.body
    assert bob_summary.subject == "Daily summary: 1 game waits for your order"
    assert "YOUR ORDER IS NEEDED for decision 3" in bob_summary.body
