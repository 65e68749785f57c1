"""A player downloads everything the site holds about them (Account -> Your data, and
GET /api/account/export/): their own account, seats, sealed orders, offers, entries,
ratings and kept mail; nothing of another player's (a hand, a sealed order, an address)
and no secret (a token, a digest, the password's hash); in a fixed number of queries."""

from __future__ import annotations

import json

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.test import Client

from games.mail.models import InboundMail
from games.models import ApiToken, OutboxMessage, PlayerSettings, SealedOrder, Seat, SeatOffer
from games.services import games as game_services
from games.services.handover import seat_offer
from games.services.organizer import game_end
from games.services.outbox import outbox_enqueue
from games.services.players import calendar_feed_create, player_time_zone_set
from games.services.seats import seat_reply_address
from tests.games.web_support import make_user, submit_orders, token_client
from tournaments.models import RatingEntry, Table
from tournaments.services import results, rounds
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db

# ann GANDHI+CAESAR, bob QIN+DIDO, cat NAPOLEON+TOKUGAWA: words none of the others hold.
DEAL = {"ann": ["GANDHI", "CAESAR"], "bob": ["QIN", "DIDO"], "cat": ["NAPOLEON", "TOKUGAWA"]}


@pytest.fixture
def world(django_capture_on_commit_callbacks, settings):  # noqa: ANN001, ANN201
    """A 5X game going on: ann and bob have sealed their draft passes, cat has not (the
    prompt is open); ann has two addresses, a time zone, an API token and a calendar feed,
    an email sent to her and one she sent in, and a seat offered in a second game."""
    settings.ORDERS_DOMAIN = "orders.example"
    users = {name: make_user(name) for name in ("ann", "bob", "cat", "org")}
    ann = users["ann"]
    EmailAddress.objects.create(user=ann, email="ann@example.test", primary=True, verified=True)
    EmailAddress.objects.create(user=ann, email="ann.work@example.org", primary=False, verified=False)
    game = game_services.game_create(
        organizer=users["org"], ruleset="5x", seats_count=3, name="League 7", setup={"deal": DEAL}
    )
    with django_capture_on_commit_callbacks(execute=True):
        for name in ("ann", "bob", "cat"):
            game_services.game_join(game=game, user=users[name])
    submit_orders(game, django_capture_on_commit_callbacks, {"ann": "PASS CAESAR", "bob": "PASS QIN"})
    assert SealedOrder.objects.filter(prompt__game=game, prompt__status="open").count() == 2
    player_time_zone_set(user=ann, time_zone="Europe/Oslo")
    ann.feed_secret = calendar_feed_create(user=ann)
    outbox_enqueue(to="ann@example.test", subject="Your turn in League 7", body="Reply to it.", kind="game")
    outbox_enqueue(to="bob@example.test", subject="Bob's private notice", body="secret", kind="game")
    seat = Seat.objects.get(game=game, name="ann")
    InboundMail.objects.create(
        raw=b"From: ann@example.test\r\nSubject: my draft\r\n\r\nPASS CAESAR\r\n",
        message_id="<draft-1@example.test>", sender="ann@example.test", seat=seat,
        status=InboundMail.Status.PROCESSED, outcome="order_stored",
    )  # fmt: skip
    InboundMail.objects.create(
        raw=b"From: bob@example.test\r\nSubject: bob's mail\r\n\r\nPASS QIN\r\n",
        message_id="<bob-1@example.test>", sender="bob@example.test",
        seat=Seat.objects.get(game=game, name="bob"), status=InboundMail.Status.PROCESSED,
    )  # fmt: skip
    other = game_services.game_create(organizer=users["org"], ruleset="5x", seats_count=3, name="Second table")
    with django_capture_on_commit_callbacks(execute=True):
        for name in ("bob", "cat", "org"):
            game_services.game_join(game=other, user=users[name])
        seat_offer(seat=Seat.objects.get(game=other, name="org"), new_user=ann, by=users["org"])
    return {"game": game, "other": other, **users}


