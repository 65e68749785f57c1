"""6x5's options and what each viewer may see (shared/spec/6x5.md, engine.md "Per-seat
views"; the rulebook's Visible Goal, Scoring Points and Open Game), played through the
services and read through every channel a viewer has: the game page, the API's game and
log, status.json and the viewer's emails. Viewers: each seat, a signed-in outsider
(``zed``) and an anonymous visitor.

- Without ``visible_goals`` a seat's goals are its own (the rulebook: "keeps its pattern
  secret") until the game is over; with it, "everyone sees everyone's goals".
- The goal deck's next cards are nobody's to see, ever (not even at the end).
- A sealed order (its text as typed and its salt) is its seat's alone while the game runs.
- ``target``: a realized goal scores and is shown (discarded), points are public, the
  replacement card is drawn secretly.
- ``open_game``: an empty reserve does not end the game; play goes on by SWAP.
- A game won by a completed goal turns every goal face up (README: "A game that is over
  ... shows every seat's hidden cards face up ... 6x5's goals") and its export verifies
  with the command its game-over email gives.

Expected goals, boards and orders are chosen by hand below; the deck's cards are read from
the engine state (the server draws the seed at random)."""

from __future__ import annotations

import json
import re
import shlex

import pytest
from django.test import Client
from django.urls import reverse

import engine
from engine.audit import verify_export_file
from engine.base import dumps
from games.models import OutboxMessage, SealedOrder
from games.selectors import current_state
from games.services.games import game_create_seated
from games.services.orders import order_submit
from games.services.resolution import prompt_resolve
from tests.games.web_support import body_text, make_user

pytestmark = pytest.mark.django_db

LINE = [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]]  # black at 0,0 and four in a row
HOOK = [[0, 0], [0, 1], [0, 2], [1, 2], [2, 2]]
ELL = [[0, 0], [-1, 0], [-2, 0], [-3, 0], [-3, 1]]  # black and four to the left, a foot
ZIG = [[0, 0], [0, 1], [1, 1], [1, 2], [2, 2]]

OUTSIDERS = ("zed", "anonymous")


def canon(shape: list[list[int]]) -> list[list[int]]:
    from engine.sixbyfive_shapes import canonical, from_json, to_json

    return to_json(canonical(from_json(shape)))


def renderings(goal: list[list[int]]) -> list[str]:
    """A goal as the site may print it: compact JSON (the engine's), JSON with spaces
    (the API's), and "q,r q,r ..." (the page's aria-label, the emails, the log's text)."""
    return [dumps(goal), json.dumps(goal), " ".join(f"{q},{r}" for q, r in goal)]


def shows(text: str, goal: list[list[int]]) -> bool:
    return any(form in text for form in renderings(goal))


def start(names, goals, options):
    users = [make_user(n) for n in names]
    make_user("zed")
    game = game_create_seated(
        organizer=users[0], ruleset="6x5", users=users, is_private=False, options=options,
        setup={"goals": goals},
    )  # fmt: skip
    game.refresh_from_db()
    return game


# A resolved prompt's review, as one reader sees it, does not change while the game runs
# (and changes once, when it ends: every seat's private events shown): read once each, it
# is still read for every prompt, without reading 23 reviews again at each check (the
# suite's slowest test read each one ~20 times).
_REVIEWS_READ: dict[tuple, str] = {}


# Everything a reader read, by what the database held then (the game's log entries, sealed
# orders, emails and status): a check made again before anything more was written (the
# checks below often follow each other) reads what it read.
_CHANNELS_READ: dict[tuple, dict[str, str]] = {}


@pytest.fixture(autouse=True)
def _reviews_read_afresh():
    _REVIEWS_READ.clear()
    _CHANNELS_READ.clear()
    yield
    _REVIEWS_READ.clear()
    _CHANNELS_READ.clear()


def _written(game) -> tuple:
    from games.models import LogEntry

    return (
        type(game).objects.values_list("status", flat=True).get(pk=game.pk),
        LogEntry.objects.filter(game=game).count(),
        SealedOrder.objects.filter(prompt__game=game).count(),
        OutboxMessage.objects.filter(game=game).count(),
    )


