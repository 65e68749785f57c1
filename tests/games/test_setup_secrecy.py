"""A game's fixed set-up (5X's dealt leaders, 6x5's secret goals) is sealed in the log
while the game runs: ``game_started`` carries only a commitment
``sha256(setup_salt + ":" + canonical_json(setup))``; the entry that ends the game
reveals the set-up and its salt, and the verifier checks one against the other."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

import engine
from engine.audit import GENESIS, entry_hash, verify_export
from games import selectors, selectors_log
from games.errors import GameStateError
from games.models import Game, LogEntry, OutboxMessage
from games.services import games as game_services
from games.services.organizer import game_end
from tests.games.web_support import body_text, eager_celery, make_user

pytestmark = pytest.mark.django_db
__all__ = ["eager_celery"]

DEAL = {"ann": ["GANDHI", "CAESAR"], "bob": ["QIN", "DIDO"], "cat": ["NAPOLEON", "TOKUGAWA"]}
GOALS = {
    "ann": [[[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]]],
    "bob": [[[0, 0], [0, 1], [0, 2], [1, 2], [2, 2]]],
}


def _by_hand_commitment(salt: str, setup: dict) -> str:
    body = json.dumps(setup, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(f"{salt}:{body}".encode()).hexdigest()


def _raw_log(game) -> str:
    return json.dumps([e.payload for e in LogEntry.objects.filter(game=game).order_by("seq")])


def _player_outputs(game, users: dict) -> dict[tuple[str, str | None], str]:
    """Every selector output, log/API answer and email a player or spectator can read
    now, keyed by (where, whose eyes): ``None`` means everyone may read it."""
    out: dict[tuple[str, str | None], str] = {
        ("raw log", None): _raw_log(game),
        ("spectator", None): json.dumps(selectors.spectator_view(game=game)),
    }
    for name, user in users.items():
        out[("game_log", None)] = json.dumps(selectors_log.game_log(game=game, for_user=user))
        seat = selectors.seat_for_user(game=game, user=user)
        if seat is not None:
            out[("seat_view", name)] = json.dumps(selectors.seat_view(seat=seat))
        client = Client()
        client.force_login(user)
        for url in (f"/api/games/{game.pk}/log/", reverse("games:log", args=[game.pk])):
            out[(f"{url} as {name}", None)] = body_text(client.get(url))
    for message in OutboxMessage.objects.select_related("seat"):
        whose = message.seat.name if message.seat is not None else None
        text = f"{message.subject} {message.body} {message.html or ''}"
        out[(f"mail {message.pk} to {message.to}", whose)] = text
    return out


@pytest.fixture
def dealt(django_capture_on_commit_callbacks):
    users = {n: make_user(n) for n in ("ann", "bob", "cat", "zed")}
    game = game_services.game_create(
        organizer=users["ann"], ruleset="5x", seats_count=4, setup={"deal": DEAL}
    )
    for name in ("ann", "bob", "cat"):
        game_services.game_join(game=game, user=users[name])
    with django_capture_on_commit_callbacks(execute=True):
        game_services.game_start(game=game, user=users["ann"], fixed_order=["ann", "bob", "cat"])
    game.refresh_from_db()
    return game, users


def test_5x_deal_is_only_committed_while_the_game_runs(dealt) -> None:
    game, users = dealt
    started = LogEntry.objects.get(game=game, kind="game_started")
    assert "setup" not in started.payload
    salt = hashlib.sha256(f"setup:{game.seed_salt}".encode()).hexdigest()[:32]
    assert started.payload["setup_commitment"] == _by_hand_commitment(salt, {"deal": DEAL})
    outputs = _player_outputs(game, users)
    assert any(key[0].startswith("mail") for key in outputs)
    # Nobody sees another seat's leaders: not in the log, its pages, the selectors'
    # output or the mail (a seat's own view and mail show its own hand only).
    for (where, whose), text in outputs.items():
        for name, leaders in DEAL.items():
            if name == whose:
                continue
            for leader in leaders:
                assert leader not in text, f"{name}'s {leader} visible in {where}"
        assert '"deal"' not in text, where
    with pytest.raises(GameStateError):
        selectors_log.game_export(game=game)


def test_revealed_deal_verifies_and_tampering_is_detected(dealt) -> None:
    game, _users = dealt
    call_command("verify_game", str(game.pk), stdout=open("/dev/null", "w"))  # running: OK
    game_end(game=game, by=game.organizer, reason="test over")
    game.refresh_from_db()
    ended = LogEntry.objects.get(game=game, kind="game_ended")
    assert ended.payload["setup"] == {"deal": DEAL}
    export = json.loads(json.dumps(selectors_log.game_export(game=game)))
    assert verify_export(export) == []

    # Offline, from the log alone (no server-side game record of the set-up).
    offline = json.loads(json.dumps(export))
    offline["game"].pop("setup")
    offline["game"].pop("setup_salt")
    assert verify_export(offline) == []

    # Someone rewrites the revealed deal and re-chains every hash after it: only the
    # commitment in game_started can catch it.
    forged = {"ann": ["DIDO", "CAESAR"], "bob": ["QIN", "GANDHI"], "cat": DEAL["cat"]}
    prev = GENESIS
    for entry in offline["entries"]:
        if entry["kind"] == "game_ended":
            entry["payload"]["setup"] = {"deal": forged}
        entry["prev_hash"] = prev
        entry["hash"] = entry_hash(
            prev_hash=prev, seq=entry["seq"], kind=entry["kind"],
            payload=entry["payload"], created_at=entry["created_at"],
        )  # fmt: skip
        prev = entry["hash"]
    problems = verify_export(offline)
    assert any("set-up commitment" in p for p in problems), problems

    # Server-side: a set-up edited in the database no longer matches the commitment.
    game.setup = {"deal": forged}
    game.save(update_fields=["setup"])
    with pytest.raises(CommandError):
        call_command("verify_game", str(game.pk), stdout=open("/dev/null", "w"))


def test_6x5_goals_are_only_committed_while_the_game_runs(django_capture_on_commit_callbacks):
    ann, bob = make_user("ann"), make_user("bob")
    game = game_services.game_create(
        organizer=ann, ruleset="6x5", seats_count=2, setup={"goals": GOALS}
    )
    with django_capture_on_commit_callbacks(execute=True):
        for user in (ann, bob):
            game_services.game_join(game=game, user=user)
    game.refresh_from_db()
    assert game.status == "active"
    state = selectors.current_state(game=game)
    rules = engine.get("6x5")
    secrets = {"ann": rules.secrets(state, "ann"), "bob": rules.secrets(state, "bob")}
    assert secrets["ann"] and secrets["bob"]
    raw = _raw_log(game)
    assert "setup_commitment" in raw
    for shapes in GOALS.values():
        assert json.dumps(shapes) not in raw  # ("goals" itself is also a public option)
    for fragments in secrets.values():
        for fragment in fragments:
            assert fragment not in raw
    for who, user in (("ann", ann), ("bob", bob)):
        other = "bob" if who == "ann" else "ann"
        text = json.dumps(selectors_log.game_log(game=game, for_user=user))
        for fragment in secrets[other]:
            assert fragment not in text, (who, fragment)
    game_end(game=game, by=ann, reason="over")
    game.refresh_from_db()
    ended = LogEntry.objects.get(game=game, kind="game_ended")
    assert ended.payload["setup"] == {"goals": GOALS}
    export = json.loads(json.dumps(selectors_log.game_export(game=game)))
    assert verify_export(export) == []
    export["game"]["setup_salt"] = "0" * 32
    export["entries"][-1]["payload"]["setup_salt"] = "0" * 32
    assert any("set-up" in p for p in verify_export(export))


def test_admin_change_page_does_not_show_a_fixed_setup(admin_client):
    """Regression: the admin's game page showed ``Game.setup`` (dealt leaders) mid-game."""
    from django.contrib.auth import get_user_model

    from games.services.games import game_create, game_join

    User = get_user_model()
    users = [User.objects.create_user(n, f"{n}@example.com", "pw") for n in ("ama", "ben", "cyn")]
    deal = {"ama": ["SULEIMAN", "CAESAR"], "ben": ["QIN", "DIDO"], "cyn": ["ERIK", "NAPOLEON"]}
    game = game_create(organizer=users[0], ruleset="5x", seats_count=3, options={"all_leaders": True},
                       setup={"deal": deal})
    for user in users:
        game_join(game=game, user=user)
    answer = admin_client.get(f"/admin/games/game/{game.pk}/change/")
    assert answer.status_code == 200
    page = answer.content.decode()
    assert f"game {game.pk} | Change game" in page  # the game's own page, rendered
    assert "SULEIMAN" not in page and "NAPOLEON" not in page


