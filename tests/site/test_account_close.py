"""A player closes their own account (Account -> Close account): with the right password
only; the account is deactivated and logged out everywhere, its keys revoked, its
addresses and settings erased, its games resigned or left and its registrations
withdrawn; the player name stays in the game records, and nobody can take it again."""

from __future__ import annotations

from http.cookies import SimpleCookie

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.test import Client

from games.mail.models import InboundMail
from games.mail.processing import process_message
from games.models import ApiToken, Game, LogEntry, OutboxMessage, PlayerSettings, SealedOrder, Seat
from games.services.games import game_create, game_join
from games.services.outbox import outbox_enqueue
from games.services.players import calendar_feed_create, player_time_zone_set
from games.services.seats import seat_reply_address
from tests.games.web_support import token_client
from tests.mail.conftest import eml, make_table, orders_settings
from tournaments.models import Registration
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db
__all__ = ["orders_settings"]

PASSWORD = "correct-horse-battery-7"


@pytest.fixture
def ann(orders_settings):  # noqa: ANN001, ANN201
    """ann plays a 5X game going on (with bob and cy), sits in a game still forming, is
    entered in an open tournament, has an API token, a calendar feed, a time zone, two
    addresses, an email waiting to go out and one sent."""
    table = make_table()
    user = table.seats["ann"].user
    user.set_password(PASSWORD)
    user.first_name = "Ann"
    user.save()
    EmailAddress.objects.create(user=user, email="ann@example.com", primary=True, verified=True)
    EmailAddress.objects.create(
        user=user, email="ann.work@example.org", primary=False, verified=True
    )
    forming = game_create(
        organizer=table.game.organizer, ruleset="5x", options={}, seats_count=3, name="Forming"
    )
    game_join(game=forming, user=user)
    cup = tsvc.tournament_create(organizer=table.game.organizer, name="Spring cup", ruleset="6x5",
                                 table_sizes=[2], rounds_count=2)  # fmt: skip
    tsvc.tournament_open(tournament=cup, by=table.game.organizer)
    tsvc.registration_add(tournament=cup, user=user)
    player_time_zone_set(user=user, time_zone="Europe/Oslo")
    calendar_feed_create(user=user)
    outbox_enqueue(to="ann@example.com", subject="Your turn", body="Order, please.", kind="game")
    outbox_enqueue(to="ann.work@example.org", subject="Confirm", body="A link", kind="account")
    sent = outbox_enqueue(to="ann@example.com", subject="Earlier", body="old news", kind="game")
    OutboxMessage.objects.filter(pk=sent.pk).update(status=OutboxMessage.Status.SENT)
    user.table, user.forming, user.cup = table, forming, cup
    return user


def _logged_in(user) -> Client:  # noqa: ANN001
    client = Client()
    client.force_login(user)
    return client


def _close(client: Client, password: str = PASSWORD):  # noqa: ANN202
    return client.post("/account/close/", {"password": password})


def test_the_page_says_what_closing_does_to_the_players_games_and_tournaments(ann) -> None:
    html = _logged_in(ann).get("/account/close/").content.decode()
    assert "You resign" in html and "League 7" in html and "(seat ann)" in html
    assert "You leave" in html and "Forming" in html
    assert "You withdraw from" in html and "Spring cup" in html
    assert "Your player name, in the records of the games you played" in html
    assert 'name="password"' in html
    # Linked from the account pages.
    assert 'href="/account/close/"' in _logged_in(ann).get("/account/settings/").content.decode()


def test_the_page_says_what_goes_on_of_what_the_player_organizes(ann) -> None:
    organizer = ann.table.game.organizer
    organizer.set_password(PASSWORD)
    organizer.save()
    html = _logged_in(organizer).get("/account/close/").content.decode()
    assert "You organize" in html and "League 7" in html and "Spring cup" in html
    assert "staff keep the" in html
    assert "You play no game and are entered in no tournament now." in html


def test_a_wrong_password_is_refused_and_changes_nothing(ann) -> None:
    key_client = token_client(ann)
    queued = set(OutboxMessage.objects.filter(status="queued").values_list("pk", flat=True))
    answer = _close(_logged_in(ann), password="not-my-password")
    assert answer.status_code == 400
    assert "Incorrect password." in answer.content.decode()
    ann.refresh_from_db()
    assert ann.is_active and ann.email == "ann@example.com" and ann.check_password(PASSWORD)
    assert EmailAddress.objects.filter(user=ann).count() == 2
    assert Seat.objects.filter(user=ann, status="active").count() == 2
    assert Registration.objects.get(user=ann).status == "active"
    assert set(OutboxMessage.objects.filter(status="queued").values_list("pk", flat=True)) == queued
    assert PlayerSettings.objects.get(user=ann).calendar_digest
    assert key_client.get("/api/games/").status_code == 200
    # An empty password too.
    assert _close(_logged_in(ann), password="").status_code == 400
    ann.refresh_from_db()
    assert ann.is_active


