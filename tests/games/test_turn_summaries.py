"""The daily summary (``games.services.summaries``): a player who chooses it gets no turn
or result email per prompt, one summary a day instead (once, whatever runs the beat),
telling what it may see and nothing more; reminders still come one by one."""

from __future__ import annotations

import threading
import zoneinfo
from datetime import datetime, time, timedelta

import pytest
from django.utils import timezone

from games.models import Game, OutboxMessage, Prompt, Seat, TurnSummary
from games.selectors import current_prompt
from games.services.deadlines import send_reminders
from games.services.games import game_create, game_join, game_start
from games.services.orders import order_submit
from games.services.players import player_time_zone_set, player_turn_emails_set
from games.services.summaries import send_turn_summaries
from tests.concurrency import at_once
from tests.games.core_support import make_users, play_defaults
from tests.games.web_support import eager_celery, token_client

__all__ = ["eager_celery"]

pytestmark = pytest.mark.django_db

NAMES = ["ann", "bob", "cat"]
MADRID = zoneinfo.ZoneInfo("Europe/Madrid")
BASICS = {"EXPLOIT", "EXTERMINATE", "EXPAND", "EXPLORE", "EXCAVATE"}


def _game(name: str, **policy) -> tuple[Game, dict[str, Seat]]:
    """A 5x game named ``name``, seated ann, bob, cat (in that order), started."""
    users = make_users(["organizer", *NAMES])
    game = game_create(
        organizer=users[0], ruleset="5x", options={}, seats_count=6, name=name, **policy
    )
    for user in users[1:]:
        game_join(game=game, user=user)
    game_start(game=game, user=users[0], fixed_order=list(NAMES))
    game.refresh_from_db()
    return game, {s.name: s for s in Seat.objects.filter(game=game).select_related("user")}


def _daily(name: str = "ann", hour: int = 8) -> None:
    (user,) = make_users([name])
    player_time_zone_set(user=user, time_zone="Europe/Madrid")
    player_turn_emails_set(user=user, turn_emails="daily", hour=hour)


def _order(seat: Seat, text: str, capture) -> None:
    with capture(execute=True):
        order_submit(seat=Seat.objects.get(pk=seat.pk), text=text, source="web")


def _legal(game: Game, name: str) -> list[str]:
    import engine
    from games.selectors import current_state

    return engine.get("5x").legal_orders(current_state(game=game), name)


def _draft(game: Game, seats: dict[str, Seat], capture) -> dict[str, str]:
    """Every seat passes its first leader; the decision is resolved (eager workers). Returns
    the leader each seat passed."""
    passed = {}
    for name in NAMES:
        order = _legal(game, name)[0]
        passed[name] = order.split()[1]
        _order(seats[name], order, capture)
    assert current_prompt(game=game).number == 2
    return passed


def _tomorrow_at(hour: int, minute: int = 0) -> datetime:
    day = timezone.now().astimezone(MADRID).date() + timedelta(days=1)
    return datetime.combine(day, time(hour, minute), tzinfo=MADRID)


def _summaries(to: str = "ann@example.com") -> list[OutboxMessage]:
    return list(OutboxMessage.objects.filter(kind="turn_summary", to=to).order_by("id"))


def test_with_the_summary_on_a_resolution_emails_the_others_but_not_that_player(
    eager_celery, django_capture_on_commit_callbacks
) -> None:
    _daily()
    game, seats = _game("Alpha")
    started = set(OutboxMessage.objects.filter(kind="game_started").values_list("to", flat=True))
    assert started == {"bob@example.com", "cat@example.com"}
    _draft(game, seats, django_capture_on_commit_callbacks)
    resolved = OutboxMessage.objects.filter(kind="prompt_resolved", key__startswith=f"resolved:{game.pk}:1:")
    assert sorted(resolved.values_list("to", flat=True)) == ["bob@example.com", "cat@example.com"]
    assert not OutboxMessage.objects.filter(to="ann@example.com", kind__in=["game_started", "prompt_resolved"]).exists()