def test_the_admin_shows_revealed_orders_as_commitments_and_no_reply_address_mid_game(
    admin_client, django_capture_on_commit_callbacks
):
    """Regression: the admin's log entry page showed a 5X draft pass (never revealed to
    the others) while the game ran, and the outbox page the seat's private address."""
    from games.services.games import game_create, game_join
    from games.services.orders import order_submit
    from games.services.resolution import prompt_resolve
    from games.services.seats import seat_reply_address

    users = [make_user(n) for n in ("adm1", "adm2", "adm3")]
    deal = {"adm1": ["SULEIMAN", "CAESAR"], "adm2": ["QIN", "DIDO"], "adm3": ["ERIK", "NAPOLEON"]}
    game = game_create(organizer=users[0], ruleset="5x", seats_count=3, options={"all_leaders": True},
                       setup={"deal": deal})  # fmt: skip
    for user in users:
        game_join(game=game, user=user)
    for seat, passed in (("adm1", "CAESAR"), ("adm2", "DIDO"), ("adm3", "NAPOLEON")):
        order_submit(seat=game.seats.get(name=seat), text=f"PASS {passed}", source="web")
    assert prompt_resolve(game_id=game.pk, prompt_number=1)
    revealed = LogEntry.objects.get(game=game, kind="orders_revealed")
    page = admin_client.get(f"/admin/games/logentry/{revealed.pk}/change/").content.decode()
    assert revealed.payload["orders"]["adm2"]["commitment"] in page
    assert "PASS DIDO" not in page and "PASS CAESAR" not in page
    message = OutboxMessage.objects.filter(game=game, seat__name="adm2").first()
    page = admin_client.get(f"/admin/games/outboxmessage/{message.pk}/change/").content.decode()
    token = seat_reply_address(seat=game.seats.get(name="adm2")).split("+")[1].split("@")[0]
    assert message.subject in page and token not in page