def test_closing_deactivates_erases_resigns_leaves_and_withdraws(ann) -> None:
    table, forming = ann.table, ann.forming
    key_client = token_client(ann)
    other_browser = _logged_in(ann)
    assert other_browser.get("/account/settings/").status_code == 200
    client = _logged_in(ann)
    answer = _close(client)
    assert answer.status_code == 302 and answer["Location"] == "/account/closed/"
    closed = client.get("/account/closed/").content.decode()
    assert "Your account <strong>ann</strong> is closed" in closed
    assert "You resigned League 7." in closed and "You left Forming." in closed
    assert "You withdrew from Spring cup." in closed

    ann.refresh_from_db()
    assert not ann.is_active and not ann.has_usable_password()
    assert (ann.username, ann.email, ann.first_name) == ("ann", "", "")
    assert not EmailAddress.objects.filter(user=ann).exists()
    assert not PlayerSettings.objects.filter(user=ann).exists()  # time zone, feed
    # Its keys: the API token is revoked (not only refused for an inactive user).
    assert not ApiToken.objects.filter(user=ann).exists()
    answer = key_client.get("/api/games/")
    assert answer.status_code == 401 and answer.json()["message"] == "Invalid token."
    # Logged out here and in the other browser.
    assert client.get("/account/settings/").status_code == 302
    assert other_browser.get("/account/settings/")["Location"].startswith("/accounts/login/")
    # The game going on: resigned as a resignation is, its owed order the default one.
    seat = Seat.objects.get(game=table.game, user=ann)
    assert seat.status == "resigned"
    assert (
        LogEntry.objects.filter(game=table.game, kind="seat_resigned", payload__seat="ann").count()
        == 1
    )
    assert SealedOrder.objects.filter(seat=seat, is_current=True).exists()
    table.game.refresh_from_db()
    assert table.game.status == Game.Status.ACTIVE  # bob and cy play on
    # The game still forming: left.
    assert not Seat.objects.filter(game=forming, user=ann).exists()
    assert LogEntry.objects.filter(game=forming, kind="seat_left", payload__seat="ann").exists()
    # The tournament: withdrawn.
    assert Registration.objects.get(user=ann).status == "withdrawn"
    # No email waits for any of its addresses; what the site kept of its mail is gone.
    for address in ("ann@example.com", "ann.work@example.org"):
        assert not OutboxMessage.objects.filter(to__iexact=address).exists()
    # No address was written in any log.
    assert not LogEntry.objects.filter(payload__icontains="example").exists()
    assert "ann@example.com" not in str(list(ann.cup.log.values_list("payload", flat=True)))


def test_closing_removes_two_factor_authentication(ann) -> None:
    """The authenticator app's key and the recovery codes go with the account (a key kept
    is a secret kept for nothing); the page says so."""
    from allauth.mfa.models import Authenticator
    from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
    from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret

    TOTP.activate(ann, generate_totp_secret())
    RecoveryCodes.activate(ann)
    client = _logged_in(ann)
    assert "your two-factor authentication (its key and recovery codes)" in client.get(
        "/account/close/"
    ).content.decode()
    assert _close(client).status_code == 302
    assert not Authenticator.objects.filter(user=ann).exists()


def test_closing_removes_passkeys_and_voids_every_trusted_browser(ann) -> None:
    """A passkey logs in alone: it goes with the account; a browser trusted at a log-in
    (allauth's signed note over the password and the authenticators) is trusted no more."""
    from allauth.mfa.internal.flows.trust import is_trusted_browser
    from allauth.mfa.models import Authenticator
    from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
    from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret
    from django.test import RequestFactory

    TOTP.activate(ann, generate_totp_secret())
    codes = RecoveryCodes.activate(ann).generate_codes()
    Authenticator.objects.create(user=ann, type="webauthn", data={
        "name": "Ann's phone", "credential": {"clientExtensionResults": {"credProps": {"rk": True}}},
    })  # fmt: skip
    browser = Client()
    browser.post("/accounts/login/", {"login": ann.email, "password": PASSWORD})
    assert browser.post("/accounts/2fa/authenticate/", {"code": codes[0]})["Location"] == "/accounts/2fa/trust/"
    assert browser.post("/accounts/2fa/trust/", {"action": "trust"}).status_code == 302
    note = browser.cookies["mfa_trusted"].value
    request = RequestFactory().get("/")
    request.COOKIES["mfa_trusted"] = note
    assert is_trusted_browser(request, ann)

    assert _close(browser).status_code == 302
    assert not Authenticator.objects.filter(user=ann).exists()
    ann.refresh_from_db()
    assert not is_trusted_browser(request, ann)