def _client(user) -> Client:  # noqa: ANN001
    client = Client()
    client.force_login(user)
    return client


def _download(user) -> tuple[object, str]:  # noqa: ANN001
    response = _client(user).post("/account/data/")
    assert response.status_code == 200, response.content[:300]
    return response, response.content.decode()


def test_the_download_holds_the_players_account_seats_orders_and_mail(world) -> None:
    response, text = _download(world["ann"])
    data = json.loads(text)
    assert (data["format"], data["version"]) == ("fivex-account-export", 1)
    assert data["exported_at"].endswith("Z")
    account = data["account"]
    assert account["player_name"] == "ann"
    assert {(a["email"], a["verified"], a["primary"]) for a in account["email_addresses"]} == {
        ("ann@example.test", True, True), ("ann.work@example.org", False, False),
    }  # fmt: skip
    assert account["time_zone"] == "Europe/Oslo"
    assert account["calendar_feed"] == {"exists": True}
    assert account["api_token"] == {"exists": False, "created": None}
    assert account["two_factor"] == {
        "enabled": False,
        "kinds": [],
        "authenticator_app": {"exists": False, "created": None, "last_used": None},
        "passkeys": [],
        "recovery_codes": {"exists": False, "unused": None, "last_used": None},
        "trusted_browsers": {"kept_by_the_site": False, "days": 14},
    }
    seats = {s["game"]["title"]: s for s in data["seats"]}
    assert seats["League 7"]["seat"] == "ann" and seats["League 7"]["status"] == "active"
    assert seats["League 7"]["game"]["ruleset"] == "5x" and seats["League 7"]["result"] is None
    # Her own sealed order, still pending, with what proves it later.
    own = SealedOrder.objects.get(seat_name="ann", prompt__game=world["game"])
    assert [(o["text"], o["salt"], o["commitment"]) for o in data["orders"]] == [
        ("PASS CAESAR", own.salt, own.commitment)
    ]
    assert data["orders"][0]["source"] == "web" and data["orders"][0]["current"] is True
    assert [(o["game_title"], o["seat"], o["offered_by"], o["status"]) for o in data["seat_offers"]] == [
        ("Second table", "org", "org", "pending")
    ]
    # The game's own emails to her seat, and one to her address.
    subjects = [e["subject"] for e in data["emails_to_you"]]
    assert "Your turn in League 7" in subjects and "[League 7] The game has started; your order: draft" in subjects
    assert {e["to"] for e in data["emails_to_you"]} == {"ann@example.test"}
    assert [(m["subject"], m["outcome"], m["game"]) for m in data["emails_from_you"]] == [
        ("my draft", "order_stored", world["game"].pk)
    ]
    assert response["Content-Type"].startswith("application/json")


def test_the_download_holds_nothing_of_another_player(world) -> None:
    """Regression guard: the file is the player's alone: no other seat's hand, sealed
    order or salt, no other player's address or mail, while the orders are sealed."""
    _response, text = _download(world["ann"])
    bob_order = SealedOrder.objects.get(seat_name="bob", prompt__game=world["game"])
    for hidden in ("QIN", "DIDO", "NAPOLEON", "TOKUGAWA", "PASS QIN", bob_order.salt,
                   "bob@example.test", "cat@example.test", "org@example.test",
                   "Bob's private notice", "bob's mail", "<bob-1@example.test>"):  # fmt: skip
        assert hidden not in text, hidden
    # Not even her own hand: the orders she sealed, not the game's state.
    assert "GANDHI" not in text