def test_the_summary_is_queued_once_a_day_at_the_chosen_hour(
    eager_celery, django_capture_on_commit_callbacks
) -> None:
    _daily(hour=8)
    game, seats = _game("Alpha")
    _draft(game, seats, django_capture_on_commit_callbacks)
    assert send_turn_summaries(now=_tomorrow_at(7, 55)) == 0  # not yet
    assert _summaries() == []
    with django_capture_on_commit_callbacks(execute=True):
        assert send_turn_summaries(now=_tomorrow_at(8, 0)) == 1
    assert send_turn_summaries(now=_tomorrow_at(8, 5)) == 0  # the beat again: none more
    assert send_turn_summaries(now=_tomorrow_at(23, 55)) == 0
    (message,) = _summaries()
    assert message.status == "sent"  # by the outbox's own task, as any email
    assert message.subject == "Daily summary: 1 game waits for your order"
    # The next day: one more.
    assert send_turn_summaries(now=_tomorrow_at(8, 0) + timedelta(days=1)) == 1
    assert len(_summaries()) == 2
    assert TurnSummary.objects.filter(user__username="ann").count() == 2
    # Nobody else chose it.
    assert OutboxMessage.objects.filter(kind="turn_summary").exclude(to="ann@example.com").count() == 0


def test_turned_on_after_the_hour_the_first_summary_comes_the_next_day() -> None:
    (ann,) = make_users(["ann"])
    player_time_zone_set(user=ann, time_zone="Europe/Madrid")
    _game("Alpha")
    today_9 = timezone.now().astimezone(MADRID).replace(hour=9, minute=0, second=0, microsecond=0)
    player_turn_emails_set(user=ann, turn_emails="daily", hour=8)
    ann.player_settings.refresh_from_db()
    ann.player_settings.summary_since = today_9  # turned on at 09:00, after today's 08:00
    ann.player_settings.save()
    assert send_turn_summaries(now=today_9 + timedelta(hours=2)) == 0
    assert send_turn_summaries(now=_tomorrow_at(8, 1)) == 1


def test_the_summary_of_two_games_one_waiting_one_not(
    settings, eager_celery, django_capture_on_commit_callbacks
) -> None:
    settings.FIVEX_BASE_URL = "https://fivex.example"
    settings.ORDERS_DOMAIN = "orders.fivex.example"
    _daily()
    alpha, alpha_seats = _game("Alpha")
    beta, beta_seats = _game("Beta")
    alpha_passed = _draft(alpha, alpha_seats, django_capture_on_commit_callbacks)
    _draft(beta, beta_seats, django_capture_on_commit_callbacks)
    # Beta: ann has ordered already (it waits for bob and cat only).
    _order(beta_seats["ann"], "PLAY EXPLOIT", django_capture_on_commit_callbacks)
    # Alpha: everyone plays EXPLOIT in round 1, then it waits for ann's round 2 order.
    for name in NAMES:
        _order(alpha_seats[name], "PLAY EXPLOIT", django_capture_on_commit_callbacks)
    alpha_prompt = current_prompt(game=alpha)
    assert alpha_prompt.number == 3
    with django_capture_on_commit_callbacks(execute=True):
        assert send_turn_summaries(now=_tomorrow_at(8, 0)) == 1
    (message,) = _summaries()
    body = message.body
    deadline = alpha_prompt.deadline.astimezone(MADRID)
    written = f"{deadline:%a} {deadline.day} {deadline:%b %Y}, {deadline:%H:%M} CET"
    ann_alpha = alpha_seats["ann"].mail_token
    expected_alpha = (
        "== Alpha (your seat: ann) ==\n"
        f"YOUR ORDER IS NEEDED for decision 3 (round 2, play), deadline {written}.\n"
        f"Send your order to orders+{ann_alpha}@orders.fivex.example (this seat's own address;"
        " each game has its own).\n"
        f"Game page: https://fivex.example/games/{alpha.pk}/\n"
        "What happened since your last summary:\n"
        "The game has started. Seating: ann, bob, cat\n"
        "Decision 1 (draft) is resolved.\n"
        f"  - you passed {alpha_passed['ann']}"
    )
    assert expected_alpha in body
    assert (
        "Decision 2 (play) is resolved.\n"
        "  - ann played EXPLOIT; bob played EXPLOIT; cat played EXPLOIT\n"
        "  - Exploit: ann gained 1, bob gained 1, cat gained 1\n"
    ) in body
    assert body.startswith(
        f"Your daily summary of {_tomorrow_at(8).day} {_tomorrow_at(8):%b %Y}: "
        "1 game waits for your order.\n"
        "Deadline reminders still come one by one, before each deadline, while your order is missing.\n"
    )
    others = body.split("Your other games where something happened:\n", 1)[1]
    assert others.startswith(
        "\n== Beta (your seat: ann) ==\n"
        f"Game page: https://fivex.example/games/{beta.pk}/\n"
        "Decision 2 (round 1, play) waits for bob, cat.\n"
        "What happened since your last summary:\n"
        "The game has started. Seating: ann, bob, cat\n"
        "Decision 1 (draft) is resolved.\n"
    )
    assert "YOUR ORDER IS NEEDED" not in others  # Beta has ann's order
    assert f"orders+{beta_seats['ann'].mail_token}@" not in body
    assert body.count("YOUR ORDER IS NEEDED") == 1
    assert "https://fivex.example/account/settings/#turn-emails" in body
    assert message.reply_to == ""  # one address per seat, in the body: no reply to this
    # The next day tells only what happened since.
    for name in NAMES:
        _order(alpha_seats[name], "PLAY EXTERMINATE", django_capture_on_commit_callbacks)
    assert send_turn_summaries(now=_tomorrow_at(8, 0) + timedelta(days=1)) == 1
    second = _summaries()[1].body
    assert "Decision 3 (play) is resolved." in second
    assert "  - ann played EXTERMINATE; bob played EXTERMINATE; cat played EXTERMINATE\n" in second
    assert "Decision 2 (play)" not in second and "Decision 1 (draft)" not in second
    assert "Beta" not in second  # nothing happened there, and it does not wait for ann


