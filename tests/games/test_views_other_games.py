"""6x5 and 4X Dice on the web: created with the generic form, played with the generic
order form, and drawn by their own templates (an SVG hex map, dice and tracks)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games.forms import option_field_name
from games.models import Game, Prompt
from tests.games.web_support import eager_celery, make_user  # noqa: F401

pytestmark = pytest.mark.django_db


def create_and_fill(client, ruleset: str, names: list[str], extra: dict) -> Game:
    users = [make_user(n) for n in names]
    client.force_login(users[0])
    data = {"ruleset": ruleset, "seats_count": len(names), "play": "on", "deadline_hours": 24, **extra}
    resp = client.post(reverse("games:create"), data)
    assert resp.status_code == 302, resp.content.decode()[:2000]
    game = Game.objects.latest("id")
    for user in users[1:]:
        client.force_login(user)
        client.post(reverse("games:join", args=[game.pk]))
    game.refresh_from_db()
    assert game.status == "active"
    return game


def test_6x5_on_the_web(client):
    game = create_and_fill(client, "6x5", ["wa", "wb"], {option_field_name("6x5", "goals"): 2})
    assert game.options["goals"] == 2
    prompt = Prompt.objects.get(game=game, number=1)
    [mover] = prompt.pending
    client.force_login(game.seats.get(name=mover).user)
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert "<svg" in page and "PLACE BLUE" in page
    # The first move can only place a tile: one choice of colour and one of hex.
    form = page.split('id="legal-orders"', 1)[1].split("</form>", 1)[0]
    assert 'name="verb" value="PLACE"' in form
    assert re.findall(r'<label class="word">\s*([^<]+?)\s*<select', form) == ["Colour", "Hex (q,r)"]
    resp = client.post(reverse("games:order", args=[game.pk]), {"text": "PLACE RED 0,1", "prompt": 1}, follow=True)
    assert "Order received and sealed" in resp.content.decode()
    from games.services.resolution import prompt_resolve

    assert prompt_resolve(game_id=game.pk, prompt_number=1)
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert "0,1" in page
    # A refused order on the web says why and changes nothing.
    other = next(s for s in game.seats.all() if s.name != mover)
    client.force_login(other.user)
    resp = client.post(reverse("games:order", args=[game.pk]), {"text": "SWITCH 0,1 TO BLUE", "prompt": 2},
                       follow=True)
    body = resp.content.decode()
    assert resp.status_code == 200 and "pawn" in body
    assert not Prompt.objects.get(game=game, number=2).orders.exists()


def test_4x_dice_on_the_web(client):
    game = create_and_fill(client, "4x-dice", ["da", "db", "dc"], {option_field_name("4x-dice", "dice"): "2"})
    assert game.options["dice"] == 2
    client.force_login(game.seats.get(name="db").user)
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert "ALLOCATE" in page and "EXTERMINATE" in page
    resp = client.post(reverse("games:order", args=[game.pk]), {"text": "allocate explore", "prompt": 1},
                       follow=True)
    assert "You have 2 dice: name 2 areas." in resp.content.decode()


@pytest.mark.parametrize(
    "ruleset,names,extra",
    [
        ("6x5", ["ea", "eb"], {option_field_name("6x5", "max_turns"): 30}),
        ("4x-dice", ["fa", "fb"], {option_field_name("4x-dice", "dice"): "4"}),
    ],
)
def test_played_to_the_end_with_the_web_order_form(
    client, eager_celery, django_capture_on_commit_callbacks, ruleset, names, extra  # noqa: F811
):
    import random

    from games.selectors import legal_orders

    game = create_and_fill(client, ruleset, names, extra)
    rng = random.Random(7)
    for _ in range(600):
        game.refresh_from_db()
        if game.status == "finished":
            break
        prompt = Prompt.objects.filter(game=game, resolved_at__isnull=True).order_by("-number").first()
        for name in prompt.pending:
            seat = game.seats.get(name=name, status="active")
            client.force_login(seat.user)
            text = rng.choice(legal_orders(seat=seat))
            with django_capture_on_commit_callbacks(execute=True):
                resp = client.post(reverse("games:order", args=[game.pk]), {"text": text, "prompt": prompt.number})
            assert resp.status_code == 302
    else:
        raise AssertionError("the game did not finish")
    assert game.ranking
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert "finished" in page.lower()


def test_4x_dice_allocation_is_chosen_die_by_die(client):
    """64 ALLOCATE orders (every area for each of 3 dice) are offered as one choice per
    die, not a list of 64; the words sent are joined into the order and checked as one."""
    import re

    from games.models import SealedOrder

    game = create_and_fill(client, "4x-dice", ["da", "db"], {})
    seat = game.seats.get(name="da")
    client.force_login(seat.user)
    url = reverse("games:detail", args=[game.pk])
    page = client.get(url).content.decode()
    form = page.split('id="legal-orders"', 1)[1].split("</form>", 1)[0]
    assert 'name="verb" value="ALLOCATE"' in form
    selects = re.findall(r'<select name="word"[^>]*>(.*?)</select>', form, re.S)
    assert len(selects) == 3
    # Each choice is labelled with the die it places, in the order the state lists them.
    from games.models import StateSnapshot

    state = StateSnapshot.objects.get(game=game, prompt_number=1).state
    faces = [die["face"] for die in state["seats"]["da"]["dice"]]
    labels = re.findall(r'<label class="word">\s*Die (\d): (\d)/(\d)', form)
    assert labels == [(str(i), str(s), str(a)) for i, (s, a) in enumerate(faces, start=1)]
    for options in selects:
        assert re.findall(r'<option value="(\w+)"', options) == ["EXPLORE", "EXPAND", "EXTRACT", "EXTERMINATE"]
    order = reverse("games:order", args=[game.pk])
    resp = client.post(order, {"prompt": 1, "verb": "ALLOCATE", "word": ["EXPAND", "EXTRACT", "EXPLORE"]}, follow=True)
    assert "Order received and sealed" in resp.content.decode()
    stored = SealedOrder.objects.get(seat=seat, is_current=True)
    assert stored.text == "ALLOCATE EXPAND EXTRACT EXPLORE"
    # The page now shows those words chosen.
    form = client.get(url).content.decode().split('id="legal-orders"', 1)[1].split("</form>", 1)[0]
    chosen = re.findall(r'<option value="(\w+)" selected>', form)
    assert chosen == ["EXPAND", "EXTRACT", "EXPLORE"]
    # A word that is no area is refused with the engine's reason; nothing changes.
    resp = client.post(order, {"prompt": 1, "verb": "ALLOCATE", "word": ["EXPAND", "NOPE", "EXPLORE"]}, follow=True)
    assert "NOPE" in resp.content.decode() and "Order received" not in resp.content.decode()
    assert SealedOrder.objects.get(seat=seat, is_current=True).pk == stored.pk
