"""The game pages: forms, POST-redirect-GET, messages instead of 500s."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from django.urls import reverse

from games.models import ApiToken, Game, SealedOrder, Seat
from games.services import games as game_services
from games.services.seats import seat_reply_address
from games.services.tokens import api_token_create
from tests.games.web_support import eager_celery, make_user, visible_text  # noqa: F401

pytestmark = pytest.mark.django_db

DEAL = {"ann": ["GANDHI", "CAESAR"], "bob": ["QIN", "DIDO"], "cat": ["NAPOLEON", "TOKUGAWA"]}


@pytest.fixture
def users():
    return {n: make_user(n) for n in ("ann", "bob", "cat", "zed")}


@pytest.fixture
def started(users, django_capture_on_commit_callbacks):
    game = game_services.game_create(
        organizer=users["ann"], ruleset="5x", seats_count=3, name="Table one", setup={"deal": DEAL}
    )
    with django_capture_on_commit_callbacks(execute=True):
        for name in ("ann", "bob", "cat"):
            game_services.game_join(game=game, user=users[name])
    game.refresh_from_db()
    assert game.status == "active"
    return game


def login(client, user):
    client.force_login(user)
    return client


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def test_pages_need_login_where_they_act(client):
    for name in ("games:create", "games:api_tokens"):
        answer = client.get(reverse(name))
        assert answer.status_code == 302 and "/accounts/login/" in answer["Location"]
    assert client.get(reverse("games:list")).status_code == 200  # to watch: open to all


def test_create_form_offers_each_ruleset_and_its_options(client, users):
    login(client, users["ann"])
    page = client.get(reverse("games:create"))
    assert page.status_code == 200
    html = page.content.decode()
    for ruleset_id in ("5x", "6x5", "4x-dice"):
        assert f'value="{ruleset_id}"' in html
        assert f'data-ruleset-options="{ruleset_id}"' in html
    assert 'name="opt__5x__leaders"' in html
    assert 'name="opt__5x__all_leaders"' in html


def test_create_game_then_redirect_to_its_page(client, users):
    login(client, users["ann"])
    answer = client.post(
        reverse("games:create"),
        {"ruleset": "5x", "name": "Friday", "seats_count": 4, "deadline_hours": 24,
         "opt__5x__leaders": "on", "play": "on"},
    )
    game = Game.objects.get(name="Friday")
    assert answer.status_code == 302 and answer["Location"] == reverse("games:detail", args=[game.pk])
    assert game.options == {"leaders": True, "all_leaders": False}
    assert game.seats_count == 4 and game.deadline_hours == 24
    assert list(game.seats.values_list("name", flat=True)) == ["ann"]


def test_the_create_form_sent_twice_opens_the_game_it_created(client, users):
    """An organizer's journey: Back and Create again (or a resend after a network error)
    made a second game; the form's own key opens the first."""
    import re as _re

    login(client, users["ann"])
    form = client.get(reverse("games:create")).content.decode()
    (key,) = _re.findall(r'name="create_key" value="([0-9a-f]{32})"', form)
    data = {"ruleset": "5x", "name": "Once", "seats_count": 4, "deadline_hours": 24,
            "opt__5x__leaders": "on", "create_key": key}  # fmt: skip
    first = client.post(reverse("games:create"), data)
    again = client.post(reverse("games:create"), data, follow=True)
    (game,) = Game.objects.filter(name="Once")
    assert first["Location"] == again.redirect_chain[-1][0] == reverse("games:detail", args=[game.pk])
    assert "This form created this game already: here it is." in messages_of(again)
    # Back, a field changed, Create: the game asked for, not the old one (a code review).
    edited = client.post(reverse("games:create"), {**data, "seats_count": 5})
    five = Game.objects.get(name="Once", seats_count=5)
    assert edited["Location"] == reverse("games:detail", args=[five.pk])
    assert client.post(reverse("games:create"), {**data, "seats_count": 5})["Location"] == edited["Location"]
    # A new form is a new game; another organizer's key is theirs alone.
    fresh = _re.findall(r'name="create_key" value="([0-9a-f]{32})"', client.get(reverse("games:create")).content.decode())
    assert fresh != [key]
    client.post(reverse("games:create"), {**data, "create_key": fresh[0]})
    login(client, users["bob"])
    client.post(reverse("games:create"), data)
    assert Game.objects.filter(name="Once").count() == 4
    bad = client.post(reverse("games:create"), {**data, "create_key": "x" * 32})
    assert bad.status_code == 200 and "This form was out of date: check it and create the game again." in bad.content.decode()


def test_leaders_off_with_five_players_warns_before_creating(client, users):
    login(client, users["ann"])
    data = {"ruleset": "5x", "name": "Big", "seats_count": 5, "deadline_hours": 48}
    first = client.post(reverse("games:create"), data)
    assert first.status_code == 200
    assert "not recommended" in first.content.decode().lower()
    assert not Game.objects.filter(name="Big").exists()
    second = client.post(reverse("games:create"), {**data, "accept_warnings": "on"})
    assert second.status_code == 302
    game = Game.objects.get(name="Big")
    assert game.options["leaders"] is False


def test_create_with_a_bad_seat_count_shows_the_reason(client, users):
    login(client, users["ann"])
    answer = client.post(
        reverse("games:create"), {"ruleset": "5x", "seats_count": 8, "deadline_hours": 48}
    )
    assert answer.status_code == 200
    assert "3 to 6 players" in answer.content.decode()
    assert not Game.objects.exists()


def test_join_leave_and_start_forms(client, users):
    game = game_services.game_create(organizer=users["ann"], ruleset="5x", seats_count=4)
    login(client, users["bob"])
    page = client.get(reverse("games:detail", args=[game.pk]))
    assert "Join this game" in page.content.decode()
    joined = client.post(reverse("games:join", args=[game.pk]), follow=True)
    assert "You joined the game." in messages_of(joined)
    assert Seat.objects.filter(game=game, name="bob").exists()
    # A second click: the seat already held, said so; still one seat.
    again = client.post(reverse("games:join", args=[game.pk]), follow=True)
    assert messages_of(again) == ["You already hold the seat bob in this game."]
    assert Seat.objects.filter(game=game, user=users["bob"]).count() == 1
    answer = client.post(reverse("games:leave", args=[game.pk]), follow=True)
    assert "You left the game." in messages_of(answer)
    assert not Seat.objects.filter(game=game, name="bob").exists()
    # Start: only the organizer, and only with enough players.
    client.post(reverse("games:join", args=[game.pk]))
    refused = client.post(reverse("games:start", args=[game.pk]), follow=True)
    assert any("organizer" in m for m in messages_of(refused))
    login(client, users["ann"])
    too_few = client.post(reverse("games:start", args=[game.pk]), follow=True)
    assert any("at least 3" in m for m in messages_of(too_few))
    game.refresh_from_db()
    assert game.status == "forming"


