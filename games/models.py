"""The games room's tables: a game, its seats, its prompts, sealed orders, snapshots,
the hash-chained audit log and the mail outbox.

Models hold data only; every rule lives in ``games.services`` (writes) and
``games.selectors`` (reads).
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.presentation import ruleset_name


def new_public_id() -> str:
    """A short random slug for URLs."""
    return secrets.token_urlsafe(8)


def new_token() -> str:
    """A random URL-safe token (invitation links, mail addresses)."""
    return secrets.token_urlsafe(16)


def new_mail_token() -> str:
    """A random token for a seat's reply address: lowercase letters and digits only,
    so it survives mail systems that fold the local part's case."""
    return secrets.token_hex(12)


class Game(models.Model):
    """One game of a ruleset, from forming to finished."""

    class Status(models.TextChoices):
        FORMING = "forming", "forming"
        ACTIVE = "active", "active"
        PAUSED = "paused", "paused"
        FINISHED = "finished", "finished"
        ABANDONED = "abandoned", "ended early"  # shown: ended (or cancelled) by its organizer

    public_id = models.CharField(max_length=32, unique=True, default=new_public_id)
    ruleset = models.CharField(max_length=32)
    options = models.JSONField(default=dict, blank=True)
    setup = models.JSONField(default=dict, blank=True)
    engine_version = models.CharField(max_length=32, blank=True)
    name = models.CharField(max_length=120, blank=True)
    # A page the game belongs to (a tournament's round), linked from the game's pages: its
    # path from the site's root (without the prefix the site may be served under).
    # Set by whoever creates the game; the games room knows nothing else about it.
    part_of_label = models.CharField(max_length=200, blank=True)
    part_of_path = models.CharField(max_length=300, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.FORMING)
    organizer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="organized_games"
    )
    seats_count = models.PositiveSmallIntegerField()
    is_private = models.BooleanField(default=False)
    invite_token = models.CharField(max_length=64, default=new_token)
    warnings = models.JSONField(default=list, blank=True)
    # The RNG seed stays secret until the game ends; its commitment is public from the
    # start: seed_commitment = sha256(f"{seed_salt}:{seed}".encode()).hexdigest().
    seed = models.BigIntegerField(null=True, blank=True)
    seed_salt = models.CharField(max_length=64, blank=True)
    seed_commitment = models.CharField(max_length=64, blank=True)
    # Deadline policy.
    deadline_hours = models.FloatField(default=48)
    grace_minutes = models.PositiveIntegerField(default=0)
    quiet_hours_start = models.PositiveSmallIntegerField(null=True, blank=True)
    quiet_hours_end = models.PositiveSmallIntegerField(null=True, blank=True)
    # The zone the quiet hours are read in (an IANA name): the players' night, with DST.
    quiet_hours_time_zone = models.CharField(max_length=64, default="UTC")
    reminder_hours = models.FloatField(default=12)
    early_resolution_delay_seconds = models.PositiveIntegerField(default=0)
    require_sender_match = models.BooleanField(default=False)
    # Whether its players write at its table (``games.services.talk``); its organizer
    # always may. Off for a tournament's tables when the tournament says so.
    talk_open = models.BooleanField(default=True)
    # How long a deadline may wait for a seat whose player said they are away
    # (``PlayerSettings.away_until``), in days a seat over the whole game; 0: it never
    # waits (``games.services.away``).
    away_days = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    ranking = models.JSONField(null=True, blank=True)
    end_reason = models.TextField(blank=True)
    # The creation request's own key (the web form's, or the API's Idempotency-Key): the
    # same request sent again (a form resubmitted, a client's retry) answers this game
    # instead of creating a second one. "" for none.
    create_key = models.CharField(max_length=80, blank=True, default="")
    # A digest of what that request asked for: the key sent again with other parameters
    # is refused (``KeyReused``), never answered with a game it did not ask for.
    create_fingerprint = models.CharField(max_length=64, blank=True, default="")
    # The game this one plays again with the same players (``games.services.rematch``):
    # one rematch a game, so two players asking at once get the same new game.
    rematch_of = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematch"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "is_private"])]
        constraints = [
            models.UniqueConstraint(
                fields=["organizer", "create_key"],
                condition=~Q(create_key=""),
                name="game_create_once",
            ),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def status_label(self) -> str:
        """The status as pages say it: "cancelled" for a game ended before it started."""
        if self.status == self.Status.ABANDONED and self.started_at is None:
            return "cancelled"
        return self.get_status_display()

    @property
    def title(self) -> str:
        """What pages and emails call the game: its name, or its ruleset's name and its
        number ("5X game 12")."""
        return self.name or f"{ruleset_name(self.ruleset)} game {self.pk}"


class Seat(models.Model):
    """A user's place at a game. ``name`` is the engine's seat name and never changes;
    when a player is replaced the old row becomes ``replaced`` and a new row with the
    same name and position takes over."""

    class Status(models.TextChoices):
        ACTIVE = "active", "active"
        RESIGNED = "resigned", "resigned"
        REPLACED = "replaced", "replaced"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="seats"
    )
    position = models.PositiveSmallIntegerField(null=True, blank=True)
    name = models.CharField(max_length=150)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    mail_token = models.CharField(max_length=64, unique=True, default=new_mail_token)
    # False: email this seat after a resolution only when it must order next (the start,
    # the end, reminders and notices always go out).
    email_every_prompt = models.BooleanField(default=True)
    # How long deadlines of this game waited for the seat's player while away, in seconds
    # (at most ``Game.away_days`` days).
    away_held_seconds = models.FloatField(default=0)
    joined_at = models.DateTimeField(auto_now_add=True)
    left_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["game", "position", "joined_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "name"],
                condition=~Q(status="replaced"),
                name="games_seat_unique_name",
            ),
            models.UniqueConstraint(
                fields=["game", "user"],
                condition=~Q(status="replaced"),
                name="games_seat_unique_user",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} at {self.game_id}"


