"""Handing a seat to another player on the web: the organizer must tick a box naming the
seat and its player (without it nothing changes and the page says why), the player
offered accepts (test_seat_offers); afterwards the
game page says who holds the seat now and since when, and the new holder reads "you
play seat <name>". Seat names themselves never change (they are in the engine and log)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games.models import LogEntry, Seat, SeatOffer
from tests.games.web_support import dealt_5x_game, make_user, visible_text

pytestmark = pytest.mark.django_db

DEAL = {"ann": ["GANDHI", "CAESAR"], "bob": ["QIN", "DIDO"], "cat": ["NAPOLEON", "TOKUGAWA"]}


def three_seat_game(capture, name: str):
    """A dealt 5X game of ann (organizer), bob and cat, at its first prompt; dave has an
    account and no seat."""
    made = dealt_5x_game(capture, names=("ann", "bob", "cat"), organizer="ann", deal=DEAL, name=name)
    make_user("dave")
    return made


@pytest.fixture
def game(django_capture_on_commit_callbacks):
    return three_seat_game(django_capture_on_commit_callbacks, "Hand")


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def replace(client, game, seat_name: str, username: str, **extra):
    seat = game.seats.get(name=seat_name, status="active")
    return client.post(
        reverse("games:organizer", args=[game.pk, "replace"]),
        {"seat": seat.pk, "username": username, **extra},
        follow=True,
    )


def accept(client, game, username: str) -> None:
    """``username`` accepts the seat offered to them; the client logs back in as the
    organizer."""
    offer = SeatOffer.objects.get(game=game, to_user__username=username, status="pending")
    client.force_login(offer.to_user)
    answer = client.post(reverse("games:offer_answer", args=[game.pk, offer.pk, "accept"]))
    assert answer.status_code == 302
    client.force_login(game.organizer)


def page(client, game) -> str:
    response = client.get(reverse("games:detail", args=[game.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_replace_without_the_tick_changes_nothing_and_says_why(client, game):
    client.force_login(game.organizer)
    html = page(client, game)
    form = html.split(f'action="/games/{game.pk}/organizer/replace/"', 1)[1].split("</form>", 1)[0]
    assert re.search(r'<input type="checkbox" name="confirm"[^>]*\brequired\b', form)
    seats_before = list(
        Seat.objects.filter(game=game).values_list("pk", "user__username", "status")
    )
    log_before = LogEntry.objects.filter(game=game).count()

    for missing in ({}, {"confirm": ""}):
        answer = replace(client, game, "bob", "dave", **missing)
        shown = messages_of(answer)
        assert any(
            "Yes, offer bob's seat to the new player; if they accept, bob cannot come back" in m
            and "Nothing was changed" in m
            for m in shown
        ), shown
        assert not any("is offered to" in m for m in shown)
    assert (
        list(Seat.objects.filter(game=game).values_list("pk", "user__username", "status"))
        == seats_before
    )
    assert LogEntry.objects.filter(game=game).count() == log_before
    assert not SeatOffer.objects.exists()

    answer = replace(client, game, "bob", "dave", confirm="on")
    assert any("Seat bob is offered to dave" in m for m in messages_of(answer))
    accept(client, game, "dave")
    assert game.seats.get(name="bob", status="active").user.username == "dave"
    assert game.seats.get(name="bob", status="replaced").user.username == "bob"


def test_the_page_says_who_holds_a_handed_over_seat(client, game):
    client.force_login(game.organizer)
    # Before: every seat's name is its player's, said once ("ann", not "ann (ann)").
    html = page(client, game)
    options = re.findall(
        r'<option value="\d+"[^>]*>([^<]*)</option>',
        html.split('id="rep-seat"', 1)[1].split("</select>", 1)[0],
    )
    assert sorted(options) == ["ann", "bob", "cat"]
    # The tick box for each option names that seat and its player.
    assert (
        'data-confirm-label="Yes, offer cat&#x27;s seat to the new player; if they accept, cat '
        'cannot come back"'
        in html
    )

    replace(client, game, "bob", "dave", confirm="on")
    accept(client, game, "dave")
    html = page(client, game)
    seats_panel = visible_text(html.split('<ul class="plain seats" aria-live="polite">', 1)[1].split("</ul>", 1)[0])
    assert "bob (played by dave since decision 1, replacing bob)" in seats_panel
    assert "ann (played by" not in seats_panel and "cat (played by" not in seats_panel
    # The replace form lists the seat with its new player; the others once.
    options = re.findall(
        r'<option value="\d+"[^>]*>([^<]*)</option>',
        html.split('id="rep-seat"', 1)[1].split("</select>", 1)[0],
    )
    assert sorted(options) == ["ann", "bob (dave)", "cat"]
    # The organizer still plays "ann" (own name); the new holder plays *seat* bob.
    header = visible_text(html.split('<div class="header">', 1)[1].split("</div>", 1)[0])
    assert "you play ann" in header and "you play seat" not in header

    client.force_login(game.seats.get(name="bob", status="active").user)
    header = visible_text(
        page(client, game).split('<div class="header">', 1)[1].split("</div>", 1)[0]
    )
    assert "you play seat bob (handed to you at decision 1; bob played it before)" in header
    # The seat keeps its engine name: the log still calls it bob.
    assert LogEntry.objects.filter(game=game, kind="seat_replaced").get().payload["seat"] == "bob"