def test_private_game_invitation_link(client, users):
    game = game_services.game_create(
        organizer=users["ann"], ruleset="5x", seats_count=3, is_private=True
    )
    # A visitor not logged in is told what the game is and how to take a seat.
    url = reverse("games:invite", args=[game.pk, game.invite_token])
    visitor = client.get(url).content.decode()
    assert "You are invited to" in visitor and 'id="invite-account"' in visitor
    assert f'href="/accounts/signup/?next={url}"' in visitor and f'href="/accounts/login/?next={url}"' in visitor
    assert "Take a seat" not in visitor
    assert client.get(reverse("games:invite", args=[game.pk, "wrong"])).status_code == 404
    login(client, users["bob"])
    # Without the token a private game is not there (the same 404 as an unknown id).
    assert client.post(reverse("games:join", args=[game.pk])).status_code == 404
    assert client.post(reverse("games:join", args=[game.pk]), {"invite_token": "x"}).status_code == 404
    assert client.get(reverse("games:invite", args=[game.pk, "wrong"])).status_code == 404
    invite = client.get(reverse("games:invite", args=[game.pk, game.invite_token]))
    assert invite.status_code == 200 and game.invite_token in invite.content.decode()
    client.post(reverse("games:join", args=[game.pk]), {"invite_token": game.invite_token})
    assert Seat.objects.filter(game=game, name="bob").exists()
    login(client, users["ann"])
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert f"/games/{game.pk}/invite/{game.invite_token}/" in page


