"""Players named in a result or a pairing by hand: the name as registered, in any case, or
as the games spell it in ASCII ("Zoë" sits at a table as "Zoe")."""

from __future__ import annotations

import pytest
from django import forms

from tournaments.forms import parse_ranking, parse_tables

NAMES = {"Zoë": 1, "Dave": 2, "Иван": 3}


def test_a_ranking_takes_the_games_ascii_spelling_and_any_case() -> None:
    assert parse_ranking("zoe > DAVE = ivan", NAMES) == [[1], [2, 3]]
    assert parse_ranking("Zoë > Dave > Иван", NAMES) == [[1], [2], [3]]


def test_an_unknown_name_is_still_refused_with_the_players_listed() -> None:
    with pytest.raises(forms.ValidationError, match=r"'zed' is not at this table \(players: Dave, Zoë, Иван\)"):
        parse_ranking("zed > dave", NAMES)


def test_an_ascii_spelling_shared_by_two_players_names_neither() -> None:
    names = {"Zoë": 1, "Zoé": 2}
    assert parse_ranking("zoë > zoé", names) == [[1], [2]]
    with pytest.raises(forms.ValidationError, match="'zoe' is not at this table"):
        parse_ranking("zoe > zoé", names)


def test_a_pairing_by_hand_takes_the_ascii_spelling_too() -> None:
    assert parse_tables("zoe dave\nbye: ivan", NAMES) == ([[1, 2]], [3])


def test_a_name_with_other_characters_is_found_as_its_seat_is_named() -> None:
    # "ann+b" sits as "ann_b", "Oʼneil" as "O_neil" (the table's spelling, games/services/games.py)
    names = {"ann+b": 1, "O\u02bcneil": 2}
    assert parse_ranking("ann_b > o_neil", names) == [[1], [2]]
