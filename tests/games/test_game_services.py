"""A whole 5-player game of 5X through the services, checked against the engine runner."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core import mail

from engine.audit import verify_export
from games.errors import GameStateError, PermissionDenied, ValidationError
from games.models import Game, LogEntry, OutboxMessage, Prompt, SealedOrder, Seat
from games.selectors import current_state
from games.selectors_log import game_export, game_log
from games.services.game_options import NOT_RECOMMENDED_5X
from games.services.games import game_create, game_join, game_leave
from tests.games.core_support import (
    eager_celery,
    make_users,
    play_prompt,
    start_fixed,
    stored_steps,
)

pytestmark = pytest.mark.usefixtures("eager_celery")
__all__ = ["eager_celery"]

ROOT = Path(__file__).resolve().parents[2]
NAMES = ["ann", "bob", "cat", "dan", "eve"]


def _first_legal(_name: str, legal: list[str]) -> str:
    return legal[0]


def _last_legal(_name: str, legal: list[str]) -> str:
    return legal[-1]


@pytest.mark.django_db
def test_full_five_player_game_matches_engine_runner(django_capture_on_commit_callbacks) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        game, seats = start_fixed(NAMES)
    assert game.status == Game.Status.ACTIVE
    assert [s.name for s in sorted(seats.values(), key=lambda s: s.position)] == NAMES
    submitted: dict[int, dict[str, str]] = {}
    choosers = [_first_legal, _last_legal]
    for i in range(200):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        prompt, step = play_prompt(
            game, seats, choosers[i % 2], django_capture_on_commit_callbacks
        )
        submitted[prompt.number] = step
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    steps = stored_steps(game)
    # 7 rounds of at least one play prompt each, plus the draft.
    assert len(steps) >= 8
    # What the players sent is what the prompts were resolved with; every other order
    # was a seat's only legal order, entered for it.
    forced = {(p.number, n) for p in Prompt.objects.filter(game=game) for n in p.forced}
    for number, step in enumerate(steps, start=1):
        assert {n: t for n, t in step.items() if (number, n) not in forced} == submitted.get(
            number, {}
        )
    # The same script through `python -m engine run` gives the same final table.
    script = {
        "game": "5x",
        "players": NAMES,
        "options": {},
        "seed": game.seed,
        "orders": steps,
    }
    run = subprocess.run(
        [sys.executable, "-m", "engine", "run", "-"],
        input=json.dumps(script),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    printed = json.loads(run.stdout)
    assert printed["status"] == "over"
    assert printed["ranking"] == game.ranking
    import engine

    final = current_state(game=game)
    report = engine.get("5x").report(final)
    assert json.loads(json.dumps(report)) == {
        k: v for k, v in printed.items() if k not in ("game", "status")
    }
    # Exactly one resolution per prompt, every prompt resolved, seed revealed.
    prompts = Prompt.objects.filter(game=game)
    assert prompts.count() == len(steps)
    assert not prompts.filter(status=Prompt.Status.OPEN).exists()
    kinds = list(LogEntry.objects.filter(game=game).values_list("kind", flat=True))
    assert kinds.count("prompt_resolved") == len(steps)
    assert kinds.count("orders_revealed") == len(steps)
    assert kinds[-1] == "game_finished"
    finished = LogEntry.objects.get(game=game, kind="game_finished")
    assert finished.payload["seed"] == game.seed
    assert hashlib.sha256(f"{game.seed_salt}:{game.seed}".encode()).hexdigest() == game.seed_commitment
    # Every revealed order matches the commitment published when it was received.
    for entry in LogEntry.objects.filter(game=game, kind="orders_revealed"):
        for order in entry.payload["orders"].values():
            receipt = hashlib.sha256(f"{order['salt']}:{order['text']}".encode()).hexdigest()
            assert receipt == order["commitment"]
    # The export verifies offline.
    export = game_export(game=game)
    assert verify_export(json.loads(json.dumps(export))) == []
    # Each seat got one email per resolved prompt plus the start email.
    per_seat = OutboxMessage.objects.filter(game=game, seat__name="ann").count()
    assert per_seat == len(steps) + 1
    assert len(mail.outbox) == OutboxMessage.objects.filter(game=game).count()
    assert all(m.status == OutboxMessage.Status.SENT for m in OutboxMessage.objects.all())
    first = mail.outbox[0]
    assert first.reply_to and first.reply_to[0].startswith("orders+")


@pytest.mark.django_db
def test_game_log_export_runs_through_python_m_engine_verify(
    django_capture_on_commit_callbacks, tmp_path
) -> None:
    game, seats = start_fixed(["ann", "bob", "cat"])
    for _ in range(200):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        play_prompt(game, seats, _first_legal, django_capture_on_commit_callbacks)
    export = game_export(game=game)
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    ok = subprocess.run(
        [sys.executable, "-m", "engine", "verify", str(path)],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert ok.returncode == 0, ok.stdout
    # Edit one revealed order: the hash and the commitment no longer match.
    entry = next(e for e in export["entries"] if e["kind"] == "orders_revealed")
    seat = sorted(entry["payload"]["orders"])[0]
    entry["payload"]["orders"][seat]["text"] = "PLAY EXPLOIT"
    path.write_text(json.dumps(export))
    bad = subprocess.run(
        [sys.executable, "-m", "engine", "verify", str(path)],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert bad.returncode == 1
    assert f"entry {entry['seq']}: does not match its hash (its seq, kind, payload or created_at was edited)" in bad.stdout
    path.write_text("{not json")
    unreadable = subprocess.run(
        [sys.executable, "-m", "engine", "verify", str(path)],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert unreadable.returncode == 2


@pytest.mark.django_db
def test_create_validates_options_and_flags_not_recommended_variant() -> None:
    (org,) = make_users(["org"])
    with pytest.raises(ValidationError, match="unknown option 'colour'"):
        game_create(organizer=org, ruleset="5x", options={"colour": 1}, seats_count=4)
    with pytest.raises(ValidationError, match="3 to 6 players"):
        game_create(organizer=org, ruleset="5x", options={}, seats_count=7)
    with pytest.raises(ValidationError, match="unknown game"):
        game_create(organizer=org, ruleset="chess", options={}, seats_count=2)
    assert Game.objects.count() == 0
    ok = game_create(organizer=org, ruleset="5x", options={"leaders": False}, seats_count=4)
    assert ok.warnings == []
    flagged = game_create(organizer=org, ruleset="5x", options={"leaders": False}, seats_count=5)
    assert flagged.warnings == [NOT_RECOMMENDED_5X]
    assert flagged.options == {"leaders": False, "all_leaders": False}


@pytest.mark.django_db
def test_join_private_leave_and_automatic_start_with_seed_shuffle() -> None:
    org, a, b, c, d = make_users(["org", "a", "b", "c", "d"])
    game = game_create(organizer=org, ruleset="5x", options={}, seats_count=3, is_private=True)
    with pytest.raises(PermissionDenied):
        game_join(game=game, user=a)
    with pytest.raises(PermissionDenied):
        game_join(game=game, user=a, invite_token="wrong")
    seat_a = game_join(game=game, user=a, invite_token=game.invite_token)
    # Joining twice is the same seat.
    assert game_join(game=game, user=a, invite_token=game.invite_token).pk == seat_a.pk
    game_join(game=game, user=d, invite_token=game.invite_token)
    game_leave(game=game, user=d)
    game_join(game=game, user=b, invite_token=game.invite_token)
    game.refresh_from_db()
    assert game.status == Game.Status.FORMING
    assert game.seed is None and game.seed_commitment == ""
    game_join(game=game, user=c, invite_token=game.invite_token)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    with pytest.raises(GameStateError):
        game_join(game=game, user=d, invite_token=game.invite_token)
    with pytest.raises(GameStateError):
        game_leave(game=game, user=a)
    from engine.audit import seating_from_seed

    seating = [s.name for s in Seat.objects.filter(game=game).order_by("position")]
    assert seating == seating_from_seed(seed=game.seed, names=["a", "b", "c"], rule=2)
    started = LogEntry.objects.get(game=game, kind="game_started")
    assert started.payload["seed_commitment"] == game.seed_commitment
    assert "seed" not in started.payload
    assert started.payload["join_order"] == ["a", "b", "c"]
    kinds = list(LogEntry.objects.filter(game=game).values_list("kind", flat=True))
    assert kinds == [
        "game_created", "seat_joined", "seat_joined", "seat_left", "seat_joined",
        "seat_joined", "game_started",
    ]  # fmt: skip
    assert Prompt.objects.get(game=game).phase == "draft"
    # The seed is nowhere in the log until the end.
    assert str(game.seed) not in json.dumps(game_log(game=game))
    assert SealedOrder.objects.count() == 0


@pytest.mark.django_db
def test_create_seated_starts_at_once_with_the_given_seating() -> None:
    from games.services.games import game_create_seated

    org, *players = make_users(["org", "zed", "amy", "kim", "bo"])
    game = game_create_seated(
        organizer=org, ruleset="5x", options={}, users=players, name="Table 1", deadline_hours=24
    )
    assert game.status == Game.Status.ACTIVE and game.is_private and game.seats_count == 4
    assert [s.name for s in Seat.objects.filter(game=game).order_by("position")] == [
        "zed", "amy", "kim", "bo",
    ]  # fmt: skip
    assert LogEntry.objects.get(game=game, kind="game_started").payload["seating_fixed"] is True
    with pytest.raises(ValidationError):
        game_create_seated(organizer=org, ruleset="5x", options={}, users=[players[0]] * 3)


@pytest.mark.django_db
def test_the_site_bounds_the_options_the_engine_leaves_open() -> None:
    (org,) = make_users(["bounds"])
    for options, words in (
        ({"max_turns": 1001}, "max_turns is 1001; at most 1000"),
        ({"target": 34}, "target is 34; at most 33: the goal deck has 33 cards"),
    ):
        with pytest.raises(ValidationError, match=words):
            game_create(organizer=org, ruleset="6x5", options=options, seats_count=2)
    game = game_create(
        organizer=org, ruleset="6x5", options={"max_turns": 1000, "target": 33}, seats_count=2
    )
    assert (game.options["max_turns"], game.options["target"]) == (1000, 33)
    # The engine itself still takes any value (its spec sets no bound).
    import engine

    state = engine.get("6x5").new_game(players=["a", "b"], options={"max_turns": 5000}, seed=1)
    assert state["options"]["max_turns"] == 5000
    from games.forms import GameCreateForm, option_field_name

    field = GameCreateForm().fields[option_field_name("6x5", "max_turns")]
    assert field.max_value == 1000
    from tournaments.services import tournaments as tsvc

    with pytest.raises(ValidationError, match="max_turns is 2000; at most 1000"):
        tsvc.tournament_create(
            organizer=org, name="Long cup", ruleset="6x5", options={"max_turns": 2000},
            table_sizes=[2], rounds_count=1,
        )  # fmt: skip


@pytest.mark.django_db
def test_joining_says_whether_this_call_took_the_seat() -> None:
    from django.contrib.auth import get_user_model

    from games.services.games import game_create, game_join_seat

    users = [get_user_model().objects.create_user(f"js{i}", f"js{i}@example.com") for i in range(2)]
    game = game_create(organizer=users[0], ruleset="5x", seats_count=3)
    seat, created = game_join_seat(game=game, user=users[1])
    assert created is True
    again, created_again = game_join_seat(game=game, user=users[1])  # a retry, a double click
    assert (again.pk, created_again) == (seat.pk, False)
    assert Seat.objects.filter(game=game).count() == 1


@pytest.mark.django_db
def test_seat_names_write_player_names_in_ascii_letters() -> None:
    """The order language is ASCII: a seat's name is its player's name transliterated
    (it was "Zo_" and "____", which players of 6x5 and 4X Dice must type to name a seat),
    still unique within the game."""
    from django.contrib.auth import get_user_model

    users = [
        get_user_model().objects.create_user(name, f"{i}@example.test", "pw")
        for i, name in enumerate(["Zoë", "Иван", "李雷", "Zoe", "Mario_R"])
    ]
    game = game_create(organizer=users[0], ruleset="5x", seats_count=5)
    names = [game_join(game=game, user=user).name for user in users]
    assert names == ["Zoe", "Ivan", "LiLei", "Zoe-2", "Mario_R"]


@pytest.mark.django_db
def test_a_reminder_comes_before_the_deadline() -> None:
    """From a league player's walk: a 12-hour deadline with the 12-hour default reminder
    sent a reminder minutes after every turn email (a tournament's tables all did). The
    default is now half a short deadline; a reminder as long as the deadline is refused."""
    (org,) = make_users(["rem"])
    assert game_create(organizer=org, ruleset="5x", seats_count=3, deadline_hours=12).reminder_hours == 6
    assert game_create(organizer=org, ruleset="5x", seats_count=3).reminder_hours == 12  # 48 h
    assert game_create(organizer=org, ruleset="5x", seats_count=3, deadline_hours=1,
                       reminder_hours=0).reminder_hours == 0  # fmt: skip
    with pytest.raises(ValidationError, match="before the deadline: fewer hours than the deadline's 12"):
        game_create(organizer=org, ruleset="5x", seats_count=3, deadline_hours=12, reminder_hours=12)


@pytest.mark.django_db
def test_a_seat_name_never_ends_in_a_full_stop() -> None:
    """Code review: an order line loses its sentence punctuation at the end (web, API and
    email), so "TAKE GANDHI FROM bob." named "bob", not the seat "bob."."""
    from django.contrib.auth import get_user_model

    from games.notes import order_text

    users = [
        get_user_model().objects.create_user(name, f"d{i}@example.test", "pw")
        for i, name in enumerate(["bob.", "...", "ann", "Dr.Who"])
    ]
    game = game_create(organizer=users[0], ruleset="5x", seats_count=4)
    names = [game_join(game=game, user=user).name for user in users]
    assert names == ["bob", "player", "ann", "Dr.Who"]
    assert all(order_text(f"TAKE GANDHI FROM {name}") == f"TAKE GANDHI FROM {name}" for name in names)
