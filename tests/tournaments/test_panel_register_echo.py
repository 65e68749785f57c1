"""The organizer panel's "register a player" answers an unknown name by its first 40
characters, as pairing by hand does (an audit: a 100 KB name came back whole)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.urls import reverse

from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db


def test_register_does_not_echo_a_huge_unknown_name(client):
    # Regression: "No user 'xxxx…(100 KB)…'." in the flash message and the panel's error.
    org = get_user_model().objects.create_user("regboss", "regboss@example.com", "pw")
    # A league administrator: the one who may register others.
    org.user_permissions.add(Permission.objects.get(codename="add_registration"))
    t = tsvc.tournament_create(organizer=org, name="Echo cup", ruleset="6x5", table_sizes=[2],
                               rounds_count=2)  # fmt: skip
    tsvc.tournament_open(tournament=t, by=org)
    client.force_login(org)
    url = reverse("tournaments:manage_action", args=[t.slug, "register"])
    name = "z" * 40 + "y" * 100_000
    answer = client.post(url, {"user": name}, follow=True)
    said = [str(m) for m in answer.context["messages"]]
    assert said == [f"No user '{'z' * 40}…'."]
    # Nor the panel's error beside the field.
    page = answer.content.decode()
    assert f'<span class="errorlist" id="register-error">No user &#x27;{"z" * 40}…&#x27;.</span>' in page
    # Nor the field: text longer than any player name (150) or address (254) is no name
    # to mend, and the panel does not keep it, as pairing by hand does not (a review: the
    # field came back with 5,000 characters of it).
    assert "y" * 41 not in page
    field = re.search(r'<input type="text" name="user"[^>]*>', page).group()
    assert ' value=""' in field and 'maxlength="254"' in field, field
    assert t.registrations.count() == 0
    # A short unknown name is said whole, as before, and kept in the field to mend.
    answer = client.post(url, {"user": "nobody_here"}, follow=True)
    assert [str(m) for m in answer.context["messages"]] == ["No user 'nobody_here'."]
    field = re.search(r'<input type="text" name="user"[^>]*>', answer.content.decode()).group()
    assert ' value="nobody_here"' in field, field
    # An address as long as one may be (254 characters) is kept whole too.
    address = "a" * 64 + "@" + "b" * 185 + ".org"
    assert len(address) == 254
    answer = client.post(url, {"user": address}, follow=True)
    field = re.search(r'<input type="text" name="user"[^>]*>', answer.content.decode()).group()
    assert f' value="{address}"' in field, field


@pytest.mark.parametrize("sent", ["", "   ", "\x00"])
def test_register_with_no_name_asks_for_one(client, sent):
    # Regression (an audit): an empty or blank name sent past the browser's `required`
    # said "No user ''.", as if a player had been looked for.
    org = get_user_model().objects.create_user("regboss", "regboss@example.com", "pw")
    org.user_permissions.add(Permission.objects.get(codename="add_registration"))
    t = tsvc.tournament_create(organizer=org, name="Blank cup", ruleset="6x5", table_sizes=[2],
                               rounds_count=2)  # fmt: skip
    tsvc.tournament_open(tournament=t, by=org)
    client.force_login(org)
    answer = client.post(reverse("tournaments:manage_action", args=[t.slug, "register"]), {"user": sent}, follow=True)
    assert [str(m) for m in answer.context["messages"]] == [
        "Name the player to register: a player name (or an address)."
    ]
    assert t.registrations.count() == 0


def test_a_late_entry_registered_from_the_panel_says_from_which_round(client):
    """h3's organizer walk: round 2 paired, a latecomer registered from the panel was
    answered "zoe is registered." while the service put them in from round 3 (a re-pair
    of round 2 leaves them out); the organizer expected them at a table of round 2."""
    from tests.tournaments.test_tournament_services import _results_by_hand
    from tournaments.services import rounds

    User = get_user_model()
    org = User.objects.create_user("lateboss", "lateboss@example.com", "pw", is_staff=True)
    t = tsvc.tournament_create(organizer=org, name="Late cup", ruleset="6x5", table_sizes=[2],
                               rounds_count=3)  # fmt: skip
    tsvc.tournament_open(tournament=t, by=org)
    url = reverse("tournaments:manage_action", args=[t.slug, "register"])
    client.force_login(org)
    for name in ("ann", "bob"):
        User.objects.create_user(name, f"{name}@example.com", "pw")
        said = [str(m) for m in client.post(url, {"user": name}, follow=True).context["messages"]]
        assert said == [f"{name} is registered."]  # before round 1: nothing more to say
    rnd = rounds.round_pair(tournament=t, by=org)
    rounds.round_start(rnd=rnd, by=org)
    _results_by_hand(rnd, org, "offline")
    rounds.round_pair(tournament=t, by=org)
    User.objects.create_user("zoe", "zoe@example.com", "pw")
    said = [str(m) for m in client.post(url, {"user": "zoe"}, follow=True).context["messages"]]
    assert said == [
        "zoe is registered, a late entry: zoe plays from round 3, round 2 being paired "
        "already (the rounds before score 0)."
    ]
    assert t.registrations.get(user__username="zoe").first_round == 3
