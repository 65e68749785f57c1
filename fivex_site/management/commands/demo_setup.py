"""Create the demo organizer account once and print its login (the password is stored
nowhere), with the demo game it organizes: an open 3-player 5X game that newcomers join
from the games list (three sign-ups, e.g. in three browser profiles, start it)."""

import secrets

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from games.services.games import game_create

DEMO_EMAIL = "organizer@example.com"
DEMO_USERNAME = "organizer"
DEMO_GAME = "Demo game: join to play 5X"
TRY_ALONE = "To try the site alone: `make demo` (five players, games waiting for your order)."


class Command(BaseCommand):
    help = "Create the demo organizer account (organizer@example.com) if it does not exist."

    def handle(self, *args: object, **options: object) -> None:
        User = get_user_model()
        if User.objects.filter(email__iexact=DEMO_EMAIL).exists():
            self.stdout.write(
                f"Demo organizer: {DEMO_EMAIL} (its password was printed when it was created; "
                f"set a new one with `FIVEX_ENV=development .venv/bin/python manage.py changepassword {DEMO_USERNAME}`). {TRY_ALONE}"
            )
            return
        password = secrets.token_urlsafe(12)
        with transaction.atomic():
            user = User.objects.create_user(
                username=DEMO_USERNAME, email=DEMO_EMAIL, password=password
            )
            # Verified, so it can log in even where email verification is mandatory.
            EmailAddress.objects.create(user=user, email=DEMO_EMAIL, verified=True, primary=True)
            game_create(organizer=user, ruleset="5x", seats_count=3, name=DEMO_GAME)
        self.stdout.write(
            self.style.SUCCESS(
                "Created the demo organizer account; this password is shown only now:\n"
                f"    email:    {DEMO_EMAIL}\n    password: {password}\n"
                f"It organizes the open game {DEMO_GAME!r}: three players who sign up and "
                f"join it start it. {TRY_ALONE}"
            )
        )
