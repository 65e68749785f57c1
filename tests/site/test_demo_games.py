"""`make demo` (manage.py demo_games): demo players and games in progress, development only."""

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from games.models import Game, LogEntry, OutboxMessage, SealedOrder
from games.selectors import current_prompt

DEMO = ["ann@example.com", "bob@example.com", "cat@example.com", "dan@example.com", "eve@example.com"]


@pytest.mark.django_db(transaction=True)
def test_demo_games_leave_three_games_waiting_for_ann_and_a_second_run_changes_nothing(
    settings, client, caplog, monkeypatch
) -> None:
    """Also: `make run ADDRPORT=127.0.0.1:8180`, then `make demo`: the demo printed links to
    port 8000, and a line per task it ran (hundreds) above the logins (a README audit). One
    demo run checks both (a run plays dozens of prompts: ~15 s)."""
    import logging

    from fivex_site.celery import app
    from games.services.orders import order_submit
    from tournaments.models import Tournament

    monkeypatch.delenv("FIVEX_BASE_URL", raising=False)
    settings.DEBUG = True
    out = StringIO()
    with caplog.at_level(logging.INFO):
        call_command("demo_games", "--addrport", "127.0.0.1:8741", stdout=out)
    printed = out.getvalue()
    assert [r.getMessage() for r in caplog.records if r.name.startswith("celery")] == []
    password = printed.split("password:")[1].split()[0]
    ann = get_user_model().objects.get(email="ann@example.com")
    assert get_user_model().objects.filter(email__in=DEMO).count() == 5
    assert all(u.check_password(password) for u in get_user_model().objects.filter(email__in=DEMO))
    assert client.post("/accounts/login/", {"login": "ann@example.com", "password": password}).status_code == 302

    waiting = Game.objects.filter(name__contains="Ann to order") | Game.objects.filter(name__contains="Ann v Bob")
    assert sorted(waiting.values_list("ruleset", flat=True)) == ["4x-dice", "5x", "6x5"]
    for game in waiting:
        assert game.status == "active"
        assert f"http://127.0.0.1:8741/games/{game.pk}/" in printed
        prompt = current_prompt(game=game)
        assert prompt.number > 3  # some history to read
        assert "Ann" in prompt.pending and "Ann" not in prompt.forced
        sealed = set(
            SealedOrder.objects.filter(prompt=prompt, is_current=True).values_list("seat_name", flat=True)
        )
        assert sealed == set(prompt.pending) - {"Ann"}  # every other seat's order is in
        assert game.seats.filter(user=ann).exists()

    from games.models import GameMessage

    assert GameMessage.objects.filter(game__ruleset="5x", game__name__contains="Ann to order").count() == 2
    invited = Game.objects.get(name__contains="invites Ann")
    assert invited.status == "forming" and invited.is_private
    assert sorted(invited.invitations.values_list("user__username", flat=True)) == ["Ann", "Dan"]
    finished = Game.objects.get(name__contains="finished")
    assert finished.status == "finished"
    assert not finished.seats.filter(user=ann).exists()
    for game in Game.objects.exclude(status="forming"):  # every log replays and verifies
        verified = StringIO()
        call_command("verify_game", str(game.pk), stdout=verified)
        assert ": OK (" in verified.getvalue()

    tournament = Tournament.objects.get()
    assert tournament.organizer == ann and tournament.status == "running"
    assert tournament.registrations.count() == 4
    assert list(tournament.rounds.order_by("number").values_list("status", flat=True)) == [
        "finished",
        "started",
    ]
    first = tournament.rounds.get(number=1)
    assert all(t.ranking for t in first.tables.all())  # results recorded from the games
    assert Game.objects.filter(part_of_path__contains=tournament.slug).count() == 4
    assert f"http://127.0.0.1:8741/tournaments/{tournament.slug}/" in printed
    assert ":8000/" not in printed
    # No turn email of the history was sent: the README's orders by email on this machine
    # take the address from the game page's "Orders by email" box.
    from games.services.seats import seat_reply_address

    ann_v_bob = Game.objects.get(name__contains="Ann v Bob")
    page = client.get(f"/games/{ann_v_bob.pk}/").content.decode()
    assert "Orders by email" in page
    assert seat_reply_address(seat=ann_v_bob.seats.get(user=ann)) in page
    # The history sent no email; nothing is waiting to be printed in the terminal.
    assert not OutboxMessage.objects.filter(to__in=DEMO).exists()

    again = StringIO()
    counts = (get_user_model().objects.count(), Game.objects.count(), LogEntry.objects.count())
    call_command("demo_games", stdout=again)
    assert "here already" in again.getvalue() and "nothing was changed" in again.getvalue()
    assert password not in again.getvalue()
    command = again.getvalue().split("set one: `")[1].split("`")[0]
    # Named a development site's: without FIVEX_ENV the command refuses (fivex_site/deployment.py).
    assert command.split()[:4] == ["FIVEX_ENV=development", ".venv/bin/python", "manage.py", "changepassword"]
    assert (get_user_model().objects.count(), Game.objects.count(), LogEntry.objects.count()) == counts

    # Ann's order resolves the 5X game's prompt: the game goes on, and from now on emails go out.
    game = waiting.get(ruleset="5x")
    prompt = current_prompt(game=game)
    legal = client.get(f"/api/games/{game.pk}/").json()["legal_orders"]
    saved = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        order_submit(seat=game.seats.get(user=ann), text=legal[0], source="web")
    finally:
        app.conf.task_always_eager = saved
    prompt.refresh_from_db()
    assert prompt.resolved_at is not None
    assert current_prompt(game=game).number == prompt.number + 1
    assert OutboxMessage.objects.filter(to="ann@example.com", game=game).exists()


@pytest.mark.django_db
def test_demo_games_refused_on_a_site_that_is_not_a_development_one(settings) -> None:
    settings.DEBUG = False
    with pytest.raises(CommandError, match="development site only"):
        call_command("demo_games", stdout=StringIO())
    assert not get_user_model().objects.filter(email__in=DEMO).exists()
    assert not Game.objects.exists()


@pytest.mark.django_db
def test_demo_games_refused_when_a_demo_name_belongs_to_someone_else(settings) -> None:
    settings.DEBUG = True
    get_user_model().objects.create_user(username="Cat", email="cat@elsewhere.org")
    with pytest.raises(CommandError, match="another address"):
        call_command("demo_games", stdout=StringIO())
    assert get_user_model().objects.count() == 1
    assert not Game.objects.exists()


def test_make_demo_passes_make_runs_address() -> None:
    """`make demo ADDRPORT=…` gives the demo the address `make run ADDRPORT=…` serves."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    dry = subprocess.run(
        ["make", "-n", "demo", "ADDRPORT=127.0.0.1:8741"], cwd=root, capture_output=True,
        text=True, timeout=60,
    )  # fmt: skip
    assert "manage.py demo_games --addrport 127.0.0.1:8741" in dry.stdout
