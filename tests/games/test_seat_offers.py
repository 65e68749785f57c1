"""An organizer hands a seat over by offering it: nothing changes until the player
offered accepts (on a page only they can open, which shows nothing of the seat's hand);
they may decline (the organizer is told), the organizer may withdraw it (the player is
told). A site administrator still hands a seat over at once (test_views)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import connection
from django.urls import reverse

from games.errors import GameStateError, HandoverRefused, PermissionDenied, SeatHeld
from games.models import LogEntry, OutboxMessage, Seat, SeatOffer
from games.services import handover
from games.services import organizer as organizer_services
from tests.games.test_seat_handover_pages import DEAL, three_seat_game
from tests.games.web_support import dealt_5x_game, make_user, visible_text

pytestmark = pytest.mark.django_db

HAND_WORDS = (*[card for cards in DEAL.values() for card in cards], "Qin", "Dido")


@pytest.fixture
def game(django_capture_on_commit_callbacks):
    made = three_seat_game(django_capture_on_commit_callbacks, "Offers")
    made.is_private = True
    made.save(update_fields=["is_private"])
    make_user("eve")
    return made


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def offer_seat(client, game, seat_name: str, username: str):
    seat = game.seats.get(name=seat_name, status="active")
    client.force_login(game.organizer)
    return client.post(
        reverse("games:organizer", args=[game.pk, "replace"]),
        {"seat": seat.pk, "username": username, "confirm": "on"},
        follow=True,
    )


@contextmanager
def count_queries() -> Iterator[list[str]]:
    """The SQL run inside the block (a list, filled as queries run)."""
    seen: list[str] = []

    def note(execute, sql, params, many, context):  # noqa: ANN001, ANN202
        seen.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(note):
        yield seen


def holders(game) -> list[tuple[str, str, str]]:
    return sorted(Seat.objects.filter(game=game).values_list("name", "user__username", "status"))


def mail_to(name: str, kind: str = "seat_offer") -> list[OutboxMessage]:
    return list(OutboxMessage.objects.filter(to=f"{name}@example.test", kind=kind).order_by("id"))


def test_the_organizers_handover_is_an_offer_and_nothing_changes_until_it_is_accepted(client, game):
    seats_before, log_before = holders(game), LogEntry.objects.filter(game=game).count()
    answer = offer_seat(client, game, "bob", "dave")
    assert (
        "Seat bob is offered to dave, who was emailed; it changes hands when they accept "
        "(nothing changes until then)." in messages_of(answer)
    )
    assert holders(game) == seats_before
    # The offer is logged (an organizer action), nothing else.
    assert LogEntry.objects.filter(game=game).count() == log_before + 1
    assert LogEntry.objects.filter(game=game).latest("seq").kind == "seat_offered"
    offer = SeatOffer.objects.get(game=game)
    assert (offer.seat.name, offer.to_user.username, offer.status) == ("bob", "dave", "pending")
    # The organizer's panel lists it, with a way to take it back.
    panel = visible_text(client.get(reverse("games:detail", args=[game.pk])).content.decode())
    assert "Seat bob offered to dave on" in panel and "Withdraw" in panel

    (email,) = mail_to("dave")
    assert email.subject == "[Offers] You are offered the seat bob"
    assert "ann, who organizes it, offers you the seat bob in this game of 5X." in email.body
    assert "It is at decision 1; the deadline is " in email.body
    url = f"/games/{game.pk}/offers/{offer.pk}/"
    assert url in email.body
    assert not email.reply_to  # nothing to order yet
    assert not any(word in email.body for word in HAND_WORDS)

    # Dave sees the offer in his games list and on its page (the game is private), and
    # nothing of bob's hand.
    client.force_login(offer.to_user)
    listing = visible_text(client.get(reverse("games:list")).content.decode())
    assert "Seats offered to you" in listing and "ann offers you the seat bob in Offers" in listing
    page = client.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert "Accept the seat" in html and "Decline" in html
    assert not any(word in html for word in HAND_WORDS)
    assert client.get(reverse("games:detail", args=[game.pk])).status_code == 404  # still private

    # Accepting hands the seat over, logged once, and the game is his.
    answer = client.post(f"{url}accept/", follow=True)
    assert "You play the seat bob from now on." in messages_of(answer)
    assert answer.request["PATH_INFO"] == f"/games/{game.pk}/"
    assert game.seats.get(name="bob", status="active").user.username == "dave"
    assert game.seats.get(name="bob", status="replaced").user.username == "bob"
    assert LogEntry.objects.filter(game=game, kind="seat_replaced").count() == 1
    (welcome,) = mail_to("dave", kind="seat_handover")
    assert welcome.subject == "[Offers] You play the seat bob"
    assert "You accepted the seat bob: you play it from now on." in welcome.body
    assert mail_to("bob", kind="notice")  # told the seat went to another player
    # A second click changes nothing and lands on the game too.
    again = client.post(f"{url}accept/", follow=True)
    assert "You play the seat bob already." in messages_of(again)
    assert again.request["PATH_INFO"] == f"/games/{game.pk}/"
    assert LogEntry.objects.filter(game=game, kind="seat_replaced").count() == 1
    assert "Seats offered to you" not in client.get(reverse("games:list")).content.decode()


def test_only_the_player_offered_opens_or_answers_the_offer(client, game):
    offer_seat(client, game, "bob", "dave")
    offer = SeatOffer.objects.get()
    url = f"/games/{game.pk}/offers/{offer.pk}/"
    for name in ("ann", "bob", "eve"):
        client.force_login(Seat.objects.get(game=game, name=name).user if name != "eve" else game.organizer.__class__.objects.get(username="eve"))
        assert client.get(url).status_code == 404
        assert client.post(f"{url}accept/").status_code == 404
    client.logout()
    assert client.get(url).status_code == 302  # to the login page
    assert SeatOffer.objects.get().status == "pending"
    with pytest.raises(PermissionDenied):
        handover.seat_offer_accept(offer=offer, by=game.organizer)
    # A GET of the answer does nothing: back to the offer.
    client.force_login(offer.to_user)
    assert client.get(f"{url}accept/")["Location"] == url
    assert SeatOffer.objects.get().status == "pending"


def test_a_declined_offer_changes_nothing_and_the_organizer_is_told(client, game):
    seats_before = holders(game)
    offer_seat(client, game, "bob", "dave")
    offer = SeatOffer.objects.get()
    client.force_login(offer.to_user)
    answer = client.post(f"/games/{game.pk}/offers/{offer.pk}/decline/", follow=True)
    assert "You declined the seat; the organizer was told." in messages_of(answer)
    assert "You declined this seat." in answer.content.decode()
    assert holders(game) == seats_before
    (told,) = mail_to("ann")
    assert told.subject == "[Offers] dave declined the seat bob"
    assert "dave declined the seat bob; it stays as it was." in told.body
    late = client.post(f"/games/{game.pk}/offers/{offer.pk}/accept/", follow=True)
    assert "This offer was declined already: nothing was changed." in messages_of(late)
    assert holders(game) == seats_before


def test_the_organizer_withdraws_an_offer_or_offers_the_seat_to_someone_else(client, game):
    offer_seat(client, game, "bob", "dave")
    first = SeatOffer.objects.get()
    # A double click is one offer, one email.
    offer_seat(client, game, "bob", "dave")
    assert SeatOffer.objects.count() == 1 and len(mail_to("dave")) == 1
    # The same seat to eve: dave's offer is withdrawn and he is told.
    offer_seat(client, game, "bob", "eve")
    first.refresh_from_db()
    assert first.status == "withdrawn"
    closed = mail_to("dave")[-1]
    assert "the seat bob is no longer offered to you: the organizer offered it to another player." in closed.body
    # eve cannot be offered a second seat while one waits for her.
    refused = offer_seat(client, game, "cat", "eve")
    assert any(
        "eve is already offered the seat bob in this game: withdraw that offer first." in m
        for m in messages_of(refused)
    )
    to_eve = SeatOffer.objects.get(to_user__username="eve")
    answer = client.post(
        reverse("games:organizer", args=[game.pk, "withdraw-offer"]), {"offer": to_eve.pk}, follow=True
    )
    assert "The offer of seat bob was withdrawn." in messages_of(answer)
    assert "the organizer withdrew it." in mail_to("eve")[-1].body
    client.force_login(to_eve.to_user)
    page = client.get(f"/games/{game.pk}/offers/{to_eve.pk}/").content.decode()
    assert "This offer was withdrawn" in page and "Accept the seat" not in page
    late = client.post(f"/games/{game.pk}/offers/{to_eve.pk}/accept/", follow=True)
    assert "This offer was withdrawn already: nothing was changed." in messages_of(late)
    assert game.seats.get(name="bob", status="active").user.username == "bob"
    # Nobody else withdraws an organizer's offer.
    offer_seat(client, game, "cat", "dave")
    bobs = Seat.objects.get(game=game, name="bob", status="active").user
    client.force_login(bobs)
    client.post(
        reverse("games:organizer", args=[game.pk, "withdraw-offer"]),
        {"offer": SeatOffer.objects.get(status="pending").pk},
    )
    assert SeatOffer.objects.get(to_user__username="dave", seat__name="cat").status == "pending"


def test_an_offer_lapses_when_the_game_ends_or_the_seat_goes_elsewhere(client, game):
    from django.contrib.auth import get_user_model

    offer_seat(client, game, "bob", "dave")
    offer = SeatOffer.objects.get()
    # A site administrator hands the seat to eve at once: dave's offer is moot.
    staff = get_user_model().objects.create_user("boss", "boss@example.test", "pw", is_staff=True)
    handover.seat_replace(
        seat=game.seats.get(name="bob", status="active"),
        new_user=get_user_model().objects.get(username="eve"),
        by=staff,
    )
    offer.refresh_from_db()
    assert offer.status == "withdrawn"
    assert "the seat bob is no longer offered to you: the seat was handed to another player." in (
        mail_to("dave")[-1].body
    )
    with pytest.raises(GameStateError, match="withdrawn already"):
        handover.seat_offer_accept(offer=offer, by=offer.to_user)
    # An offer in a game that then ends no longer stands.
    offer_seat(client, game, "cat", "dave")
    second = SeatOffer.objects.get(status="pending")
    organizer_services.game_end(game=game, by=game.organizer, reason="done")
    client.force_login(second.to_user)
    assert "Seats offered to you" not in client.get(reverse("games:list")).content.decode()
    page = client.get(f"/games/{game.pk}/offers/{second.pk}/").content.decode()
    assert "This offer was withdrawn" in page
    late = client.post(f"/games/{game.pk}/offers/{second.pk}/accept/", follow=True)
    assert "This offer was withdrawn already: nothing was changed." in messages_of(late)
    # Closed with the game, and its player told (a race audit: it stayed pending, unsaid).
    assert "the seat cat is no longer offered to you: the game was ended." in mail_to("dave")[-1].body
    assert game.seats.get(name="cat", status="active").user.username == "cat"


def test_an_offer_is_refused_for_who_could_not_take_the_seat(game):
    with pytest.raises(SeatHeld, match="cat already holds a seat in this game"):
        handover.seat_offer(
            seat=game.seats.get(name="bob"), new_user=game.seats.get(name="cat").user, by=game.organizer
        )
    with pytest.raises(HandoverRefused, match="An organizer cannot take a seat"):
        handover.seat_offer(
            seat=game.seats.get(name="bob"), new_user=game.organizer, by=game.organizer
        )
    bob = game.seats.get(name="bob").user
    with pytest.raises(PermissionDenied):
        handover.seat_offer(
            seat=game.seats.get(name="cat"), new_user=make_user("zoe"), by=bob
        )
    assert not SeatOffer.objects.exists() and not OutboxMessage.objects.filter(kind="seat_offer").exists()


def test_the_admin_lists_offers_read_only(client, admin_client, game):
    offer_seat(client, game, "bob", "dave")
    offer = SeatOffer.objects.get()
    listing = admin_client.get("/admin/games/seatoffer/")
    assert listing.status_code == 200 and "pending" in listing.content.decode()
    assert admin_client.get(f"/admin/games/seatoffer/{offer.pk}/change/").status_code == 200
    admin_client.post(f"/admin/games/seatoffer/{offer.pk}/change/", {"status": "accepted"})
    offer.refresh_from_db()
    assert offer.status == "pending"


def test_an_offer_closes_when_its_player_is_handed_another_seat_and_closed_accounts_are_not_offered(client, game):
    """Code review: a site administrator handing dave cat's seat left his offer of bob's
    seat waiting, with an Accept that said "dave already holds a seat". And a closed
    (inactive) account could be offered a seat, and emailed the private game's name."""
    from django.contrib.auth import get_user_model

    offer_seat(client, game, "bob", "dave")
    offer = SeatOffer.objects.get()
    staff = get_user_model().objects.create_user("boss", "boss@example.test", "pw", is_staff=True)
    handover.seat_replace(
        seat=game.seats.get(name="cat", status="active"), new_user=offer.to_user, by=staff
    )
    offer.refresh_from_db()
    assert offer.status == "withdrawn"
    assert "the seat bob is no longer offered to you: you play the seat cat now." in mail_to("dave")[-1].body
    client.force_login(offer.to_user)
    assert "Seats offered to you" not in client.get(reverse("games:list")).content.decode()

    eve = get_user_model().objects.get(username="eve")
    eve.is_active = False
    eve.save(update_fields=["is_active"])
    refused = offer_seat(client, game, "bob", "eve")
    assert "There is no player with that name." in messages_of(refused)
    assert not SeatOffer.objects.filter(to_user=eve).exists()