def test_the_admin_refuses_an_unknown_quiet_hours_time_zone():
    """A typo would silently read the game's quiet hours in UTC."""
    from games.admin import GameAdminForm

    form = GameAdminForm(data={"quiet_hours_time_zone": "Europe/Pariss"})
    form.is_valid()
    assert "Unknown time zone 'Europe/Pariss'" in form.errors["quiet_hours_time_zone"][0]
    form = GameAdminForm(data={"quiet_hours_time_zone": " Europe/Paris "})
    form.is_valid()
    assert "quiet_hours_time_zone" not in form.errors
    assert form.cleaned_data["quiet_hours_time_zone"] == "Europe/Paris"


def test_the_admin_lists_filter_only_by_their_own_filters(admin_client):
    """Regression (pen test): any field could be filtered from the address, hidden ones
    included, and the row count gave away a sealed order, the seed or a seat's reply
    address one character at a time (``?text__startswith=PASS%20G``: 1 row, then 0)."""
    from games.services.games import game_create, game_join
    from games.services.orders import order_submit

    users = [make_user(n) for n in ("flt1", "flt2", "flt3")]
    game = game_create(organizer=users[0], ruleset="5x", seats_count=3)
    for user in users:
        game_join(game=game, user=user)
    game.refresh_from_db()
    seat = game.seats.get(name="flt1")
    order_submit(seat=seat, text=f"PASS {selectors.seat_view(seat=seat)['legal_orders'][0].split()[1]}",
                 source="web")  # fmt: skip
    probes = [
        "/admin/games/sealedorder/?text__startswith=PASS",
        "/admin/games/sealedorder/?salt__startswith=0",
        "/admin/games/sealedorder/?parsed__isnull=False",
        f"/admin/games/game/?id={game.pk}&seed__gte=0",
        "/admin/games/game/?seed_salt__startswith=a",
        "/admin/games/game/?setup__isnull=False",
        "/admin/games/game/?invite_token__startswith=a",
        "/admin/games/outboxmessage/?body__contains=PASS",
        "/admin/games/outboxmessage/?reply_to__startswith=orders",
        "/admin/games/prompt/?events__icontains=PASS",
        "/admin/games/logentry/?payload__contains=x",  # was a 500 on SQLite
        "/admin/mail/inboundmail/?raw__contains=x",
        "/admin/tournaments/tournament/?options__isnull=False",
        "/admin/tournaments/round/?pairing_input__isnull=False",
    ]
    for probe in probes:
        answer = admin_client.get(probe)
        assert answer.status_code == 400, probe  # refused, whatever the rows hold
    # The lists' own filters still work: each keeps the rows it names, and only those.
    from games.models import Game, LogEntry, SealedOrder

    def listed(url: str) -> set[int]:
        answer = admin_client.get(url)
        assert answer.status_code == 200, url
        return {row.pk for row in answer.context["cl"].result_list}

    assert game.pk in listed("/admin/games/game/?status__exact=active")
    assert listed("/admin/games/game/?status__exact=finished") == set()
    created = set(LogEntry.objects.filter(kind="game_created").values_list("pk", flat=True))
    assert listed("/admin/games/logentry/?kind__exact=game_created") == created
    assert created < set(LogEntry.objects.values_list("pk", flat=True))  # a filter, not all
    assert listed(f"/admin/games/game/?id={game.pk}") == {game.pk}
    assert listed("/admin/games/sealedorder/") == {SealedOrder.objects.get(seat=seat).pk}
    assert Game.objects.get(pk=game.pk).status == "active"