def test_the_download_holds_no_secret(world, settings) -> None:
    """Regression guard: no key to the account leaves in the file (they are made anew,
    not recovered): the API token, the calendar feed, the reply address, the hashes, the
    webhook's signing secret (its address is there: the player's own)."""
    from games.services.webhooks import webhook_save

    settings.WEBHOOKS_ALLOW_HTTP_LOCALHOST = True
    ann = world["ann"]
    hook_secret = webhook_save(user=ann, url="http://127.0.0.1:9/fivex-hook")
    key = token_client(ann)._credentials["HTTP_AUTHORIZATION"].removeprefix("Token ")
    ann.refresh_from_db()
    _response, text = _download(ann)
    data = json.loads(text)
    assert data["account"]["api_token"]["exists"] is True
    webhook = data["account"]["webhook"]
    assert (webhook["exists"], webhook["url"], webhook["active"]) == (True, "http://127.0.0.1:9/fivex-hook", True)
    token = ApiToken.objects.get(user=ann)
    seat = Seat.objects.get(game=world["game"], name="ann")
    for secret in (key, token.digest, ann.feed_secret, PlayerSettings.objects.get(user=ann).calendar_digest,
                   ann.password, seat.mail_token, seat_reply_address(seat=seat),
                   world["game"].invite_token, str(world["game"].seed), hook_secret):  # fmt: skip
        assert secret and secret not in text, secret


def test_two_factor_authentication_is_said_never_its_key_nor_its_codes(world) -> None:
    """Whether it is on, since when, how many recovery codes are left: never the app's key
    (which makes every code), the recovery codes' seed or a code."""
    from allauth.mfa.models import Authenticator
    from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
    from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret

    ann = world["ann"]
    secret = generate_totp_secret()
    app = TOTP.activate(ann, secret).instance
    recovery = RecoveryCodes.activate(ann)
    codes = recovery.generate_codes()
    assert recovery.validate_code(codes[2])  # one used
    _response, text = _download(ann)
    two_factor = json.loads(text)["account"]["two_factor"]
    assert two_factor["enabled"] is True and two_factor["kinds"] == ["totp", "recovery_codes"]
    assert two_factor["authenticator_app"]["exists"] is True
    assert two_factor["authenticator_app"]["created"] == app.created_at.isoformat().replace("+00:00", "Z")
    assert two_factor["recovery_codes"]["exists"] is True and two_factor["recovery_codes"]["unused"] == 9
    seed = Authenticator.objects.get(user=ann, type="recovery_codes").data["seed"]
    for hidden in (secret, seed, *codes):
        assert hidden not in text, hidden


def test_passkeys_are_listed_never_their_credential(world) -> None:
    """Which kinds are on, each passkey or security key by name and kind, when added and
    last used: never its credential (its id and public key)."""
    from allauth.mfa.models import Authenticator

    ann = world["ann"]
    def credential(resident: bool | None) -> dict:
        # What the browser sent when the key was added (allauth keeps it): its id, its
        # attestation (the public key) and whether it is a resident key (a passkey).
        extensions = {} if resident is None else {"credProps": {"rk": resident}}
        return {"id": "cred-id-SECRETISH", "response": {"attestationObject": "o-A-t-T-e-S-t"},
                "clientExtensionResults": extensions}  # fmt: skip

    for name, resident in (("Ann's phone", True), ("Blue key", False), ("Old key", None)):
        Authenticator.objects.create(
            user=ann, type="webauthn", data={"name": name, "credential": credential(resident)}
        )
    _response, text = _download(ann)
    two_factor = json.loads(text)["account"]["two_factor"]
    assert two_factor["enabled"] is True and two_factor["kinds"] == ["webauthn"]
    assert [(k["name"], k["kind"], k["last_used"]) for k in two_factor["passkeys"]] == [
        ("Ann's phone", "passkey", None), ("Blue key", "security_key", None), ("Old key", "unknown", None),
    ]  # fmt: skip
    assert two_factor["authenticator_app"]["exists"] is False
    assert two_factor["trusted_browsers"] == {"kept_by_the_site": False, "days": 14}
    for hidden in ("cred-id-SECRETISH", "o-A-t-T-e-S-t"):
        assert hidden not in text, hidden