def test_the_summary_shows_no_other_seat_s_hand_or_sealed_order(
    eager_celery, django_capture_on_commit_callbacks
) -> None:
    _daily()
    game, seats = _game("Alpha")
    passed = _draft(game, seats, django_capture_on_commit_callbacks)
    # The leaders bob and cat kept, and the one bob passed to cat: secret to ann (she
    # knows hers, the one she passed to bob and the one cat passed to her).
    kept = {
        name: [o.split()[1] for o in _legal(game, name) if o.split()[1] not in BASICS]
        for name in ("bob", "cat")
    }
    kept["bob"].remove(passed["ann"])  # received from ann
    kept["cat"].remove(passed["bob"])  # received from bob
    (secret_bob,), (secret_cat,) = kept["bob"], kept["cat"]
    secrets = {secret_bob, secret_cat, passed["bob"]}
    assert not secrets & {passed["ann"], passed["cat"]}
    # Bob seals a leader (not revealed: the prompt waits for ann and cat).
    _order(seats["bob"], f"PLAY {secret_bob}", django_capture_on_commit_callbacks)
    assert current_prompt(game=game).number == 2
    assert send_turn_summaries(now=_tomorrow_at(8, 0)) == 1
    (message,) = _summaries()
    body = message.body
    assert "YOUR ORDER IS NEEDED for decision 2" in body  # it is the summary we mean
    assert not [name for name in secrets if name in body]
    assert f"PLAY {secret_bob}" not in body
    assert passed["ann"] in body and passed["cat"] in body  # her own pass: hers to see
    # Each seat's draft event is its own: only ann's is told.
    assert body.count("you passed") == 1 and "bob passed" not in body and "cat passed" not in body


