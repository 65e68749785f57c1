"""Table talk: a game's players and organizer write at its table, whoever may see the game
reads it; bad input and strangers change nothing; a form or a retry sent twice writes once."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from games.errors import MessagesCapped, PermissionDenied, ValidationError
from games.models import Game, GameMessage, Seat
from games.services.games import game_create, game_join
from games.services.talk import message_post, message_remove
from tests.games.core_support import make_game

NAMES = ["ann", "bob", "cat"]


def _user(name: str):
    return get_user_model().objects.get(username=name)


def _stranger():
    return get_user_model().objects.create_user(username="zed", email="zed@example.com")


@pytest.mark.django_db
def test_players_and_the_organizer_write_strangers_do_not() -> None:
    game, seats = make_game(NAMES)
    said = message_post(game=game, user=_user("ann"), text="  Good luck,\n\n\n\nall!  ")
    assert said.created and said.seat_name == "ann"
    assert said.text == "Good luck,\n\nall!"  # blank lines folded, ends trimmed
    by_organizer = message_post(game=game, user=game.organizer, text="Deadlines are firm.")
    assert by_organizer.seat_name == ""
    with pytest.raises(PermissionDenied, match="players and its organizer"):
        message_post(game=game, user=_stranger(), text="hello")
    seats["bob"].status = Seat.Status.REPLACED  # handed over: not his table any more
    seats["bob"].save(update_fields=["status"])
    with pytest.raises(PermissionDenied):
        message_post(game=game, user=_user("bob"), text="still here?")
    seats["cat"].status = Seat.Status.RESIGNED  # resigned: still at the table
    seats["cat"].save(update_fields=["status"])
    assert message_post(game=game, user=_user("cat"), text="gg").created
    assert GameMessage.objects.filter(game=game).count() == 3


@pytest.mark.django_db
def test_bad_text_is_refused_and_nothing_is_stored() -> None:
    game, _ = make_game(NAMES)
    ann = _user("ann")
    for text, words in (
        ("   \n\t ", "empty"),
        ("\u202e\u200b", "empty"),  # only invisible characters
        ("x" * 1001, "at most 1000 characters"),
        (5, "is text"),
    ):
        with pytest.raises(ValidationError, match=words):
            message_post(game=game, user=ann, text=text)
    assert not GameMessage.objects.exists()
    kept = message_post(game=game, user=ann, text="a\u202eb\u0007c\r\nd")
    assert kept.text == "abc\nd"  # the override and the bell out, the line break kept
    cancelled = game_create(organizer=ann, ruleset="5x", seats_count=3)
    Game.objects.filter(pk=cancelled.pk).update(status="abandoned")
    cancelled.refresh_from_db()
    with pytest.raises(PermissionDenied, match="cancelled"):
        message_post(game=cancelled, user=ann, text="hello")


@pytest.mark.django_db
def test_a_key_writes_once_and_the_minute_is_capped() -> None:
    game, _ = make_game(NAMES)
    ann = _user("ann")
    first = message_post(game=game, user=ann, text="once", client_key="k1")
    again = message_post(game=game, user=ann, text="once", client_key="k1")
    assert (again.pk, again.created) == (first.pk, False)
    for n in range(5):
        message_post(game=game, user=ann, text=f"message {n}")
    with pytest.raises(MessagesCapped, match="6 messages a minute"):
        message_post(game=game, user=ann, text="one too many")
    assert GameMessage.objects.filter(author=ann).count() == 6
    assert message_post(game=game, user=_user("bob"), text="my turn").created  # per writer


@pytest.mark.django_db
def test_the_talk_page_reads_writes_and_removes(client) -> None:
    game, _ = make_game(NAMES)
    url = f"/games/{game.pk}/talk/"
    assert "(nothing written yet)" in client.get(f"/games/{game.pk}/").content.decode()
    client.force_login(_user("ann"))
    sent = client.post(url, {"text": "<script>alert(1)</script> hi", "key": "page-1"})
    assert sent.status_code == 302
    client.post(url, {"text": "<script>alert(1)</script> hi", "key": "page-1"})  # sent twice
    assert GameMessage.objects.filter(game=game).count() == 1
    # The same page sent again with an edited text (Back, edit, Send) writes that text.
    client.post(url, {"text": "edited", "key": "page-1"})
    assert GameMessage.objects.filter(game=game).count() == 2
    GameMessage.objects.filter(text="edited").delete()
    body = client.get(url).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt; hi" in body and "<script>alert(1)" not in body
    assert "(1 message)" in client.get(f"/games/{game.pk}/").content.decode()
    # Refused: said on the page, the text kept in the box, nothing stored.
    refused = client.post(url, {"text": "y" * 1001, "key": "page-2"})
    assert refused.status_code == 400
    assert "at most 1000 characters" in refused.content.decode()
    assert "y" * 1001 in refused.content.decode()
    message = GameMessage.objects.get()
    # Bob may not remove Ann's message; Ann may.
    client.force_login(_user("bob"))
    answer = client.post(f"{url}{message.pk}/remove/", follow=True)
    assert "Only its author" in answer.content.decode()
    client.force_login(_user("ann"))
    client.post(f"{url}{message.pk}/remove/")
    body = client.get(url).content.decode()
    assert "removed by its author" in body and "alert(1)" not in body
    # A stranger reads a public game's table but cannot write at it.
    client.force_login(_stranger())
    page = client.get(url)
    assert page.status_code == 200 and 'name="text"' not in page.content.decode()
    assert client.post(url, {"text": "let me in", "key": "s"}).status_code == 400
    assert GameMessage.objects.filter(game=game).count() == 1


@pytest.mark.django_db
def test_a_private_games_table_is_not_for_strangers(client) -> None:
    ann = get_user_model().objects.create_user(username="ann", email="ann@example.com")
    game = game_create(organizer=ann, ruleset="5x", seats_count=3, is_private=True)
    game_join(game=game, user=ann)
    message_post(game=game, user=ann, text="secret plans")
    client.force_login(_stranger())
    assert client.get(f"/games/{game.pk}/talk/").status_code == 404
    assert client.get(f"/api/games/{game.pk}/talk/").status_code == 404


@pytest.mark.django_db
def test_the_organizer_removes_a_message_and_the_api_says_so(client) -> None:
    game, _ = make_game(NAMES)
    message = message_post(game=game, user=_user("bob"), text="rude words")
    message_remove(message=message, by=game.organizer)
    client.force_login(_user("cat"))
    listed = client.get(f"/api/games/{game.pk}/talk/").json()["messages"]
    assert listed == [
        {
            "id": message.pk, "author": "bob", "seat": "bob", "text": None,
            "removed": "removed by the organizer", "created_at": listed[0]["created_at"],
        }
    ]  # fmt: skip
    with pytest.raises(PermissionDenied):
        message_remove(
            message=message_post(game=game, user=_user("ann"), text="mine"), by=_user("cat")
        )


@pytest.mark.django_db
def test_the_api_writes_once_a_key_polls_after_and_caps(client) -> None:
    game, _ = make_game(NAMES)
    url = f"/api/games/{game.pk}/talk/"
    client.force_login(_user("ann"))
    made = client.post(
        url, {"text": "Hello table"}, content_type="application/json", HTTP_IDEMPOTENCY_KEY="t-1"
    )
    assert made.status_code == 201 and made.json()["text"] == "Hello table"
    again = client.post(
        url, {"text": "Hello table"}, content_type="application/json", HTTP_IDEMPOTENCY_KEY="t-1"
    )
    assert again.status_code == 200 and again.json()["id"] == made.json()["id"]
    other = client.post(
        url, {"text": "Hi all"}, content_type="application/json", HTTP_IDEMPOTENCY_KEY="t-1"
    )
    assert other.status_code == 422 and other.json()["error"] == "idempotency_key_reused"
    assert client.post(url, {"text": 5}, content_type="application/json").status_code == 400
    assert client.post(url, {"text": "  "}, content_type="application/json").status_code == 400
    for n in range(5):
        assert (
            client.post(url, {"text": f"n{n}"}, content_type="application/json").status_code == 201
        )
    capped = client.post(url, {"text": "more"}, content_type="application/json")
    assert capped.status_code == 429 and capped.json()["error"] == "messages_capped"
    assert 1 <= int(capped["Retry-After"]) <= 60  # when the first of the six leaves the minute
    first = made.json()["id"]
    newer = client.get(f"{url}?after={first}").json()["messages"]
    assert [m["text"] for m in newer] == [f"n{n}" for n in range(5)]
    assert client.get(f"{url}?after=-1").status_code == 400
    assert client.get(f"{url}?colour=red").status_code == 400
    client.force_login(_stranger())
    refused = client.post(url, {"text": "hi"}, content_type="application/json")
    assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
    assert GameMessage.objects.filter(game=game).count() == 6


@pytest.mark.django_db
def test_the_data_download_has_them_and_closing_the_account_erases_them() -> None:
    from fivex_site.account_close import account_close
    from fivex_site.account_export import account_export

    game, _ = make_game(NAMES)
    ann = _user("ann")
    message_post(game=game, user=ann, text="my words")
    talk = account_export(user=ann)["table_talk"]
    assert [(t["game"], t["seat"], t["text"]) for t in talk] == [(game.pk, "ann", "my words")]
    from django.test import Client

    close_page = Client()
    close_page.force_login(ann)
    assert "What you wrote at games' tables" in close_page.get("/account/close/").content.decode()
    account_close(user=ann)
    message = GameMessage.objects.get()
    assert message.text == "" and message.removed_by == ann and message.removed_at is not None


@pytest.mark.django_db
def test_the_next_turn_email_says_who_wrote_at_the_table_meanwhile() -> None:
    from games.models import OutboxMessage
    from tests.games.core_support import play_defaults

    game, _ = make_game(NAMES)
    message_post(game=game, user=_user("ann"), text="Hello")
    message_post(game=game, user=_user("ann"), text="Anyone?")
    removed = message_post(game=game, user=_user("cat"), text="oops")
    message_remove(message=removed, by=_user("cat"))
    play_defaults(game, prompts=1)
    bodies = {
        m.to.split("@")[0]: m.body
        for m in OutboxMessage.objects.filter(game=game, kind="prompt_resolved")
    }
    assert set(bodies) == set(NAMES)
    from django.conf import settings

    line = f"Table talk while decision 1 was open: 2 messages, from ann: {settings.FIVEX_BASE_URL}/games/{game.pk}/talk/"
    assert line in bodies["bob"] and line in bodies["cat"]  # a removed message is not counted
    assert "Table talk" not in bodies["ann"]  # her own words: nothing new to her
    # The messages themselves follow, for an email player to read without the page.
    assert f"{line}\n  ann: Hello\n  ann: Anyone?\n" in bodies["bob"]
    assert "To answer at the table, reply with TALK: and your words" in bodies["bob"]
    assert "oops" not in bodies["bob"]


@pytest.mark.django_db
def test_the_turn_email_quotes_five_messages_each_on_one_line_and_cut() -> None:
    from games.models import OutboxMessage
    from games.services.notifications import TALK_EMAIL_CHARS
    from tests.games.core_support import play_defaults

    game, _ = make_game(NAMES)
    long = "word " * 200  # 1,000 characters
    message_post(game=game, user=_user("ann"), text="Two\nlines")
    message_post(game=game, user=_user("ann"), text=long)
    for n in range(5):
        message_post(game=game, user=_user("cat"), text=f"note {n}")
    play_defaults(game, prompts=1)
    body = OutboxMessage.objects.get(game=game, kind="prompt_resolved", to__startswith="bob@").body
    lines = body.split("\n")
    start = next(i for i, t in enumerate(lines) if t.startswith("Table talk while decision 1"))
    assert "7 messages, from ann and cat" in lines[start]
    quoted = lines[start + 1 : start + 7]
    assert quoted[0] == "  ann: Two lines"
    assert quoted[1].startswith("  ann: word word") and quoted[1].endswith("…")
    assert len(quoted[1]) == len("  ann: ") + TALK_EMAIL_CHARS
    assert quoted[2:5] == ["  cat: note 0", "  cat: note 1", "  cat: note 2"]
    assert quoted[5] == "  … and 2 more on the talk page."
    assert "note 3" not in body


@pytest.mark.django_db
def test_the_pages_json_gives_the_messages_after_an_id(client) -> None:
    game, _ = make_game(NAMES)
    first = message_post(game=game, user=_user("ann"), text="one")
    second = message_post(game=game, user=game.organizer, text="two\nlines")
    gone = message_post(game=game, user=_user("bob"), text="three")
    message_remove(message=gone, by=_user("bob"))
    url = f"/games/{game.pk}/talk.json"
    after = client.get(f"{url}?after={first.pk}")
    assert after.status_code == 200 and after["Cache-Control"] == "no-store"
    rows = after.json()["messages"]
    assert [(m["id"], m["label"], m["text"], m["removed"]) for m in rows] == [
        (second.pk, "organizer (organizer)", "two\nlines", None),
        (gone.pk, "bob", None, "removed by its author"),
    ]
    assert rows[0]["when"].endswith("UTC")
    assert [m["id"] for m in client.get(f"{url}?after=junk").json()["messages"]] == [
        first.pk,
        second.pk,
        gone.pk,
    ]
    assert client.post(url).status_code == 405


@pytest.mark.django_db
def test_a_tournament_without_table_talk_closes_its_tables_to_the_players(client) -> None:
    from tournaments.services import rounds
    from tournaments.services import tournaments as tsvc

    boss = get_user_model().objects.create_user(username="boss", email="boss@example.com")
    players = [
        get_user_model().objects.create_user(username=n, email=f"{n}@example.com")
        for n in ("ann", "bob")
    ]
    quiet = tsvc.tournament_create(organizer=boss, name="Quiet Cup", ruleset="6x5", table_sizes=[2],
                                   rounds_count=1, table_talk=False)  # fmt: skip
    tsvc.tournament_open(tournament=quiet, by=boss)
    for user in players:
        tsvc.registration_add(tournament=quiet, user=user)
    rnd = rounds.round_start(rnd=rounds.round_pair(tournament=quiet, by=boss), by=boss)
    game = rnd.tables.get().game
    assert game.talk_open is False
    with pytest.raises(PermissionDenied, match="Table talk is closed at this table"):
        message_post(game=game, user=players[0], text="deal?")
    assert message_post(
        game=game, user=boss, text="Good luck to both."
    ).created  # the organizer writes
    client.force_login(players[1])
    page = client.get(f"/games/{game.pk}/talk/").content.decode()
    assert "Table talk is closed at this table (Quiet Cup, round 1&#x27;s rule)" in page
    assert 'name="text"' not in page
    assert "closed to the players" in client.get(f"/games/{game.pk}/").content.decode()
    assert 'id="no-table-talk"' in client.get(f"/tournaments/{quiet.slug}/").content.decode()
    # A tournament that keeps the default: its tables are open.
    chatty = tsvc.tournament_create(
        organizer=boss, name="Chatty Cup", ruleset="6x5", table_sizes=[2], rounds_count=1
    )
    assert chatty.table_talk is True


@pytest.mark.django_db
def test_the_tournament_form_takes_table_talk_on_or_off(client) -> None:
    from tournaments.models import Tournament

    boss = get_user_model().objects.create_user(username="boss", email="boss@example.com")
    client.force_login(boss)
    assert 'name="table_talk"' in client.get("/tournaments/new/").content.decode()
    base = {
        "ruleset": "6x5",
        "table_sizes": "2",
        "rounds_count": 1,
        "deadline_hours": 24,
        "tiebreaks": ["buchholz"],
    }
    assert (
        client.post("/tournaments/new/", {**base, "name": "Silent"}).status_code == 302
    )  # box not ticked
    assert (
        client.post("/tournaments/new/", {**base, "name": "Loud", "table_talk": "on"}).status_code
        == 302
    )
    assert dict(Tournament.objects.values_list("name", "table_talk")) == {
        "Silent": False,
        "Loud": True,
    }


@pytest.mark.django_db
def test_a_game_made_without_table_talk_on_the_web_and_over_the_api(client) -> None:
    ann = get_user_model().objects.create_user(username="ann", email="ann@example.com")
    client.force_login(ann)
    form = {"ruleset": "6x5", "seats_count": 2, "deadline_hours": 24, "grace_minutes": 0,
            "reminder_hours": 6, "early_resolution_delay_seconds": 0, "quiet_hours_time_zone": "UTC"}  # fmt: skip
    for name, extra in (
        ("Quiet", {}),
        ("Chatty", {"talk_open": "on"}),
    ):  # an unticked box is not sent
        answer = client.post("/games/new/", {**form, "name": name, **extra})
        assert answer.status_code == 302, answer.content.decode()[:3000]
    api = client.post("/api/games/", {"ruleset": "6x5", "seats_count": 2, "name": "Hushed", "talk_open": False},
                      content_type="application/json")  # fmt: skip
    assert api.status_code == 201 and api.json()["talk_open"] is False
    assert client.post("/api/games/", {"ruleset": "6x5", "seats_count": 2, "talk_open": "no"},
                       content_type="application/json").status_code == 400  # fmt: skip
    assert dict(Game.objects.values_list("name", "talk_open")) == {
        "Quiet": False,
        "Chatty": True,
        "Hushed": False,
    }


@pytest.mark.django_db
def test_the_admin_lists_a_games_messages_read_only(admin_client) -> None:
    game, _ = make_game(NAMES)
    other, _ = make_game(["dan", "eve", "fay"])
    mine = message_post(game=game, user=_user("ann"), text="Looking into a report")
    message_post(game=other, user=_user("dan"), text="elsewhere")
    listed = admin_client.get(f"/admin/games/gamemessage/?game={game.pk}")
    assert listed.status_code == 200
    assert f"/admin/games/gamemessage/{mine.pk}/change/" in listed.content.decode()
    assert "elsewhere" not in listed.content.decode()
    page = admin_client.get(f"/admin/games/gamemessage/{mine.pk}/change/").content.decode()
    assert "Looking into a report" in page and 'name="text"' not in page  # shown, not editable
    assert admin_client.get("/admin/games/gamemessage/add/").status_code == 403
    admin_client.post(f"/admin/games/gamemessage/{mine.pk}/change/", {"text": "rewritten"})
    mine.refresh_from_db()
    assert mine.text == "Looking into a report"
    # Only its own filters: a lookup on the text is refused, not answered with a count.
    assert admin_client.get("/admin/games/gamemessage/?text__startswith=Look").status_code in (
        400,
        302,
    )


@pytest.mark.django_db
def test_the_schema_says_a_message_is_not_blank_and_a_blank_one_is_refused_so(client) -> None:
    # Regression (schemathesis, positive_data_acceptance): the schema's `text` took "" and
    # "   ", which the API refuses (400): a client checking its request against the
    # schema was told it was fine.
    game, _ = make_game(NAMES)
    client.force_login(_user("ann"))
    schema = client.get("/api/schema/", {"format": "json"}).json()
    ref = schema["paths"]["/api/games/{game_id}/talk/"]["post"]["requestBody"]["content"]
    name = ref["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    text = schema["components"]["schemas"][name]["properties"]["text"]
    assert text["minLength"] == 1 and text["pattern"] == "\\S"
    url = f"/api/games/{game.pk}/talk/"
    for blank, said in (
        ("", "may not be blank"),
        (" \n ", "The message is empty: nothing was sent."),
    ):
        answer = client.post(url, {"text": blank}, content_type="application/json")
        assert answer.status_code == 400 and said in answer.json()["fields"]["text"][0], (
            answer.json()
        )
    assert not GameMessage.objects.filter(game=game).exists()


@pytest.mark.django_db
def test_the_organizer_closes_and_opens_the_table_while_the_game_runs(client) -> None:
    """The talk setting was set at creation only; an organizer may now switch it mid-game
    (logged), and a finished game's table stays as it is."""
    from games.errors import GameStateError, PermissionDenied
    from games.models import LogEntry
    from games.services.talk import message_post, talk_open_set
    from tests.games.core_support import make_game, play_defaults

    game, seats = make_game(["ann", "bob", "cat"])
    organizer = game.organizer
    client.force_login(organizer)
    answer = client.post(f"/games/{game.pk}/organizer/talk/", {"open": "0"}, follow=True)
    assert "Table talk is closed to the players" in answer.content.decode()
    game.refresh_from_db()
    assert game.talk_open is False
    with pytest.raises(PermissionDenied):
        message_post(game=game, user=seats["bob"].user, text="psst")
    message_post(game=game, user=organizer, text="Talk is closed for this round.")
    assert [e.payload["open"] for e in LogEntry.objects.filter(game=game, kind="talk_changed")] == [False]
    with pytest.raises(PermissionDenied):
        talk_open_set(game=game, by=seats["bob"].user, open_=True)
    talk_open_set(game=game, by=organizer, open_=True)
    talk_open_set(game=game, by=organizer, open_=True)  # no change: not logged again
    assert LogEntry.objects.filter(game=game, kind="talk_changed").count() == 2
    game.refresh_from_db()
    message_post(game=game, user=seats["bob"].user, text="Thanks!")
    assert play_defaults(game)
    with pytest.raises(GameStateError):
        talk_open_set(game=game, by=organizer, open_=False)


