"""The game log page shows salts, commitments and hashes shortened (a few hex digits and
an ellipsis) with the whole value in the title attribute; the JSON record keeps them whole."""

from __future__ import annotations

import hashlib
import html as html_lib
import re

import pytest
from django.test import Client
from django.urls import reverse

from games.models import SealedOrder
from tests.games.test_4x_dice_hit_picker import exterminate_game
from tests.games.web_support import eager_celery

pytestmark = pytest.mark.django_db
__all__ = ["eager_celery"]


def titled(html: str) -> dict[str, str]:
    """Each ``title="…"`` value on the page -> the text of the element carrying it."""
    return {
        title: html_lib.unescape(text).strip()
        for title, text in re.findall(r'title="([^"]*)"[^>]*>([^<]*)<', html)
    }


def test_commitments_are_shortened_on_the_log_page_and_whole_in_its_title_and_the_export():
    from games.services.organizer import game_end

    game = exterminate_game()  # 3 seats, the set-up prompt resolved
    orders = list(SealedOrder.objects.filter(prompt__game=game, prompt__number=1, is_current=True))
    assert len(orders) == 3
    for order in orders:  # the commitment as anyone recomputes it from the revealed order
        expected = hashlib.sha256(f"{order.salt}:{order.text}".encode()).hexdigest()
        assert order.commitment == expected

    client = Client()
    client.force_login(game.seats.get(name="bob").user)
    page = client.get(reverse("games:log", args=[game.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    shown = titled(html)
    for order in orders:
        # Whole in a title, shown as its first 10 digits and an ellipsis.
        assert shown.get(order.commitment) == order.commitment[:10] + "…", order.seat_name
        # Nowhere on the page as visible text (only inside title attributes).
        outside_titles = re.sub(r'title="[^"]*"', "", html)
        assert order.commitment not in outside_titles
    # bob sees his own salt (shortened, whole in the title); the others' not at all.
    bob = next(o for o in orders if o.seat_name == "bob")
    assert shown.get(bob.salt) == bob.salt[:10] + "…"
    for order in orders:
        if order.seat_name != "bob":
            assert order.salt not in html

    game_end(game=game, by=game.organizer, reason="over")
    record = client.get(reverse("games:export", args=[game.pk]))
    assert record.status_code == 200
    revealed = [e for e in record.json()["entries"] if e["kind"] == "orders_revealed"]
    assert {name: o["commitment"] for name, o in revealed[0]["payload"]["orders"].items()} == {
        o.seat_name: o.commitment for o in orders
    }
    # Over, every salt is on the log page, shortened the same way.
    shown = titled(client.get(reverse("games:log", args=[game.pk])).content.decode())
    for order in orders:
        assert shown.get(order.salt) == order.salt[:10] + "…"


def test_moments_in_the_log_are_dates_in_the_readers_time_zone():
    """Regression (new-player walk): deadlines showed as 2026-11-28T16:17:30.474085+00:00."""
    from zoneinfo import ZoneInfo

    from games.models import LogEntry, Prompt
    from games.services.players import player_time_zone_set

    game = exterminate_game()
    bob = game.seats.get(name="bob").user
    player_time_zone_set(user=bob, time_zone="Europe/Paris")
    deadline = Prompt.objects.get(game=game, number=2).deadline
    raw = [e for e in LogEntry.objects.filter(game=game) if deadline.isoformat() in str(e.payload)]
    assert raw  # the log holds the deadline as ISO 8601 text
    client = Client()
    client.force_login(bob)
    html = client.get(reverse("games:log", args=[game.pk])).content.decode()
    paris = deadline.astimezone(ZoneInfo("Europe/Paris"))
    shown = f'<time datetime="{deadline.replace(microsecond=0).isoformat()}">{paris:%-d %b %Y %H:%M} {paris.tzname()}</time>'
    assert shown in html, re.findall(r"<time[^>]*>[^<]*</time>", html)[:3]
    assert f">{deadline.isoformat()}<" not in html


@pytest.mark.parametrize("name", ["2026-02-30T10:00Z", "2026-11-28T16:17:30+00:00"])
def test_a_name_shaped_like_a_date_stays_text_and_never_breaks_the_log(name):
    """Regression (review): a game named "2026-02-30T10:00Z" (no such day) made the log page
    a 500 for everyone, and a real date as a name was shown as a time. Only the payload's
    moments (deadlines) are dates."""
    from games.services.games import game_create
    from tests.games.web_support import make_user

    game = game_create(organizer=make_user("dte"), ruleset="6x5", seats_count=2, name=name)
    page = Client().get(reverse("games:log", args=[game.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert f"<td>{name}</td>" in html and f'<time datetime="{name}"' not in html


def _summaries(client: Client, game) -> list[str]:
    html = client.get(reverse("games:log", args=[game.pk])).content.decode()
    return [
        html_lib.unescape(re.sub(r"\s+", " ", text)).strip()
        for text in re.findall(r'<p class="log-summary">(.*?)</p>', html, re.S)
    ]


@pytest.mark.usefixtures("eager_celery")
def test_each_log_entry_says_what_happened_in_a_sentence_keeping_orders_sealed(
    django_capture_on_commit_callbacks,
):
    """The log listed payload fields only ("Seating rule 2", "Engine version 1"); each
    entry now opens with a sentence. Other seats' orders stay commitments in it while the
    game runs, as in the details."""
    from games.services.organizer import game_end
    from tests.games.web_support import DEAL, DRAFT, NAMES, dealt_5x_game, submit_orders

    game = dealt_5x_game(
        django_capture_on_commit_callbacks, names=NAMES, organizer="org", deal=DEAL, name="Log"
    )
    submit_orders(game, django_capture_on_commit_callbacks, DRAFT)
    ann = Client()
    ann.force_login(game.seats.get(name="ann").user)
    lines = _summaries(ann, game)
    # who made it and its options in words (a newcomer's walk: "A 3-seat game of 5X was
    # created (public); each prompt's deadline is 48 hours after it opens.")
    assert lines[0] == (
        "org created the game “Log”: 5X for 3 players, public, with leaders on and all "
        "leaders off. Players have 2 days for each order."
    )
    assert lines[1:4] == ["ann took a seat.", "bob took a seat.", "cat took a seat."]
    assert re.fullmatch(
        r"The game started\. Seating: (ann|bob|cat), (ann|bob|cat), (ann|bob|cat) \(drawn with "
        r"the game's seed\)\. The seed and the set-up stay sealed by their commitments until "
        r"the game ends\.",
        lines[4],
    ), lines[4]
    assert sorted(lines[5:8]) == [
        f"{name} sealed an order for decision 1 on the web." for name in ("ann", "bob", "cat")
    ]
    # "Orders revealed" has no sentence: its details list the orders (others' as commitments).
    assert re.fullmatch(r"Decision 1 was resolved; decision 2 \(round 1, \w+\) opened\.", lines[8])
    page = ann.get(reverse("games:log", args=[game.pk])).content.decode()
    assert "PASS DIDO" not in page and "PASS ERIK" not in page
    assert _summaries(Client(), game) == lines  # a watcher reads the same sentences

    game_end(game=game, by=game.organizer, reason="club closed")
    lines = _summaries(ann, game)
    assert len(lines) == 10 and lines[-1] == (
        "The organizer (org) ended the game (club closed); it has no ranking."
    )


@pytest.mark.parametrize(
    ("kind", "payload", "expected"),
    [
        ("game_finished", {"ranking": [["bob"], ["ann", "cat"]]},
         "The game is over: bob wins; ann and cat tie for second. The seed and every order are revealed."),
        # a newcomer's walk: a three-way tie read "1. ann and bob and cat"
        ("game_finished", {"ranking": [["ann", "bob", "cat"], ["dan"]]},
         "The game is over: ann, bob and cat tie for first; dan is fourth. The seed and every "
         "order are revealed."),
        ("game_finished", {"ranking": [["ann"], ["bob"], ["cat", "dan", "eve"]]},
         "The game is over: ann wins; bob is second; cat, dan and eve tie for third. The seed "
         "and every order are revealed."),
        ("nmr_applied", {"prompt": 4, "seat": "cat", "reason": "deadline", "source": "default"},
         "cat's default order was entered for decision 4 (no order before the deadline)."),
        ("order_forced", {"prompt": 7, "seat": "ann", "source": "forced"},
         "ann's only legal order for decision 7 was entered for it."),
        ("order_replaced", {"prompt": 2, "seat": "bob", "source": "email"},
         "bob replaced their order for decision 2 by email."),
        ("deadline_extended", {"prompt": 3, "hours": 1.5, "reason": "travel"},
         "The organizer extended decision 3's deadline by 1 hour and 30 minutes (travel)."),
        ("game_paused", {"prompt": 3, "reason": ""}, "The organizer paused the game at decision 3."),
        ("game_resumed", {"prompt": 3}, "The organizer resumed the game at decision 3."),
        ("seat_resigned", {"seat": "dan"},
         "dan resigned; default orders are entered for the seat from now on."),
        ("seat_replaced", {"seat": "dan"}, "Seat dan was handed to another player."),
        ("privacy_changed", {"private": True}, "The organizer made the game private."),
        ("prompt_resolved", {"prompt": 30, "next": None}, "Decision 30 was resolved; it ended the game."),
        ("prompt_resolved", {"prompt": 5, "next": {"prompt": 6, "round": 6, "phase": "move"}},
         "Decision 5 was resolved; decision 6 (turn 6) opened."),
        ("game_created", {"ruleset": "6x5", "seats": 2, "private": True, "deadline_hours": None},
         "The game was created: 6x5 for 2 players, private, with goals 1, visible goals off, "
         "change goal off, open game off, target off and max turns 200. No deadlines: the "
         "game waits for every order."),
        ("game_created", {"ruleset": "6x5", "seats": 3, "private": False, "name": "Tuesday",
                          "options": {"goals": 2, "target": 3}, "deadline_hours": 36,
                          "grace_minutes": 15, "quiet_hours": [22, 8],
                          "quiet_hours_time_zone": "Europe/Paris", "away_days": 3},
         "The game “Tuesday” was created: 6x5 for 3 players, public, with goals 2, visible goals "
         "off, change goal off, open game off, target 3 and max turns 200. Players have 1 day "
         "and 12 hours for each order, and 15 minutes' grace; a deadline falling between 22:00 "
         "and 08:00 (Europe/Paris) moves to 08:00; a deadline waits up to 3 days in all for a "
         "player who is away."),
        ("orders_revealed", {"prompt": 1, "orders": {"ann": {"commitment": "ab"}}}, ""),
        ("something_new", {"x": 1}, ""),
    ],
)  # fmt: skip
def test_log_summaries_in_words(kind, payload, expected):
    from games.log_text import log_summary

    assert log_summary(ruleset="6x5", kind=kind, payload=payload) == expected


@pytest.mark.usefixtures("eager_celery")
def test_a_long_log_comes_a_page_at_a_time(monkeypatch, django_capture_on_commit_callbacks):
    """A data-at-scale audit: an 800-prompt game's log page was 2 MB of HTML and a second
    of CPU. The page shows the newest entries, with links to the earlier pages; the API
    reads the entries after a sequence number, with the total and the next link."""
    from games.views import log as log_views
    from tests.games.web_support import DEAL, DRAFT, NAMES, dealt_5x_game, submit_orders

    game = dealt_5x_game(
        django_capture_on_commit_callbacks, names=NAMES, organizer="org", deal=DEAL, name="Long"
    )
    submit_orders(game, django_capture_on_commit_callbacks, DRAFT)
    from games.models import LogEntry

    assert LogEntry.objects.filter(game=game).count() == 10
    monkeypatch.setattr(log_views, "LOG_PAGE", 4)
    client = Client()

    def seqs(url: str) -> list[int]:
        html = client.get(url).content.decode()
        return [int(n) for n in re.findall(r'<td class="seq">(\d+)</td>', html)]

    url = reverse("games:log", args=[game.pk])
    assert seqs(url) == [9, 10]  # the newest page: 3 of 3
    assert seqs(url + "?page=1") == [1, 2, 3, 4]
    assert seqs(url + "?page=2") == [5, 6, 7, 8]
    # A number past the last page, none, one of any length (5000 digits: more than int()
    # takes) is the newest page, never a 500.
    for bad in ("?page=0", "?page=4", "?page=x", "?page=２", "?page=" + "9" * 5000):
        assert seqs(url + bad) == [9, 10], bad
    text = html_lib.unescape(client.get(url + "?page=2").content.decode())
    assert "Entries 5–8 of 10 (the newest are on page 3)." in text
    assert '<a href="?page=2" aria-current="page">' in text and '<a href="?page=3">' in text

    api = f"/api/games/{game.pk}/log/"
    client.force_login(game.seats.get(name="ann").user)
    whole = client.get(api)
    assert [e["seq"] for e in whole.json()["entries"]] == list(range(1, 11))
    assert whole["X-Total-Count"] == "10" and "Link" not in whole
    first = client.get(api, {"limit": 5})
    assert [e["seq"] for e in first.json()["entries"]] == [1, 2, 3, 4, 5]
    assert first["Link"].endswith(f'{api}?after=5&limit=5>; rel="next"')
    rest = client.get(api, {"after": 9})
    assert [e["seq"] for e in rest.json()["entries"]] == [10] and "Link" not in rest
    for bad in ({"limit": 0}, {"limit": 1001}, {"after": -1}, {"after": "x"}, {"offset": 3}):
        assert client.get(api, bad).status_code == 400, bad


@pytest.mark.usefixtures("eager_celery")
def test_the_logs_less_obvious_fields_say_what_they_mean(django_capture_on_commit_callbacks):
    """A player's journey: "Seating rule 2" and "Join order" were left to guess."""
    from games.templatetags.games_extras import LOG_FIELD_NOTES
    from tests.games.web_support import DEAL, NAMES, dealt_5x_game

    game = dealt_5x_game(
        django_capture_on_commit_callbacks, names=NAMES, organizer="org", deal=DEAL, name="Notes"
    )
    client = Client()
    client.force_login(game.seats.get(name="ann").user)
    page = html_lib.unescape(client.get(reverse("games:log", args=[game.pk])).content.decode())
    for key in ("join_order", "seating_rule", "seed_commitment", "setup_commitment"):
        assert f'<span class="small muted note">{LOG_FIELD_NOTES[key]}</span>' in page, key
    assert "how the seating is drawn from the seed" in page


def test_the_log_page_leads_down_to_its_newest_entry():
    # Guards against the phone walk's long log: the newest entries, those a player looks
    # for, were some 12,000 px down a phone's screen with no way there but scrolling.
    game = exterminate_game()  # 3 seats, the set-up prompt resolved
    client = Client()
    client.force_login(game.seats.get(name="ann").user)
    html = client.get(reverse("games:log", args=[game.pk])).content.decode()
    newest = game.log.order_by("-seq").values_list("seq", flat=True).first()
    assert newest > 5
    link = re.search(r'<a href="#entry-(\d+)"[^>]*>([^<]*)</a>', html)
    assert link is not None
    assert int(link.group(1)) == newest
    assert link.group(2) == f"Go down to the newest entry ({newest})"
    rows = re.findall(r'<tr id="entry-(\d+)"', html)
    assert [int(n) for n in rows] == list(range(1, newest + 1))


def _created_details(html: str) -> str:
    """The details cell of the log's "Game created" entry (its sentence, then its fields)."""
    start = html.rindex('<p class="log-summary">', 0, html.index("created the game"))
    return html[start:html.index('<td class="mono small hash"', start)]


def test_the_created_entrys_details_leave_out_the_settings_not_set():
    # A player's walk: under "Game created", quiet hours as two empty boxes, "Warnings
    # none", "Grace minutes 0"; the sentence above already says there are none.
    from games.services import games as game_services
    from tests.games.core_support import make_users

    ann, bob = make_users(["ann", "bob"])
    plain = game_services.game_create_seated(
        organizer=ann, ruleset="6x5", users=[ann, bob], name="Plain", deadline_hours=24
    )
    client = Client()
    client.force_login(ann)
    details = _created_details(client.get(reverse("games:log", args=[plain.pk])).content.decode())
    for unset in ("Quiet hours", "Warnings", "Grace minutes", "—"):
        assert unset not in details, unset
    for said in ("<th>Seats</th><td>2</td>", "<th>Deadline hours</th><td>24</td>"):
        assert said in details, said
    # A game that has them still shows them.
    set_ = game_services.game_create_seated(
        organizer=ann, ruleset="6x5", users=[ann, bob], name="Set", deadline_hours=24,
        grace_minutes=15, quiet_hours_start=22, quiet_hours_end=8,
    )  # fmt: skip
    details = _created_details(client.get(reverse("games:log", args=[set_.pk])).content.decode())
    assert "<th>Grace minutes</th><td>15</td>" in details
    assert re.search(r"<th>Quiet hours</th><td>.*22.*8", details)