def test_seat_page_shows_hand_prompt_and_legal_orders(client, users, started):
    login(client, users["ann"])
    page = client.get(reverse("games:detail", args=[started.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "you play <strong>ann</strong>" in html
    # ann's dealt leaders and her two legal draft orders, as buttons.
    assert "Gandhi" in html and "Caesar" in html
    assert 'value="PASS CAESAR"' in html and 'value="PASS GANDHI"' in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert 'data-countdown="' in html
    assert seat_reply_address(seat=started.seats.get(name="ann")) in html


def test_order_post_redirects_with_receipt_and_double_click_is_one_order(client, users, started):
    login(client, users["ann"])
    url = reverse("games:order", args=[started.pk])
    first = client.post(url, {"text": "PASS CAESAR"})
    assert first.status_code == 302 and first["Location"] == reverse("games:detail", args=[started.pk])
    second = client.post(url, {"text": "PASS CAESAR"}, follow=True)
    order = SealedOrder.objects.get(prompt__game=started, seat_name="ann")
    assert order.text == "PASS CAESAR"
    assert any(order.commitment[:12] in m and "until the decision is resolved" in m for m in messages_of(second))
    html = second.content.decode()
    assert 'id="receipt"' in html and order.commitment in html
    # Replace it while the prompt is open.
    client.post(url, {"text": "pass gandhi"})
    current = SealedOrder.objects.get(prompt__game=started, seat_name="ann", is_current=True)
    assert current.text == "pass gandhi"


def test_notes_in_a_web_order_are_never_sealed(client, users, started):
    login(client, users["ann"])
    url = reverse("games:order", args=[started.pk])
    client.post(url, {"text": "# bob bluffs\nPASS CAESAR   # keep Gandhi for later"})
    order = SealedOrder.objects.get(prompt__game=started, seat_name="ann")
    assert order.text == "PASS CAESAR"
    only_notes = client.post(url, {"text": "# thinking"}, follow=True)
    assert any("lines starting with # are your notes" in m for m in messages_of(only_notes))
    assert SealedOrder.objects.filter(prompt__game=started, seat_name="ann").count() == 1
    # A full stop at the line's end (a phone keyboard's) is dropped as by email; it was
    # refused on the web while the same reply by email was taken.
    client.post(url, {"text": "Pass Gandhi.  # a sentence"})
    current = SealedOrder.objects.get(prompt__game=started, seat_name="ann", is_current=True)
    assert current.text == "Pass Gandhi"
    # So are a phone keyboard's full-width letters and a pasted zero-width space (taken by
    # email, refused here): one reading of the same text everywhere.
    client.post(url, {"text": "ＰＡＳＳ CAE\u200bSAR"})
    current = SealedOrder.objects.get(prompt__game=started, seat_name="ann", is_current=True)
    assert current.text == "PASS CAESAR"


def test_illegal_or_empty_order_is_a_message_not_a_500(client, users, started):
    login(client, users["bob"])
    url = reverse("games:order", args=[started.pk])
    answer = client.post(url, {"text": "PASS GANDHI"}, follow=True)
    assert answer.status_code == 200
    text = " ".join(messages_of(answer))
    assert "QIN" in text or "Qin" in text  # the engine names what bob may pass
    # The refused text is offered again for correction.
    assert "PASS GANDHI</textarea>" in answer.content.decode()
    empty = client.post(url, {"text": "   "}, follow=True)
    assert empty.status_code == 200 and messages_of(empty)
    assert not SealedOrder.objects.filter(prompt__game=started).exists()
    # Not a player at all.
    login(client, users["zed"])
    outsider = client.post(url, {"text": "PASS QIN"}, follow=True)
    assert any("do not hold a seat" in m for m in messages_of(outsider))
    # GET on an action just goes back to the game.
    assert client.get(url).status_code == 302


def test_round_resolves_and_every_page_shows_the_next_prompt(client, users, started, eager_celery, django_capture_on_commit_callbacks):  # noqa: F811
    url = reverse("games:order", args=[started.pk])
    for name, text in (("ann", "PASS CAESAR"), ("bob", "PASS DIDO"), ("cat", "PASS TOKUGAWA")):
        login(client, users[name])
        with django_capture_on_commit_callbacks(execute=True):
            client.post(url, {"text": text})
    login(client, users["bob"])
    html = client.get(reverse("games:detail", args=[started.pk])).content.decode()
    assert "Your order — play" in html
    assert 'value="PLAY EXPLOIT"' in html
    assert 'id="history"' in html
    assert 'name="prompt" value="2"' in html
    status = client.get(reverse("games:status", args=[started.pk])).json()
    assert status["prompt"] == 2 and status["status"] == "active" and status["ordered"] == []
    # A click on a stale page (still showing prompt 1) must not land on prompt 2.
    stale = client.post(url, {"text": "PLAY EXPLOIT", "prompt": 1}, follow=True)
    assert any("Decision 1 is not open any more" in m for m in messages_of(stale))  # the API: prompt
    assert not SealedOrder.objects.filter(prompt__game=started, prompt__number=2).exists()


def test_organizer_tools(client, users, started):
    login(client, users["ann"])
    before = started.prompts.get(number=1).deadline
    client.post(reverse("games:organizer", args=[started.pk, "extend"]), {"hours": 5, "reason": "holiday"})
    after = started.prompts.get(number=1).deadline
    assert round((after - before).total_seconds()) == 5 * 3600
    client.post(reverse("games:organizer", args=[started.pk, "pause"]))
    started.refresh_from_db()
    assert started.status == "paused"
    # Resuming is the one thing to do now: in plain sight, not folded away with the rest.
    panel = client.get(reverse("games:detail", args=[started.pk])).content.decode()
    panel = panel.split('id="organizer"', 1)[1]
    assert panel.index('id="resume-form"') < panel.index("<details")
    assert panel.count("Resume the game") == 1 and "Pause the game" not in panel
    client.post(reverse("games:organizer", args=[started.pk, "resume"]))
    started.refresh_from_db()
    assert started.status == "active"
    cat_seat = started.seats.get(name="cat")
    unknown = client.post(
        reverse("games:organizer", args=[started.pk, "replace"]),
        {"seat": cat_seat.pk, "username": "nobody", "confirm": "on"},
        follow=True,
    )
    assert "There is no player with that name." in messages_of(unknown)
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user("Zoë", "zoe@example.test", "pw")
    unaccented = client.post(
        reverse("games:organizer", args=[started.pk, "replace"]),
        {"seat": cat_seat.pk, "username": "zoe", "confirm": "on"},
        follow=True,
    )
    assert "There is no player with that name. Did you mean Zoë?" in messages_of(unaccented)
    # An organizer finds players by name only: whether an address has an account, and
    # whose, is not for any player who makes a game to learn (staff may; below).
    by_address = client.post(
        reverse("games:organizer", args=[started.pk, "replace"]),
        {"seat": cat_seat.pk, "username": " ZED@example.test ", "confirm": "on"},
        follow=True,
    )
    assert "only site administrators can find a player by email address" in messages_of(by_address)[0]
    assert started.seats.get(name="cat", status="active").user != users["zed"]
    client.post(
        reverse("games:organizer", args=[started.pk, "replace"]),
        {"seat": cat_seat.pk, "username": " ZED ", "confirm": "on"},  # by name, any case
    )
    accept_offer(client, started, users["zed"])
    login(client, users["ann"])
    assert started.seats.get(name="cat", status="active").user == users["zed"]
    # A second click on the same (now stale) form names the handed-over seat.
    stale = client.post(
        reverse("games:organizer", args=[started.pk, "replace"]),
        {"seat": cat_seat.pk, "username": "ann", "confirm": "on"},
        follow=True,
    )
    assert any("not a seat of this game any more" in m for m in messages_of(stale))
    assert started.seats.get(name="cat", status="active").user == users["zed"]
    seats_list = visible_text(client.get(reverse("games:detail", args=[started.pk])).content.decode())
    assert "cat (played by zed since decision 1, replacing cat)" in seats_list and "ann (played by" not in seats_list
    unconfirmed = client.post(reverse("games:organizer", args=[started.pk, "end"]), {"reason": "x"})
    assert unconfirmed.status_code == 302
    started.refresh_from_db()
    assert started.status == "active"
    client.post(reverse("games:organizer", args=[started.pk, "end"]), {"reason": "x", "confirm": "on"})
    started.refresh_from_db()
    assert started.status in ("finished", "abandoned")
    # The record can now be downloaded.
    export = client.get(reverse("games:export", args=[started.pk]))
    assert export.status_code == 200
    assert export["Content-Disposition"].startswith("attachment")
    assert json.loads(export.content)["game"]["seed"] == started.seed


def test_staff_use_the_organizer_tools_of_any_game(client, users, started):
    staff = users["zed"]
    staff.is_staff = True
    staff.save()
    login(client, staff)
    page = client.get(reverse("games:detail", args=[started.pk])).content.decode()
    assert "Deadline, pause, replace, table talk, end" in page
    client.post(reverse("games:organizer", args=[started.pk, "pause"]))
    started.refresh_from_db()
    assert started.status == "paused"
    # Resuming is the one thing to do now: in plain sight, not folded away with the rest.
    panel = client.get(reverse("games:detail", args=[started.pk])).content.decode()
    panel = panel.split('id="organizer"', 1)[1]
    assert panel.index('id="resume-form"') < panel.index("<details")
    assert panel.count("Resume the game") == 1 and "Pause the game" not in panel
    client.post(reverse("games:organizer", args=[started.pk, "resume"]))
    started.refresh_from_db()
    assert started.status == "active"


def test_a_resigned_seat_is_handed_to_a_substitute_on_the_web(client, users, started):
    from games.services.games import seat_resign

    cat_seat = started.seats.get(name="cat")
    seat_resign(seat=cat_seat)
    login(client, users["ann"])
    page = client.get(reverse("games:detail", args=[started.pk])).content.decode()
    assert re.search(rf'<option value="{cat_seat.pk}"[^>]*>cat \(resigned\)</option>', page)
    answer = client.post(
        reverse("games:organizer", args=[started.pk, "replace"]),
        {"seat": cat_seat.pk, "username": "zed", "confirm": "on"},
        follow=True,
    )
    assert any("Seat cat is offered to zed" in m for m in messages_of(answer))
    accept_offer(client, started, users["zed"])
    assert started.seats.get(name="cat", status="active").user == users["zed"]
    assert started.seats.get(pk=cat_seat.pk).status == "replaced"


def accept_offer(client, game, user) -> None:
    """``user`` accepts the seat the organizer offered them (the client is left logged in
    as ``user``)."""
    from games.models import SeatOffer

    offer = SeatOffer.objects.get(game=game, to_user=user, status="pending")
    login(client, user)
    client.post(reverse("games:offer_answer", args=[game.pk, offer.pk, "accept"]))


def test_organizer_tools_refuse_other_players(client, users, started):
    login(client, users["bob"])
    answer = client.post(reverse("games:organizer", args=[started.pk, "pause"]), follow=True)
    assert any("organizer" in m for m in messages_of(answer))
    started.refresh_from_db()
    assert started.status == "active"
    login(client, users["ann"])
    assert client.post(reverse("games:organizer", args=[started.pk, "nonsense"])).status_code == 404


def test_resign_needs_confirmation(client, users, started):
    login(client, users["cat"])
    client.post(reverse("games:resign", args=[started.pk]))
    assert started.seats.get(name="cat").status == "active"
    page = client.get(reverse("games:detail", args=[started.pk])).content.decode()
    assert "I want to resign" in page and 'id="resigned"' not in page
    client.post(reverse("games:resign", args=[started.pk]), {"confirm": "yes"})
    assert started.seats.get(name="cat").status == "resigned"
    # The page says so instead of offering to resign again or to order by email.
    page = client.get(reverse("games:detail", args=[started.pk])).content.decode()
    assert "You resigned from this game: your seat plays the default orders." in page
    assert "I want to resign" not in page and "Orders by email" not in page


def test_mail_token_rotation_changes_the_reply_address(client, users, started):
    login(client, users["bob"])
    seat = started.seats.get(name="bob")
    old = seat_reply_address(seat=seat)
    answer = client.post(reverse("games:mail_token", args=[started.pk]), follow=True)
    seat.refresh_from_db()
    new = seat_reply_address(seat=seat)
    assert new != old
    assert any("Your private order address was replaced" in m for m in messages_of(answer))
    assert not any(new in m for m in messages_of(answer))  # not carried in the cookie
    assert new in answer.content.decode() and old not in answer.content.decode()


def test_log_and_export_pages(client, users, started):
    page = client.get(reverse("games:log", args=[started.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Game started" in html
    # Times are read as dates, not ISO strings; a resigned seat's order is named plainly.
    from games.models import LogEntry

    first = LogEntry.objects.filter(game=started).order_by("seq").first()
    assert first.created_at.strftime("%-d %b %Y %H:%M:%S") in html
    assert first.created_at.isoformat()[:19] not in html
    login(client, users["cat"])
    client.post(reverse("games:resign", args=[started.pk]), {"confirm": "yes"})
    html = client.get(reverse("games:log", args=[started.pk])).content.decode()
    assert "Seat resigned" in html and "Default order" in html and "Nmr" not in html
    early = client.get(reverse("games:export", args=[started.pk]), follow=True)
    assert any("once the game is over" in m for m in messages_of(early))
    assert client.get(reverse("games:detail", args=[999999])).status_code == 404


def test_spectator_page_for_anonymous_visitors(client, started):
    page = client.get(reverse("games:detail", args=[started.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "spectator view" in html
    assert "Your order" not in html and 'name="text"' not in html


def test_the_organizer_who_does_not_play_is_told_so(client, users):
    """A visual review: the organizer's own game page said "spectator view" beside the
    organizer's tools."""
    game = game_services.game_create(organizer=users["zed"], ruleset="5x", seats_count=3, name="Run")
    for name in ("ann", "bob", "cat"):
        game_services.game_join(game=game, user=users[name])
    login(client, users["zed"])
    html = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert "you organize it (you see what a spectator sees)" in html and "spectator view" not in html


def test_api_token_page_creates_shows_once_and_revokes(client, users):
    login(client, users["ann"])
    url = reverse("games:api_tokens")
    assert "You have no API token." in client.get(url).content.decode()
    answer = client.post(url, {"action": "create"})
    # A redirect (a reload makes no other token) to the page, which shows it once, never
    # cached; not in clear in the session table meanwhile (a security audit: the key sat
    # there), only XORed with a pad the browser alone holds (games.views.once).
    assert answer.status_code == 303 and answer["Location"] == url
    page = client.get(url)
    assert page.status_code == 200 and "no-store" in page["Cache-Control"]
    shown = page.content.decode()
    key = re.search(r'id="new-token">([0-9a-f]{40})<', shown).group(1)
    assert ApiToken.objects.get(user=users["ann"]).digest == hashlib.sha256(key.encode()).hexdigest()
    assert key not in client.get(url).content.decode()  # shown once only
    assert client.get("/api/games/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 200
    client.post(url, {"action": "create"})
    assert client.get("/api/games/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 401
    client.post(url, {"action": "revoke"})
    assert not ApiToken.objects.filter(user=users["ann"]).exists()


@pytest.mark.parametrize(
    "ruleset,marker", [("6x5", 'class="hexmap"'), ("4x-dice", 'class="track"')]
)
def test_other_rulesets_have_their_own_page(client, users, django_capture_on_commit_callbacks, ruleset, marker):
    game = game_services.game_create(organizer=users["ann"], ruleset=ruleset, seats_count=2)
    with django_capture_on_commit_callbacks(execute=True):
        for name in ("ann", "bob"):
            game_services.game_join(game=game, user=users[name])
    for name in ("ann", "bob", "zed"):
        login(client, users[name])
        page = client.get(reverse("games:detail", args=[game.pk]))
        assert page.status_code == 200
        html = page.content.decode()
        assert marker in html
        if ruleset == "6x5":
            assert ">0,0<" in html  # the black tile's coordinates are drawn
        else:
            assert html.count('class="die"') >= 2 * 3  # 2 players x 3 dice (default)
            # A seat sees its own dice first, above the table; a spectator has none.
            if name == "zed":
                assert 'id="my-dice"' not in html
            else:
                from games.selectors import current_state

                faces = [d["face"] for d in current_state(game=game)["seats"][name]["dice"]]
                mine = html.split('id="my-dice"', 1)[1].split("</p>", 1)[0]
                assert [f"{a}/{b}" for a, b in faces] == re.findall(r">(\d+/\d+)</span>", mine)


def test_generic_fallback_renders_any_view_as_tables():
    from django.template.loader import render_to_string

    html = render_to_string(
        "games/rulesets/_generic.html",
        {"v": {"turn": 3, "players": {"a": {"score": 1}, "b": {"score": 2}}, "notes": ["x<y"]}},
    )
    assert "<table" in html and "Players" in html and "Turn" in html
    assert "x&lt;y" in html and "x<y" not in html


def test_game_list_shows_mine_and_open_games(client, users, started):
    open_game = game_services.game_create(organizer=users["zed"], ruleset="5x", seats_count=3, name="Open one")
    login(client, users["ann"])
    html = client.get(reverse("games:list")).content.decode()
    assert "Table one" in html and "Open one" in html
    assert reverse("games:join", args=[open_game.pk]) in html


def test_anyone_finds_the_public_games_being_played_to_watch_them(client, users, started):
    """Regression (new-player walk): a running public game could be watched at its address
    but was listed nowhere, and /games/ sent visitors to the login page."""
    open_game = game_services.game_create(organizer=users["zed"], ruleset="5x", seats_count=3, name="Open one")
    game_services.game_create_seated(organizer=users["zed"], ruleset="6x5", name="Hush",
                                     users=[users["zed"], users["bob"]], is_private=True)  # fmt: skip
    anonymous = client.get(reverse("games:list"))
    assert anonymous.status_code == 200
    html = anonymous.content.decode()
    watch = html.split("Being played: watch", 1)[1]
    assert "Table one" in watch and f'href="/games/{started.pk}/"' in watch
    assert "Hush" not in html and "Open one" in html
    assert reverse("games:join", args=[open_game.pk]) not in html  # log in first
    assert "Log in</a> or" in html and "My games" not in html
    assert client.get(reverse("games:detail", args=[started.pk])).status_code == 200
    login(client, users["zed"])  # not at Table one: watches it; plays Hush
    html = client.get(reverse("games:list")).content.decode()
    mine, watch = html.split("Being played: watch", 1)
    assert "Hush" in mine and "Table one" in watch and "Hush" not in watch
    login(client, users["ann"])  # plays Table one: it is in her games, not to watch
    watch = client.get(reverse("games:list")).content.decode().split("Being played: watch", 1)[1]
    assert "Table one" not in watch


def test_a_game_ended_early_shows_no_open_prompt_anywhere(client, users, started):
    from games.services import organizer as organizer_services

    login(client, users["bob"])
    client.post(reverse("games:order", args=[started.pk]), {"text": "PASS QIN"})
    playing = client.get(reverse("games:detail", args=[started.pk])).content.decode()
    assert "Seed (revealed)" not in playing and str(started.seed) not in playing
    organizer_services.game_end(game=started, by=users["ann"], reason="club closed")
    html = client.get(reverse("games:detail", args=[started.pk])).content.decode()
    text = visible_text(html)
    assert "Seed (revealed)" in text and str(started.seed) in text
    assert 'value="PASS QIN"' not in html and 'name="text"' not in html
    assert 'data-countdown="' not in html
    assert "to act" not in text and "Waiting for" not in text
    assert "Orders by email" not in text
    status = client.get(reverse("games:status", args=[started.pk])).json()
    assert (status["status"], status["prompt"], status["pending"], status["deadline"]) == (
        "abandoned",
        None,
        [],
        None,
    )
    key = api_token_create(user=users["bob"])
    client.logout()
    api = client.get(f"/api/games/{started.pk}/", HTTP_AUTHORIZATION=f"Token {key}").json()
    assert api["game"]["status"] == "abandoned"
    assert api["prompt"] is None and api["legal_orders"] == [] and api["my_order"] is None


def test_options_left_in_another_games_hidden_fields_do_not_block_creating(client, users):
    login(client, users["ann"])
    form = {"name": "Switched", "seats_count": 3, "deadline_hours": 24, "play": "on",
            "opt__6x5__goals": "9", "opt__4x-dice__dice": "7"}
    answer = client.post(reverse("games:create"), {**form, "ruleset": "5x"})
    game = Game.objects.get(name="Switched")
    assert answer.status_code == 302 and game.ruleset == "5x"
    assert game.options == {"leaders": False, "all_leaders": False}
    # For the game they belong to, the same values are refused with the reason.
    refused = client.post(reverse("games:create"), {**form, "name": "Six", "ruleset": "6x5"})
    assert refused.status_code == 200
    assert "less than or equal to 5" in refused.content.decode()
    assert not Game.objects.filter(name="Six").exists()


def test_waiting_for_lists_only_seats_without_an_order(client, users, started, django_capture_on_commit_callbacks):
    login(client, users["bob"])
    client.post(reverse("games:order", args=[started.pk]), {"text": "PASS QIN"})
    with django_capture_on_commit_callbacks(execute=True):
        game_services.seat_resign(seat=started.seats.get(name="cat"))
    login(client, users["cat"])  # resigned: asked for nothing, sees who is still to order
    text = visible_text(client.get(reverse("games:detail", args=[started.pk])).content.decode())
    assert "Waiting for ann." in text


def test_every_form_field_on_the_organizers_seat_page_has_a_label(client, users, started):
    from html.parser import HTMLParser

    class Fields(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.labelled_ids: set[str] = set()
            self.fields: list[dict] = []
            self.in_label = 0

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            if tag == "label":
                self.in_label += 1
                if a.get("for"):
                    self.labelled_ids.add(a["for"])
            if tag in ("input", "textarea", "select") and a.get("type") not in ("hidden", "submit"):
                self.fields.append({**a, "_wrapped": self.in_label > 0})

        def handle_endtag(self, tag):
            if tag == "label":
                self.in_label -= 1

    login(client, users["ann"])  # ann is the organizer and holds a seat
    parser = Fields()
    parser.feed(client.get(reverse("games:detail", args=[started.pk])).content.decode())
    assert len(parser.fields) >= 5
    unlabelled = [
        f for f in parser.fields
        if not (f["_wrapped"] or f.get("aria-label") or f.get("id") in parser.labelled_ids)
    ]
    assert unlabelled == []


def test_the_deadline_policy_is_set_on_the_form(client, users):
    login(client, users["ann"])
    base = {"ruleset": "5x", "seats_count": 3, "deadline_hours": 24, "play": "on",
            "grace_minutes": 30, "reminder_hours": 2, "early_resolution_delay_seconds": 60}
    answer = client.post(reverse("games:create"), {
        **base, "name": "Quiet", "quiet_hours_start": 22, "quiet_hours_end": 7,
    })
    game = Game.objects.get(name="Quiet")
    assert answer.status_code == 302
    assert (game.deadline_hours, game.grace_minutes, game.reminder_hours) == (24, 30, 2)
    assert (game.quiet_hours_start, game.quiet_hours_end) == (22, 7)
    assert game.early_resolution_delay_seconds == 60
    assert game.require_sender_match is False
    strict = client.post(reverse("games:create"), {**base, "name": "Strict", "require_sender_match": "on"})
    assert strict.status_code == 302 and Game.objects.get(name="Strict").require_sender_match is True
    half = client.post(reverse("games:create"), {**base, "name": "Half", "quiet_hours_start": 22})
    assert half.status_code == 200
    assert "Quiet hours need both a start and an end hour" in half.content.decode()
    assert not Game.objects.filter(name="Half").exists()
    # Fractions of an hour, as the API takes them (the form took whole hours only).
    fast = client.post(reverse("games:create"), {**base, "name": "Fast", "deadline_hours": "1.5",
                                                  "reminder_hours": 1})  # fmt: skip
    assert fast.status_code == 302 and Game.objects.get(name="Fast").deadline_hours == 1.5
    short = client.post(reverse("games:create"), {**base, "name": "Short", "deadline_hours": "0.5"})
    assert short.status_code == 200 and not Game.objects.filter(name="Short").exists()


def test_receipt_shows_when_the_order_was_sealed_in_words(client, users, started):
    login(client, users["bob"])
    client.post(reverse("games:order", args=[started.pk]), {"text": "PASS QIN"})
    order = SealedOrder.objects.get(seat_name="bob", is_current=True)
    text = visible_text(client.get(reverse("games:detail", args=[started.pk])).content.decode())
    assert f"Submitted {order.submitted_at:%a %-d %b %Y, %H:%M:%S} UTC" in text
    assert order.submitted_at.isoformat() not in text


def test_a_game_link_opened_signed_out_leads_back_to_the_game(client, users, started):
    """From a league player's walk: a game's link from an email, opened signed out, showed
    the spectator page with a header "Log in" to the home page, and a private game said
    "Page not found" as if it were gone."""
    from django.contrib.auth import get_user_model

    url = reverse("games:detail", args=[started.pk])
    back = f"/accounts/login/?next=%2Fgames%2F{started.pk}%2F"
    html = client.get(url).content.decode()
    assert f'<div class="notice" id="log-in-to-play">Playing in this game? <a href="{back}">' in html
    assert f'<li><a href="{back}">Log in</a></li>' in html
    hush = game_services.game_create_seated(organizer=users["zed"], ruleset="6x5", name="Hush",
                                            users=[users["zed"], users["bob"]], is_private=True)  # fmt: skip
    missing = client.get(reverse("games:detail", args=[hush.pk]))
    assert missing.status_code == 404
    assert f'<a href="/accounts/login/?next=%2Fgames%2F{hush.pk}%2F">log in</a>' in missing.content.decode()
    # The log-in page itself, and the home page, need no way back.
    assert '<li><a href="/accounts/login/">Log in</a></li>' in client.get("/accounts/login/").content.decode()
    bob = users["bob"]
    bob.set_password("a-long-pass-phrase-9")
    bob.save()
    get_user_model().objects.filter(pk=bob.pk).update(email="bob@example.test")
    signed_in = client.post(back, {"login": "bob@example.test", "password": "a-long-pass-phrase-9"})
    assert signed_in.status_code == 302 and signed_in["Location"] == url
    assert "log-in-to-play" not in client.get(url).content.decode()


def test_after_an_order_the_next_game_waiting_for_one_is_named(client, users, started):
    """From a league player's walk: with ten games, an order left the player on the same
    page with no way on to the next game that waits for one but the home page."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Prompt

    def waiting_game(name: str, hours: int):
        game = game_services.game_create_seated(  # a 5X draft asks every seat
            organizer=users["zed"], ruleset="5x", name=name,
            users=[users["ann"], users["zed"], users["cat"]],
        )  # fmt: skip
        Prompt.objects.filter(game=game).update(deadline=timezone.now() + timedelta(hours=hours))
        return game

    login(client, users["ann"])
    url = reverse("games:order", args=[started.pk])
    alone = client.post(url, {"text": "PASS CAESAR"}, follow=True)
    assert not any(m.startswith("Next:") for m in messages_of(alone))
    later = waiting_game("Later <duel>", 30)
    sooner = waiting_game("Sooner", 5)
    again = client.post(url, {"text": "PASS GANDHI"}, follow=True)
    shown = [m for m in messages_of(again) if m.startswith("Next:")]
    assert shown == [f'Next: <a href="/games/{sooner.pk}/">Sooner</a> waits for your order (1 more game too).']
    assert f'Next: <a href="/games/{sooner.pk}/">Sooner</a>' in again.content.decode()  # a link
    from games.selectors import legal_orders

    seat = sooner.seats.get(name="ann")
    there = client.post(reverse("games:order", args=[sooner.pk]),
                        {"text": legal_orders(seat=seat)[0]}, follow=True)  # fmt: skip
    assert [m for m in messages_of(there) if m.startswith("Next:")] == [
        f'Next: <a href="/games/{later.pk}/">Later &lt;duel&gt;</a> waits for your order.'
    ]
    last = client.post(url, {"text": "PASS CAESAR"}, follow=True)
    shown = [m for m in messages_of(last) if m.startswith("Next:")]
    assert shown == [f'Next: <a href="/games/{later.pk}/">Later &lt;duel&gt;</a> waits for your order.']


def test_staff_may_hand_a_seat_over_by_email_address(client, users, started):
    from django.contrib.auth import get_user_model

    staff = get_user_model().objects.create_user("boss", "boss@example.test", "pw", is_staff=True)
    client.force_login(staff)
    cat_seat = started.seats.get(name="cat")
    client.post(
        reverse("games:organizer", args=[started.pk, "replace"]),
        {"seat": cat_seat.pk, "username": " ZED@example.test ", "confirm": "on"},  # any case
    )
    assert started.seats.get(name="cat", status="active").user == users["zed"]
    from games.models import OutboxMessage

    welcome = OutboxMessage.objects.get(kind="seat_handover", to=users["zed"].email)
    assert "A site administrator (boss) handed you the seat cat" in welcome.body  # not the organizer


def test_the_last_order_is_told_the_prompt_resolves_not_that_it_may_be_replaced(client, users, started):
    """The player whose order completes the prompt read "You may replace it until the prompt
    resolves" above a page already showing the next prompt."""
    url = reverse("games:order", args=[started.pk])
    for name, text in (("bob", "PASS QIN"), ("cat", "PASS NAPOLEON")):
        login(client, users[name])
        client.post(url, {"text": text})
    login(client, users["ann"])
    last = client.post(url, {"text": "PASS CAESAR"}, follow=True)
    said = [m for m in messages_of(last) if "Order received" in m][-1]  # ann's, after the others'
    assert said.endswith("Yours was the last order: the decision is being resolved now.")
    # With a delay before resolution the orders may still be replaced meanwhile.
    game = game_services.game_create(
        organizer=users["ann"], ruleset="5x", seats_count=3, setup={"deal": DEAL},
        early_resolution_delay_seconds=600,
    )
    for name in ("ann", "bob", "cat"):
        game_services.game_join(game=game, user=users[name])
    url = reverse("games:order", args=[game.pk])
    for name, text in (("bob", "PASS QIN"), ("cat", "PASS NAPOLEON"), ("ann", "PASS CAESAR")):
        login(client, users[name])
        answer = client.post(url, {"text": text}, follow=True)
    said = [m for m in messages_of(answer) if "Order received" in m][-1]
    assert said.endswith("Every order is in: the decision is resolved in a moment, and until then you may still replace yours.")


def test_an_extension_acts_on_the_prompt_and_deadline_the_page_showed(client, users, started):
    """A race audit: the organizer's Extend, sent as the deadline resolved decision 1, was
    spent on prompt 2; a double click extended twice (two of three extensions, two emails
    to everyone). The form now carries the prompt and its extensions as shown."""
    from django.utils import timezone

    from games.models import LogEntry, OutboxMessage
    from games.services.resolution import prompt_resolve

    login(client, users["ann"])
    page = client.get(reverse("games:detail", args=[started.pk])).content.decode()
    form = page.split(f'action="/games/{started.pk}/organizer/extend/"', 1)[1].split("</form>", 1)[0]
    assert '<input type="hidden" name="prompt" value="1">' in form
    assert '<input type="hidden" name="extensions" value="0">' in form
    assert "Decision 1's deadline: extended 0 of 3 times." in visible_text(form)
    shown = {"hours": 2, "reason": "", "prompt": 1, "extensions": 0}

    url = reverse("games:organizer", args=[started.pk, "extend"])
    first = client.post(url, shown, follow=True)
    assert "The deadline of decision 1 was extended by 2 hours." in messages_of(first)
    again = client.post(url, shown, follow=True)  # the second click of a double click
    assert any(
        m.startswith("The deadline of decision 1 was just extended (now ") and m.endswith(
            "nothing more was changed.")
        for m in messages_of(again)
    ), messages_of(again)
    prompt = started.prompts.get(number=1)
    assert prompt.extensions == 1
    assert LogEntry.objects.filter(game=started, kind="deadline_extended").count() == 1
    assert OutboxMessage.objects.filter(game=started, subject__endswith="Deadline extended").count() == 3  # once each

    # The deadline wins the race: prompt 1 resolves (default orders) before the click lands.
    started.prompts.filter(number=1).update(deadline=timezone.now())
    assert prompt_resolve(game_id=started.pk, prompt_number=1, fill_missing=True)
    late = client.post(url, {**shown, "extensions": 1}, follow=True)
    assert (
        "Decision 1 was resolved before the extension arrived (decision 2 is open now): nothing "
        "was extended." in messages_of(late)
    )
    assert started.prompts.get(number=2).extensions == 0
    # A form without them (an older page) still extends the open prompt.
    client.post(url, {"hours": 1})
    assert started.prompts.get(number=2).extensions == 1


def test_a_refused_organizer_tool_comes_back_open_with_what_was_typed_and_its_error(client, users, started):
    """An accessibility audit: a refusal was only the message at the top; the tools were
    folded again, the typed name or hours gone, and no field was marked in error."""
    login(client, users["ann"])
    cat_seat = started.seats.get(name="cat")
    client.post(reverse("games:organizer", args=[started.pk, "replace"]),
                {"seat": cat_seat.pk, "username": "nobodyhere", "confirm": "on"})  # fmt: skip
    html = client.get(reverse("games:detail", args=[started.pk])).content.decode()
    panel = html.split('id="organizer"', 1)[1]
    assert '<details class="tools" open>' in panel
    assert '<p class="errorlist" id="org-error-replace">There is no player with that name.</p>' in panel
    assert re.search(r'<input id="rep-user"[^>]*value="nobodyhere" aria-invalid="true" aria-describedby="org-error-replace"', panel)
    assert re.search(rf'<option value="{cat_seat.pk}"[^>]* selected>', panel)
    # Shown once: the next visit has the tools folded, nothing in error.
    again = client.get(reverse("games:detail", args=[started.pk])).content.decode()
    assert '<details class="tools">' in again and "org-error-" not in again

    client.post(reverse("games:organizer", args=[started.pk, "extend"]), {"hours": 500, "reason": "exams"})
    panel = client.get(reverse("games:detail", args=[started.pk])).content.decode().split('id="organizer"', 1)[1]
    assert 'id="org-error-extend">Extend the deadline by at most 168 hours (a week) at a time.</p>' in panel
    assert re.search(r'<input id="ext-hours"[^>]*value="500" aria-invalid="true" aria-describedby="org-error-extend"', panel)
    assert re.search(r'<input id="ext-reason"[^>]*value="exams"', panel)
    # A refusal from the service (not the form) is kept too: ending without the tick.
    client.post(reverse("games:organizer", args=[started.pk, "end"]), {"reason": "rain"})
    panel = client.get(reverse("games:detail", args=[started.pk])).content.decode().split('id="organizer"', 1)[1]
    assert 'id="org-error-end">Tick the box to confirm: nothing was ended.</p>' in panel
    assert re.search(r'<input id="end-reason"[^>]*value="rain"', panel)


def test_web_forms_share_the_apis_rate_limits(client, users, started, settings):
    """Security audit: the web forms were a way around the API's per-user limits (150
    orders a minute stored, 70 games created in 6 seconds). One quota for both."""
    from rest_framework.test import APIClient

    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"orders": "2/min", "games_create": "1/hour"},
    }
    login(client, users["ann"])
    url = reverse("games:order", args=[started.pk])
    for text in ("PASS GANDHI", "PASS CAESAR"):
        client.post(url, {"text": text})
    refused = client.post(url, {"text": "PASS GANDHI", "typed": "1"}, follow=True)
    said = " ".join(messages_of(refused))
    assert "Too many orders at once (at most 2 a minute): nothing was changed" in said, said
    assert re.search(r"try again in \d+ seconds?\.", said)
    current = SealedOrder.objects.get(prompt__game=started, seat_name="ann", is_current=True)
    assert current.text == "PASS CAESAR"
    api = APIClient()
    api.force_authenticate(users["ann"])
    assert api.post(f"/api/games/{started.pk}/orders/", {"text": "PASS GANDHI"}, format="json").status_code == 429
    # Creating games: the web form and the API count together.
    data = {"ruleset": "6x5", "name": "One", "seats_count": 2, "deadline_hours": 24}
    assert client.post(reverse("games:create"), data).status_code == 302
    again = client.post(reverse("games:create"), {**data, "name": "Two"})
    assert again.status_code == 200
    assert "Too many new games at once (at most 1 an hour)" in again.content.decode()
    assert not Game.objects.filter(name="Two").exists()
    assert api.post("/api/games/", {"ruleset": "6x5", "seats_count": 2}, format="json").status_code == 429


def test_my_games_list_the_ones_waiting_for_my_order_first(client, users, started, monkeypatch):
    """First-time player's walk: "My games" was newest first, so the game waiting for an
    order sat under games created later: finished, cancelled or still forming."""
    from games.services.organizer import game_end

    later = [
        game_services.game_create(organizer=users["ann"], ruleset="6x5", seats_count=2, name=name)
        for name in ("Forming later", "Cancelled later")
    ]
    game_end(game=later[1], by=users["ann"], reason="")
    login(client, users["ann"])
    html = client.get(reverse("games:list")).content.decode()
    mine = html[html.index("My games"):]
    at = {name: mine.index(name) for name in ("Table one", "Forming later", "Cancelled later")}
    assert at["Table one"] < at["Forming later"] < at["Cancelled later"], at
    # A game waiting for my order comes first even when older than a page of games (code
    # review: only the 200 newest were sorted); the rest are on the next pages.
    import games.views.lobby as lobby

    monkeypatch.setattr(lobby, "GAMES_PAGE", 1)
    few = client.get(reverse("games:list")).content.decode()
    few_mine = few[few.index("My games"):few.index("Open games")]
    assert "Table one" in few_mine and "Cancelled later" not in few_mine
    assert "1–1 of 3." in few_mine and 'href="?mine=2#my-games"' in few_mine
    last = client.get(reverse("games:list"), {"mine": "3"}).content.decode()
    assert "Cancelled later" in last[last.index("My games"):last.index("Open games")]
    # Ended before it started: "cancelled" (code review: "ended early" said it had begun).
    row = mine[at["Cancelled later"]:]
    assert row.index('<span class="badge abandoned">cancelled</span>') < row.index("</tr>")


def test_the_games_lists_come_a_page_at_a_time(client, users, monkeypatch):
    """The games page listed up to 200 open games, 100 being played and every game of mine
    (a long-time player's page grew without end): 50 a page now, each list its own pages,
    and a bad or too big page number is the first or the last page, never an error."""
    import games.views.lobby as lobby

    monkeypatch.setattr(lobby, "GAMES_PAGE", 2)
    for n in range(5):
        game_services.game_create(organizer=users["bob"], ruleset="6x5", seats_count=2,
                                  name=f"Open {n}")  # fmt: skip
    mine = game_services.game_create(organizer=users["ann"], ruleset="6x5", seats_count=2,
                                     name="Anns own")  # fmt: skip
    login(client, users["ann"])
    first = client.get(reverse("games:list")).content.decode()
    listed = first[first.index('id="open-games"'):first.index('id="watch-games"')]
    assert "Open 4" in listed and "Open 3" in listed and "Open 2" not in listed  # newest first
    assert "Anns own" not in listed  # in my list, not among the open ones
    assert "1–2 of 5." in listed and 'href="?open=2#open-games"' in listed
    second = client.get(reverse("games:list"), {"open": "2", "mine": "1"}).content.decode()
    listed = second[second.index('id="open-games"'):second.index('id="watch-games"')]
    assert "Open 2" in listed and "Open 1" in listed and "Open 4" not in listed
    # The other list keeps its page in the links.
    assert 'href="?open=1&amp;mine=1#open-games"' in listed
    assert 'href="?open=3&amp;mine=1#open-games"' in listed
    for bad, shows in (("0", "Open 4"), ("abc", "Open 4"), ("99", "Open 0"), ("-1", "Open 4")):
        page = client.get(reverse("games:list"), {"open": bad})
        assert page.status_code == 200
        html = page.content.decode()
        assert shows in html[html.index('id="open-games"'):html.index('id="watch-games"')], bad
    # One page only: no pager.
    assert mine.name in first and "Pages of your games" not in first


def test_the_players_table_marks_only_the_seats_still_to_order(client, users, started):
    """First-time walk: the players table's ● stayed on a seat that had ordered (it marked
    every seat asked at this prompt) while the seats panel beside it said "sealed"."""
    login(client, users["bob"])
    before = client.get(reverse("games:detail", args=[started.pk])).content.decode()
    assert before.count("(order awaited)") == 3
    login(client, users["ann"])
    client.post(reverse("games:order", args=[started.pk]), {"text": "PASS GANDHI"})
    login(client, users["bob"])
    after = client.get(reverse("games:detail", args=[started.pk])).content.decode()
    assert after.count("(order awaited)") == 2
    row = re.search(r"<strong>ann</strong>(.*?)</td>", after, re.S).group(1)
    assert "order awaited" not in row


def test_the_games_list_says_other_when_the_viewers_own_games_are_not_in_its_lists(
    client, started, users
):
    # Guards against "No public game is being played right now." beside the viewer's own
    # public game being played, listed under My games.
    page = visible_text(login(client, users["ann"]).get(reverse("games:list")).content.decode())
    assert "No other public game is being played right now." in page
    assert "No other open game is waiting for players right now." in page
    page = visible_text(login(client, users["zed"]).get(reverse("games:list")).content.decode())
    assert "No public game is being played right now." not in page  # Table one is listed
    client.logout()
    started.status = "finished"
    started.save(update_fields=["status"])
    page = visible_text(client.get(reverse("games:list")).content.decode())
    assert "No public game is being played right now." in page
    assert "No open game is waiting for players right now." in page


@pytest.mark.parametrize(
    "tampered",
    ["a" * 5000, "\x00", "0" * 31 + "\x00", "5f0c1d2e-3b4a-4c5d-8e6f-7a8b9c0d1e2f"],  # a well-formed key never issued
    ids=["5000-characters", "nul", "nul-at-the-end", "unknown-uuid"],
)
def test_a_malformed_create_key_says_the_form_is_out_of_date(client, users, tampered):
    """Regression (a bad-input audit): a 5,000-character or NUL create_key re-rendered the
    form with no visible error (the hidden field's own error is shown nowhere), where a
    UUID was told to reload the page."""
    login(client, users["ann"])
    data = {"ruleset": "5x", "name": "Tampered", "seats_count": 4, "deadline_hours": 24,
            "opt__5x__leaders": "on", "create_key": tampered}  # fmt: skip
    answer = client.post(reverse("games:create"), data)
    assert answer.status_code == 200
    page = answer.content.decode()
    assert "This form was out of date: check it and create the game again." in page
    assert not Game.objects.filter(name="Tampered").exists()
    # The form shown again carries a fresh key, not the one refused, and creates the game.
    (key,) = re.findall(r'name="create_key" value="([^"]*)"', page)
    assert key != tampered and re.fullmatch(r"[0-9a-f]{32}", key)
    created = client.post(reverse("games:create"), {**data, "create_key": key})
    assert created.status_code == 302 and Game.objects.filter(name="Tampered").count() == 1
