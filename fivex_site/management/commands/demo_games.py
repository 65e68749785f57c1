"""Demo players and games in progress, to try the site alone on a development machine
(``make demo``): five players who share one password, printed once (stored nowhere), and

- a 5X game, a 4X Dice duel and a 6x5 game played some way by random legal orders, each
  waiting for Ann's order (every other seat's order of the open prompt is in: Ann's
  order resolves it, and the pages of the others show the result), the 5X one with a
  few words at its table (its talk page);
- a 5X game played to its end (its log, JSON record, review and ``verify_game``);
- a private 6x5 game Bob made, inviting Ann and Dan by name (Ann's games page);
- a Swiss tournament of 4X Dice duels that Ann organizes: round 1 played (standings,
  ratings), round 2 started.

Everything goes through the services, as a player's orders would: the logs verify. The
history's emails are not queued (players who never existed do not need a hundred turn
emails printed in the terminal); the emails of what is played from now on are. Refused on
a site that is not a development one (``DEBUG`` off): known logins on a public site are a
way in. Run twice, it changes nothing and says so."""

from __future__ import annotations

import logging
import os
import random
import secrets
from typing import Any

from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.urls import reverse

import engine
from fivex_site.management.commands.runall import children_environment
from games.models import Game, OutboxMessage, Seat
from games.selectors import current_prompt, current_state
from games.services.games import game_create, game_join, game_start
from games.services.orders import order_submit
from games.services.resolution import prompt_resolve

PLAYERS = ("Ann", "Bob", "Cat", "Dan", "Eve")
YOU = "Ann"
#: A week: the beat does not fill the open prompts with default orders while you look.
DEADLINE_HOURS = 168
TOURNAMENT = "Demo Swiss: 4X Dice duels"


def email_of(name: str) -> str:
    return f"{name.lower()}@example.com"


