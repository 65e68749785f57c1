"""The tournaments room's tables: a tournament, its registrations, rounds, tables
(each a Game of the games app), byes, results, the rating ledger and the audit log.

Models hold data only; rules live in ``tournaments.services`` and the pure modules
``tournaments.pairing``, ``tournaments.ratings`` and ``tournaments.standings``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Tournament(models.Model):
    """A Swiss tournament of one ruleset."""

    class Status(models.TextChoices):
        DRAFT = "draft", "draft"
        OPEN = "open", "open for registration"
        RUNNING = "running", "running"
        CLOSED = "closed", "closed"

    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=140, unique=True)
    organizer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="organized_tournaments"
    )
    ruleset = models.CharField(max_length=32)
    options = models.JSONField(default=dict, blank=True)
    table_sizes = models.JSONField(default=list)  # allowed sizes, most preferred first
    rounds_count = models.PositiveSmallIntegerField()
    deadline_hours = models.FloatField(default=48)
    # The tables' quiet hours (whole hours on the clock of the zone), as a game's.
    quiet_hours_start = models.PositiveSmallIntegerField(null=True, blank=True)
    quiet_hours_end = models.PositiveSmallIntegerField(null=True, blank=True)
    quiet_hours_time_zone = models.CharField(max_length=64, default="UTC")
    # {"2": [1, 0], "4": [1, 0.67, 0.33, 0]}: points per place for each table size.
    points_per_place = models.JSONField(default=dict, blank=True)
    bye_points = models.FloatField(default=1.0)
    requested_bye_points = models.FloatField(default=0.5)
    tiebreaks = models.JSONField(default=list, blank=True)
    # The table size whose points value an unplayed round in the tie-breaks (a virtual
    # opponent's win is its first place, a draw its average place). Null: the first of
    # ``table_sizes``. Tournaments created before this field keep 2, the scale their
    # standings were published with.
    tiebreak_scale_size = models.PositiveSmallIntegerField(null=True, blank=True)
    rating_pool = models.CharField(max_length=64, blank=True)
    forbidden_pairs = models.JSONField(default=list, blank=True)  # [[user_id, user_id], ...]
    allow_late_entry = models.BooleanField(default=True)
    # Whether the players of its tables write at them (table talk); its organizer always may.
    table_talk = models.BooleanField(default=True)
    # How long its tables' deadlines may wait for a player who is away (``Game.away_days``).
    away_days = models.PositiveSmallIntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    # The creating request's key (the form's own key with a digest of what it asked):
    # the same request sent again finds this tournament instead of making a second one.
    create_key = models.CharField(max_length=80, blank=True, default="")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["organizer", "create_key"], condition=~models.Q(create_key=""),
                name="tournaments_created_once",
            )
        ]

    def __str__(self) -> str:
        return self.name


class Registration(models.Model):
    """A player's entry in a tournament."""

    class Status(models.TextChoices):
        ACTIVE = "active", "active"
        WITHDRAWN = "withdrawn", "withdrawn"

    # No index of its own: the unique constraint's index starts with it (a second
    # one only slowed every insert).
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="registrations", db_index=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="registrations")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    first_round = models.PositiveSmallIntegerField(default=1)  # > 1 for a late entry
    withdrawn_after_round = models.PositiveSmallIntegerField(null=True, blank=True)
    requested_byes = models.JSONField(default=list, blank=True)  # round numbers
    registered_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["registered_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="tournaments_one_registration")
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.tournament}"


class Round(models.Model):
    """One round: paired (tables known, games not created), started, finished."""

    class Status(models.TextChoices):
        PAIRED = "paired", "paired"
        STARTED = "started", "started"
        FINISHED = "finished", "finished"

    # No index of its own: the unique constraint's index starts with it (a second
    # one only slowed every insert).
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="rounds", db_index=False)
    number = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PAIRED)
    seed = models.BigIntegerField(default=0)
    pairing_input = models.JSONField(default=dict, blank=True)
    pairing_output = models.JSONField(default=dict, blank=True)
    paired_by_hand = models.BooleanField(default=False)
    warnings = models.JSONField(default=list, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="tournaments_round_unique")
        ]

    def __str__(self) -> str:
        return f"{self.tournament} round {self.number}"


class Table(models.Model):
    """One table of a round; ``players`` are registration ids in seat order."""

    # No index of its own: the unique constraint's index starts with it (a second
    # one only slowed every insert).
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables", db_index=False)
    number = models.PositiveSmallIntegerField()
    players = models.JSONField(default=list)
    game = models.OneToOneField(
        "games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="tournament_table"
    )
    # The result as recorded: [[registration ids], ...] best first; null until known.
    ranking = models.JSONField(null=True, blank=True)
    result_source = models.CharField(max_length=16, blank=True)  # "game" or "organizer"
    # When the result was first recorded: the table's place in the rating history.
    recorded_at = models.DateTimeField(null=True, blank=True)
    # False: a result the organizer entered for a game not played out (a forfeit): it
    # counts in the standings, not in the ratings (FIDE does not rate forfeits either).
    rated = models.BooleanField(default=True)
    # True: nobody played it (a double forfeit, FIDE's 0-0): no points for any of its
    # players, not rated. Entered so by the organizer, or recorded from a game whose every
    # seat was a no-show (``services.results``; migration 0010 set it on older ones).
    scoreless = models.BooleanField(default=False)

    class Meta:
        ordering = ["round", "number"]
        constraints = [
            models.UniqueConstraint(fields=["round", "number"], name="tournaments_table_unique")
        ]

    def __str__(self) -> str:
        return f"{self.round} table {self.number}"


class Bye(models.Model):
    """A registration that did not play a round, and the points it got for it."""

    class Kind(models.TextChoices):
        PAIRING = "pairing", "pairing bye"
        REQUESTED = "requested", "requested bye"
        ABSENT = "absent", "absent"

    # No index of its own: the unique constraint's index starts with it (a second
    # one only slowed every insert).
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="byes", db_index=False)
    registration = models.ForeignKey(Registration, on_delete=models.CASCADE, related_name="byes")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    points = models.FloatField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["round", "registration"], name="tournaments_one_bye")
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} in {self.round}"


class RatingEntry(models.Model):
    """One row of the rating ledger: a player's rating change for one game."""

    pool = models.CharField(max_length=64)
    seq = models.PositiveIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_entries")
    game = models.ForeignKey("games.Game", null=True, on_delete=models.SET_NULL, related_name="+")
    game_key = models.CharField(max_length=64)
    rating_before = models.FloatField()
    expected = models.FloatField()
    actual = models.FloatField()
    k = models.FloatField()
    rating_after = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "rating entries"
        ordering = ["pool", "seq", "id"]
        constraints = [
            models.UniqueConstraint(fields=["pool", "game_key", "user"], name="tournaments_rating_once")
        ]

    def __str__(self) -> str:
        return f"{self.pool} #{self.seq}: {self.rating_before:.1f} -> {self.rating_after:.1f}"


class TournamentLog(models.Model):
    """Append-only audit log of a tournament: every organizer action and pairing."""

    # No index of its own: the unique constraint's index starts with it (a second
    # one only slowed every insert).
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="log", db_index=False)
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=32)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "seq"], name="tournaments_log_seq")
        ]

    def __str__(self) -> str:
        return f"{self.tournament} log #{self.seq} {self.kind}"