def channels(game, who: str) -> dict[str, str]:
    """Everything ``who`` (a seat's player, "zed" or "anonymous") can read about the game."""
    key = (game.pk, who, _written(game))
    if key not in _CHANNELS_READ:
        _CHANNELS_READ[key] = _channels(game, who)
    return dict(_CHANNELS_READ[key])


def _channels(game, who: str) -> dict[str, str]:
    from django.contrib.auth import get_user_model

    client = Client()
    user = None
    if who != "anonymous":
        user = get_user_model().objects.get(username=who)
        client.force_login(user)
    out = {}
    status = type(game).objects.values_list("status", flat=True).get(pk=game.pk)
    for url in (
        reverse("games:detail", args=[game.pk]),
        reverse("games:status", args=[game.pk]),
        reverse("games:log", args=[game.pk]),
        f"/api/games/{game.pk}/",
        f"/api/games/{game.pk}/log/?limit=1000",
        # The review of each resolved prompt, its page and the API's (the spectator's
        # table while the game runs).
        *(
            url
            for number in game.prompts.filter(status="resolved").values_list("number", flat=True)
            for url in (
                reverse("games:review_step", args=[game.pk, number]),
                f"/api/games/{game.pk}/review/{number}/",
            )
        ),
    ):
        key = (who, url, status)
        if "/review/" in url and key in _REVIEWS_READ:
            out[url] = _REVIEWS_READ[key]
            continue
        answer = client.get(url)
        assert answer.status_code in ((401, 403) if user is None and url.startswith("/api/") else (200,)), (
            url, who, answer.status_code)  # fmt: skip
        out[url] = body_text(answer)
        if "/review/" in url:
            _REVIEWS_READ[key] = out[url]
    if user is not None:
        mails = OutboxMessage.objects.filter(to=user.email, game=game).order_by("id")
        out["mail"] = "\n".join(f"{m.subject}\n{m.body}\n{m.html}" for m in mails)
    return out


def page_and_api(game) -> tuple[str, str]:
    return reverse("games:detail", args=[game.pk]), f"/api/games/{game.pk}/"


def assert_hidden(seen: dict[str, str], secrets: list[str], who: str, what: str) -> None:
    for where, text in seen.items():
        for secret in secrets:
            assert secret not in text, f"{what} ({secret!r}) visible to {who} in {where}"


def goal_secrets(goals: list[list[list[int]]]) -> list[str]:
    return [form for goal in goals for form in renderings(goal)]


def deck_secrets(game) -> list[str]:
    deck = current_state(game=game)["deck"]
    assert len(deck) >= 3  # the next cards exist: their absence below means something
    return goal_secrets(deck[:3])


def play(game, text: str, *, resolve: bool = True) -> SealedOrder:
    """The pending seat sends ``text`` on the web; resolved at once unless told not to."""
    state = current_state(game=game)
    mover = engine.get("6x5").pending(state)[0]
    order_submit(seat=game.seats.get(name=mover), text=text, source="web")
    sealed = SealedOrder.objects.get(prompt__game=game, seat_name=mover, is_current=True,
                                     prompt__status="open")  # fmt: skip
    if resolve:
        assert prompt_resolve(game_id=game.pk, prompt_number=sealed.prompt.number), text
    return sealed


def check_secret_goals(game, names, *, visible: bool) -> None:
    """Each seat sees its own goals (page, API, emails); the others' goals reach another
    viewer only with visible_goals; the deck's next cards reach nobody."""
    state = current_state(game=game)
    deck = deck_secrets(game)
    page, api = page_and_api(game)
    for who in (*names, *OUTSIDERS):
        seen = channels(game, who)
        for owner in names:
            goals = state["goals"][owner]
            if owner == who or visible:
                assert all(shows(seen[page], g) for g in goals), (who, owner, "page")
                if who != "anonymous":
                    assert all(shows(seen[api], g) for g in goals), (who, owner, "api")
                if who in names:
                    assert all(shows(seen["mail"], g) for g in goals), (who, owner, "mail")
            else:
                assert_hidden(seen, goal_secrets(goals), who, f"{owner}'s goal")
        assert_hidden(seen, deck, who, "the goal deck")
        if who == "anonymous" or who == "zed":
            assert_hidden(seen, ["Your goal"], who, "a seat's goal heading")


