"""Secrecy of the channels the page and API secrecy tests do not read: the staff's outbox
list (a reply quotes the subject the player wrote, which may be the order itself)."""

from __future__ import annotations

import pytest

from games.models import Game, OutboxMessage
from tests.games.web_support import make_user

pytestmark = pytest.mark.django_db

DEAL = {"sub1": ["SULEIMAN", "CAESAR"], "sub2": ["BOUDICCA", "ISABELLA"], "sub3": ["ERIK", "NAPOLEON"]}


def _mail_game(settings):
    """Three players (sub1 organizes) in a started 5X game of the fixed deal, taking
    orders by email at orders.example: (users, game)."""
    from games.services.games import game_create, game_join

    settings.ORDERS_DOMAIN = "orders.example"
    settings.ORDERS_ADDRESS_PREFIX = "orders"
    users = [make_user(n) for n in ("sub1", "sub2", "sub3")]
    game = game_create(organizer=users[0], ruleset="5x", seats_count=3, options={"all_leaders": True},
                       setup={"deal": DEAL})  # fmt: skip
    for user in users:
        game_join(game=game, user=user)
    return users, game


def test_the_admin_outbox_never_shows_a_replys_subject_which_may_quote_a_sealed_order(
    admin_client, settings
):
    """Regression (a secrecy audit): an order written in the Subject too ("PASS
    ISABELLA") came back in the answer's subject ("Re: [5X game 1] PASS ISABELLA"), which
    the admin's outbox list, its change page and its search showed while the order was
    sealed: to whoever opens the admin, a staff member playing in the game included. Not
    after the end either: an order replaced by a later one (or sealed for the open prompt
    of a game ended early) is never revealed."""
    from games.mail.processing import process_message
    from games.services.organizer import game_end
    from games.services.seats import seat_reply_address

    users, game = _mail_game(settings)
    seat = game.seats.get(name="sub2")
    row = process_message(
        b"From: sub2@example.test\r\nSubject: PASS ISABELLA\r\nMessage-ID: <sub2-1@example.com>\r\n"
        b"\r\nPASS ISABELLA\r\n",
        seat_reply_address(seat=seat),
        source="pipe",
        envelope_sender="sub2@example.test",
    )
    assert row.status == "processed", (row.outcome, row.error)
    answer = OutboxMessage.objects.get(seat=seat, kind="mail_reply")
    assert "ISABELLA" in answer.subject  # the player's own answer quotes its subject
    turn = OutboxMessage.objects.filter(game=game, kind="game_started").first()

    pages = {
        "list": admin_client.get("/admin/games/outboxmessage/"),
        "change": admin_client.get(f"/admin/games/outboxmessage/{answer.pk}/change/"),
    }
    for where, page in pages.items():
        assert page.status_code == 200, where
        assert "ISABELLA" not in page.content.decode(), where
    # The search is no oracle either: the sealed words find nothing, an address still does.
    found = admin_client.get("/admin/games/outboxmessage/?q=ISABELLA").content.decode()
    assert "0 results" in found and f"/{answer.pk}/change/" not in found
    found = admin_client.get("/admin/games/outboxmessage/?q=sub2%40example.test").content.decode()
    assert f"/{answer.pk}/change/" in found
    # Quoted as the admin's search reads a phrase: the address is still the address.
    found = admin_client.get("/admin/games/outboxmessage/", {"q": '"sub2@example.test"'}).content.decode()
    assert f"/{answer.pk}/change/" in found
    found = admin_client.get("/admin/games/outboxmessage/", {"q": '"PASS ISABELLA"'}).content.decode()
    assert "0 results" in found and f"/{answer.pk}/change/" not in found
    # Other emails' subjects are the site's own words: shown as they are.
    assert turn is not None and turn.subject in pages["list"].content.decode()

    game_end(game=Game.objects.get(pk=game.pk), by=users[0])  # ended early: never resolved
    page = admin_client.get(f"/admin/games/outboxmessage/{answer.pk}/change/").content.decode()
    assert "ISABELLA" not in page