def test_offers_are_capped_so_a_loop_cannot_mail_a_player_without_end(client, game):
    """Security audit: offering a seat and withdrawing the offer in a loop emailed any
    player of the site as often as an organizer liked (20 emails to one in a minute)."""

    def withdraw() -> None:
        pending = SeatOffer.objects.get(status="pending")
        client.post(reverse("games:organizer", args=[game.pk, "withdraw-offer"]), {"offer": pending.pk})

    for _ in range(handover.OFFERS_PER_PLAYER_PER_DAY):
        offer_seat(client, game, "bob", "eve")
        withdraw()
    emails = len(mail_to("eve"))
    assert emails == 6  # three offers, three withdrawals
    refused = offer_seat(client, game, "bob", "eve")
    assert any(
        "eve was offered a seat in this game 3 times in the last day, the limit (each offer "
        "emails them): the next from " in m
        for m in messages_of(refused)
    ), messages_of(refused)
    assert len(mail_to("eve")) == emails and not SeatOffer.objects.filter(status="pending").exists()
    # A player who declined is not asked again for a day.
    offer_seat(client, game, "bob", "dave")
    offer = SeatOffer.objects.get(status="pending")
    client.force_login(offer.to_user)
    client.post(f"/games/{game.pk}/offers/{offer.pk}/decline/")
    again = offer_seat(client, game, "cat", "dave")
    assert any("dave declined a seat in this game less than a day ago" in m for m in messages_of(again))
    assert len(mail_to("dave")) == 1
    # And the game's offers in all: ten a day.
    for i in range(handover.OFFERS_PER_GAME_PER_DAY - SeatOffer.objects.count()):
        make_user(f"p{i}")
        offer_seat(client, game, "bob", f"p{i}")
        withdraw()
    make_user("late")
    last = offer_seat(client, game, "bob", "late")
    assert any("This game's seats were offered 10 times in the last day" in m for m in messages_of(last))
    assert not mail_to("late")


