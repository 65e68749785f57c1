"""Player names (the username, shown at the table and used as the seat's name)."""

from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.validators import RegexValidator

# A player name never contains "@": a name that looks like an email address could be
# taken for someone else's account wherever a player is found by name or address.
username_validators = [
    UnicodeUsernameValidator(),
    RegexValidator(r"@", inverse_match=True, message="A player name cannot contain \"@\"."),
]
