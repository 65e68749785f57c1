"""A seat's handover over the API: the organizer offers a seat (staff may hand it at
once), withdraws an offer, makes a game private or public; the player offered lists the
offers, accepts or declines. The same services, checks and messages as the organizer's
panel and the offer's page; the offered player sees nothing of the seat's hand before
accepting; refusals change nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from games import selectors
from games.models import Game, LogEntry, OutboxMessage, Seat, SeatOffer
from games.services import games as game_services
from games.services import handover
from tests.games.test_api_errors import assert_error
from tests.games.test_seat_handover_pages import DEAL, three_seat_game
from tests.games.web_support import make_user, token_client

pytestmark = pytest.mark.django_db

# Every card dealt (the seats' hands), in the cases a view could write them.
HAND_WORDS = [w for cards in DEAL.values() for card in cards for w in (card, card.title(), card.lower())]
OFFER_FIELDS = {
    "id", "status", "standing", "game", "game_name", "ruleset", "organizer", "game_status", "seat",
    "position", "seat_resigned", "offered_as", "offered_by", "prompt", "deadline", "created",
    "lapses_at",
}  # fmt: skip


@pytest.fixture
def game(django_capture_on_commit_callbacks):
    """A private, dealt 5X game at its first prompt: ann (its organizer), bob and cat hold
    the seats; dave and eve have accounts and no seat."""
    made = three_seat_game(django_capture_on_commit_callbacks, "Offers")
    Game.objects.filter(pk=made.pk).update(is_private=True)
    made.refresh_from_db()
    make_user("eve")
    return made


def user(name: str):
    return get_user_model().objects.get(username=name)


def client_of(name: str) -> APIClient:
    return token_client(user(name))


def position(game: Game, seat: str) -> int:
    return game.seats.get(name=seat, status__in=("active", "resigned")).position


def offer_url(game: Game, seat: str, what: str = "offer") -> str:
    return f"/api/games/{game.pk}/seats/{position(game, seat)}/{what}/"


def holders(game: Game) -> list[tuple[str, str, str]]:
    return sorted(Seat.objects.filter(game=game).values_list("name", "user__username", "status"))


def kinds(game: Game, kind: str) -> list[LogEntry]:
    return list(LogEntry.objects.filter(game=game, kind=kind).order_by("seq"))


def no_hand_in(answer) -> None:
    text = answer.content.decode()
    assert not [word for word in HAND_WORDS if word in text], text


def make_staff(name: str):
    staff = make_user(name)
    staff.is_staff = True
    staff.save()
    return staff


def test_an_offer_changes_nothing_until_the_player_accepts_it_and_shows_no_hand(game):
    before, ann, dave = holders(game), client_of("ann"), client_of("dave")
    answer = ann.post(offer_url(game, "bob"), {"player": "DAVE"}, format="json")  # any case
    assert answer.status_code == 200, answer.content
    offer = SeatOffer.objects.get(game=game)
    assert (offer.seat.name, offer.to_user.username, offer.status) == ("bob", "dave", "pending")
    body = answer.json()
    lapses = (offer.created_at + timedelta(days=7)).isoformat().replace("+00:00", "Z")
    assert body["offer"] == {
        "id": offer.pk, "seat": "bob", "position": position(game, "bob"), "player": "dave",
        "by": "ann", "created": offer.created_at.isoformat().replace("+00:00", "Z"),
        "lapses_at": lapses,
    }  # fmt: skip
    assert body["offers"] == [body["offer"]] and body["can"]["offer"] is True
    tools = ann.get(f"/api/games/{game.pk}/organizer/").json()
    assert tools["offers"] == [body["offer"]]
    # The seats, with the positions an offer names.
    assert {(s["name"], s["position"], s["user"]) for s in tools["seats"]} == {
        (name, position(game, name), name) for name in ("ann", "bob", "cat")
    }
    assert holders(game) == before
    (entry,) = kinds(game, "seat_offered")
    assert entry.payload == {"seat": "bob", "offer": offer.pk, "by": "ann", "as": "organizer"}
    assert OutboxMessage.objects.filter(to="dave@example.test", kind="seat_offer").count() == 1

    # Dave sees the offer, and nothing of bob's hand: not in it, not in the game.
    mine = dave.get("/api/offers/")
    assert mine.status_code == 200
    (seen,) = mine.json()
    assert set(seen) == OFFER_FIELDS
    assert {k: seen[k] for k in ("id", "status", "standing", "game", "game_name", "seat")} == {
        "id": offer.pk, "status": "pending", "standing": True, "game": game.pk,
        "game_name": "Offers", "seat": "bob",
    }  # fmt: skip
    assert (seen["offered_as"], seen["offered_by"], seen["organizer"]) == ("organizer", "ann", "ann")
    assert (seen["prompt"], seen["seat_resigned"], seen["lapses_at"]) == (1, False, lapses)
    assert seen["deadline"] is not None
    no_hand_in(mine)
    no_hand_in(dave.get(f"/api/offers/{offer.pk}/"))
    assert_error(dave.get(f"/api/games/{game.pk}/"), 404, "not_found")  # still private

    accepted = dave.post(f"/api/offers/{offer.pk}/accept/", format="json")
    assert accepted.status_code == 200, accepted.content
    assert (accepted.json()["status"], accepted.json()["standing"]) == ("accepted", False)
    assert game.seats.get(name="bob", status="active").user.username == "dave"
    assert game.seats.get(name="bob", status="replaced").user.username == "bob"
    (entry,) = kinds(game, "seat_replaced")
    assert (entry.payload["from"], entry.payload["to"], entry.payload["offer"]) == ("bob", "dave", offer.pk)
    # Now the seat is his: its view holds its hand.
    view = dave.get(f"/api/games/{game.pk}/")
    assert view.status_code == 200 and view.json()["seat"] == "bob"
    assert {"QIN", "DIDO"} <= set(view.content.decode().replace('"', " ").split())
    with pytest.raises(AssertionError):  # the check above the acceptance can fail
        no_hand_in(view)
    # A second accept changes nothing and says why.
    again = dave.post(f"/api/offers/{offer.pk}/accept/", format="json")
    assert_error(again, 409, "offer_closed", "This offer was accepted already: nothing was changed.")
    assert len(kinds(game, "seat_replaced")) == 1
    assert dave.get("/api/offers/").json() == []
    tools = ann.get(f"/api/games/{game.pk}/organizer/").json()
    assert tools["offers"] == [] and ("bob", "dave") in {(s["name"], s["user"]) for s in tools["seats"]}


def test_a_public_games_seat_view_shows_the_offered_player_no_hand_before_accepting(game):
    Game.objects.filter(pk=game.pk).update(is_private=False)
    assert client_of("ann").post(offer_url(game, "cat"), {"player": "dave"}, format="json").status_code == 200
    view = client_of("dave").get(f"/api/games/{game.pk}/")
    assert view.status_code == 200 and view.json()["seat"] is None  # a spectator's
    no_hand_in(view)


def test_the_same_offer_twice_is_one_offer(game):
    ann = client_of("ann")
    first = ann.post(offer_url(game, "bob"), {"player": "dave"}, format="json")
    again = ann.post(offer_url(game, "bob"), {"player": "Dave"}, format="json")
    assert again.status_code == 200 and again.json()["offer"] == first.json()["offer"]
    assert SeatOffer.objects.filter(game=game).count() == 1 and len(kinds(game, "seat_offered")) == 1
    assert OutboxMessage.objects.filter(to="dave@example.test", kind="seat_offer").count() == 1


def test_the_player_declines_once_and_the_organizer_is_told(game):
    client_of("ann").post(offer_url(game, "bob"), {"player": "dave"}, format="json")
    offer, dave = SeatOffer.objects.get(), client_of("dave")
    answer = dave.post(f"/api/offers/{offer.pk}/decline/", {}, format="json")
    assert answer.status_code == 200, answer.content
    assert (answer.json()["status"], answer.json()["prompt"]) == ("declined", None)
    assert SeatOffer.objects.get().status == "declined"
    (entry,) = kinds(game, "seat_offer_declined")
    assert entry.payload == {"seat": "bob", "offer": offer.pk}
    (told,) = OutboxMessage.objects.filter(to="ann@example.test", kind="seat_offer")
    assert "dave declined the seat bob; it stays as it was." in told.body
    for answer_again in ("decline", "accept"):
        late = dave.post(f"/api/offers/{offer.pk}/{answer_again}/", format="json")
        assert_error(late, 409, "offer_closed", "This offer was declined already")
    assert len(kinds(game, "seat_offer_declined")) == 1 and not kinds(game, "seat_replaced")
    assert dave.get(f"/api/offers/{offer.pk}/").json()["status"] == "declined"


def test_a_lapsed_offer_cannot_be_accepted(game):
    client_of("ann").post(offer_url(game, "bob"), {"player": "dave"}, format="json")
    offer = SeatOffer.objects.get()
    SeatOffer.objects.filter(pk=offer.pk).update(created_at=offer.created_at - timedelta(days=8))
    late = client_of("dave").post(f"/api/offers/{offer.pk}/accept/", format="json")
    assert_error(late, 409, "offer_closed", "This offer lapsed")
    assert SeatOffer.objects.get().status == "pending" and not kinds(game, "seat_replaced")


def test_the_organizer_withdraws_an_offer_once(game, django_capture_on_commit_callbacks):
    ann = client_of("ann")
    ann.post(offer_url(game, "bob"), {"player": "dave"}, format="json")
    offer = SeatOffer.objects.get()
    url = f"/api/games/{game.pk}/offers/{offer.pk}/withdraw/"
    assert_error(ann.post(url, {"why": "x"}, format="json"), 400, "invalid", "why: unknown field")
    answer = ann.post(url, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["offers"] == [] and SeatOffer.objects.get().status == "withdrawn"
    (entry,) = kinds(game, "seat_offer_withdrawn")
    assert entry.payload == {"seat": "bob", "offer": offer.pk, "why": "withdrawn", "by": "ann", "as": "organizer"}
    mails = list(OutboxMessage.objects.filter(to="dave@example.test", kind="seat_offer").order_by("id"))
    assert len(mails) == 2 and "the organizer withdrew it." in mails[-1].body
    assert_error(ann.post(url, format="json"), 409, "offer_closed", "This offer was withdrawn already")
    late = client_of("dave").post(f"/api/offers/{offer.pk}/accept/", format="json")
    assert_error(late, 409, "offer_closed", "withdrawn already")
    assert len(kinds(game, "seat_offer_withdrawn")) == 1 and holders(game)[1] == ("bob", "bob", "active")
    # An offer of another game, or none: no such offer in this game.
    with django_capture_on_commit_callbacks(execute=True):
        other = three_other_game()
    assert_error(ann.post(f"/api/games/{other.pk}/offers/{offer.pk}/withdraw/", format="json"), 403, "forbidden")
    other_offer = handover.seat_offer(seat=other.seats.get(name="zoe"), new_user=user("eve"), by=other.organizer)
    for wrong in (other_offer.pk, 999999):
        assert_error(ann.post(f"/api/games/{game.pk}/offers/{wrong}/withdraw/", format="json"), 404, "not_found")
    assert SeatOffer.objects.get(pk=other_offer.pk).status == "pending"


def three_other_game() -> Game:
    """A running public 5X game of yan (organizer), zoe, xia and wil."""
    names = ("zoe", "xia", "wil")
    users = {n: make_user(n) for n in ("yan", *names)}
    other = game_services.game_create(organizer=users["yan"], ruleset="5x", seats_count=3)
    for name in names:
        game_services.game_join(game=other, user=users[name])
    other.refresh_from_db()
    assert other.status == Game.Status.ACTIVE
    return other


def test_only_the_organizer_and_staff_hand_seats_and_strangers_see_no_game(game):
    before = holders(game)
    make_user("zed")
    Game.objects.filter(pk=game.pk).update(is_private=False)
    handover.seat_offer(seat=game.seats.get(name="cat"), new_user=user("eve"), by=game.organizer)
    offer = SeatOffer.objects.get()
    calls = (
        (offer_url(game, "bob"), {"player": "dave"}),
        (offer_url(game, "bob", "replace"), {"player": "dave", "confirm": True}),
        (f"/api/games/{game.pk}/offers/{offer.pk}/withdraw/", {}),
        (f"/api/games/{game.pk}/privacy/", {"private": True}),
    )
    for name in ("bob", "zed"):  # a player of the game, a stranger to it
        for url, body in calls:
            assert_error(client_of(name).post(url, body, format="json"), 403, "forbidden", "only the organizer")
    Game.objects.filter(pk=game.pk).update(is_private=True)
    for url, body in calls:
        assert_error(client_of("zed").post(url, body, format="json"), 404, "not_found")
        assert_error(APIClient().post(url, body, format="json"), 401, "not_authenticated")
    assert holders(game) == before and SeatOffer.objects.get().status == "pending"
    assert SeatOffer.objects.count() == 1 and not kinds(game, "privacy_changed")


def test_an_offer_is_answered_only_by_its_player(game):
    handover.seat_offer(seat=game.seats.get(name="bob"), new_user=user("dave"), by=game.organizer)
    offer = SeatOffer.objects.get()
    for name in ("ann", "bob", "eve"):  # the organizer, the seat's player, a stranger
        them = client_of(name)
        assert them.get("/api/offers/").json() == []
        assert_error(them.get(f"/api/offers/{offer.pk}/"), 404, "not_found", "There is no such offer.")
        for answer in ("accept", "decline"):
            assert_error(them.post(f"/api/offers/{offer.pk}/{answer}/", format="json"), 404, "not_found")
    assert_error(APIClient().get("/api/offers/"), 401, "not_authenticated")
    assert_error(client_of("dave").get("/api/offers/999999/"), 404, "not_found")
    assert_error(client_of("dave").get("/api/offers/", {"limit": 3}), 400, "invalid", "limit: Unknown query")
    assert SeatOffer.objects.get().status == "pending" and not kinds(game, "seat_replaced")


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({"player": "nobody"}, "player: There is no player with that name."),
        ({"player": "dave@example.test"}, "player: Give the player's name, as their games show it"),
        ({"player": "closed"}, "player: There is no player with that name."),  # a closed account
        ({}, "player: This field is required."),
        ({"player": 5}, "player: Must be a string."),
        ({"player": "x" * 151}, "player: Ensure this field has no more than 150 characters."),
        ({"player": "dave", "confirm": True}, "confirm: Unknown field"),
    ],
)
def test_a_bad_offer_is_a_400_naming_the_field_and_changes_nothing(game, body, said):
    closed = make_user("closed")
    closed.is_active = False
    closed.save()
    answer = client_of("ann").post(offer_url(game, "bob"), body, format="json")
    assert_error(answer, 400, "invalid", said)
    if said.startswith("player: "):  # the field named, as a form names it
        assert "player" in answer.json()["fields"]
    assert not SeatOffer.objects.exists() and not kinds(game, "seat_offered")


def test_an_offer_to_a_player_already_seated_is_a_409_seat_held_and_changes_nothing(game):
    """Answered 400 invalid before, like a typo: the request is well formed, the game's
    seats refuse it."""
    before = holders(game)
    answer = client_of("ann").post(offer_url(game, "bob"), {"player": "cat"}, format="json")
    body = assert_error(answer, 409, "seat_held")
    assert body["message"] == "cat already holds a seat in this game."  # the panel's words
    assert "Retry-After" not in answer
    assert holders(game) == before
    assert not SeatOffer.objects.exists() and not kinds(game, "seat_offered")


def _replaced_before(game) -> tuple[str, str]:
    """bob was replaced by dave (a site administrator's handover); the organizer now
    offers bob the seat cat."""
    handover.seat_replace(seat=game.seats.get(name="bob"), new_user=user("dave"), by=make_staff("sam"))
    return "cat", "bob"


def _offered_another_seat(game) -> tuple[str, str]:
    """dave is offered the seat bob, still waiting; the organizer now offers dave cat."""
    handover.seat_offer(seat=game.seats.get(name="bob"), new_user=user("dave"), by=game.organizer)
    return "cat", "dave"


@pytest.mark.parametrize(
    ("situation", "code", "said"),
    [
        (lambda game: ("bob", "ann"), "player_is_organizer",
         "An organizer cannot take a seat of their own game's players: hand it to another "
         "player (a site administrator can do it if it must be you)."),
        (_replaced_before, "player_replaced",
         "bob was replaced in this game before, and a replaced player does not come back (a "
         "site administrator can do it if it was a mistake)."),
        (_offered_another_seat, "offered_another_seat",
         "dave is already offered the seat bob in this game: withdraw that offer first."),
    ],
    ids=["the organizer", "replaced before", "offered another seat"],
)
def test_an_offer_the_games_seats_refuse_is_a_409_with_a_code_of_its_own(game, situation, code, said):
    """Answered 400 invalid before, like a malformed body: a client could tell these apart
    (and from a typo) only by parsing the English message."""
    seat, player = situation(game)
    before = (holders(game), list(SeatOffer.objects.values_list("pk", "status")),
              LogEntry.objects.count(), OutboxMessage.objects.count())  # fmt: skip
    answer = client_of("ann").post(offer_url(game, seat), {"player": player}, format="json")
    body = assert_error(answer, 409, code)
    assert body["message"] == said  # the panel's words, kept
    assert "fields" not in body and "Retry-After" not in answer
    after = (holders(game), list(SeatOffer.objects.values_list("pk", "status")),
             LogEntry.objects.count(), OutboxMessage.objects.count())  # fmt: skip
    assert after == before


def _retry_after(answer) -> int:
    """The answer's Retry-After: whole seconds, about a day from now (the caps' window)."""
    seconds = int(answer["Retry-After"])
    assert 24 * 3600 - 120 <= seconds <= 24 * 3600, seconds
    return seconds


def test_offers_over_the_days_caps_are_a_429_offers_capped_with_retry_after(game):
    """Answered 400 invalid before: a client could not tell "not now, from 18:00
    tomorrow" from a malformed request, nor when to try again."""
    ann = client_of("ann")
    for _ in range(handover.OFFERS_PER_PLAYER_PER_DAY):
        assert ann.post(offer_url(game, "bob"), {"player": "eve"}, format="json").status_code == 200
        offer = SeatOffer.objects.get(status="pending")
        assert ann.post(f"/api/games/{game.pk}/offers/{offer.pk}/withdraw/", format="json").status_code == 200
    before = (holders(game), SeatOffer.objects.count(), OutboxMessage.objects.count(), LogEntry.objects.count())
    answer = ann.post(offer_url(game, "bob"), {"player": "eve"}, format="json")
    body = assert_error(answer, 429, "offers_capped")
    assert body["message"].startswith(  # the panel's words
        "eve was offered a seat in this game 3 times in the last day, the limit (each offer "
        "emails them): the next from "
    ), body["message"]
    _retry_after(answer)
    assert (holders(game), SeatOffer.objects.count(), OutboxMessage.objects.count(), LogEntry.objects.count()) == before
    assert not SeatOffer.objects.filter(status="pending").exists()