class SeatOffer(models.Model):
    """An organizer's offer of a seat in a game in progress to another player. Nothing
    changes until that player accepts: then the seat is handed over (``seat_replace``,
    logged); the player may decline, the organizer may withdraw it. At most one offer
    waits per seat, and one per player in a game."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        ACCEPTED = "accepted", "accepted"
        DECLINED = "declined", "declined"
        WITHDRAWN = "withdrawn", "withdrawn"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seat_offers")
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="offers")
    to_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="seat_offers"
    )
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["seat"], condition=Q(status="pending"), name="games_seatoffer_one_per_seat"
            ),
            models.UniqueConstraint(
                fields=["game", "to_user"],
                condition=Q(status="pending"),
                name="games_seatoffer_one_per_player",
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.seat_id} offered to {self.to_user_id} ({self.status})"

    @property
    def by_organizer(self) -> bool:
        """Whether the game's organizer made the offer; else a site administrator did,
        who is not named to the player offered (its page, list, API and export)."""
        return self.by_id == self.game.organizer_id


class Prompt(models.Model):
    """One sealed prompt: the seats in ``pending`` each owe an order."""

    class Status(models.TextChoices):
        OPEN = "open", "open"
        RESOLVED = "resolved", "resolved"

    # No index of its own: the unique constraint's index starts with it (a second
    # one only slowed every insert).
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="prompts", db_index=False)
    number = models.PositiveIntegerField()
    round = models.IntegerField(default=0)
    phase = models.CharField(max_length=32)
    pending = models.JSONField(default=list)
    deadline = models.DateTimeField(null=True, blank=True)
    paused_remaining_seconds = models.FloatField(null=True, blank=True)
    extensions = models.PositiveSmallIntegerField(default=0)
    resolve_after = models.DateTimeField(null=True, blank=True)
    ready_at = models.DateTimeField(null=True, blank=True)
    # When the deadline sweep last handed the prompt to the workers (past its budget):
    # the next sweeps leave it to them for a while instead of queueing it again.
    handed_out_at = models.DateTimeField(null=True, blank=True)
    opened_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    # Every event of the resolution, with its visibility (``to``); shown to a seat only
    # through engine.events_for. Never shown raw to players.
    events = models.JSONField(default=list, blank=True)
    # The pending seats whose only legal order the site entered when the prompt opened
    # (``Ruleset.forced_order``): they were not asked.
    forced = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["game", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="games_prompt_unique_number"),
        ]
        indexes = [models.Index(fields=["status", "deadline"])]

    def __str__(self) -> str:
        return f"game {self.game_id} prompt {self.number} ({self.phase})"


class SealedOrder(models.Model):
    """One seat's sealed order for one prompt (see ``games.services.orders`` for the
    commitment's exact byte format)."""

    class Source(models.TextChoices):
        WEB = "web", "web"
        API = "api", "api"
        EMAIL = "email", "email"
        DEFAULT = "default", "default"
        FORCED = "forced", "forced (entered for the seat: no choice to make)"

    #: The sources of an order its player sent (not one the site entered for the seat).
    PLAYER_SOURCES = (Source.WEB.value, Source.API.value, Source.EMAIL.value)

    prompt = models.ForeignKey(Prompt, on_delete=models.CASCADE, related_name="orders")
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="orders")
    seat_name = models.CharField(max_length=150)
    text = models.TextField()
    parsed = models.JSONField(default=dict)
    source = models.CharField(max_length=16, choices=Source.choices)
    salt = models.CharField(max_length=64)
    commitment = models.CharField(max_length=64)
    submitted_at = models.DateTimeField(auto_now_add=True)
    replaced_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="replaces"
    )
    is_current = models.BooleanField(default=True)

    class Meta:
        ordering = ["prompt", "submitted_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["prompt", "seat_name"],
                condition=Q(is_current=True),
                name="games_order_one_current",
            ),
        ]

    def __str__(self) -> str:
        return f"order of {self.seat_name} for prompt {self.prompt_id} ({self.commitment[:12]})"


