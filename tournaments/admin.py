"""The tournaments in Django's admin: to look, search and rename. Everything that moves
standings or ratings (registrations, pairings, results, settings once a round exists)
goes through the organizer's panel, whose services check it and write the tournament's
log; here it is read-only, so a stray edit or delete cannot break a running tournament
or leave a table pointing at a registration that is gone."""

from django.contrib import admin

from games.admin import ListedFiltersOnly, ReadOnlyAdmin
from tournaments.models import (
    Bye,
    RatingEntry,
    Registration,
    Round,
    Table,
    Tournament,
    TournamentLog,
)


class RegistrationInline(admin.TabularInline):
    model = Registration
    extra = 0
    can_delete = False
    fields = ("user", "status", "first_round", "withdrawn_after_round", "requested_byes")
    readonly_fields = fields

    def get_queryset(self, request):  # noqa: ANN001, ANN201, D102
        return super().get_queryset(request).select_related("user", "tournament")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Tournament)
class TournamentAdmin(ListedFiltersOnly):
    list_display = ("name", "ruleset", "status", "rounds_count", "organizer", "created_at")
    list_filter = ("status", "ruleset")
    search_fields = ("name", "slug")
    inlines = [RegistrationInline]

    # Only the name may change here, a draft's too: the settings are checked by the
    # service behind the site's form (a ruleset, table sizes or points it cannot play
    # would break the tournament's pages, its API and its pairing), and tournaments are
    # created there, where the creation is logged.
    readonly_fields = [f.name for f in Tournament._meta.concrete_fields if f.name not in ("id", "name")]

    def has_add_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        # A tournament with rounds holds rated games: deleting it would rewrite ratings.
        if obj is not None and obj.rounds.exists():
            return False
        return super().has_delete_permission(request, obj)


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    list_display = ("tournament", "number", "status", "paired_by_hand", "started_at")
    list_filter = ("status",)
    list_select_related = ("tournament",)


@admin.register(Table)
class TableAdmin(ReadOnlyAdmin):
    list_display = ("round", "number", "game", "result_source")
    list_select_related = ("round__tournament", "game")


@admin.register(Bye)
class ByeAdmin(ReadOnlyAdmin):
    list_display = ("round", "registration", "kind", "points")
    list_select_related = ("round__tournament", "registration__user", "registration__tournament")


@admin.register(RatingEntry)
class RatingEntryAdmin(ReadOnlyAdmin):
    list_display = ("pool", "seq", "user", "game_key", "rating_before", "rating_after", "k")
    list_filter = ("pool",)


@admin.register(TournamentLog)
class TournamentLogAdmin(ReadOnlyAdmin):
    list_display = ("tournament", "seq", "kind", "actor", "created_at")
