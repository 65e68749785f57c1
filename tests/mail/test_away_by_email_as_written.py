"""AWAY and BACK as players write them in real replies, through the SMTP gateway: a day
in another form, no day at all, a colon after the word. The command is recognised and
answered with the form it takes; nothing is guessed and nothing changes."""

from __future__ import annotations

import pytest

from games.models import OutboxMessage, PlayerSettings, SealedOrder
from tests.mail.test_hand_built_messages import send
from tests.mail.test_hostile_mail import message

pytestmark = pytest.mark.django_db(transaction=True)


def last_answer(to: str = "ann@example.com") -> str:
    return OutboxMessage.objects.filter(to=to, kind="mail_reply").order_by("-id").first().body


def away_until(user) -> object:
    return PlayerSettings.objects.filter(user=user).values_list("away_until", flat=True).first()


@pytest.mark.parametrize(
    "line", ["AWAY", "AWAY 5 December", "away until 05/12/2026", "Away until Friday", "AWAY till 12.5."]
)
def test_an_away_without_a_day_written_year_month_day_says_how_to_write_it(table, smtpd, line) -> None:
    # Guards against "AWAY is not an order of the play phase": the player meant the command.
    address = table.address("ann")
    row = send(smtpd, "ann@example.com", address, message(to=address, body=f"{line}\r\n"))
    answer = " ".join(last_answer().split())
    assert "not an order" not in answer and "NOT accepted" not in answer, answer
    assert "2026-12-05" in answer and "year-month-day" in answer, answer
    assert "Nothing was changed" in answer, answer
    assert row.status != "failed"
    assert away_until(table.seats["ann"].user) is None
    assert not SealedOrder.objects.filter(seat=table.seats["ann"]).exists()


def test_away_with_a_colon_after_the_word_is_the_command(table, smtpd) -> None:
    # Guards against "AWAY:" read as a lead-in and "2026-12-05 is not an order" answered.
    from django.utils import timezone

    day = (timezone.now() + timezone.timedelta(days=5)).date().isoformat()
    address = table.address("ann")
    row = send(smtpd, "ann@example.com", address, message(to=address, body=f"Away: {day}\r\n"))
    assert (row.status, row.outcome) == ("processed", "commands"), row.error
    assert away_until(table.seats["ann"].user) is not None
    assert f"AWAY {day}: you are away until" in last_answer()


def test_a_bad_away_below_an_order_is_answered_not_taken_for_a_sign_off(table, smtpd) -> None:
    # Guards against the AWAY line ignored as a "sign-off": the player thought they were away.
    address = table.address("ann")
    row = send(smtpd, "ann@example.com", address,
               message(to=address, body="PLAY EXPLORE\r\nAWAY 5 December\r\n"))
    assert (row.status, row.outcome) == ("processed", "order_accepted"), row.error
    answer = " ".join(last_answer().split())
    assert "sign-off" not in answer, answer
    assert "year-month-day" in answer and "Nothing was changed" in answer, answer
    assert SealedOrder.objects.get(seat=table.seats["ann"], is_current=True).text == "PLAY EXPLORE"
    assert away_until(table.seats["ann"].user) is None


def test_a_line_that_only_starts_with_away_is_not_the_command(table, smtpd) -> None:
    # "Away from home this week," above the order is a lead-in, not an AWAY to answer.
    address = table.address("ann")
    row = send(smtpd, "ann@example.com", address,
               message(to=address, body="Away from home this week,\r\nPLAY EXPLORE\r\n"))
    assert (row.status, row.outcome) == ("processed", "order_accepted"), row.error
    assert "year-month-day" not in last_answer()


def test_back_from_another_address_leaves_the_player_away(table, smtpd) -> None:
    # Guards against a stranger holding the seat's address (a leaked token, one game)
    # ending the player's absence in every game of theirs, their defaults then played.
    from django.utils import timezone

    from games.services.away import player_away_set

    user = table.seats["ann"].user
    player_away_set(user=user, until=timezone.localdate() + timezone.timedelta(days=3))
    address = table.address("ann")
    row = send(smtpd, "mallory@elsewhere.test", address,
               message(to=address, sender="mallory@elsewhere.test", body="BACK\r\n"))
    assert row.status != "failed", row.error
    assert away_until(user) is not None
    answer = " ".join(last_answer().split())
    assert "only from your account address" in answer and "Nothing was changed" in answer, answer
    # From the account address it is taken.
    send(smtpd, "ann@example.com", address, message(to=address, body="BACK\r\n"))
    assert away_until(user) is None