def test_an_offer_to_a_player_who_declined_today_is_a_429_offers_capped(game):
    ann = client_of("ann")
    ann.post(offer_url(game, "bob"), {"player": "dave"}, format="json")
    offer = SeatOffer.objects.get()
    assert client_of("dave").post(f"/api/offers/{offer.pk}/decline/", format="json").status_code == 200
    before = (holders(game), SeatOffer.objects.count(), OutboxMessage.objects.count(), LogEntry.objects.count())
    answer = ann.post(offer_url(game, "cat"), {"player": "dave"}, format="json")
    body = assert_error(answer, 429, "offers_capped")
    assert body["message"].startswith(
        "dave declined a seat in this game less than a day ago: offer a seat to another "
        "player, or to dave again from "
    ), body["message"]
    _retry_after(answer)
    assert (holders(game), SeatOffer.objects.count(), OutboxMessage.objects.count(), LogEntry.objects.count()) == before


def test_no_seat_at_a_position_is_a_404_and_a_game_not_in_progress_a_409(game):
    ann = client_of("ann")
    answer = ann.post(f"/api/games/{game.pk}/seats/9/offer/", {"player": "dave"}, format="json")
    assert_error(answer, 404, "not_found", "This game has no seat at position 9 to hand over.")
    huge = ann.post(f"/api/games/{game.pk}/seats/{10**30}/offer/", {"player": "dave"}, format="json")
    assert_error(huge, 404, "not_found")
    forming = game_services.game_create(organizer=user("ann"), ruleset="5x", seats_count=3)
    game_services.game_join(game=forming, user=user("ann"))
    refused = ann.post(f"/api/games/{forming.pk}/seats/0/offer/", {"player": "dave"}, format="json")
    assert_error(refused, 409, "conflict", "Players can only be replaced in a game in progress.")
    assert not SeatOffer.objects.exists()