@pytest.mark.django_db
def test_talk_json_says_which_shown_messages_were_removed(client) -> None:
    from games.services.talk import message_post, message_remove
    from tests.games.core_support import make_game

    game, seats = make_game(["ann", "bob", "cat"])
    first = message_post(game=game, user=seats["ann"].user, text="one")
    second = message_post(game=game, user=seats["bob"].user, text="two")
    third = message_post(game=game, user=seats["cat"].user, text="three")
    message_remove(message=second, by=seats["bob"].user)
    url = f"/games/{game.pk}/talk.json"
    body = client.get(url, {"after": third.pk, "from": first.pk}).json()
    assert body["messages"] == [] and body["removed"] == [
        {"id": second.pk, "removed": "removed by its author"}
    ]
    # Not asked (no from), or outside what the page shows: nothing said of removals.
    assert client.get(url, {"after": third.pk}).json()["removed"] == []
    assert client.get(url, {"after": third.pk, "from": third.pk}).json()["removed"] == []
    assert client.get(url, {"after": first.pk, "from": first.pk}).json()["removed"] == []


@pytest.mark.django_db
def test_the_api_switches_the_table_talk() -> None:
    from games.models import LogEntry
    from tests.games.core_support import make_game
    from tests.games.web_support import token_client

    game, seats = make_game(["ann", "bob", "cat"])
    url = f"/api/games/{game.pk}/table-talk/"
    organizer = token_client(game.organizer)
    closed = organizer.post(url, {"open": False}, format="json")
    assert closed.status_code == 200 and closed.json()["talk_open"] is False
    assert organizer.get(f"/api/games/{game.pk}/organizer/").json()["talk_open"] is False
    assert organizer.post(url, {"open": "no"}, format="json").status_code == 400
    assert organizer.post(url, {}, format="json").status_code == 400
    assert token_client(seats["bob"].user).post(url, {"open": True}, format="json").status_code == 403
    assert organizer.post(url, {"open": True}, format="json").json()["talk_open"] is True
    assert [e.payload["open"] for e in LogEntry.objects.filter(game=game, kind="talk_changed")] == [False, True]