def check_sealed(game, sealed: SealedOrder, names) -> None:
    """The order's text as typed and its salt are its seat's alone while the game runs."""
    for who in (*names, *OUTSIDERS):
        seen = channels(game, who)
        if who == sealed.seat_name:
            continue
        assert_hidden(seen, [sealed.text, sealed.salt], who, f"{sealed.seat_name}'s sealed order")
    own = channels(game, sealed.seat_name)  # its receipt, then its own line of the log
    assert sealed.text in "".join(own.values())


# --- visible_goals ---------------------------------------------------------------------


@pytest.mark.parametrize("visible", [True, False], ids=["visible_goals", "secret_goals"])
def test_visible_goals_decides_who_sees_the_goals_and_nobody_sees_the_deck(visible):
    names = ("ann", "bob", "cat")
    game = start(names, {"ann": [LINE], "bob": [HOOK]}, {"visible_goals": visible})  # cat draws
    check_secret_goals(game, names, visible=visible)
    sealed = play(game, "pLaCe   bLuE   1,0", resolve=False)  # ann moves first (seat 1)
    check_sealed(game, sealed, names)
    prompt_resolve(game_id=game.pk, prompt_number=sealed.prompt.number)
    # The action is public; the order as typed and its salt are not (the log is redacted).
    for who in (*names, *OUTSIDERS):
        seen = channels(game, who)
        assert "ann placed a BLUE tile at 1,0" in "".join(seen.values()), who
    check_sealed(game, SealedOrder.objects.get(pk=sealed.pk), names)
    play(game, "PLACE RED 0,1")
    play(game, "PLACE YELLOW -1,0")
    check_secret_goals(game, names, visible=visible)


# --- target (Scoring Points) -----------------------------------------------------------

# ann realizes LINE in blue (turn 7: 1 point, LINE shown, a new card drawn in secret), then
# ELL in red (turn 15: 2 points, the target: ann wins). bob plays yellow along r=-1, never
# touching the black tile.
TARGET_ORDERS = [
    "PLACE BLUE 1,0", "PLACE YELLOW 2,-1", "PLACE BLUE 2,0", "PLACE YELLOW 3,-1",
    "PLACE BLUE 3,0", "PLACE YELLOW 4,-1", "PLACE BLUE 4,0",  # ann scores LINE
    "PLACE YELLOW 5,-1", "PLACE RED -1,0", "PLACE YELLOW 6,-1", "PLACE RED -2,0",
    "PLACE YELLOW 7,-1", "PLACE RED -3,0", "PLACE YELLOW 8,-1", "PLACE RED -3,1",  # ann wins
]  # fmt: skip


def test_target_scores_in_public_draws_in_secret_and_the_win_reveals_every_goal(tmp_path):
    names = ("ann", "bob")
    game = start(names, {"ann": [LINE, ELL], "bob": [HOOK]}, {"target": 2})
    check_secret_goals(game, names, visible=False)
    for text in TARGET_ORDERS[:6]:
        play(game, text)
    check_secret_goals(game, names, visible=False)
    sealed = play(game, TARGET_ORDERS[6], resolve=False)
    check_sealed(game, sealed, names)
    prompt_resolve(game_id=game.pk, prompt_number=sealed.prompt.number)

    state = current_state(game=game)
    assert state["points"] == {"ann": 1, "bob": 0} and not state["over"]
    drawn = state["goals"]["ann"][-1]  # the replacement card
    assert state["goals"]["ann"] == [canon(ELL), drawn]
    assert state["discarded"]["ann"] == [canon(LINE)]
    page, api = page_and_api(game)
    for who in (*names, *OUTSIDERS):
        seen = channels(game, who)
        # Scoring is public: the goal shown and discarded, and the point.
        assert shows(seen[page], canon(LINE)), who
        assert re.search(r"<td>1</td>", seen[page]), who  # ann's points column
        if who != "anonymous":
            assert '"points": 1' in seen[api] and shows(seen[api], canon(LINE)), who
            assert "ann scores" in seen[f"/api/games/{game.pk}/log/?limit=1000"], who
        if who == "bob":
            assert "shown and discarded: " + renderings(canon(LINE))[2] in seen["mail"]
    check_secret_goals(game, names, visible=False)  # the new card is ann's alone
    ann_seen = channels(game, "ann")  # her draw event, on her page and in her email
    said = "ann drew a new goal: " + renderings(drawn)[2]
    assert said in ann_seen[page] and said in ann_seen["mail"]
    for who in ("bob", *OUTSIDERS):
        assert_hidden(channels(game, who), ["drew a new goal"], who, "ann's draw")

    for text in TARGET_ORDERS[7:14]:
        play(game, text)
    check_secret_goals(game, names, visible=False)
    second = current_state(game=game)["deck"][0]  # drawn when ELL scores, as the game ends
    play(game, TARGET_ORDERS[14])
    game.refresh_from_db()
    assert game.status == "finished" and game.ranking == [["ann"], ["bob"]]
    assert current_state(game=game)["discarded"]["ann"] == [canon(LINE), canon(ELL)]
    check_end_reveal(game, names, {"ann": [drawn, second], "bob": [canon(HOOK)]}, tmp_path)