def test_mail_to_an_unverified_address_is_not_the_players(world) -> None:
    """Regression guard: an address anyone may add unverified to their account does not
    give them the mail the site keeps for its owner."""
    EmailAddress.objects.create(user=world["cat"], email="bob@example.test", verified=False)
    data = json.loads(_download(world["cat"])[1])
    assert {e["to"] for e in data["emails_to_you"]} == {"cat@example.test"}
    assert "Bob's private notice" not in json.dumps(data)


def test_a_seat_handed_over_shows_nothing_of_a_prompt_still_open(world, django_capture_on_commit_callbacks) -> None:
    """Regression guard: the forced or withdrawn order of a seat handed to another player
    is not shown to the one who left it while its prompt is open (the seat's page no
    longer shows them anything of it)."""
    from games.services.handover import seat_replace

    staff = get_user_model().objects.create_user("staff", "staff@example.test", "pw", is_staff=True)
    newcomer = make_user("dan")
    with django_capture_on_commit_callbacks(execute=True):
        seat_replace(seat=Seat.objects.get(game=world["game"], name="ann", status="active"),
                     new_user=newcomer, by=staff)  # fmt: skip
    data = json.loads(_download(world["ann"])[1])
    assert data["orders"] == []
    assert [s["status"] for s in data["seats"] if s["game"]["id"] == world["game"].pk] == ["replaced"]


def test_a_seat_says_when_its_player_left_it(world, django_capture_on_commit_callbacks) -> None:
    """An audit: a seat handed to another player (or resigned) kept ``left_at`` empty, so
    the export said a player who had left never did."""
    from django.utils import timezone

    from games.services.games import seat_resign
    from games.services.handover import seat_replace

    def seat_of(name: str) -> dict:
        data = json.loads(_download(world[name])[1])
        [seat] = [s for s in data["seats"] if s["game"]["id"] == world["game"].pk]
        return seat

    assert seat_of("ann")["left_at"] is None  # still playing
    staff = get_user_model().objects.create_user("staff", "staff@example.test", "pw", is_staff=True)
    before = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        seat_replace(seat=Seat.objects.get(game=world["game"], name="ann", status="active"),
                     new_user=make_user("dan"), by=staff)  # fmt: skip
    left = Seat.objects.get(game=world["game"], name="ann", status="replaced").left_at
    assert left is not None and before <= left <= timezone.now()
    assert seat_of("ann")["left_at"] is not None
    assert Seat.objects.get(game=world["game"], name="ann", status="active").left_at is None

    before = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        seat_resign(seat=Seat.objects.get(game=world["game"], name="bob"))
    resigned = Seat.objects.get(game=world["game"], name="bob")
    assert resigned.left_at is not None and before <= resigned.left_at <= timezone.now()
    assert seat_of("bob")["status"] == "resigned" and seat_of("bob")["left_at"] is not None
    # Handed over after resigning: it left when it resigned.
    with django_capture_on_commit_callbacks(execute=True):
        seat_replace(seat=resigned, new_user=make_user("eve"), by=staff)
    assert Seat.objects.get(pk=resigned.pk).left_at == resigned.left_at


