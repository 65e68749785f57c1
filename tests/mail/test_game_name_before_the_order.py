"""A player naming the game before the order ("League 7: PLAY EXPAND", as one does with
several games going): the line was taken for the first line of an unquoted copy of one
of FiveX's emails ("League 7: <notice>") and everything from it on dropped, and the
player was told the message held no order. The README promises a few words before a
colon on the order's own line are read past."""

from __future__ import annotations

import pytest

from games.mail.processing import process_message
from tests.mail.test_hostile_mail import answers, current, message

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("body", ["League 7: PLAY EXPAND\r\n", "league 7: play expand\r\n\r\nThanks,\r\nAnn\r\n"])
def test_the_games_name_before_a_colon_is_a_lead_in(table, body: str) -> None:
    address = table.address("ann")
    row = process_message(message(to=address, body=body), address)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current(table.seats["ann"]).text.upper() == "PLAY EXPAND"


def test_an_order_above_an_unquoted_copy_of_a_notice_is_still_read(table) -> None:
    address = table.address("ann")
    body = (
        "PLAY EXPAND\r\n\r\n"
        "League 7: bob left the game; his seat plays the default orders.\r\n\r\n"
        "Your seat: ann\r\nPLAY EXPLORE\r\n"
    )
    row = process_message(message(to=address, body=body), address)
    assert (row.status, row.outcome) == ("processed", "order_accepted")
    assert current(table.seats["ann"]).text == "PLAY EXPAND"
    [answer] = answers()
    assert "sign-off" not in answer.body  # the copy was cut, not taken for a sign-off


def test_many_lines_naming_the_game_are_read_in_bounded_time(table) -> None:
    """Each line read as an order queries the database: only one is."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.mail.heuristics import _before_our_email

    text = "League 7: PLAY EXPAND\n" * 2000
    with CaptureQueriesContext(connection) as queries:
        kept = _before_our_email(text, table.game, table.seats["ann"])
    assert kept == "League 7: PLAY EXPAND"  # the second such line starts a copy
    assert len(queries) < 20