# --- open_game -------------------------------------------------------------------------

# 24 tiles placed with no goal realized: row r=0 from q=1 (B B B R Y R Y B Y R B R) then
# row r=-1 from q=2 (Y R Y R Y R Y B Y B R B). Nothing but 1,0 touches the black tile, so
# the black tile's blue group is 0,0 1,0 2,0 3,0 (four hexes). Then ann swaps 4,0 (red)
# with 8,0 (blue): the group is LINE exactly (4,0's other neighbours are not blue).
ROW0 = "B B B R Y R Y B Y R B R".split()
ROW1 = "Y R Y R Y R Y B Y B R B".split()
COLOUR = {"B": "BLUE", "R": "RED", "Y": "YELLOW"}
OPEN_ORDERS = [f"PLACE {COLOUR[c]} {q},0" for q, c in enumerate(ROW0, start=1)] + [
    f"PLACE {COLOUR[c]} {q},-1" for q, c in enumerate(ROW1, start=2)
]
SWAP = "SWAP 4,0 8,0"


@pytest.mark.parametrize("open_game", [True, False], ids=["open_game", "closed"])
def test_open_game_plays_on_by_swapping_and_a_swap_wins(open_game, tmp_path):
    names = ("ann", "bob")
    game = start(names, {"ann": [LINE], "bob": [ZIG]}, {"open_game": open_game})
    for text in OPEN_ORDERS[:23]:
        play(game, text)
    if open_game:  # (the same game so far in both: checked once)
        check_secret_goals(game, names, visible=False)
    play(game, OPEN_ORDERS[23])  # the reserve is empty now
    game.refresh_from_db()
    state = current_state(game=game)
    assert state["reserve"] == {"BLUE": 0, "RED": 0, "YELLOW": 0}
    if not open_game:  # the rulebook: "If all the tiles are played ... it's a draw"
        assert game.status == "finished" and game.ranking == [["ann", "bob"]]
        check_end_reveal(game, names, {"ann": [canon(LINE)], "bob": [canon(ZIG)]}, tmp_path)
        return
    assert game.status == "active" and not state["over"]
    check_secret_goals(game, names, visible=False)
    client = Client()
    client.force_login(game.seats.get(name="ann").user)
    mine = client.get(f"/api/games/{game.pk}/").json()
    assert SWAP in mine["legal_orders"]
    assert not any(o.startswith("PLACE") for o in mine["legal_orders"])
    sealed = play(game, SWAP, resolve=False)
    check_sealed(game, sealed, names)
    prompt_resolve(game_id=game.pk, prompt_number=sealed.prompt.number)
    game.refresh_from_db()
    assert game.status == "finished" and game.ranking == [["ann"], ["bob"]]
    assert current_state(game=game)["board"]["4,0"] == "B"
    check_end_reveal(game, names, {"ann": [canon(LINE)], "bob": [canon(ZIG)]}, tmp_path)


# --- the end ---------------------------------------------------------------------------