class StateSnapshot(models.Model):
    """The engine state while prompt ``prompt_number`` is open (a cache of the replay).
    When the game ends after prompt N, snapshot N + 1 holds the final state."""

    # No index of its own: the unique constraint's index starts with it (a second
    # one only slowed every insert).
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="snapshots", db_index=False)
    prompt_number = models.PositiveIntegerField()
    state = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "prompt_number"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "prompt_number"], name="games_snapshot_unique_number"
            ),
        ]

    def __str__(self) -> str:
        return f"state of game {self.game_id} at prompt {self.prompt_number}"


class LogEntry(models.Model):
    """An append-only audit entry; ``hash`` chains it to the previous one (formula in
    ``engine.audit.entry_hash``)."""

    # No index of its own: the unique constraint's index starts with it (a second
    # one only slowed every insert).
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="log", db_index=False)
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=32)
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField()
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="games_log_unique_seq"),
        ]
        verbose_name_plural = "log entries"

    def __str__(self) -> str:
        return f"{self.game_id}#{self.seq} {self.kind}"


class Reminder(models.Model):
    """A deadline reminder sent to one seat for one prompt (at most once)."""

    # No index of its own: the unique constraint's index starts with it (a second
    # one only slowed every insert).
    prompt = models.ForeignKey(Prompt, on_delete=models.CASCADE, related_name="reminders", db_index=False)
    seat_name = models.CharField(max_length=150)
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["prompt", "seat_name"], name="games_reminder_once"),
        ]

    def __str__(self) -> str:
        return f"reminder to {self.seat_name} for prompt {self.prompt_id}"