@pytest.mark.django_db
def test_the_log_page_says_the_table_talk_was_closed(client) -> None:
    from games.services.talk import talk_open_set
    from tests.games.core_support import make_game

    game, _ = make_game(["ann", "bob", "cat"])
    talk_open_set(game=game, by=game.organizer, open_=False)
    page = client.get(f"/games/{game.pk}/log/").content.decode()
    assert f"The organizer ({game.organizer}) closed table talk to the players." in page


@pytest.mark.django_db
def test_what_is_new_at_the_table_is_read_on_any_device() -> None:
    """A signed-in player's unread messages (by others) are kept on the server: the game
    page and the games list say how many, until the talk page (or its polling) shows
    them, on whichever device; their own messages are never new to them."""
    import re

    from django.test import Client
    from django.urls import reverse

    from tests.games.web_support import visible_text

    game, seats = make_game(["ann", "bob", "cat"])
    ann = seats["ann"].user
    phone, laptop = Client(), Client()
    phone.force_login(ann)
    laptop.force_login(ann)

    def said(client: Client) -> tuple[str, str]:
        page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
        flag = re.search(r'<strong class="talk-new"( hidden)?>([^<]*)</strong>', page)
        listed = visible_text(client.get(reverse("games:list")).content.decode())
        found = re.search(r"(\d+) new messages? at the table", listed)
        return ("" if flag[1] else flag[2]), (found[0] if found else "")

    assert said(laptop) == ("", "")
    message_post(game=game, user=_user("bob"), text="Hello")
    message_post(game=game, user=_user("bob"), text="Anyone?")
    message_post(game=game, user=ann, text="Here")  # her own: never new to her
    assert said(laptop) == ("2 new messages", "2 new messages at the table")
    assert phone.get(reverse("games:talk", args=[game.pk])).status_code == 200  # read on the phone
    assert said(laptop) == ("", "")
    later = message_post(game=game, user=_user("cat"), text="Me too")
    assert said(laptop) == ("1 new message", "1 new message at the table")
    # The talk page's polling shows it: read.
    answer = phone.get(reverse("games:talk_json", args=[game.pk]), {"after": later.pk - 1})
    assert [m["id"] for m in answer.json()["messages"]] == [later.pk]
    assert said(laptop) == ("", "")
    # An older page read later moves nothing back.
    phone.get(reverse("games:talk", args=[game.pk]), {"before": later.pk})
    assert said(laptop) == ("", "")
    # Nobody signed in: the browser's own memory says it, as before (the flag left to it).
    visitor = Client().get(reverse("games:detail", args=[game.pk])).content.decode()
    assert 'data-talk-server' not in visitor and '<strong class="talk-new" hidden>' in visitor
    # Closing the account forgets how far they read.
    from fivex_site.account_close import account_close
    from games.models import TalkRead

    assert TalkRead.objects.filter(user=ann).exists()
    account_close(user=ann)
    assert not TalkRead.objects.filter(user=ann).exists()


