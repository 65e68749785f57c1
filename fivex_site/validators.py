"""Player names (the username, shown at the table and used as the seat's name)."""

import unicodedata

from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator

# Scripts whose letters look alike: a name mixing two of them ("аlice" with a Cyrillic
# "а") passes for another player's. Other scripts may mix (Japanese writes kanji with
# kana; digits and "_" belong to none).
_LOOKALIKE_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK")


def one_lookalike_script(value: str) -> None:
    """Refuse a player name whose letters come from two of Latin, Cyrillic and Greek."""
    found = set()
    for ch in unicodedata.normalize("NFKC", value):  # full-width and styled letters too
        if ch.isalpha():
            words = unicodedata.name(ch, "").split()
            found.update(w for w in words[:1] if w in _LOOKALIKE_SCRIPTS)
    if len(found) > 1:
        raise ValidationError(
            "A player name uses one alphabet: "
            + " and ".join(sorted(s.title() for s in found))
            + " letters together could pass for another player's name.",
            code="mixed_scripts",
        )

# A player name never contains "@": a name that looks like an email address could be
# taken for someone else's account wherever a player is found by name or address.
username_validators = [
    # Django's own words ("Enter a valid username ... @/./+/-/_ characters") named a field
    # the site calls "Player name", and offered the "@" refused just below.
    UnicodeUsernameValidator(
        message="A player name may contain only letters, digits and . + - _ (no spaces)."
    ),
    RegexValidator(r"@", inverse_match=True, message="A player name cannot contain \"@\"."),
    one_lookalike_script,
]