class OutboxMessage(models.Model):
    """An email to send; sending is a visible state change (queued -> sent / failed)."""

    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        SENT = "sent", "sent"
        FAILED = "failed", "failed"
        RETRYING = "retrying", "retrying"

    #: The statuses of an email still to be sent (the sweeps send it; /healthz and
    #: ``stuck_prompts`` count it; an address change or a closed account stops it).
    UNSENT = (Status.QUEUED, Status.RETRYING)
    #: How ``last_error`` begins when the mail server refused the one address (RCPT TO
    #: answered 4xx: a full mailbox, retried about two days) while it takes the others.
    RECIPIENT_REFUSED = "SMTPRecipientsRefused:"

    to = models.EmailField(max_length=254)
    subject = models.CharField(max_length=255)
    body = models.TextField()
    html = models.TextField(blank=True)
    reply_to = models.CharField(max_length=254, blank=True)
    headers = models.JSONField(default=dict, blank=True)
    seat = models.ForeignKey(
        Seat, null=True, blank=True, on_delete=models.SET_NULL, related_name="messages"
    )
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="messages"
    )
    # The account the email went to, decided when it was queued (the seat's player, or
    # the account whose verified address ``to`` was then): the account's data download
    # lists what went to it by this, never by an address that may have changed hands.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="outbox_messages", db_index=False,  # games_outbox_user, built concurrently
    )  # fmt: skip
    kind = models.CharField(max_length=32, default="game")
    # Deduplication key (e.g. "resolved:<game>:<prompt>:<seat>"): a second attempt to
    # queue the same notification is a no-op.
    key = models.CharField(max_length=200, null=True, blank=True, unique=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.TextField(blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [
            models.Index(fields=["status", "next_attempt_at"]),
            # The lost-task sweep and the retention's pruning look for old rows of a status.
            models.Index(fields=["status", "created_at"], name="games_outbox_status_created"),
            # The account's data download and closing read its mail by it.
            models.Index(fields=["user"], name="games_outbox_user"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} to {self.to} ({self.status})"

    @classmethod
    def refused_on_its_own(cls) -> Q:
        """Unsent emails waiting because their address was refused, not the mail server
        failing or no worker sending: ``/healthz`` and ``stuck_prompts`` do not take them
        for late (the admin's outbox shows them)."""
        return Q(status=cls.Status.RETRYING, last_error__startswith=cls.RECIPIENT_REFUSED)


class PlayerSettings(models.Model):
    """A player's own settings, whatever the game: the time zone its pages and emails
    write dates in (deadlines are stored and enforced in UTC)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="player_settings"
    )
    # "" = none chosen (UTC for emails; the browser's zone on the game page).
    time_zone = models.CharField(max_length=64, blank=True, default="")
    # The SHA-256 of the secret in the player's calendar feed address ("" = no feed): the
    # address is shown once; a copy of the database does not give it away.
    calendar_digest = models.CharField(max_length=64, blank=True, db_index=True)
    # What a seat the player takes from now on emails (``Seat.email_every_prompt``): after
    # every prompt, or only when it must order.
    email_every_prompt = models.BooleanField(default=True)
    # Away until then (the player said so): deadlines of games that allow it wait for them
    # (``games.services.away``); null, or a moment past, when not away.
    away_until = models.DateTimeField(null=True, blank=True)

    class Invitations(models.TextChoices):
        """Who may invite the player to a game by name (``games.services.invitations``)."""

        ANYONE = "anyone", "anyone"
        PLAYED_WITH = "played_with", "players I have played a game with"
        NOBODY = "nobody", "nobody"

    invitations = models.CharField(
        max_length=16, choices=Invitations.choices, default=Invitations.ANYONE
    )

    class TurnEmails(models.TextChoices):
        """How the player gets its turn and result emails (``games.services.summaries``):
        one per prompt, or one summary a day of every game (reminders, the end of a game
        and notices still come one by one)."""

        EACH = "each", "one per prompt"
        DAILY = "daily", "a daily summary"

    turn_emails = models.CharField(max_length=8, choices=TurnEmails.choices, default=TurnEmails.EACH)
    # The daily summary's hour (0-23) in the player's time zone.
    summary_hour = models.PositiveSmallIntegerField(default=8)
    # When the daily summary was (last) turned on: the first summary tells what happened
    # since then.
    summary_since = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"settings of {self.user}"


class ApiToken(models.Model):
    """A player's personal API token (one per player). Only the SHA-256 of the key is
    kept: the key is shown once, when it is made, and a copy of the database (or the
    admin) does not give it away. ``prefix`` (its first characters) tells the player
    which token it is."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_token"
    )
    digest = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=8)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"API token {self.prefix}… of {self.user}"


class Heartbeat(models.Model):
    """When a periodic job last ran (``sweep``: the beat's deadline sweep, run by a
    worker every minute): ``/healthz`` tells from it whether the beat and the workers
    are alive, which the web machine's own checks cannot."""

    name = models.CharField(max_length=32, primary_key=True)
    at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name} at {self.at:%Y-%m-%d %H:%M:%S}"


# The webhooks' tables, in a module of their own (this one is near the size limit).
from games.models_invitations import GameInvitation  # noqa: E402, F401
from games.models_summaries import TurnSummary  # noqa: E402, F401
from games.models_talk import GameMessage, TalkRead  # noqa: E402, F401
from games.models_webhooks import PlayerWebhook, WebhookDelivery  # noqa: E402, F401