def test_staff_hands_a_seat_at_once_and_the_organizer_cannot(game):
    make_staff("sam")
    ann, sam = client_of("ann"), client_of("sam")
    url = offer_url(game, "bob", "replace")
    refused = ann.post(url, {"player": "dave", "confirm": True}, format="json")
    assert_error(refused, 403, "forbidden", "Only a site administrator can hand a seat over at once: offer it")
    for body, said in (
        ({"player": "dave"}, 'confirm: Send "confirm": true to hand the seat over: nothing was changed.'),
        ({"player": "dave", "confirm": False}, "nothing was changed"),
        ({"player": "nobody@example.test", "confirm": True},
         "player: There is no player with that name or email address."),
    ):  # fmt: skip
        assert_error(sam.post(url, body, format="json"), 400, "invalid", said)
    assert not kinds(game, "seat_replaced")
    # Staff may name the player by email address, as on the panel.
    answer = sam.post(url, {"player": "dave@example.test", "confirm": True}, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["seat"] == {"name": "bob", "position": position(game, "bob"), "status": "active", "user": "dave"}
    assert game.seats.get(name="bob", status="active").user.username == "dave"
    (entry,) = kinds(game, "seat_replaced")
    assert (entry.payload["by"], entry.payload["as"], entry.payload["to"]) == ("sam", "staff", "dave")
    assert "offer" not in entry.payload and not SeatOffer.objects.exists()
    again = sam.post(url, {"player": "dave", "confirm": True}, format="json")
    assert_error(again, 409, "seat_held", "dave already holds a seat in this game.")
    assert len(kinds(game, "seat_replaced")) == 1


def test_staff_may_offer_a_seat_too_and_the_player_is_not_told_their_name(game):
    make_staff("sam")
    answer = client_of("sam").post(offer_url(game, "cat"), {"player": "dave"}, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["offer"]["by"] == "sam"
    (entry,) = kinds(game, "seat_offered")
    assert (entry.payload["by"], entry.payload["as"]) == ("sam", "staff")
    (seen,) = client_of("dave").get("/api/offers/").json()
    assert (seen["offered_as"], seen["offered_by"], seen["seat"]) == ("staff", None, "cat")
    assert "sam" not in str(seen)


def test_privacy_before_the_start_only(game):
    forming = game_services.game_create(organizer=user("eve"), ruleset="5x", seats_count=3)
    eve, url = client_of("eve"), f"/api/games/{forming.pk}/privacy/"
    for body, said in (({}, "private: This field is required."), ({"private": "yes"}, "Must be true or false")):
        assert_error(eve.post(url, body, format="json"), 400, "invalid", said)
    answer = eve.post(url, {"private": True}, format="json")
    assert answer.status_code == 200, answer.content
    assert (answer.json()["private"], answer.json()["can"]["privacy"]) == (True, True)
    assert Game.objects.get(pk=forming.pk).is_private
    (entry,) = kinds(forming, "privacy_changed")
    assert entry.payload == {"private": True, "by": "eve", "as": "organizer"}
    assert eve.post(url, {"private": True}, format="json").json()["private"] is True  # a retry
    assert len(kinds(forming, "privacy_changed")) == 1
    assert eve.post(url, {"private": False}, format="json").json()["private"] is False
    assert not selectors.game_get(game_id=forming.pk).is_private
    started = client_of("ann").post(f"/api/games/{game.pk}/privacy/", {"private": False}, format="json")
    assert_error(started, 409, "conflict", "Only a game that has not started can change its privacy.")
    assert Game.objects.get(pk=game.pk).is_private and not kinds(game, "privacy_changed")


def test_the_schema_documents_the_handover(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    paths, components = schema["paths"], schema["components"]["schemas"]
    for route in ("seats/{position}/offer", "seats/{position}/replace", "offers/{offer_id}/withdraw", "privacy"):
        operation = paths[f"/api/games/{{game_id}}/{route}/"]["post"]
        assert {"200", "400", "401", "403", "404", "409", "413", "415", "429", "503"} <= set(operation["responses"]), route
    for route in ("accept", "decline"):
        operation = paths[f"/api/offers/{{offer_id}}/{route}/"]["post"]
        assert {"200", "400", "401", "404", "409"} <= set(operation["responses"]), route
        assert "offer_closed" in operation["responses"]["409"]["description"]
    assert "ETag" in paths["/api/offers/"]["get"]["responses"]["200"]["headers"]
    assert set(components["SeatOffer"]["properties"]) == OFFER_FIELDS
    assert components["SeatOfferStatusEnum"]["enum"] == ["pending", "accepted", "declined", "withdrawn"]
    assert {"offer_closed", "seat_held", "offers_capped"} <= set(components["ErrorCodeEnum"]["enum"])
    for route in ("seats/{position}/offer", "seats/{position}/replace"):
        responses = paths[f"/api/games/{{game_id}}/{route}/"]["post"]["responses"]
        assert "seat_held" in responses["409"]["description"], route
        assert "seat_held" not in responses["400"]["description"], route
    # The offer's refusals by the game's seats: each a 409 code, none a 400 any more.
    offer = paths["/api/games/{game_id}/seats/{position}/offer/"]["post"]["responses"]
    replace = paths["/api/games/{game_id}/seats/{position}/replace/"]["post"]["responses"]
    for code in ("player_is_organizer", "player_replaced", "offered_another_seat"):
        assert code in components["ErrorCodeEnum"]["enum"], code
        assert code in offer["409"]["description"], code
        assert code not in replace["409"]["description"], code  # a site administrator meets none
    for responses in (offer, replace):
        assert "invalid, the message says why" not in responses["400"]["description"]
    responses = paths["/api/games/{game_id}/seats/{position}/offer/"]["post"]["responses"]
    assert "offers_capped" in responses["429"]["description"]
    assert "Retry-After" in responses["429"]["headers"]
    accept = paths["/api/offers/{offer_id}/accept/"]["post"]["responses"]
    assert "seat_held" in accept["409"]["description"]
    for name in ("OfferInput", "ReplaceInput", "PrivacyInput"):
        assert components[name]["additionalProperties"] is False, name
    assert "offers" in components["OrganizerTools"]["properties"]


def test_the_schema_says_a_player_is_never_blank(game, client):
    """An API audit (schemathesis): "player": "" was refused (400) while the schema's
    player was any string up to 150 characters."""
    import jsonschema

    make_staff("sam")
    before = holders(game)
    components = client.get("/api/schema/", {"format": "json"}).json()["components"]["schemas"]
    for name, url, extra, who in (
        ("OfferInput", offer_url(game, "bob"), {}, "ann"),
        ("ReplaceInput", offer_url(game, "bob", "replace"), {"confirm": True}, "sam"),
    ):
        player = components[name]["properties"]["player"]
        assert player["minLength"] == 1, name
        for blank in ("", "   "):
            answer = client_of(who).post(url, {"player": blank, **extra}, format="json")
            assert_error(answer, 400, "invalid", "player")
            with pytest.raises(jsonschema.ValidationError):
                jsonschema.Draft202012Validator(player).validate(blank)
        jsonschema.Draft202012Validator(player).validate("dave")
    assert holders(game) == before and not SeatOffer.objects.filter(game=game).exists()