def check_end_reveal(game, names, goals, tmp_path) -> None:
    """Every seat's goals face up for everyone (page, API, the last emails); the deck's
    next cards still hidden; the log reveals every order; the export verifies with the
    command the game-over email gives."""
    page, api = page_and_api(game)
    deck = deck_secrets(game)
    sealed = list(SealedOrder.objects.filter(prompt__game=game, is_current=True))
    for who in (*names, *OUTSIDERS):
        seen = channels(game, who)
        for owner, owned in goals.items():
            assert all(shows(seen[page], g) for g in owned), (who, owner, "page")
            if who != "anonymous":
                assert all(shows(seen[api], g) for g in owned), (who, owner, "api")
            if who in names:
                mails = OutboxMessage.objects.filter(to=f"{who}@example.test", game=game)
                last = mails.order_by("-id")[0]
                assert "Game over" in last.subject
                assert all(shows(last.body, g) for g in owned), (who, owner, "mail")
        table = seen[page].split("<h3>Players</h3>", 1)[1].split("</table>", 1)[0]
        assert "hidden" not in table, who
        assert_hidden(seen, deck, who, "the goal deck")
        if who != "anonymous":  # the log now shows every order and its salt
            log = seen[f"/api/games/{game.pk}/log/?limit=1000"]
            assert all(order.salt in log for order in sealed), who

    last = OutboxMessage.objects.filter(to="bob@example.test", game=game).order_by("-id")[0]
    command = next(line for line in last.body.splitlines() if "python -m engine verify" in line)
    words = shlex.split(command.split("python -m engine verify", 1)[1])
    assert words[0] == "EXPORT.json", command
    pairs = list(zip(words[1::2], words[2::2], strict=True))
    expect = [(int(v.split(":")[0]), v.split(":")[1]) for k, v in pairs if k == "--expect"]
    receipts = [v for k, v in pairs if k == "--receipt"]
    assert expect and {k for k, _v in pairs} <= {"--expect", "--receipt"}, command
    export = Client().get(reverse("games:export", args=[game.pk]))
    assert export.status_code == 200
    path = tmp_path / "export.json"
    path.write_bytes(export.content)
    assert verify_export_file(str(path), expect=expect, receipts=receipts) == 0
    # The same check fails on a log whose last entry was rewritten (the test can see it).
    doctored = json.loads(export.content)
    doctored["entries"][0]["payload"]["name"] = "rewritten"  # game_created
    path.write_text(json.dumps(doctored))
    assert verify_export_file(str(path), expect=expect, receipts=receipts) != 0


# --- change_goal, with the other options -------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [{"change_goal": True}, {"change_goal": True, "visible_goals": True},
     {"change_goal": True, "target": 2, "goals": 2}],
    ids=["change_goal", "with_visible_goals", "with_target"],
)  # fmt: skip
def test_a_changed_goal_is_shown_to_all_and_its_replacement_only_where_goals_are(options):
    """Change Goal (the rulebook: the seat "shows" the goal it discards and draws another):
    the discarded goal reaches every viewer; the card drawn for it is its seat's alone
    unless visible_goals shows every goal; the deck's next cards reach nobody."""
    names = ("ann", "bob")
    ann_goals = [LINE, ELL] if options.get("goals") == 2 else [LINE]
    bob_goals = [HOOK, ZIG] if options.get("goals") == 2 else [HOOK]
    game = start(names, {"ann": ann_goals, "bob": bob_goals}, options)
    visible = bool(options.get("visible_goals"))
    coming = current_state(game=game)["deck"][0]  # the card ann's change draws
    play(game, "CHANGE 1\nPLACE BLUE 1,0")
    state = current_state(game=game)
    assert canon(LINE) not in state["goals"]["ann"] and coming in state["goals"]["ann"]
    page, _api = page_and_api(game)
    for who in (*names, *OUTSIDERS):
        seen = channels(game, who)
        assert shows(seen[page], canon(LINE)), (who, "the changed goal, shown")
        if who == "ann" or visible:
            assert shows(seen[page], coming), (who, "ann's new goal")
        else:
            assert_hidden(seen, goal_secrets([coming]), who, "ann's new goal")
    check_secret_goals(game, names, visible=visible)
    play(game, "CHANGE 1\nPLACE RED 0,1")  # bob changes too, the next turn
    check_secret_goals(game, names, visible=visible)
