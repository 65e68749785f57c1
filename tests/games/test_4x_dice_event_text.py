"""4X Dice's "What happened" (game page and emails) writes dice as the rest of the page
does, ships/asteroids ("2/0"), not as Python lists ("[2, 0]"); the engine's own text
stays as it is in the log and the API (the hash chain and ``engine verify`` use it)."""

from __future__ import annotations

import html as html_lib
import re

import pytest
from django.test import Client
from django.urls import reverse

from games.models import OutboxMessage
from tests.games.test_4x_dice_hit_picker import ROLLS, SETUP_ORDERS, exterminate_game

pytestmark = pytest.mark.django_db

AREAS_OF = {name: text.split()[1:] for name, text in SETUP_ORDERS.items()}


def allocated_line(name: str, index: int) -> str:
    """What the set-up allocation of seat number ``index`` reads like, from the test's own
    rolls and orders: "ann allocated 2/0 to EXTERMINATE, 1/0 to EXPLORE, 0/1 to EXPAND."."""
    faces = ROLLS[3 * index : 3 * index + 3]
    parts = [f"{s}/{a} to {area}" for (s, a), area in zip(faces, AREAS_OF[name], strict=True)]
    return f"{name} allocated {', '.join(parts)}."


def test_what_happened_writes_dice_as_ships_slash_asteroids(django_capture_on_commit_callbacks):
    from games.services.orders import order_submit
    from games.services.resolution import prompt_resolve

    with django_capture_on_commit_callbacks(execute=True):
        game = exterminate_game()  # the set-up (prompt 1) is resolved
    with django_capture_on_commit_callbacks(execute=True):
        order_submit(seat=game.seats.get(name="ann"), text="HIT bob 3 SHIP; HIT bob 1 ASTEROID", source="web")
        assert prompt_resolve(game_id=game.pk, prompt_number=2)
    expected = [allocated_line(name, i) for i, name in enumerate(("ann", "bob", "cat"))]
    # bob's die 3 showed 2/2 and his die 1 1/1: after the hits, 1/2 and 1/0.
    hits = ["ann hit bob's die 3: one ship fewer (now 1/2)", "ann hit bob's die 1: one asteroid fewer (now 1/0)"]

    client = Client()
    client.force_login(game.seats.get(name="cat").user)
    html = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    happened = [html_lib.unescape(t) for t in re.findall(r"<li>([^<]*)</li>", html)]
    for line in expected:
        assert line in happened, (line, happened)
    for line in hits:
        assert any(h.startswith(line) for h in happened), (line, happened)
    assert not any(re.search(r"\[\d+, \d+\]", h) for h in happened), happened

    resolved = OutboxMessage.objects.filter(
        game=game, kind="prompt_resolved", body__contains="— Decision 1 ("
    )
    assert resolved.count() == 3
    for message in resolved:
        for line in expected:
            assert f"- {line}" in message.body, message.to
        assert not re.search(r"\[\d+, \d+\]", message.body)
    second = list(OutboxMessage.objects.filter(game=game, body__contains="— Decision 2 ("))
    assert len(second) == 3  # one to each seat
    for message in second:
        assert not re.search(r"\[\d+, \d+\]", message.body)
        assert hits[0] in message.body

    # The engine's text itself is unchanged in the API and the log (it is in the hash chain).
    api = client.get(f"/api/games/{game.pk}/log/").json()
    logged = [e for e in api["entries"] if e["kind"] == "prompt_resolved"][0]["payload"]["events"]
    assert "ann allocated [2, 0] to EXTERMINATE, [1, 0] to EXPLORE, [0, 1] to EXPAND." in logged


def test_a_turns_history_is_headed_by_the_prompt_and_the_seat_asked(django_capture_on_commit_callbacks):
    """Regression (new-player walk): "Round 1 · allocate (decision 4)" stood over "Round 2
    begins…": a seat's prompt runs on into the next seat's turn. The heading now names
    the prompt and who was asked."""
    from games.services.orders import order_submit
    from games.services.resolution import prompt_resolve

    with django_capture_on_commit_callbacks(execute=True):
        game = exterminate_game()
    with django_capture_on_commit_callbacks(execute=True):
        order_submit(seat=game.seats.get(name="ann"), text="PASS", source="web")
        assert prompt_resolve(game_id=game.pk, prompt_number=2)
    client = Client()
    client.force_login(game.seats.get(name="cat").user)
    html = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    headings = [html_lib.unescape(h) for h in re.findall(r'<h3 class="small muted"><a [^>]*>([^<]*)</a></h3>', html)]
    # every heading capitalized (a player's journey: "allocate (prompt 1)" under "Prompt 2 ·")
    assert headings == ["Decision 2 · ann's exterminate, round 1", "Allocate (decision 1)"], headings


def test_the_final_scores_come_best_first_and_a_capped_track_in_one_bracket():
    """A player's journey: "Final scores: Bob 15, Alice 19, Carl 22." (seating order,
    under a banner ranking Carl first) and "(5 ships, track capped at 19) (now 19)"."""
    from games.presentation import event_text

    assert event_text(
        ruleset="4x-dice", text="The game is over after round 9. Final scores: Bob 15, Alice 19, Carl 22."
    ) == "The game is over after round 9. Final scores: Carl 22, Alice 19, Bob 15."
    # a tie keeps the seating order
    assert event_text(ruleset="4x-dice", text="Final scores: b 3, a 5, c 3.") == "Final scores: a 5, b 3, c 3."
    assert event_text(
        ruleset="4x-dice", text="Alice explored 3 (5 ships, track capped at 19) (now 19)."
    ) == "Alice explored 3 (5 ships, track capped at 19; now 19)."
    # other games' texts are left as they are
    assert event_text(ruleset="5x", text="Final scores: b 3, a 5.") == "Final scores: b 3, a 5."


def test_the_logs_dice_notation_is_explained(django_capture_on_commit_callbacks):
    """The log page and the API write a die as the engine does, "[2, 0]" (the hash chain
    covers that text), while pages and emails write 2/0: the rules page and the log page
    said nothing of the second notation (an audit)."""
    with django_capture_on_commit_callbacks(execute=True):
        game = exterminate_game()  # the set-up (prompt 1) is resolved
    client = Client()
    log = html_lib.unescape(client.get(reverse("games:log", args=[game.pk])).content.decode())
    # ann's set-up dice as the log page shows them: ROLLS' first face, 2/0
    assert "ann allocated [2, 0] to EXTERMINATE" in log
    assert (
        '<span id="log-dice">A die is written [ships, asteroids] here: [2, 0] is the die the '
        "game page writes 2/0.</span>"
    ) in log
    rules = html_lib.unescape(client.get(reverse("games:rules", args=["4x-dice"])).content.decode())
    said = re.sub(r"<[^>]+>", "", re.search(r'<p id="log-dice">(.*?)</p>', rules, re.S).group(1))
    assert said == (
        "The game's log (its page, the JSON record and the API's events) writes a die as "
        "[ships, asteroids]: [2, 0] there is the die the pages and emails write 2/0. The log "
        "keeps the engine's own text because its hashes cover it."
    )