def test_a_second_post_after_closing_changes_nothing_and_says_the_account_is_closed(ann) -> None:
    client = _logged_in(ann)
    stale = Client()  # another tab of the same browser, whose page predates the closing
    stale.cookies = SimpleCookie(client.cookies.output(header="", sep=";"))
    assert _close(client).status_code == 302
    entries = LogEntry.objects.count()
    again = _close(client)  # a double click: logged out by then
    assert again.status_code == 302 and again["Location"] == "/account/closed/"
    assert "is closed" in client.get("/account/closed/").content.decode()
    assert _close(stale)["Location"] == "/account/closed/"
    assert "You are logged out" in stale.get("/account/closed/").content.decode()
    assert LogEntry.objects.count() == entries


def test_a_closing_raced_by_another_sees_it_closed_and_changes_nothing(ann) -> None:
    # A second request that was let in before the first closed the account (both
    # authenticated): the service refuses it, the page says the account is closed.
    from fivex_site.account_close import AccountClosed, account_close

    account_close(user=ann)
    entries = LogEntry.objects.count()
    with pytest.raises(AccountClosed):
        account_close(user=ann)
    assert LogEntry.objects.count() == entries


def test_nobody_can_sign_up_with_a_closed_accounts_name(ann, client) -> None:
    _close(_logged_in(ann))
    for name in ("ann", "Ann"):
        answer = client.post("/accounts/signup/", {
            "email": f"new-{name}@example.com", "username": name, "password1": PASSWORD, "password2": PASSWORD,
        })  # fmt: skip
        assert answer.status_code == 200 and "That player name is taken" in answer.content.decode()
    assert get_user_model().objects.filter(username__iexact="ann").count() == 1
    # Its old address is free: a new account may use it.
    answer = client.post("/accounts/signup/", {
        "email": "ann@example.com", "username": "anna", "password1": PASSWORD, "password2": PASSWORD,
    })  # fmt: skip
    assert answer.status_code == 302


def test_mail_from_a_closed_accounts_address_is_unknown(ann) -> None:
    old_address = seat_reply_address(seat=ann.table.seats["ann"])
    _close(_logged_in(ann))
    seat = Seat.objects.get(game=ann.table.game, user=ann)
    for to in (old_address, seat_reply_address(seat=seat)):
        row = process_message(eml("plain.eml", to=to, sender="ann@example.com"), to)
        assert (row.seat_id, row.status, row.outcome) == (None, "rejected", "unknown_recipient")
    assert not OutboxMessage.objects.filter(kind="mail_reply").exists()  # nothing answered
    assert InboundMail.objects.count() == 2


def test_the_game_page_still_shows_the_closed_accounts_player_name(ann) -> None:
    _close(_logged_in(ann))
    bob = ann.table.seats["bob"].user
    html = _logged_in(bob).get(f"/games/{ann.table.game.pk}/").content.decode()
    assert '<span>ann <span class="muted small">(resigned)</span></span>' in html
    assert "<strong>ann</strong>" in html  # its place at the table


def test_a_seat_offered_to_the_closing_player_is_declined(ann) -> None:
    from games.models import SeatOffer
    from games.services.handover import seat_offer

    dan = get_user_model().objects.create_user(
        username="dan", email="dan@example.com", password=PASSWORD
    )
    game = ann.table.game
    offer = seat_offer(seat=ann.table.seats["bob"], new_user=dan, by=game.organizer)
    assert _close(_logged_in(dan)).status_code == 302
    offer.refresh_from_db()
    assert offer.status == SeatOffer.Status.DECLINED
    assert LogEntry.objects.filter(game=game, kind="seat_offer_declined").exists()
    # The organizer is told; nothing goes to the closed account.
    assert not OutboxMessage.objects.filter(to="dan@example.com", status="queued").exists()
    assert Seat.objects.get(pk=ann.table.seats["bob"].pk).user.username == "bob"