def test_reminders_and_the_game_s_end_still_come_one_by_one(
    eager_celery, django_capture_on_commit_callbacks
) -> None:
    _daily()
    game, seats = _game("Alpha", deadline_hours=12, reminder_hours=2)
    prompt = current_prompt(game=game)
    with django_capture_on_commit_callbacks(execute=True):
        assert send_reminders(now=prompt.deadline - timedelta(hours=1)) == 3
    reminded = OutboxMessage.objects.filter(kind="reminder").values_list("to", flat=True)
    assert "ann@example.com" in reminded
    assert play_defaults(game)
    ended = OutboxMessage.objects.filter(to="ann@example.com", kind="prompt_resolved")
    assert [m.subject.split("]")[1].split(":")[0].strip() for m in ended] == ["Game over"]
    # The next summary says so in a line (the game's email had the final ranking).
    assert send_turn_summaries(now=_tomorrow_at(8, 0)) == 1
    (summary,) = _summaries()
    assert summary.subject == "Daily summary: no game waits for your order"
    assert "\n== Alpha (your seat: ann) ==\n" in summary.body
    assert "\nThe game is over: " in summary.body and "(emailed to you then).\n" in summary.body


def test_switching_back_to_one_email_per_prompt(
    eager_celery, django_capture_on_commit_callbacks
) -> None:
    _daily()
    game, seats = _game("Alpha")
    _draft(game, seats, django_capture_on_commit_callbacks)
    assert not OutboxMessage.objects.filter(to="ann@example.com", kind="prompt_resolved").exists()
    player_turn_emails_set(user=seats["ann"].user, turn_emails="each")
    for name in NAMES:
        _order(seats[name], "PLAY EXPLOIT", django_capture_on_commit_callbacks)
    (resolved,) = OutboxMessage.objects.filter(to="ann@example.com", kind="prompt_resolved")
    assert resolved.key == f"resolved:{game.pk}:2:{seats['ann'].pk}"
    assert send_turn_summaries(now=_tomorrow_at(9)) == 0  # no summary any more


def test_the_settings_api_sets_the_summary_and_warns_of_short_deadlines() -> None:
    (ann,) = make_users(["ann"])
    api = token_client(ann)
    answer = api.patch("/api/settings/", {"turn_emails": "daily", "summary_hour": 20}, format="json")
    assert answer.status_code == 200, answer.json()
    assert (answer.json()["turn_emails"], answer.json()["summary_hour"]) == ("daily", 20)
    assert answer.json()["summary_warning"] is None
    for body, field in (
        ({"summary_hour": 24}, "summary_hour"),
        ({"summary_hour": "8am", "turn_emails": "each"}, "summary_hour"),
        ({"turn_emails": "weekly", "summary_hour": 7}, "turn_emails"),
    ):
        bad = api.patch("/api/settings/", body, format="json")
        assert bad.status_code == 400 and field in bad.json()["fields"], (body, bad.json())
    now = api.get("/api/settings/").json()
    assert (now["turn_emails"], now["summary_hour"]) == ("daily", 20)  # nothing changed
    short, _seats = _game("Blitz", deadline_hours=6, reminder_hours=2)
    warning = api.get("/api/settings/").json()["summary_warning"]
    assert warning.startswith("Blitz has deadlines shorter than a day")
    assert "reminder before the deadline still comes" in warning


