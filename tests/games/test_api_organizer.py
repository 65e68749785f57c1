"""The organizer's tools over the API (extend, remind, pause, resume, end, and what they
can still do): the same services, caps and messages as the organizer's panel; refusals
change nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from games.forms import EXTEND_HOURS_MESSAGES
from games.models import Game, LogEntry, OutboxMessage, Prompt
from games.services import organizer as organizer_services
from games.services.orders import order_submit
from tests.games.core_support import eager_celery, make_users, start_fixed
from tests.games.test_api_errors import assert_error
from tests.games.web_support import token_client

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]
NAMES = ["ann", "bob", "cat"]
TOOLS = ("extend", "remind", "pause", "resume", "end")


@pytest.fixture
def table(django_capture_on_commit_callbacks):
    """A running 5X game organized by "organizer", who holds no seat: ann, bob, cat."""
    with django_capture_on_commit_callbacks(execute=True):
        game, seats = start_fixed(NAMES, deadline_hours=24)
    assert game.status == Game.Status.ACTIVE
    return game, seats, token_client(game.organizer)


def url(game: Game, tool: str) -> str:
    return f"/api/games/{game.pk}/{tool}/"


def prompt_of(game: Game) -> Prompt:
    return Prompt.objects.get(game=game, status=Prompt.Status.OPEN)


def entries(game: Game, kind: str) -> list[LogEntry]:
    return list(LogEntry.objects.filter(game=game, kind=kind).order_by("seq"))


def a_body(tool: str) -> dict:
    """A body each tool takes."""
    return {"extend": {"hours": 5}, "end": {"confirm": True}}.get(tool, {})


def test_extend_pushes_the_deadline_back_and_logs_who_did_it(table):
    game, _seats, organizer = table
    before = prompt_of(game).deadline
    answer = organizer.post(url(game, "extend"), {"hours": 5, "reason": "holiday"}, format="json")
    assert answer.status_code == 200, answer.content
    prompt = prompt_of(game)
    assert prompt.deadline == before + timedelta(hours=5) and prompt.extensions == 1
    body = answer.json()
    assert (body["game"], body["status"], body["prompt"]) == (game.pk, "active", 1)
    assert body["deadline"] == prompt.deadline.isoformat().replace("+00:00", "Z")
    assert (body["extensions"], body["extensions_max"]) == (1, 3)
    assert body["can"] == {
        "extend": True, "remind": True, "pause": True, "resume": False, "end": True,
        "offer": True, "privacy": False,
    }  # fmt: skip
    (entry,) = entries(game, "deadline_extended")
    assert entry.payload["hours"] == 5 and entry.payload["reason"] == "holiday"
    assert (entry.payload["by"], entry.payload["as"]) == ("organizer", "organizer")


def test_extend_with_what_was_seen_is_safe_to_retry(table):
    """A retry of an extension that went through (its answer lost) is not a second one."""
    game, _seats, organizer = table
    sent = {"hours": 2, "prompt": 1, "extensions": 0}
    assert organizer.post(url(game, "extend"), sent, format="json").status_code == 200
    deadline = prompt_of(game).deadline
    again = organizer.post(url(game, "extend"), sent, format="json")
    assert_error(again, 409, "already_extended", "was just extended", "nothing more was changed")
    assert prompt_of(game).deadline == deadline and prompt_of(game).extensions == 1
    assert len(entries(game, "deadline_extended")) == 1


def test_extend_after_the_prompt_seen_was_resolved_is_a_409_prompt_closed(table):
    from games.services.resolution import prompt_resolve

    game, _seats, organizer = table
    later = timezone.now() + timedelta(days=30)  # the deadline won the race
    assert prompt_resolve(game_id=game.pk, prompt_number=1, fill_missing=True, now=later)
    stale = organizer.post(
        url(game, "extend"), {"hours": 2, "prompt": 1, "extensions": 0}, format="json"
    )
    assert_error(stale, 409, "prompt_closed", "Prompt 1 was resolved", "nothing was extended")
    assert prompt_of(game).number == 2 and prompt_of(game).extensions == 0
    assert entries(game, "deadline_extended") == []


@pytest.mark.parametrize(
    ("seen", "said"),
    [
        ({"prompt": 10**30}, "prompt: there is no prompt 1000000000000000000000000000000 yet"),
        ({"prompt": 2}, "prompt: there is no prompt 2 yet (prompt 1 is open)"),
        ({"extensions": 4}, "extensions: the deadline of prompt 1 was extended 0 times, not 4"),
    ],
)
def test_extend_naming_what_never_was_is_a_400_not_a_race(table, seen, said):
    # Regression: a prompt or count no page or answer showed read as "resolved
    # meanwhile" or "extended meanwhile" (409s a client would retry on).
    game, _seats, organizer = table
    deadline = prompt_of(game).deadline
    answer = organizer.post(url(game, "extend"), {"hours": 2, **seen}, format="json")
    body = assert_error(answer, 400, "invalid", said, "nothing was extended")
    # Named in ``fields``, as every refused field is (the README; a fuzzing find: these
    # 400s had none).
    (field,) = seen
    assert body["fields"] == {field: [body["message"].removeprefix(f"{field}: ")]}
    assert prompt_of(game).deadline == deadline and entries(game, "deadline_extended") == []


def test_extensions_capped_is_a_409_that_changes_nothing(table, settings):
    settings.GAMES_MAX_DEADLINE_EXTENSIONS = 1
    game, _seats, organizer = table
    assert organizer.post(url(game, "extend"), {"hours": 1}, format="json").status_code == 200
    deadline = prompt_of(game).deadline
    capped = organizer.post(url(game, "extend"), {"hours": 1}, format="json")
    assert_error(capped, 409, "extensions_capped", "already been extended 1 time (the limit is 1)")
    assert prompt_of(game).deadline == deadline and len(entries(game, "deadline_extended")) == 1
    tools = organizer.get(url(game, "organizer")).json()
    assert tools["extensions"] == tools["extensions_max"] == 1 and tools["can"]["extend"] is False


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({"hours": 0}, EXTEND_HOURS_MESSAGES["min_value"]),
        ({"hours": -3}, EXTEND_HOURS_MESSAGES["min_value"]),
        ({"hours": 169}, EXTEND_HOURS_MESSAGES["max_value"]),
        ({}, EXTEND_HOURS_MESSAGES["required"]),
        ({"hours": "3"}, "Must be a number (a JSON number, not a string)."),
        ({"hours": 1.5}, "Must be a whole number"),
        ({"hours": True}, "Must be a number"),
        (
            {"hours": 3, "minutes": 30},
            "minutes: Unknown field (this operation takes: extensions, hours, prompt, reason)",
        ),
        (
            {"hours": 3, "reason": "x" * 201},
            "reason: Ensure this field has no more than 200 characters.",
        ),
        ({"hours": 3, "reason": 7}, "reason: Must be a string."),
    ],
)
def test_extend_refuses_a_bad_body_with_the_forms_words_and_changes_nothing(table, body, said):
    game, _seats, organizer = table
    deadline = prompt_of(game).deadline
    answer = organizer.post(url(game, "extend"), body, format="json")
    assert_error(answer, 400, "invalid", said)
    assert prompt_of(game).deadline == deadline and prompt_of(game).extensions == 0
    assert not entries(game, "deadline_extended")


def test_a_player_who_does_not_organize_is_refused_and_nothing_changes(table):
    game, seats, _organizer = table
    (zed,) = make_users(["zed"])
    deadline = prompt_of(game).deadline
    for client in (token_client(seats["ann"].user), token_client(zed)):
        for tool in TOOLS:
            answer = client.post(url(game, tool), a_body(tool), format="json")
            assert_error(answer, 403, "forbidden", "only the organizer of this game")
        assert_error(client.get(url(game, "organizer")), 403, "forbidden")
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and prompt_of(game).deadline == deadline
    kinds = ("deadline_extended", "reminder_sent", "game_paused", "game_resumed", "game_ended")
    assert not LogEntry.objects.filter(game=game, kind__in=kinds).exists()
    assert not OutboxMessage.objects.filter(game=game, key__startswith="nudge:").exists()


def test_a_private_game_is_unknown_to_strangers_and_an_unknown_game_is_a_404(table):
    game, _seats, organizer = table
    Game.objects.filter(pk=game.pk).update(is_private=True)
    (zed,) = make_users(["zed"])
    for tool in TOOLS:
        assert_error(
            token_client(zed).post(url(game, tool), a_body(tool), format="json"), 404, "not_found"
        )
        assert_error(
            organizer.post(f"/api/games/999999/{tool}/", a_body(tool), format="json"),
            404,
            "not_found",
        )
    assert organizer.get(url(game, "organizer")).status_code == 200


def test_unauthenticated_calls_are_refused_like_every_games_endpoint(table):
    game, _seats, _organizer = table
    for tool in TOOLS:
        answer = APIClient().post(url(game, tool), a_body(tool), format="json")
        assert_error(answer, 401, "not_authenticated")
    assert_error(APIClient().get(url(game, "organizer")), 401, "not_authenticated")
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE


def test_staff_pauses_and_resumes_and_the_log_says_staff(table):
    game, _seats, _organizer = table
    (sam,) = make_users(["sam"])
    sam.is_staff = True
    sam.save()
    staff = token_client(sam)
    left = (prompt_of(game).deadline - timezone.now()).total_seconds()
    paused = staff.post(url(game, "pause"), {"reason": "server move"}, format="json")
    assert paused.status_code == 200, paused.content
    body = paused.json()
    assert body["status"] == "paused" and body["deadline"] is None
    assert left - 60 < body["remaining_seconds"] <= left + 1 and body["pauses_left"] == 3
    assert body["can"] == {
        "extend": True, "remind": False, "pause": False, "resume": True, "end": True,
        "offer": True, "privacy": False,
    }  # fmt: skip
    assert Game.objects.get(pk=game.pk).status == Game.Status.PAUSED
    (entry,) = entries(game, "game_paused")
    assert (entry.payload["by"], entry.payload["as"], entry.payload["reason"]) == (
        "sam",
        "staff",
        "server move",
    )
    resumed = staff.post(url(game, "resume"), format="json")
    assert resumed.status_code == 200 and resumed.json()["status"] == "active"
    assert resumed.json()["deadline"] is not None and resumed.json()["remaining_seconds"] is None
    (entry,) = entries(game, "game_resumed")
    assert (entry.payload["by"], entry.payload["as"]) == ("sam", "staff")


def test_a_second_pause_or_resume_is_a_409_not_a_second_one(table):
    """A double click or a retry: the state said so already, nothing more happens."""
    game, _seats, organizer = table
    assert organizer.post(url(game, "pause"), format="json").status_code == 200
    again = organizer.post(url(game, "pause"), {"reason": "again"}, format="json")
    # Regression (h3 audit L3): "Only an active game can be paused." said what, not why.
    assert_error(
        again,
        409,
        "conflict",
        "The game is paused already (since ",
        "): nothing was changed. Resume it to start its deadline again.",
    )
    assert len(entries(game, "game_paused")) == 1
    assert organizer.post(url(game, "resume"), {}, format="json").status_code == 200
    again = organizer.post(url(game, "resume"), {}, format="json")
    assert_error(again, 409, "conflict", "The game is running already: nothing was changed.")
    assert len(entries(game, "game_resumed")) == 1
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE
    assert_error(
        organizer.post(url(game, "resume"), {"reason": "x"}, format="json"),
        400,
        "invalid",
        "reason: unknown field",
    )


def test_pauses_capped_is_a_409_that_changes_nothing(table):
    game, _seats, organizer = table
    for _ in range(organizer_services.PAUSES_PER_DAY):
        organizer_services.game_pause(game=game, by=game.organizer)
        organizer_services.game_resume(game=game, by=game.organizer)
    assert organizer.get(url(game, "organizer")).json()["can"]["pause"] is False
    capped = organizer.post(url(game, "pause"), {"reason": "once more"}, format="json")
    assert_error(capped, 409, "pauses_capped", "paused 4 times in the last day, the limit")
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE
    assert len(entries(game, "game_paused")) == 4


def test_remind_emails_the_seats_still_to_order_once(table, django_capture_on_commit_callbacks):
    game, seats, organizer = table
    with django_capture_on_commit_callbacks(execute=True):
        order_submit(seat=seats["ann"], text=_a_legal_order(game, "ann"), source="web")
    tools = organizer.get(url(game, "organizer")).json()
    assert (tools["waiting"], tools["reminded"], tools["can"]["remind"]) == (
        ["bob", "cat"],
        [],
        True,
    )
    with django_capture_on_commit_callbacks(execute=True):
        answer = organizer.post(url(game, "remind"), format="json")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["reminded_now"] == body["reminded"] == body["waiting"] == ["bob", "cat"]
    assert body["unreachable"] == [] and body["can"]["remind"] is False
    nudges = OutboxMessage.objects.filter(game=game, key__startswith="nudge:")
    assert sorted(m.to for m in nudges) == ["bob@example.com", "cat@example.com"]
    (entry,) = entries(game, "reminder_sent")
    assert entry.payload == {
        "prompt": 1,
        "seats": ["bob", "cat"],
        "by": "organizer",
        "as": "organizer",
    }
    again = organizer.post(url(game, "remind"), format="json")
    assert_error(again, 409, "nobody_to_remind", "bob and cat were already reminded for prompt 1")
    assert nudges.count() == 2 and len(entries(game, "reminder_sent")) == 1


def _a_legal_order(game: Game, seat: str) -> str:
    import engine
    from games.selectors import current_state

    return engine.get("5x").legal_orders(current_state(game=game), seat)[0]


def test_remind_says_who_no_email_reaches(table, django_capture_on_commit_callbacks):
    game, seats, organizer = table
    cat = seats["cat"].user
    cat.email = ""
    cat.save()
    with django_capture_on_commit_callbacks(execute=True):
        answer = organizer.post(url(game, "remind"), format="json")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["reminded_now"] == ["ann", "bob"] and body["unreachable"] == ["cat"]
    assert entries(game, "reminder_sent")[0].payload["seats"] == ["ann", "bob"]


def test_end_asks_for_confirmation_then_ends_once(table):
    game, _seats, organizer = table
    for body, said in (
        (
            {"reason": "no time"},
            'confirm: Send "confirm": true to end the game: nothing was ended.',
        ),
        ({"confirm": False}, "nothing was ended"),
        ({"confirm": "yes"}, "Must be true or false (a JSON boolean)."),
    ):
        assert_error(organizer.post(url(game, "end"), body, format="json"), 400, "invalid", said)
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE and not entries(
        game, "game_ended"
    )
    answer = organizer.post(url(game, "end"), {"confirm": True, "reason": "no time"}, format="json")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert (body["status"], body["prompt"], body["deadline"]) == ("abandoned", None, None)
    assert not any(body["can"].values())
    game.refresh_from_db()
    assert game.status == Game.Status.ABANDONED and game.end_reason == "no time"
    (entry,) = entries(game, "game_ended")
    assert (entry.payload["by"], entry.payload["as"], entry.payload["reason"]) == (
        "organizer",
        "organizer",
        "no time",
    )
    # Over: every tool refuses it with the service's own words.
    assert_error(
        organizer.post(url(game, "end"), {"confirm": True}, format="json"),
        409,
        "game_finished",
        "already over",
    )
    for tool, said in (
        ("extend", "Only a game in progress has a deadline to extend."),
        ("remind", "Only a running game's players can be reminded."),
        ("pause", "Only an active game can be paused."),
        ("resume", "Only a paused game can be resumed."),
    ):
        assert_error(
            organizer.post(url(game, tool), a_body(tool), format="json"), 409, "conflict", said
        )
    assert len(entries(game, "game_ended")) == 1


def test_a_game_not_started_can_only_be_cancelled():
    from games.services.games import game_create

    (org,) = make_users(["org"])
    game = game_create(organizer=org, ruleset="5x", options={}, seats_count=3)
    organizer = token_client(org)
    tools = organizer.get(url(game, "organizer")).json()
    assert tools["status"] == "forming" and tools["prompt"] is None and tools["waiting"] == []
    assert tools["can"] == {
        "extend": False, "remind": False, "pause": False, "resume": False, "end": True,
        "offer": False, "privacy": True,
    }  # fmt: skip
    for tool in ("extend", "remind", "pause", "resume"):
        assert_error(organizer.post(url(game, tool), a_body(tool), format="json"), 409, "conflict")
    answer = organizer.post(url(game, "end"), {"confirm": True}, format="json")
    assert answer.status_code == 200 and answer.json()["status"] == "abandoned"


def test_the_organizer_tools_are_throttled(table, settings):
    game, _seats, organizer = table
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "organizer": "2/min"},
    }
    assert organizer.post(url(game, "pause"), format="json").status_code == 200
    assert organizer.post(url(game, "resume"), format="json").status_code == 200
    refused = organizer.post(url(game, "pause"), format="json")
    assert_error(refused, 429, "throttled")
    assert refused["Retry-After"] and refused["RateLimit-Limit"] == "2"
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE
    assert organizer.get(url(game, "organizer")).status_code == 200  # reads are not counted


def test_the_schema_documents_the_organizer_tools(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    paths, components = schema["paths"], schema["components"]["schemas"]
    for tool in TOOLS:
        operation = paths[f"/api/games/{{game_id}}/{tool}/"]["post"]
        assert {"200", "400", "401", "403", "404", "409", "413", "415", "429", "503"} <= set(
            operation["responses"]
        ), tool
        assert operation["responses"]["503"]["headers"]["Retry-After"]
        if tool in ("extend", "pause", "end"):  # remind and resume take no body
            assert list(operation["requestBody"]["content"]) == ["application/json"], tool
    assert (
        "extensions_capped"
        in paths["/api/games/{game_id}/extend/"]["post"]["responses"]["409"]["description"]
    )
    assert "ETag" in paths["/api/games/{game_id}/organizer/"]["get"]["responses"]["200"]["headers"]
    for name in ("ExtendInput", "PauseInput", "EndInput"):
        assert components[name]["additionalProperties"] is False, name
    hours = components["ExtendInput"]["properties"]["hours"]
    assert (hours["minimum"], hours["maximum"], hours["type"]) == (1, 168, "integer")
    assert "confirm" in components["EndInput"]["required"]
    assert "reminded_now" in components["Reminded"]["properties"]
    for code in ("extensions_capped", "pauses_capped", "nobody_to_remind", "already_extended"):
        assert code in components["Error"]["properties"]["error"]["description"]


def test_a_capped_extension_says_what_is_left_to_do(table, settings):
    # Regression (h3 audit L3): "already been extended 1 times (the limit is 1)." and nothing
    # of what the organizer may still do.
    settings.GAMES_MAX_DEADLINE_EXTENSIONS = 1
    game, _seats, organizer = table
    assert organizer.post(url(game, "extend"), {"hours": 5}, format="json").status_code == 200
    capped = organizer.post(url(game, "extend"), {"hours": 5}, format="json")
    assert_error(
        capped, 409, "extensions_capped", "extended 1 time (the limit is 1)", "pause the game"
    )
    assert organizer.post(url(game, "pause"), format="json").status_code == 200
    capped = organizer.post(url(game, "extend"), {"hours": 5}, format="json")
    assert_error(
        capped,
        409,
        "extensions_capped",
        "The game is paused: its deadline stays stopped until you resume it",
    )


def test_a_replaced_players_order_is_told_its_seat_was_handed_over(table, client):
    # Regression (h3 audit L3): a bare 403 "You do not hold a seat in this game." for a
    # player whose seat was handed over (an API token still in use, a page opened before).
    from django.contrib.auth import get_user_model

    from games.services import handover

    game, seats, _organizer = table
    (dave,) = make_users(["dave"])
    staff = get_user_model().objects.create_user("sam", "sam@example.com", is_staff=True)
    bob = token_client(seats["bob"].user)
    handover.seat_replace(seat=seats["bob"], new_user=dave, by=staff)
    answer = bob.post(
        f"/api/games/{game.pk}/orders/", {"text": "PASS X", "prompt": 1}, format="json"
    )
    assert_error(
        answer, 403, "no_seat",
        "Your seat bob was handed over to another player on ", "a site administrator (sam)",
        "nothing was stored", "as a spectator",
    )  # fmt: skip
    # The email telling bob (whose reply address stops working: unknown at SMTP time).
    released = OutboxMessage.objects.get(
        to="bob@example.com", subject__endswith="] Your seat was handed to another player"
    )
    assert "You may still follow it as a spectator on its page" in released.body
    stranger = token_client(make_users(["zed"])[0])
    answer = stranger.post(
        f"/api/games/{game.pk}/orders/", {"text": "PASS X", "prompt": 1}, format="json"
    )
    assert_error(answer, 403, "no_seat", "You do not hold a seat in this game.")
    client.force_login(seats["bob"].user)
    page = client.post(f"/games/{game.pk}/order/", {"text": "PASS X", "prompt": 1}, follow=True)
    said = " ".join(str(m) for m in page.context["messages"])
    assert (
        "Your seat bob was handed over to another player on " in said and "as a spectator" in said
    )