def test_guessing_the_password_on_the_close_page_is_limited_as_logins_are(ann) -> None:
    # A session left open on a shared computer must not be a way to guess the password.
    client = _logged_in(ann)
    for _ in range(5):
        assert "Incorrect password." in _close(client, password="guess").content.decode()
    answer = _close(client)  # the right one, too late
    assert answer.status_code == 400 and "Too many failed login attempts" in answer.content.decode()
    ann.refresh_from_db()
    assert ann.is_active


def test_the_closed_page_names_the_account_once_not_to_the_browsers_next_visitor(ann) -> None:
    client = _logged_in(ann)
    _close(client)
    assert "Your account <strong>ann</strong> is closed" in client.get("/account/closed/").content.decode()
    again = client.get("/account/closed/").content.decode()
    assert "<strong>ann</strong>" not in again and "You are logged out" in again


def test_a_league_administrator_cannot_enter_a_closed_account_in_a_tournament(ann) -> None:
    # Regression: registration_add checked the organizer's right, not the player's account.
    from tournaments.services.common import TournamentError

    _close(_logged_in(ann))
    ann.refresh_from_db()
    admin = get_user_model().objects.create_user(username="root", password=PASSWORD, is_staff=True)
    cup = tsvc.tournament_create(organizer=admin, name="Autumn cup", ruleset="6x5",
                                 table_sizes=[2], rounds_count=2)  # fmt: skip
    tsvc.tournament_open(tournament=cup, by=admin)
    with pytest.raises(TournamentError, match="closed account cannot be entered"):
        tsvc.registration_add(tournament=cup, user=ann, by=admin)
    assert not Registration.objects.filter(tournament=cup).exists()


def test_the_pages_say_which_seat_was_declined_and_who_offered_it(ann) -> None:
    from games.services.handover import seat_offer

    game = ann.table.game
    dan = get_user_model().objects.create_user(username="dan", email="dan@example.com", password=PASSWORD)
    seat_offer(seat=ann.table.seats["bob"], new_user=dan, by=game.organizer)
    client = _logged_in(dan)
    page = client.get("/account/close/").content.decode()
    # It read "You decline the seat bob offered to you in ...", as if bob offered it.
    assert "You decline seat <strong>bob</strong> in" in page and "offered to you by\n" in page
    assert "org.</li>" in " ".join(page.split())
    _close(client)
    assert "You declined seat bob in League 7." in client.get("/account/closed/").content.decode()


def test_staff_can_start_a_forming_game_whose_organizer_closed_the_account(ann) -> None:
    # The page tells the players staff keep the organizer's tools; game_start refused
    # staff, so such a game started only once full (never, with nobody seated).
    from games.errors import PermissionDenied
    from games.services.games import game_start

    make = get_user_model().objects.create_user
    organizer = make(username="host", password=PASSWORD)
    forming = game_create(organizer=organizer, ruleset="5x", options={}, seats_count=4, name="Four")
    for name in ("eve", "fay", "gus"):  # 3 of 4 seats: enough to start, not full
        game_join(game=forming, user=make(username=name))
    _close(_logged_in(organizer))
    with pytest.raises(PermissionDenied):
        game_start(game=forming, user=get_user_model().objects.get(username="eve"))
    root = get_user_model().objects.create_user(username="root", is_staff=True)
    game_start(game=forming, user=root)
    forming.refresh_from_db()
    assert forming.status == Game.Status.ACTIVE


def test_the_only_superuser_cannot_close_the_account_and_a_staff_account_loses_its_rights(ann) -> None:
    boss = get_user_model().objects.create_superuser(username="boss", email="", password=PASSWORD)
    client = _logged_in(boss)
    assert "You are a site administrator" in client.get("/account/close/").content.decode()
    refused = _close(client)
    assert refused.status_code == 409 and "only active superuser" in refused.content.decode()
    boss.refresh_from_db()
    assert boss.is_active and boss.is_superuser
    get_user_model().objects.create_superuser(username="deputy", email="", password=PASSWORD)
    assert _close(client).status_code == 302
    boss.refresh_from_db()
    assert (boss.is_active, boss.is_staff, boss.is_superuser) == (False, False, False)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_closings_lock_does_not_block_rows_that_point_at_the_account(ann) -> None:
    # Regression (a deadlock a review found): the closing held FOR UPDATE on the account
    # while waiting for a game's lock; a pairing or a game's end holding that lock and
    # inserting a row pointing at the account (a seat, a rating entry) needs FOR KEY
    # SHARE on it, which FOR UPDATE blocks.
    import threading

    from django.db import connection, transaction

    from fivex_site.account_close import _lock_account
    from tests.concurrency import in_background

    held, done = threading.Event(), threading.Event()

    def closing() -> None:
        with transaction.atomic():
            _lock_account(user_pk=ann.pk)
            held.set()
            done.wait(10)

    with in_background(closing):
        try:
            assert held.wait(10)
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '1s'")
                cursor.execute("SELECT 1 FROM auth_user WHERE id = %s FOR KEY SHARE", [ann.pk])
                assert cursor.fetchone() == (1,)
        finally:
            done.set()


