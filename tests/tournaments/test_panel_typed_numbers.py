"""The organizer panel reads what it is sent strictly (a tournament audit): a registration
id is written in the digits 0-9 ("٣", Arabic-Indic 3, was read as 3 and withdrew that
player), and a ranking with a place left empty ("bob >> ivan", "bob > = ivan") is refused
rather than recorded as if the slip were not there."""

from __future__ import annotations

import pytest
from django import forms
from django.contrib.auth import get_user_model

from tournaments.forms import parse_ranking
from tournaments.models import Registration
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db


def _open_cup():
    User = get_user_model()
    organizer = User.objects.create_user("boss", "boss@example.com", "pw")
    t = tsvc.tournament_create(organizer=organizer, name="Cup", ruleset="6x5", table_sizes=[2], rounds_count=3)
    tsvc.tournament_open(tournament=t, by=organizer)
    regs = []
    for i in range(4):
        user = User.objects.create_user(f"p{i}", f"p{i}@example.com", "pw")
        regs.append(tsvc.registration_add(tournament=t, user=user))
    return organizer, t, regs


ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")
FULLWIDTH = str.maketrans("0123456789", "０１２３４５６７８９")


@pytest.mark.parametrize(
    "loosely",
    [
        lambda pk: str(pk).translate(ARABIC_INDIC),
        lambda pk: str(pk).translate(FULLWIDTH),
        lambda pk: f"{pk} ",
        lambda pk: f"+{pk}",
        lambda pk: "",
        lambda pk: "9" * 30,
    ],
    ids=["arabic-indic", "fullwidth", "trailing-space", "plus-sign", "empty", "thirty-nines"],
)
def test_a_registration_id_not_in_ascii_digits_names_no_registration(client, loosely):
    organizer, t, regs = _open_cup()
    client.force_login(organizer)
    answer = client.post(f"/tournaments/{t.slug}/manage/withdraw/", {"registration": loosely(regs[0].pk)}, follow=True)
    assert answer.status_code == 200
    page = answer.content.decode()
    assert "No such registration." in page
    assert "is withdrawn: not paired" not in page
    assert not Registration.objects.filter(tournament=t, status=Registration.Status.WITHDRAWN).exists()


def test_the_same_id_in_ascii_digits_withdraws(client):
    organizer, t, regs = _open_cup()
    client.force_login(organizer)
    answer = client.post(f"/tournaments/{t.slug}/manage/withdraw/", {"registration": str(regs[1].pk)}, follow=True)
    assert "is withdrawn: not paired in the rounds to come." in answer.content.decode()
    assert Registration.objects.get(pk=regs[1].pk).status == Registration.Status.WITHDRAWN


NAMES = {"bob": 1, "ivan": 2, "cat": 3}


@pytest.mark.parametrize("typed", ["bob >> ivan", "bob > = ivan", "bob > ivan >", "> bob > ivan", "bob = = ivan"])
def test_a_ranking_with_an_empty_place_is_refused(typed):
    with pytest.raises(forms.ValidationError) as refused:
        parse_ranking(typed, NAMES)
    (message,) = refused.value.messages
    assert message == f"A place in the ranking is empty in {typed!r}: write it like: ann > bob = cat > dan."


def test_a_ranking_without_empty_places_still_reads_ties_and_spaces():
    assert parse_ranking("  bob  >ivan=cat ", NAMES) == [[1], [2, 3]]
    with pytest.raises(forms.ValidationError, match=r"^\['Write the ranking like"):
        parse_ranking("   ", NAMES)