def test_the_admin_shows_an_email_refusal_only_once_the_game_is_over(admin_client, settings):
    """Regression (a secrecy audit): the inbound mail's change page showed the refusal's
    words mid-game, "you were not dealt QIN; you can pass: BOUDICCA or ISABELLA": the
    seat's secret hand, to whoever opens the admin (STYLE: not admins through the UI)."""
    from games.mail.processing import process_message
    from games.services.games import game_create, game_join
    from games.services.organizer import game_end
    from games.services.seats import seat_reply_address

    settings.ORDERS_DOMAIN = "orders.example"
    settings.ORDERS_ADDRESS_PREFIX = "orders"
    users = [make_user(n) for n in ("inb1", "inb2", "inb3")]
    deal = {"inb1": ["SULEIMAN", "CAESAR"], "inb2": ["BOUDICCA", "ISABELLA"], "inb3": ["ERIK", "NAPOLEON"]}
    game = game_create(organizer=users[0], ruleset="5x", seats_count=3, options={"all_leaders": True},
                       setup={"deal": deal})  # fmt: skip
    for user in users:
        game_join(game=game, user=user)
    seat = game.seats.get(name="inb2")
    row = process_message(
        b"From: inb2@example.com\r\nSubject: x\r\nMessage-ID: <inb2-1@example.com>\r\n\r\nPASS QIN\r\n",
        seat_reply_address(seat=seat),
        source="pipe",
        envelope_sender="inb2@example.com",
    )
    assert row.status == "rejected" and "BOUDICCA" in row.error  # the player's own answer
    page = admin_client.get(f"/admin/mail/inboundmail/{row.pk}/change/").content.decode()
    assert "BOUDICCA" not in page and "ISABELLA" not in page
    assert row.outcome in page  # what happened is still plain
    game_end(game=Game.objects.get(pk=game.pk), by=users[0])
    page = admin_client.get(f"/admin/mail/inboundmail/{row.pk}/change/").content.decode()
    assert "BOUDICCA" in page  # the hand is revealed with the game's end