def test_pauses_are_capped_a_day(game):
    for _ in range(organizer_services.PAUSES_PER_DAY):
        organizer_services.game_pause(game=game, by=game.organizer)
        organizer_services.game_resume(game=game, by=game.organizer)
    # A GameStateError (the API's 409 pauses_capped): the game's recent pauses refuse it.
    with pytest.raises(GameStateError, match="paused 4 times in the last day, the limit") as refused:
        organizer_services.game_pause(game=game, by=game.organizer)
    assert refused.value.code == "pauses_capped"
    game.refresh_from_db()
    assert game.status == "active"
    assert LogEntry.objects.filter(game=game, kind="game_paused").count() == 4


def test_offers_to_one_player_are_capped_across_games(client, game, django_capture_on_commit_callbacks):
    """Code review: the caps were per game, and games are easy to make: an organizer with
    a second game could go on mailing the same player."""
    from games.services.games import game_create_seated

    fay, gus, hal = (make_user(n) for n in ("fay", "gus", "hal"))
    with django_capture_on_commit_callbacks(execute=True):
        other = game_create_seated(organizer=fay, ruleset="5x", users=[fay, gus, hal])
    seat_of = {game.pk: "bob", other.pk: "gus"}

    def offer_and_withdraw(g) -> None:
        offer_seat(client, g, seat_of[g.pk], "eve")
        pending = SeatOffer.objects.get(status="pending")
        client.post(reverse("games:organizer", args=[g.pk, "withdraw-offer"]), {"offer": pending.pk})

    for g in (game, game, game, other, other):
        offer_and_withdraw(g)
    refused = offer_seat(client, other, "gus", "eve")
    assert any("eve was offered seats 5 times in the last day, the limit" in m for m in messages_of(refused)), (
        messages_of(refused)
    )
    assert SeatOffer.objects.filter(to_user__username="eve").count() == 5