def test_tournament_entries_results_and_ratings(world) -> None:
    org = world["org"]
    cup = tsvc.tournament_create(organizer=org, name="Spring cup", ruleset="6x5", table_sizes=[2],
                                 rounds_count=1, rating_pool="spring")  # fmt: skip
    tsvc.tournament_open(tournament=cup, by=org)
    mine = tsvc.registration_add(tournament=cup, user=world["ann"])
    tsvc.registration_add(tournament=cup, user=world["bob"])
    rnd = rounds.round_pair(tournament=cup, by=org)
    rounds.round_start(rnd=rnd, by=org)
    table = Table.objects.get(round=rnd)
    game_end(game=table.game, by=org, reason="played over the board")
    other = next(p for p in table.players if p != mine.pk)
    results.result_enter(table=table, ranking=[[mine.pk], [other]], by=org, reason="seen by the judge")
    data = json.loads(_download(world["ann"])[1])
    [entry] = data["tournaments"]
    assert entry["tournament"]["name"] == "Spring cup" and entry["status"] == "active"
    assert [(t["round"], t["place"], t["result_source"]) for t in entry["tables"]] == [(1, "1st of 2", "organizer")]
    assert RatingEntry.objects.filter(user=world["ann"]).exists()
    assert [(r["pool"], r["actual"]) for r in data["ratings"]] == [("org:spring", 1.0)]
    # The organizer's file lists what they organize and the actions they took.
    organized = json.loads(_download(org)[1])["organized"]
    assert {g["title"] for g in organized["games"]} == {"League 7", "Second table", "Spring cup R1 · table 1"}
    assert [t["name"] for t in organized["tournaments"]] == ["Spring cup"]
    assert {"result_entered", "round_paired"} <= {a["kind"] for a in organized["tournament_actions"]}
    assert "seat_offered" in {a["kind"] for a in organized["game_actions"]}


def test_the_page_explains_the_file_and_the_account_pages_link_it(world) -> None:
    client = _client(world["ann"])
    page = client.get("/account/data/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Download my data" in html and "never holds another player" in html
    assert "no-store" in page["Cache-Control"] and "private" in page["Cache-Control"]
    for url in ("/account/settings/", "/account/close/", "/account/calendar/", "/accounts/email/"):
        assert 'href="/account/data/"' in client.get(url).content.decode(), url


def test_the_file_is_an_attachment_never_cached(world) -> None:
    response, _text = _download(world["ann"])
    assert response["Content-Disposition"].startswith('attachment; filename="fivex-data-ann-')
    assert response["Content-Disposition"].endswith('.json"')
    assert "no-store" in response["Cache-Control"] and "private" in response["Cache-Control"]


def test_anonymous_visitors_are_sent_to_log_in() -> None:
    for method in ("get", "post"):
        response = getattr(Client(), method)("/account/data/")
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    answer = Client().get("/api/account/export/")
    assert answer.status_code == 401 and answer.json()["error"] == "not_authenticated"


def test_the_api_gives_the_same_file_with_a_token_or_a_session(world) -> None:
    answer = token_client(world["ann"]).get("/api/account/export/")
    assert answer.status_code == 200
    data = answer.json()
    assert data["format"] == "fivex-account-export" and data["account"]["player_name"] == "ann"
    assert [o["text"] for o in data["orders"]] == ["PASS CAESAR"]
    assert "private" in answer["Cache-Control"] and "no-store" in answer["Cache-Control"]
    assert "ETag" not in answer
    session = _client(world["ann"]).get("/api/account/export")  # without its slash too
    assert session.status_code == 200 and session.json()["account"]["player_name"] == "ann"
    assert _client(world["ann"]).get("/api/account/export/?all=1").status_code == 400


def test_downloads_are_limited_the_api_and_the_page_together(world, settings) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "account_export": "2/hour"},
    }
    client = _client(world["ann"])
    assert client.get("/api/account/export/").status_code == 200
    assert client.post("/account/data/").status_code == 200
    refused = client.get("/api/account/export/")
    assert refused.status_code == 429 and refused.json()["error"] == "throttled"
    page = client.post("/account/data/")
    assert page.status_code == 429 and "try again in" in page.content.decode()
    assert "Content-Disposition" not in page
    # Another player's quota is their own.
    assert _client(world["bob"]).get("/api/account/export/").status_code == 200