@pytest.mark.django_db
def test_the_talk_switch_entries_verify_running_and_over():
    # talk_changed is a log kind of its own: verify_game passes over it (a running game's
    # log, then the whole game's once over).
    from io import StringIO

    from django.core.management import call_command

    from games.services.talk import talk_open_set
    from tests.games.core_support import play_defaults

    game, _ = make_game(["ann", "bob", "cat"])
    talk_open_set(game=game, by=game.organizer, open_=False)
    talk_open_set(game=game, by=game.organizer, open_=True)
    from games.models import LogEntry

    assert LogEntry.objects.filter(game=game, kind="talk_changed").count() == 2
    out = StringIO()
    call_command("verify_game", str(game.pk), stdout=out)
    assert "OK" in out.getvalue()
    assert play_defaults(game)
    out = StringIO()
    call_command("verify_game", str(game.pk), stdout=out)
    assert "OK" in out.getvalue()


@pytest.mark.django_db
def test_the_talk_switch_is_turned_so_many_times_a_day_and_no_more():
    # Guards against an organizer's loop writing the game's log full (every change is an
    # entry of its audit log, public to its players; the API takes 120 calls a minute).
    from datetime import timedelta

    from django.utils import timezone

    from games.errors import GameStateError
    from games.models import LogEntry
    from games.services import talk as talk_services

    game, _ = make_game(["ann", "bob", "cat"])
    assert game.talk_open
    for n in range(talk_services.TALK_CHANGES_PER_DAY):  # closed, opened, closed, ...
        talk_services.talk_open_set(game=game, by=game.organizer, open_=n % 2 == 1)
    game.refresh_from_db()
    with pytest.raises(GameStateError) as refused:
        talk_services.talk_open_set(game=game, by=game.organizer, open_=not game.talk_open)
    assert "in the last day, the limit" in refused.value.message
    changed = LogEntry.objects.filter(game=game, kind="talk_changed")
    assert changed.count() == talk_services.TALK_CHANGES_PER_DAY
    # Asking for what it is already changes nothing and is not refused.
    game.refresh_from_db()
    talk_services.talk_open_set(game=game, by=game.organizer, open_=game.talk_open)
    # A day later it may change again.
    changed.update(created_at=timezone.now() - timedelta(days=1, minutes=1))
    talk_services.talk_open_set(game=game, by=game.organizer, open_=not game.talk_open)