def test_offers_are_logged_naming_the_player_offered_only_when_they_take_the_seat(client, game):
    """M4 (an organizer's journey): an offer made, withdrawn or declined left no log entry,
    and the handover's entry named neither holder. The player offered is named once they
    take the seat (the log is public; a player declining stays out of it)."""
    import json

    from engine.audit import verify_export
    from games.log_text import log_summary
    from games.selectors_log import game_export

    offer_seat(client, game, "bob", "dave")
    offer_seat(client, game, "bob", "eve")  # dave's offer is superseded
    handover.seat_offer_withdraw(offer=SeatOffer.objects.get(status="pending"), by=game.organizer)
    offer_seat(client, game, "cat", "dave")
    declined = SeatOffer.objects.get(status="pending")
    handover.seat_offer_decline(offer=declined, by=declined.to_user)
    offer_seat(client, game, "bob", "eve")
    accepted = SeatOffer.objects.get(status="pending")
    handover.seat_offer_accept(offer=accepted, by=accepted.to_user)
    kinds = ("seat_offered", "seat_offer_withdrawn", "seat_offer_declined", "seat_replaced")
    entries = list(LogEntry.objects.filter(game=game, kind__in=kinds).order_by("seq"))
    summaries = [log_summary(ruleset="5x", kind=e.kind, payload=e.payload) for e in entries]
    assert summaries == [
        "The organizer (ann) offered seat bob to a player; nothing changes unless they accept.",
        "The offer of seat bob lapsed: the organizer (ann) offered the seat to another player.",
        "The organizer (ann) offered seat bob to a player; nothing changes unless they accept.",
        "The organizer (ann) withdrew the offer of seat bob.",
        "The organizer (ann) offered seat cat to a player; nothing changes unless they accept.",
        "The player offered seat cat declined it.",
        "The organizer (ann) offered seat bob to a player; nothing changes unless they accept.",
        "Seat bob was handed from bob to eve, who accepted the organizer (ann)'s offer.",
    ]
    for entry in entries[:-1]:
        assert "dave" not in json.dumps(entry.payload) and "eve" not in json.dumps(entry.payload)
    assert entries[-1].payload["offer"] == entries[-2].payload["offer"] == accepted.pk
    assert (entries[-1].payload["from"], entries[-1].payload["to"]) == ("bob", "eve")
    organizer_services.game_end(game=game, by=game.organizer, reason="done")
    game.refresh_from_db()
    assert verify_export(json.loads(json.dumps(game_export(game=game)))) == []