def test_closing_cancels_the_forming_games_the_player_organizes_that_nobody_else_joined(ann) -> None:
    """A forming game whose organizer closes the account, with nobody else at it, would
    sit on the open games list with nobody to start it: it is ended (abandoned, logged).
    One somebody else joined goes on forming (staff may start it; it starts when full)."""
    bob = ann.table.seats["bob"].user
    solo = game_create(organizer=ann, ruleset="5x", options={}, seats_count=3, name="Solo")
    game_join(game=solo, user=ann)
    empty = game_create(organizer=ann, ruleset="5x", options={}, seats_count=3, name="Empty")
    joined = game_create(organizer=ann, ruleset="5x", options={}, seats_count=3, name="Joined")
    game_join(game=joined, user=bob)
    client = _logged_in(ann)
    page = client.get("/account/close/").content.decode()
    assert "Your game <a" in page and ">Solo</a>,\n          which nobody else has joined, is cancelled" in page
    assert ">Empty</a>,\n          which nobody else has joined, is cancelled" in page
    assert "You leave" not in page.split("Solo")[0].rsplit("<li>", 1)[-1]  # not "free for another"
    assert "Joined" in page.split('id="close-organized"')[1]  # goes on, with the others organized

    assert _close(client).status_code == 302
    closed = client.get("/account/closed/").content.decode()
    assert "Your games Solo, Empty, which nobody else had\n        joined, are cancelled." in closed
    for game in (solo, empty):
        game.refresh_from_db()
        assert game.status == Game.Status.ABANDONED and game.finished_at is not None
        ended = LogEntry.objects.get(game=game, kind="game_ended")
        assert ended.payload["reason"] == (
            "its organizer closed their account before anyone else joined"
        )
    assert not Seat.objects.filter(game=solo).exists()
    joined.refresh_from_db()
    assert joined.status == Game.Status.FORMING
    assert list(Seat.objects.filter(game=joined).values_list("user__username", flat=True)) == ["bob"]
    # The open games list no longer offers the cancelled ones.
    listing = _logged_in(bob).get("/games/?list=open").content.decode()
    assert "Solo" not in listing and "Empty" not in listing and "Joined" in listing


def test_closing_leaves_alone_the_mail_of_an_address_the_player_added_unverified(ann) -> None:
    """Anyone may add an address to their account unverified: closing that account must not
    fail the queued emails of the address's owner, nor erase the mail kept of theirs (a
    security review: mal added ann's address and closed, and ann's turn email failed)."""
    mal = get_user_model().objects.create_user(username="mal", email="mal@example.com",
                                               password=PASSWORD)  # fmt: skip
    EmailAddress.objects.create(user=mal, email="mal@example.com", primary=True, verified=True)
    EmailAddress.objects.create(user=mal, email="ANN@example.com", primary=False, verified=False)
    queued = set(OutboxMessage.objects.filter(to="ann@example.com", status="queued").values_list("pk", flat=True))
    kept = set(OutboxMessage.objects.filter(to="ann@example.com").values_list("pk", flat=True))
    assert queued and kept - queued  # the fixture's "Your turn" waiting, "Earlier" sent
    sent_in = process_message(eml("plain.eml", to="nobody@example.com", sender="ann@example.com"), "x")
    mine = outbox_enqueue(to="mal@example.com", subject="Yours", body="b", kind="game")

    assert _close(_logged_in(mal)).status_code == 302
    mal.refresh_from_db()
    assert not mal.is_active
    assert set(
        OutboxMessage.objects.filter(to="ann@example.com", status="queued").values_list("pk", flat=True)
    ) == queued
    assert set(OutboxMessage.objects.filter(to="ann@example.com").values_list("pk", flat=True)) == kept
    assert InboundMail.objects.filter(pk=sent_in.pk).exists()
    # Its own verified address's mail: dropped and erased as before.
    assert not OutboxMessage.objects.filter(pk=mine.pk).exists()