class Command(BaseCommand):
    help = (
        "Create five demo players (Ann, Bob, Cat, Dan, Eve; one password, printed once) and "
        "games in progress waiting for Ann's order, a finished game and a tournament. "
        "Development sites only."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--seed", type=int, default=5, help="the random legal orders' seed (default 5)"
        )
        parser.add_argument(
            "--addrport",
            help="the address `make run` serves (its ADDRPORT): the links printed go there, "
            "as runall's emails do, unless FIVEX_BASE_URL is set",
        )

    def handle(self, *args: object, **options: Any) -> None:
        if not settings.DEBUG:
            raise CommandError(
                "demo_games makes players whose password is printed: it runs on a development "
                "site only (DEBUG on). Nothing was created."
            )
        User = get_user_model()
        emails = [email_of(n) for n in PLAYERS]
        taken = sorted(User.objects.filter(email__in=emails).values_list("email", flat=True))
        if taken:
            self.stdout.write(
                f"The demo players are here already ({', '.join(taken)}): nothing was changed. "
                f"Sign in as {email_of(YOU)} with the password printed when they were made, or "
                f"set one: `FIVEX_ENV=development .venv/bin/python manage.py changepassword {YOU}`."
            )
            return
        if User.objects.filter(username__in=PLAYERS).exists():
            raise CommandError(
                "A player named Ann, Bob, Cat, Dan or Eve exists with another address: the demo "
                "needs those names. Nothing was created."
            )
        password = secrets.token_urlsafe(9)
        rng = random.Random(options["seed"])
        # One INFO line a resolved prompt (the workers' log), and one a task run here at
        # its commit (Celery's "Task ... succeeded", hundreds), would bury the logins below.
        quiet = [logging.getLogger(name) for name in ("games", "celery.app.trace")]
        levels = [logger.level for logger in quiet]
        for logger in quiet:
            logger.setLevel(logging.WARNING)
        try:
            made = self._create(password, rng, emails)
        finally:
            for logger, level in zip(quiet, levels, strict=True):
                logger.setLevel(level)
        base = settings.FIVEX_BASE_URL
        if options["addrport"]:
            # The links went to port 8000 while `make run ADDRPORT=…` served another.
            base = children_environment(options["addrport"], dict(os.environ)).get(
                "FIVEX_BASE_URL", base
            )
        lines = [f"    {label}: {base}{path}" for label, path in made]
        self.stdout.write(
            self.style.SUCCESS(
                "Created five demo players; their password is shown only now:\n"
                f"    emails:   {', '.join(emails)}\n    password: {password}\n"
                f"Sign in as {email_of(YOU)}: three games wait for Ann's order (the other "
                "seats' orders are in). Sign in as another player, in another browser profile, "
                "to see their side.\n" + "\n".join(lines)
            )
        )

    def _create(
        self, password: str, rng: random.Random, emails: list[str]
    ) -> list[tuple[str, str]]:
        from fivex_site.celery import app

        # The tasks the services queue on commit (a resolution per complete prompt, an
        # outbox batch per email) stand for work done here already: run at the commit,
        # each finds nothing to do, rather than hundreds of them waiting for the worker
        # ahead of the first real order (and printing a line each in its terminal).
        eager = app.conf.task_always_eager
        app.conf.task_always_eager = True
        try:
            return self._create_now(password, rng, emails)
        finally:
            app.conf.task_always_eager = eager

    def _create_now(
        self, password: str, rng: random.Random, emails: list[str]
    ) -> list[tuple[str, str]]:
        with transaction.atomic():
            first_email = OutboxMessage.objects.order_by("-pk").values_list("pk", flat=True).first()
            users = {n: self._player(n, password) for n in PLAYERS}
            made = self._games(users, rng)
            made.append(self._tournament(users, rng))
            made.append(
                ("Ann's page (ratings, games, tournaments)", reverse("player_profile", args=[YOU]))
            )
            # The history's emails: nobody read them as they happened.
            OutboxMessage.objects.filter(pk__gt=first_email or 0, to__in=emails).delete()
        return made

    def _player(self, name: str, password: str) -> Any:
        user = get_user_model().objects.create_user(
            username=name, email=email_of(name), password=password
        )
        # Verified, so they log in even where email verification is mandatory.
        EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
        return user

    def _games(self, users: dict[str, Any], rng: random.Random) -> list[tuple[str, str]]:
        made = []
        for ruleset, names, label, played in (
            ("5x", ["Ann", "Bob", "Cat", "Dan"], "Demo 5X: Ann to order", 8),
            ("4x-dice", ["Ann", "Bob"], "Demo 4X Dice: Ann v Bob", 10),
            ("6x5", ["Ann", "Cat", "Eve"], "Demo 6x5: Ann to order", 4),
            ("5x", ["Bob", "Cat", "Dan", "Eve"], "Demo 5X: a finished game", None),
        ):
            game = game_create(
                organizer=users[names[0]],
                ruleset=ruleset,
                seats_count=len(names),
                name=label,
                deadline_hours=DEADLINE_HOURS,
            )
            for name in names:
                game_join(game=game, user=users[name])
            game.refresh_from_db()
            if game.status == Game.Status.FORMING:  # not full: started by its organizer
                game_start(game=game, user=users[names[0]], fixed_order=names)
            _play(game, rng, wait_for=None if played is None else YOU, after=played or 0)
            made.append((label, reverse("games:detail", args=[game.pk])))
            if ruleset == "5x" and played is not None:
                _talk(game, users)
                made.append(("  its table talk", reverse("games:talk", args=[game.pk])))
            if played is None:
                made.append(
                    ("  reviewed prompt by prompt", reverse("games:review", args=[game.pk]))
                )
        # A game forming that Bob invites Ann to by name: her games page shows the invitation.
        from games.services.invitations import invite_players

        forming = game_create(
            organizer=users["Bob"], ruleset="6x5", seats_count=3, name="Demo 6x5: Bob invites Ann",
            deadline_hours=DEADLINE_HOURS, is_private=True, seat_organizer=True,
        )  # fmt: skip
        invite_players(game=forming, by=users["Bob"], names=[YOU, "Dan"])
        made.append(("Bob invites Ann (her games page)", reverse("games:list") + "#invitations"))
        return made

    def _tournament(self, users: dict[str, Any], rng: random.Random) -> tuple[str, str]:
        from tournaments.services.results import results_collect
        from tournaments.services.rounds import round_pair, round_start
        from tournaments.services.tournaments import (
            registration_add,
            tournament_create,
            tournament_open,
        )

        ann = users[YOU]
        tournament = tournament_create(
            organizer=ann,
            name=TOURNAMENT,
            ruleset="4x-dice",
            table_sizes=[2],
            rounds_count=3,
            deadline_hours=DEADLINE_HOURS,
        )
        tournament_open(tournament=tournament, by=ann)
        for name in ("Bob", "Cat", "Dan", "Eve"):
            registration_add(tournament=tournament, user=users[name])
        first = round_start(rnd=round_pair(tournament=tournament, by=ann), by=ann)
        for table in first.tables.select_related("game"):
            _play(table.game, rng, wait_for=None, after=0)
        results_collect()  # the beat's sweep: results, ratings, round 1 finished
        round_start(rnd=round_pair(tournament=tournament, by=ann), by=ann)
        return (
            f"{TOURNAMENT} (Ann organizes)",
            reverse("tournaments:detail", args=[tournament.slug]),
        )


def _talk(game: Game, users: dict[str, Any]) -> None:
    """A few words at the table (its talk page)."""
    from games.services.talk import message_post

    for name, text in (
        ("Bob", "Good luck, all. Deadlines are a week here: no rush."),
        ("Cat", "Ann, your turn! We are all waiting for you."),
    ):
        message_post(game=game, user=users[name], text=text)


def _play(game: Game, rng: random.Random, *, wait_for: str | None, after: int) -> None:
    """Send random legal orders prompt after prompt. With ``wait_for``: once ``after``
    prompts are resolved, stop at the first prompt that asks that seat for an order,
    with every other seat's order in; without it, play to the end."""
    rules = engine.get(game.ruleset)
    seats = {s.name: s for s in Seat.objects.filter(game=game)}
    resolved = 0
    while True:
        game.refresh_from_db()
        prompt = current_prompt(game=game)
        if prompt is None:  # over
            return
        state = current_state(game=game)
        asked = [n for n in prompt.pending if n not in prompt.forced]
        stop = wait_for in asked and resolved >= after
        for name in asked:
            if stop and name == wait_for:
                continue
            text = rng.choice(rules.legal_orders(state, name))
            order_submit(seat=seats[name], text=text, source="web")
        if stop:
            return
        prompt_resolve(game_id=game.pk, prompt_number=prompt.number)
        resolved += 1
