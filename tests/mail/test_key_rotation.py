"""A SECRET_KEY rotation (README, *Rotating SECRET_KEY*) leaves the seats' reply addresses
working, old key dropped or not: their tokens are random and stored, not signed."""

from __future__ import annotations

from games.mail.storing import seat_for_recipient


def test_a_reply_address_mailed_before_a_rotation_still_reaches_its_seat(table, settings) -> None:
    address = table.address("bob")
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = "k-new-" + "n" * 44, []
    assert seat_for_recipient(address) == table.seats["bob"]
