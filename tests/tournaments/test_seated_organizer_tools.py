"""A tournament's organizer who plays at one of its tables has none of the organizer
tools that change that table's game (extend, pause, resume, end, privacy, seat offers and
handovers, withdrawing offers): a security review had the seated organizer extend their
own deadline, pause or end their game, and offer an opponent's seat to an accomplice who
then read that hand. Reminders stay. Staff keep every tool; the organizer keeps them at
the tables where they do not play, and in a casual game they play in."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from games.errors import GameStateError, PermissionDenied
from games.models import Game, LogEntry, OutboxMessage, Prompt, Seat, SeatOffer
from games.selectors import PLAYS_AT_THE_TABLE, may_change_game
from games.services import handover
from games.services import organizer as org
from games.services.games import game_create, game_join, game_start
from games.services.organizer_panel import tools_state
from tests.games.core_support import eager_celery, play_prompt
from tests.games.test_api_errors import assert_error
from tests.games.web_support import token_client
from tests.tournaments.test_tournament_services import _open_cup, make_users
from tournaments.models import Table
from tournaments.services import rounds
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db
__all__ = ["eager_celery"]
REFUSED = "You play in this game: a tournament's games are managed by its site administrators"


@pytest.fixture
def cup():
    """A round of duels: the organizer plays at one table (``mine``), not at the other
    (``theirs``). Returns (organizer, mine, theirs, an accomplice with no seat)."""
    organizer, _users, t, _regs = _open_cup("so", 3, rounds_count=1)
    me = tsvc.registration_add(tournament=t, user=organizer)  # the organizer plays too
    rnd = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=rnd, by=organizer)
    tables = list(rnd.tables.select_related("game"))
    mine = next(table.game for table in tables if me.pk in table.players)
    theirs = next(table.game for table in tables if me.pk not in table.players)
    assert mine.part_of_path and theirs.part_of_path
    accomplice = make_users(1, prefix="acc")[0]
    return organizer, mine, theirs, accomplice


def _staff(name: str):
    return get_user_model().objects.create_user(name, f"{name}@example.com", "pw", is_staff=True)


def _opponent_seat(game: Game, organizer) -> Seat:
    return Seat.objects.exclude(user=organizer).get(game=game, status=Seat.Status.ACTIVE)


def _state(game: Game) -> tuple:
    """What any organizer tool would change: the game, its prompts, seats, offers, log
    and mail."""
    game = Game.objects.get(pk=game.pk)
    return (
        game.status, game.is_private, game.end_reason, game.finished_at,
        list(Prompt.objects.filter(game=game).order_by("number").values_list(
            "number", "status", "deadline", "extensions", "paused_remaining_seconds")),
        list(Seat.objects.filter(game=game).order_by("pk").values_list("pk", "user_id", "status")),
        list(SeatOffer.objects.filter(game=game).order_by("pk").values_list("pk", "status")),
        list(LogEntry.objects.filter(game=game).order_by("seq").values_list("seq", "kind")),
        OutboxMessage.objects.count(),
    )  # fmt: skip


def _refused(call, game: Game) -> None:
    before = _state(game)
    with pytest.raises(PermissionDenied, match=REFUSED):
        call()
    assert _state(game) == before


def test_a_seated_organizer_cannot_change_their_own_tournament_game(cup):
    organizer, mine, _theirs, accomplice = cup
    seat = _opponent_seat(mine, organizer)
    assert not may_change_game(game=mine, user=organizer)
    _refused(lambda: org.deadline_extend(game=mine, by=organizer, hours=24), mine)
    _refused(lambda: org.game_pause(game=mine, by=organizer), mine)
    _refused(lambda: org.game_end(game=mine, by=organizer, reason="I say so"), mine)
    _refused(lambda: org.game_privacy_set(game=mine, by=organizer, private=True), mine)
    _refused(lambda: handover.seat_offer(seat=seat, new_user=accomplice, by=organizer), mine)
    _refused(lambda: handover.seat_replace(seat=seat, new_user=accomplice, by=organizer), mine)
    # Paused, or an offer made, by a site administrator: the organizer may not undo them.
    staff = _staff("judge")
    org.game_pause(game=mine, by=staff)
    _refused(lambda: org.game_resume(game=mine, by=organizer), mine)
    offer = handover.seat_offer(seat=seat, new_user=accomplice, by=staff)
    _refused(lambda: handover.seat_offer_withdraw(offer=offer, by=organizer), mine)


def test_a_seated_organizers_offer_made_before_cannot_be_accepted(cup):
    # An offer the seated organizer made before this rule: accepting it would still put
    # the accomplice in the opponent's seat.
    organizer, mine, _theirs, accomplice = cup
    seat = _opponent_seat(mine, organizer)
    offer = SeatOffer.objects.create(game=mine, seat=seat, to_user=accomplice, by=organizer)
    before = _state(mine)
    with pytest.raises(PermissionDenied, match="made by the organizer, who plays in this game"):
        handover.seat_offer_accept(offer=offer, by=accomplice)
    assert _state(mine) == before
    # Nor is it offered to the player on the site or over the API (an Accept that could
    # only be refused), while one made by staff is.
    from django.test import Client

    from games.selectors import seat_offers_waiting

    assert seat_offers_waiting(user=accomplice) == []
    browser = Client()
    browser.force_login(accomplice)
    assert 'id="seat-offers"' not in browser.get("/").content.decode()
    assert 'id="seat-offer"' not in browser.get(f"/games/{mine.pk}/").content.decode()
    offer.status = SeatOffer.Status.WITHDRAWN
    offer.save()
    by_staff = handover.seat_offer(seat=seat, new_user=accomplice, by=_staff("judge"))
    assert seat_offers_waiting(user=accomplice) == [by_staff]
    assert 'id="seat-offers"' in browser.get("/").content.decode()


@pytest.mark.usefixtures("eager_celery")
def test_a_seated_organizer_keeps_the_reminders(cup, django_capture_on_commit_callbacks):
    organizer, mine, _theirs, _accomplice = cup
    opponent = _opponent_seat(mine, organizer)
    seats = {seat.name: seat for seat in Seat.objects.filter(game=mine)}
    if opponent.name not in tools_state(game=mine, by=organizer)["waiting"]:
        # only their own order is missing: refused for that, not for who they are
        with pytest.raises(GameStateError, match="Only your own order"):
            org.game_remind(game=mine, by=organizer)
        play_prompt(mine, seats, lambda _name, legal: legal[0], django_capture_on_commit_callbacks)
    state = tools_state(game=mine, by=organizer)
    assert state["waiting"] == [opponent.name] and state["refused"] == PLAYS_AT_THE_TABLE
    assert state["can"]["remind"] and not state["can"]["extend"]
    assert org.game_remind(game=mine, by=organizer) == [opponent.name]
    assert LogEntry.objects.filter(game=mine, kind="reminder_sent").count() == 1


def test_the_organizer_keeps_the_tools_at_a_table_where_they_do_not_play(cup):
    organizer, _mine, theirs, accomplice = cup
    assert may_change_game(game=theirs, user=organizer)
    org.deadline_extend(game=theirs, by=organizer, hours=24)
    org.game_pause(game=theirs, by=organizer)
    org.game_resume(game=theirs, by=organizer)
    offer = handover.seat_offer(seat=Seat.objects.filter(game=theirs).first(), new_user=accomplice, by=organizer)
    handover.seat_offer_withdraw(offer=offer, by=organizer)
    org.game_end(game=theirs, by=organizer, reason="offline")
    assert Game.objects.get(pk=theirs.pk).status == Game.Status.ABANDONED


def test_staff_who_organize_and_play_keep_every_tool(cup):
    organizer, mine, _theirs, accomplice = cup
    organizer.is_staff = True
    organizer.save()
    assert may_change_game(game=mine, user=organizer)
    org.deadline_extend(game=mine, by=organizer, hours=24)
    handover.seat_replace(seat=_opponent_seat(mine, organizer), new_user=accomplice, by=organizer)
    # ... and a site administrator who does not play there, of course.
    org.game_end(game=mine, by=_staff("judge"), reason="offline")
    assert Game.objects.get(pk=mine.pk).status == Game.Status.ABANDONED


def test_a_casual_games_seated_organizer_keeps_every_tool():
    organizer, ann, accomplice = make_users(3, prefix="cs")
    game = game_create(organizer=organizer, ruleset="6x5", options={}, seats_count=2, seat_organizer=True)
    game_join(game=game, user=ann)
    game = Game.objects.get(pk=game.pk)
    if game.status == Game.Status.FORMING:
        game_start(game=game, user=organizer)
    assert Seat.objects.filter(game=game, user=organizer).exists() and not game.part_of_path
    assert may_change_game(game=game, user=organizer)
    org.deadline_extend(game=game, by=organizer, hours=24)
    org.game_pause(game=game, by=organizer)
    org.game_resume(game=game, by=organizer)
    offer = handover.seat_offer(seat=Seat.objects.get(game=game, user=ann), new_user=accomplice, by=organizer)
    handover.seat_offer_withdraw(offer=offer, by=organizer)
    org.game_end(game=game, by=organizer)


def test_a_seated_organizer_who_left_their_seat_is_still_refused(cup):
    # "Holds or held": a seat handed to someone else does not make its old player neutral.
    organizer, mine, _theirs, accomplice = cup
    handover.seat_replace(
        seat=Seat.objects.get(game=mine, user=organizer), new_user=accomplice, by=_staff("judge")
    )
    _refused(lambda: org.deadline_extend(game=mine, by=organizer, hours=24), mine)


def test_the_round_extension_skips_the_organizers_own_table(cup):
    organizer, mine, theirs, _accomplice = cup
    rnd = Table.objects.get(game=mine).round
    done = rounds.round_extend(rnd=rnd, by=organizer, hours=24)
    assert done["tables"] == 1
    assert any("You play in this game" in why for why in done["failed"]), done
    assert Prompt.objects.get(game=mine, status=Prompt.Status.OPEN).extensions == 0
    assert Prompt.objects.get(game=theirs, status=Prompt.Status.OPEN).extensions == 1


# --- the panel ---------------------------------------------------------------------------


def test_the_panel_offers_a_seated_organizer_only_the_reminders(cup, client):
    organizer, mine, theirs, _accomplice = cup
    client.force_login(organizer)
    page = client.get(f"/games/{mine.pk}/").content.decode()
    assert 'id="organizer"' in page and PLAYS_AT_THE_TABLE.replace("'", "&#x27;") in page
    for action in ("extend", "pause", "end", "replace", "resume", "privacy"):
        assert f"/organizer/{action}/" not in page, action
    other = client.get(f"/games/{theirs.pk}/").content.decode()
    assert "/organizer/extend/" in other and "/organizer/replace/" in other
    assert PLAYS_AT_THE_TABLE.replace("'", "&#x27;") not in other


@pytest.mark.parametrize(
    "action, data",
    [
        ("extend", {"hours": "24"}),
        ("pause", {}),
        ("resume", {}),
        ("end", {"reason": "mine", "confirm": "on"}),
        ("privacy", {"private": "1"}),
        ("replace", {"seat": "", "username": "accso01", "confirm": "on"}),
        ("withdraw-offer", {"offer": ""}),
    ],
)
def test_the_panel_refuses_each_tool_to_a_seated_organizer(cup, client, action, data):
    organizer, mine, _theirs, accomplice = cup
    seat = _opponent_seat(mine, organizer)
    offer = handover.seat_offer(seat=seat, new_user=accomplice, by=_staff("judge"))
    data = {**data, **({"seat": str(seat.pk)} if "seat" in data else {})}
    data = {**data, **({"offer": str(offer.pk)} if "offer" in data else {})}
    if "username" in data:
        data["username"] = make_users(1, prefix="acc2")[0].username
    before = _state(mine)
    client.force_login(organizer)
    response = client.post(f"/games/{mine.pk}/organizer/{action}/", data, follow=True)
    assert response.status_code == 200
    assert PLAYS_AT_THE_TABLE.replace("'", "&#x27;") in response.content.decode()
    assert _state(mine) == before


# --- the API -----------------------------------------------------------------------------


def test_the_api_says_the_tools_are_not_allowed_to_a_seated_organizer(cup):
    organizer, mine, theirs, _accomplice = cup
    api = token_client(organizer)
    body = api.get(f"/api/games/{mine.pk}/organizer/").json()
    assert body["refused"] == PLAYS_AT_THE_TABLE
    assert {k for k, v in body["can"].items() if v} <= {"remind"}
    other = api.get(f"/api/games/{theirs.pk}/organizer/").json()
    assert other["refused"] is None and other["can"]["extend"] and other["can"]["offer"]


@pytest.mark.parametrize(
    "tool, body",
    [
        ("extend", {"hours": 24}),
        ("pause", {}),
        ("resume", {}),
        ("end", {"confirm": True}),
        ("privacy", {"private": True}),
        ("seats/{position}/offer", {"player": "fresh00"}),
        ("seats/{position}/replace", {"player": "fresh00", "confirm": True}),
        ("offers/{offer}/withdraw", {}),
    ],
)
def test_the_api_refuses_each_tool_to_a_seated_organizer(cup, tool, body):
    organizer, mine, _theirs, accomplice = cup
    seat = _opponent_seat(mine, organizer)
    offer = handover.seat_offer(seat=seat, new_user=accomplice, by=_staff("judge"))
    make_users(1, prefix="fresh")
    path = tool.format(position=seat.position, offer=offer.pk)
    before = _state(mine)
    answer = token_client(organizer).post(f"/api/games/{mine.pk}/{path}/", body, format="json")
    assert_error(answer, 403, "forbidden", "You play in this game")
    assert _state(mine) == before
    # A bad body is still the same refusal: who may act is checked first.
    answer = token_client(organizer).post(f"/api/games/{mine.pk}/{path}/", {"nonsense": 1}, format="json")
    assert_error(answer, 403, "forbidden", "You play in this game")
    assert _state(mine) == before