def test_the_settings_page_sets_the_summary(client) -> None:
    (ann,) = make_users(["ann"])
    _game("Blitz", deadline_hours=6, reminder_hours=2)
    client.force_login(ann)
    page = client.get("/account/settings/").content.decode()
    assert "Deadline reminders still come one by one" in page
    assert "Blitz has deadlines shorter than a day" in page
    assert "a decision may open and reach its deadline" in page  # the API's word: prompt
    answer = client.post(
        "/account/settings/", {"form": "turn_emails", "turn_emails": "daily", "summary_hour": "7"}
    )
    assert answer.status_code == 302
    ann.player_settings.refresh_from_db()
    assert (ann.player_settings.turn_emails, ann.player_settings.summary_hour) == ("daily", 7)
    bad = client.post(
        "/account/settings/", {"form": "turn_emails", "turn_emails": "daily", "summary_hour": "25"}
    )
    assert bad.status_code == 400
    assert "a whole hour from 0 to 23" in bad.content.decode()
    ann.player_settings.refresh_from_db()
    assert ann.player_settings.summary_hour == 7


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_at_once_queue_one_summary(monkeypatch) -> None:
    """Both find ann's summary due (each waits for the other after its read), then both
    write it: the database lets one."""
    from games.services import summaries

    _daily()
    game, _seats = _game("Alpha")
    assert Prompt.objects.filter(game=game).count() == 1
    now = _tomorrow_at(8, 0)
    barrier = threading.Barrier(2)
    seen: list[list] = []
    real_due = summaries.summaries_due

    def due_then_wait(**kwargs):
        found = real_due(**kwargs)
        seen.append(found)
        barrier.wait(10)  # both have read what is due before either writes
        return found

    monkeypatch.setattr(summaries, "summaries_due", due_then_wait)

    results, failures = at_once(*[lambda: send_turn_summaries(now=now)] * 2)
    assert not failures, failures
    ann_id = Seat.objects.get(game=game, name="ann").user_id
    assert seen == [[(ann_id, now.date())]] * 2
    assert sorted(results) == [0, 1]
    assert len(_summaries()) == 1
    assert TurnSummary.objects.count() == 1


def test_the_account_download_shows_the_choice_and_closing_forgets_the_summaries(
    eager_celery, django_capture_on_commit_callbacks
) -> None:
    from fivex_site.account_close import account_close
    from fivex_site.account_export import account_export

    _daily(hour=21)
    game, seats = _game("Alpha")
    ann = seats["ann"].user
    account = account_export(user=ann)["account"]
    assert (account["turn_emails"], account["summary_hour"]) == ("daily", 21)
    assert send_turn_summaries(now=_tomorrow_at(21, 0)) == 1
    with django_capture_on_commit_callbacks(execute=True):
        account_close(user=ann)
    assert not TurnSummary.objects.filter(user=ann).exists()
    assert send_turn_summaries(now=_tomorrow_at(21, 0) + timedelta(days=1)) == 0


@pytest.mark.parametrize("hour", ["²", "٣٣", "1²"])
def test_the_settings_page_refuses_a_summary_hour_of_other_digits(client, hour) -> None:
    """Regression: a summary hour of characters Python calls digits but int() refuses
    ("²", a superscript) was a 500 on the settings page; it is refused with the reason."""
    (ann,) = make_users(["ann"])
    client.force_login(ann)
    answer = client.post(
        "/account/settings/", {"form": "turn_emails", "turn_emails": "daily", "summary_hour": hour}
    )
    assert answer.status_code == 400
    assert "a whole hour from 0 to 23" in answer.content.decode()


def test_the_summary_s_queries_do_not_grow_with_the_player_s_games(
    eager_celery, django_capture_on_commit_callbacks, django_assert_num_queries
) -> None:
    """A player in many games: their summary costs as many queries as with one game (each
    game waiting for the player's order, started and resolved since the summary was on)."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.services.summaries import turn_summary_send

    _daily()
    ann = get_user_model().objects.get(username="ann")
    game, seats = _game("Alpha")
    _draft(game, seats, django_capture_on_commit_callbacks)
    now = _tomorrow_at(8)
    with CaptureQueriesContext(connection) as one_game:
        assert turn_summary_send(user_id=ann.pk, day=now.date(), now=now) is not None
    for name in ("Beta", "Gamma", "Delta"):
        game, seats = _game(name)
        _draft(game, seats, django_capture_on_commit_callbacks)
    TurnSummary.objects.filter(user=ann).delete()  # the same period told again, four games now
    later = now + timedelta(days=1)
    with django_assert_num_queries(len(one_game)):
        message = turn_summary_send(user_id=ann.pk, day=later.date(), now=later)
    assert message.subject == "Daily summary: 4 games wait for your order"
    for name in ("Alpha", "Beta", "Gamma", "Delta"):
        assert f"== {name} (your seat: ann) ==\nYOUR ORDER IS NEEDED for decision 2" in message.body
    assert message.body.count("The game has started. Seating: ann, bob, cat") == 4
    assert message.body.count("Decision 1 (draft) is resolved.") == 4