def test_an_offer_nobody_answers_lapses_after_a_week(client, game, django_capture_on_commit_callbacks):
    """An offer waited forever (left open by earlier sessions): after GAMES_SEAT_OFFER_DAYS
    (7) it lapses; the player offered and the organizer are told, and the log says so."""
    from datetime import timedelta

    from django.utils import timezone

    from games.log_text import log_summary
    from games.services.handover import seat_offers_expire

    offer_seat(client, game, "bob", "dave")
    offer = SeatOffer.objects.get(game=game)
    assert seat_offers_expire() == 0  # a fresh offer stands
    SeatOffer.objects.filter(pk=offer.pk).update(created_at=timezone.now() - timedelta(days=7, minutes=1))
    # Not swept yet: answering it is refused all the same.
    with pytest.raises(GameStateError, match="lapsed: nobody answered it within 7 days"):
        handover.seat_offer_accept(offer=offer, by=offer.to_user)
    with django_capture_on_commit_callbacks(execute=True):
        assert seat_offers_expire() == 1
    offer.refresh_from_db()
    assert offer.status == SeatOffer.Status.WITHDRAWN and holders(game)[1][1] == "bob"
    entry = LogEntry.objects.filter(game=game).latest("seq")
    assert entry.kind == "seat_offer_withdrawn" and entry.payload["why"] == "expired"
    # nobody acted (it said "by": "None", "as": "staff")
    assert "by" not in entry.payload and "as" not in entry.payload
    assert log_summary(ruleset="5x", kind=entry.kind, payload=entry.payload) == (
        "The offer of seat bob lapsed: nobody answered it in the time allowed."
    )
    assert "nobody answered it within 7 days" in mail_to("dave")[-1].body
    told = OutboxMessage.objects.filter(to=game.organizer.email, subject__contains="lapsed").get()
    assert "dave did not answer your offer of the seat bob within 7 days" in told.body
    assert seat_offers_expire() == 0  # once
    # The seat may be offered again.
    answer = offer_seat(client, game, "bob", "eve")
    assert "Seat bob is offered to eve" in " ".join(messages_of(answer))