def test_the_admin_inbound_mail_shows_no_receipts_subject_quoting_a_sealed_order(admin_client, settings):
    """Regression (a secrecy audit): the player's mail program acknowledges the answer to
    its order ("Read: Re: [5X game 1] PASS ISABELLA", the order written in the Subject);
    the receipt is ignored, and the admin's inbound mail page gave its reason with that
    subject, the sealed order in it."""
    from games.mail.processing import process_message
    from games.services.seats import seat_reply_address

    users, game = _mail_game(settings)
    address = seat_reply_address(seat=game.seats.get(name="sub2"))
    subject = f"Read: Re: [{game.title}] PASS ISABELLA"
    receipt = (
        f"From: sub2@example.test\r\nSubject: {subject}\r\nMessage-ID: <sub2-r@example.com>\r\n\r\n"
        f"Your message\r\n\r\n  To: FiveX\r\n  Subject: Re: [{game.title}] PASS ISABELLA\r\n"
        "  Sent: Tuesday, December 1, 2026 6:10:00 AM (UTC+00:00) Dublin, Edinburgh, Lisbon, London\r\n\r\n"
        "was read on Tuesday, December 1, 2026 6:30:00 AM (UTC+00:00) Dublin, Edinburgh, Lisbon, London.\r\n"
    ).encode()
    row = process_message(receipt, address, source="pipe", envelope_sender="sub2@example.test")
    assert (row.status, row.outcome) == ("ignored", "receipt"), row.error
    page = admin_client.get(f"/admin/mail/inboundmail/{row.pk}/change/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "read receipt" in text  # what it was is still plain
    assert "ISABELLA" not in text


@pytest.fixture
def sealed_pass(django_capture_on_commit_callbacks):
    """A 5X draft whose organizer plays no seat: bob holds QIN and DIDO and has sealed
    PASS QIN. Returns the game, the users and bob's order's salt."""
    from games.models import SealedOrder
    from games.services import games as game_services
    from games.services.orders import order_submit

    users = {n: make_user(n) for n in ("ann", "bob", "cat", "zed", "org")}
    deal = {"ann": ["GANDHI", "CAESAR"], "bob": ["QIN", "DIDO"], "cat": ["NAPOLEON", "TOKUGAWA"]}
    game = game_services.game_create(organizer=users["org"], ruleset="5x", seats_count=3, setup={"deal": deal})
    for name in ("ann", "bob", "cat"):
        with django_capture_on_commit_callbacks(execute=True):
            game_services.game_join(game=game, user=users[name])
    game.refresh_from_db()
    assert game.status == "active"
    with django_capture_on_commit_callbacks(execute=True):
        order = order_submit(seat=game.seats.get(name="bob"), text="PASS QIN", source="email")
    assert SealedOrder.objects.get(pk=order.pk).is_current
    return game, users, order.salt


def test_the_channels_the_page_tests_do_not_read_keep_a_hand_and_a_sealed_order(sealed_pass):
    """The account's data (page and API), the table talk (page and JSON), the organizer's
    API for an organizer who plays no seat, the player pages, the offers, the calendar
    feed and the game page as htmx asks for it: nothing of bob's hand (QIN, DIDO), his
    sealed pass or its salt, to another player, the organizer, an outsider or anyone."""
    import re

    from django.test import Client

    from games.services.players import calendar_feed_create

    game, users, salt = sealed_pass
    hidden = [re.compile(rf"\b{word}\b") for word in ("QIN", "Qin Shi Huang", "DIDO", "Dido")]
    urls = [
        "/api/account/export/", "/account/data/", f"/games/{game.pk}/talk/",
        f"/games/{game.pk}/talk.json", f"/api/games/{game.pk}/talk/",
        f"/api/games/{game.pk}/organizer/", "/api/offers/", "/players/", "/players/bob/",
        "/api/calendar/", "/account/calendar/", f"/games/{game.pk}/",
    ]  # fmt: skip
    bob = Client()
    bob.force_login(users["bob"])
    own = bob.get("/api/account/export/").content.decode()
    assert "PASS QIN" in own and salt in own  # the check can see it where it is his
    for who in ("ann", "cat", "org", "zed", None):
        client = Client()
        if who is not None:
            client.force_login(users[who])
            token = calendar_feed_create(user=users[who])
            urls_seen = [*urls, f"/calendar/{token}.ics"]
        else:
            urls_seen = urls
        for url in urls_seen:
            htmx = url in (f"/games/{game.pk}/", f"/games/{game.pk}/talk/")  # their partials
            for headers in ({}, {"HTTP_HX_REQUEST": "true"}) if htmx else ({},):
                answer = client.get(url, follow=True, **headers)
                assert answer.status_code in (200, 401, 403, 404), (who, url, answer.status_code)
                text = answer.content.decode()
                assert salt not in text and "PASS QIN" not in text, (who, url)
                for pattern in hidden:
                    assert not pattern.search(text), (who, url, pattern.pattern)


def test_the_admin_inbound_mail_shows_no_auto_replys_subject_quoting_a_sealed_order(admin_client, settings):
    """The player's out-of-office answers the answer to its order ("Automatic reply: Re:
    [5X game 1] PASS ISABELLA"): it is ignored as an automatic reply, whose reason quoted
    that subject on the admin's inbound mail page, the sealed order in it."""
    from games.mail.processing import process_message
    from games.services.seats import seat_reply_address

    users, game = _mail_game(settings)
    address = seat_reply_address(seat=game.seats.get(name="sub2"))
    auto = (
        f"From: sub2@example.test\r\nSubject: Automatic reply: Re: [{game.title}] PASS ISABELLA\r\n"
        "Message-ID: <ooo2-a@example.com>\r\n\r\nI am away until Monday.\r\n"
    ).encode()
    row = process_message(auto, address, source="pipe", envelope_sender="sub2@example.test")
    assert (row.status, row.outcome) == ("ignored", "auto_reply"), row.error
    for url in (f"/admin/mail/inboundmail/{row.pk}/change/", "/admin/mail/inboundmail/"):
        page = admin_client.get(url)
        assert page.status_code == 200
        text = page.content.decode()
        assert "auto_reply" in text  # the row is there, what it was is plain
        assert "ISABELLA" not in text, url