def test_the_export_is_in_the_api_schema() -> None:
    schema = Client().get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/account/export/"]["get"]
    assert operation["operationId"] == "account_export"
    assert {"200", "401", "429"} <= set(operation["responses"])
    assert "If-None-Match" not in json.dumps(operation.get("parameters", []))
    props = schema["components"]["schemas"]["AccountExport"]["properties"]
    assert {"format", "version", "exported_at", "account", "seats", "orders"} <= set(props)
    account = schema["components"]["schemas"]["Account"]["properties"]
    assert "two_factor" in account


def test_the_query_count_does_not_grow_with_the_players_history(django_capture_on_commit_callbacks,
                                                                django_assert_max_num_queries) -> None:  # fmt: skip
    """Regression guard: one query per kind of row, not per game (a player of 500 games
    would have made thousands)."""
    from fivex_site.account_export import account_export

    ann, bob, cat, org = (make_user(n) for n in ("ann", "bob", "cat", "org"))
    EmailAddress.objects.create(user=ann, email="ann@example.test", primary=True, verified=True)

    def play(n: int) -> None:
        for i in range(n):
            game = game_services.game_create(organizer=org, ruleset="5x", seats_count=3, name=f"G{i}",
                                              setup={"deal": DEAL})  # fmt: skip
            with django_capture_on_commit_callbacks(execute=True):
                for user in (ann, bob, cat):
                    game_services.game_join(game=game, user=user)
            submit_orders(game, django_capture_on_commit_callbacks, {"ann": "PASS CAESAR"})
            outbox_enqueue(to="ann@example.test", subject=f"Turn {i}", body="-", kind="game")
            mine = game_services.game_create(organizer=ann, ruleset="5x", seats_count=3, name=f"Mine {i}")
            game_services.game_join(game=mine, user=ann)

    play(1)
    with django_assert_max_num_queries(21) as one:  # 21: the sessions (one statement)
        account_export(user=ann)
    play(12)
    with django_assert_max_num_queries(len(one.captured_queries)):
        data = account_export(user=ann)
    assert len(data["orders"]) == 13 and len(data["seats"]) == 26 and len(data["organized"]["games"]) == 13
    assert SeatOffer.objects.count() == 0 and OutboxMessage.objects.filter(subject__startswith="Turn").count() == 13


def test_an_address_passed_to_another_account_brings_none_of_its_old_mail(world) -> None:
    """Regression (review): ann gives up an address and dan verifies it later; dan's
    download shows none of the mail the site sent to it, or got from it, while it was
    ann's (the subjects are hers), and ann's still shows them."""
    from games.mail.storing import store_message

    ann = world["ann"]
    store_message(
        b"From: ann@example.test\r\nSubject: ann asks the site\r\nMessage-ID: <ask-1@example.test>\r\n\r\nhello\r\n",
        "nobody@orders.example", envelope_sender="ann@example.test",
    )  # fmt: skip
    EmailAddress.objects.filter(user=ann, email="ann@example.test").delete()
    EmailAddress.objects.filter(user=ann, email="ann.work@example.org").update(primary=True, verified=True)
    ann.email = "ann.work@example.org"
    ann.save(update_fields=["email"])
    dan = make_user("dan")
    EmailAddress.objects.create(user=dan, email="ann@example.test", primary=False, verified=True)
    outbox_enqueue(to="ann@example.test", subject="Welcome dan", body="hi", kind="account")
    text = _download(dan)[1]
    for hers in ("Your turn in League 7", "ann asks the site", "my draft"):
        assert hers not in text, hers
    data = json.loads(text)
    assert [e["subject"] for e in data["emails_to_you"]] == ["Welcome dan"]
    assert data["emails_from_you"] == []
    own = json.loads(_download(ann)[1])
    assert "Your turn in League 7" in [e["subject"] for e in own["emails_to_you"]]
    assert "Welcome dan" not in [e["subject"] for e in own["emails_to_you"]]
    assert {m["subject"] for m in own["emails_from_you"]} == {"my draft", "ann asks the site"}
