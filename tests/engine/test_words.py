"""``engine.words.counted``: a count and its noun in proper English ("1 prompt", not
"1 prompt(s)")."""

from decimal import Decimal

from engine.words import counted


def test_one_takes_the_singular_and_every_other_count_the_plural():
    assert counted(1, "prompt") == "1 prompt"
    assert counted(2, "prompt") == "2 prompts"
    assert counted(0, "prompt") == "0 prompts"
    assert counted(12, "pairing bye") == "12 pairing byes"
    assert counted(1, "pairing bye") == "1 pairing bye"


def test_an_irregular_plural_is_given_explicitly():
    assert counted(1, "entry", "entries") == "1 entry"
    assert counted(3, "entry", "entries") == "3 entries"


def test_a_float_is_written_without_a_needless_point():
    assert counted(1.0, "point") == "1 point"
    assert counted(1.5, "point") == "1.5 points"
    assert counted(0.5, "point") == "0.5 points"
    assert counted(Decimal("1.0"), "point") == "1 point"
    assert counted(Decimal("2.50"), "point") == "2.5 points"