def test_an_offer_left_waiting_in_a_game_over_lapses_with_no_entry_after_the_end(client, game):
    """Regression (a review): offers left waiting when a game ended (before its end closed
    them) were closed by the hourly sweep with a log entry after the game's end, which
    the verifiers refuse: the game failed verification for good."""
    from datetime import timedelta
    from io import StringIO

    from django.core.management import call_command
    from django.utils import timezone

    from games.services.handover import seat_offers_expire

    offer_seat(client, game, "bob", "dave")
    organizer_services.game_end(game=game, by=game.organizer, reason="closed")
    head = LogEntry.objects.filter(game=game).latest("seq")
    assert head.kind == "game_ended"
    # as an older end left it: still waiting, a week old
    SeatOffer.objects.filter(game=game).update(
        status=SeatOffer.Status.PENDING, created_at=timezone.now() - timedelta(days=8)
    )
    mails = OutboxMessage.objects.count()
    seat_offers_expire()
    assert SeatOffer.objects.get(game=game).status == SeatOffer.Status.WITHDRAWN
    assert LogEntry.objects.filter(game=game).latest("seq") == head
    assert OutboxMessage.objects.count() == mails  # the game's end told them already
    out = StringIO()
    call_command("verify_game", str(game.pk), stdout=out)
    assert "OK" in out.getvalue()


def test_the_games_list_does_not_name_the_site_administrator_who_offers_a_seat(client, game):
    # The offer's page and the API say "a site administrator"; the games list named them.
    root = make_user("root")
    root.is_staff = True
    root.save(update_fields=["is_staff"])
    handover.seat_offer(seat=game.seats.get(name="bob", status="active"), new_user=make_user("dora"), by=root)
    client.force_login(SeatOffer.objects.get(game=game).to_user)
    listing = visible_text(client.get(reverse("games:list")).content.decode())
    assert "A site administrator offers you the seat bob in Offers" in listing
    assert "root" not in listing


def test_the_player_offered_a_seat_finds_it_on_the_home_page_and_the_games_page(
    client, django_capture_on_commit_callbacks
):
    # Guards against an offer only the email led to: dave's home page said "You are not in
    # any game yet" and the game's page showed him the spectator view.
    public = three_seat_game(django_capture_on_commit_callbacks, "Open offer")
    offer_seat(client, public, "bob", "dave")
    offer = SeatOffer.objects.get(game=public, to_user__username="dave")
    url = reverse("games:offer", args=[public.pk, offer.pk])

    client.force_login(offer.to_user)
    home = client.get("/").content.decode()
    assert 'id="seat-offers"' in home and f'href="{url}"' in home
    assert "offers you the seat bob in Open offer" in visible_text(home)
    assert not any(word in home for word in HAND_WORDS)

    detail = client.get(reverse("games:detail", args=[public.pk])).content.decode()
    assert 'id="seat-offer"' in detail and f'href="{url}"' in detail
    assert "offers you the seat bob in this game" in visible_text(detail)
    assert not any(word in detail for word in HAND_WORDS)

    # Nobody else sees it: not the seat's player, not another player.
    for name in ("bob", "cat"):
        client.force_login(public.seats.get(name=name).user)
        assert url not in client.get("/").content.decode()
        assert url not in client.get(reverse("games:detail", args=[public.pk])).content.decode()

    # One query for the offers however many there are: a second offer adds none.
    client.force_login(offer.to_user)
    client.get("/")
    with count_queries() as one:
        client.get("/")
    second = dealt_5x_game(
        django_capture_on_commit_callbacks, names=("fay", "gus", "hal"), organizer="fay",
        deal={"fay": DEAL["ann"], "gus": DEAL["bob"], "hal": DEAL["cat"]}, name="Second offer",
    )  # fmt: skip
    offer_seat(client, second, "hal", "dave")
    client.force_login(offer.to_user)
    client.get("/")  # as before the first count: a log-in's first page may write its "last seen"
    with count_queries() as two:
        home = client.get("/").content.decode()
    assert one and len(two) == len(one), (len(one), len(two))
    assert "Second offer" in home

    # Declined, it is gone from both pages.
    client.post(reverse("games:offer_answer", args=[public.pk, offer.pk, "decline"]))
    assert f'href="{url}"' not in client.get("/").content.decode()
    assert f'href="{url}"' not in client.get(
        reverse("games:detail", args=[public.pk])
    ).content.decode()
