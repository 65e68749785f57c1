from django.contrib import admin

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


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("name", "ruleset", "status", "rounds_count", "organizer", "created_at")
    list_filter = ("status", "ruleset")
    search_fields = ("name", "slug")
    inlines = [RegistrationInline]


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ("tournament", "number", "status", "paired_by_hand", "started_at")
    list_filter = ("status",)


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("round", "number", "game", "result_source")


@admin.register(Bye)
class ByeAdmin(admin.ModelAdmin):
    list_display = ("round", "registration", "kind", "points")


@admin.register(RatingEntry)
class RatingEntryAdmin(admin.ModelAdmin):
    list_display = ("pool", "seq", "user", "game_key", "rating_before", "rating_after", "k")
    list_filter = ("pool",)


@admin.register(TournamentLog)
class TournamentLogAdmin(admin.ModelAdmin):
    list_display = ("tournament", "seq", "kind", "actor", "created_at")
    readonly_fields = ("tournament", "seq", "kind", "actor", "payload", "created_at")

    def has_change_permission(self, request, obj=None):  # the log is append-only
        return False

    def has_delete_permission(self, request, obj=None):
        return False
