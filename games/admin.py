"""Admin: read-mostly. Sealed orders are listed by commitment only; the log is read-only.
Nothing of a game's record is deleted here (a staff audit: a sealed order or the open
prompt deleted left a running game that could never resolve, its log still announcing
the order, verify_game still saying OK); emails only once done with."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import Q
from django.db.models.constants import LOOKUP_SEP

from fivex_site.converters import row_id
from games.models import (
    Game,
    GameInvitation,
    GameMessage,
    LogEntry,
    OutboxMessage,
    Prompt,
    SealedOrder,
    Seat,
    SeatOffer,
)


class ListedFiltersOnly(admin.ModelAdmin):
    """A list filters by its own filters only. Django's admin accepts a filter on any
    field of the model from the address (``?text__startswith=PASS%20G``), hidden fields
    included, and the number of rows it answers tells a hidden value one character at a
    time (a sealed order, the seed, a seat's reply address). Here a lookup must start at
    a field in ``list_filter``, the date hierarchy or the primary key, or be the very
    parameter of a filter of its own (``?game=12``, never ``?game__seed__gte=0``)."""

    show_full_result_count = False  # a second COUNT of the whole table on every page

    def lookup_allowed(self, lookup: str, value: Any, request: Any) -> bool:
        root = lookup.split(LOOKUP_SEP, 1)[0]
        allowed = {"pk", "id", self.model._meta.pk.name, self.date_hierarchy}
        for item in self.get_list_filter(request):
            if isinstance(item, type) and issubclass(item, admin.SimpleListFilter):
                if lookup == item.parameter_name:  # the filter reads it, nothing else
                    return super().lookup_allowed(lookup, value, request)
            elif isinstance(item, str):
                allowed.add(item.split(LOOKUP_SEP, 1)[0])
            elif isinstance(item, (tuple, list)) and item and isinstance(item[0], str):
                allowed.add(item[0].split(LOOKUP_SEP, 1)[0])
        return root in allowed and super().lookup_allowed(lookup, value, request)


class GameFilter(admin.SimpleListFilter):
    """``?game=ID``: the rows of one game (the links on a game's admin page). Only the
    game's id is taken: ``game__seed__gte`` is still a lookup the list refuses."""

    title = "game"
    parameter_name = "game"
    path = "game"  # from the listed model to its game

    def lookups(self, request, model_admin):  # noqa: ANN001, ANN201, D102
        # Offered only once chosen (a choice of every game would be the whole table):
        # the filter shows which game, and "All" to leave it.
        value = self.value()
        if value is None:
            return []
        pk = row_id(value)
        game = Game.objects.filter(pk=pk).first() if pk is not None else None
        return [(value, f"{game.pk}: {game}" if game is not None else f"{value}: no such game")]

    def queryset(self, request, queryset):  # noqa: ANN001, ANN201, D102
        value = self.value()
        if value is None:
            return queryset
        pk = row_id(value)  # "²" is a digit to str.isdigit, not to int (a 500: a code review)
        if pk is None:
            return queryset.none()
        return queryset.filter(**{f"{self.path}__pk": pk})


def game_filter(path: str) -> type[GameFilter]:
    """A ``GameFilter`` for a model that reaches its game by ``path``."""
    return type(f"GameFilter_{path}", (GameFilter,), {"path": path})


class ReadOnlyAdmin(ListedFiltersOnly):
    """View only: no add, change or delete."""

    def has_add_permission(self, request, obj=None):  # noqa: ANN001, ANN201, D102
        return False

    def has_change_permission(self, request, obj=None):  # noqa: ANN001, ANN201, D102
        return False

    def has_delete_permission(self, request, obj=None):  # noqa: ANN001, ANN201, D102
        return False


class DeletableWhenDone(ListedFiltersOnly):
    """Rows deleted only once done with (``done``: which ones), as the retention sweep
    deletes them: one still waiting (an email to send, a message to read) is refused, on
    its own delete page and in "Delete selected", where a selection holding one deletes
    nothing."""

    waiting_words = "still to be dealt with"

    def done(self) -> Q:
        raise NotImplementedError

    def has_delete_permission(self, request, obj=None):  # noqa: ANN001, ANN201, D102
        if obj is not None and not self.model.objects.filter(self.done(), pk=obj.pk).exists():
            return False
        return super().has_delete_permission(request, obj)

    def get_deleted_objects(self, objs, request):  # noqa: ANN001, ANN201, D102
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        waiting = list(self.model.objects.filter(pk__in=[o.pk for o in objs]).exclude(self.done()))
        if waiting:  # said as what it is, not as a permission the account lacks
            perms_needed = set(perms_needed) - {str(self.model._meta.verbose_name)}
            protected = [*protected, *(f"{row}: {self.waiting_words}" for row in waiting)]
        return deleted, counts, perms_needed, protected

    def delete_queryset(self, request, queryset):  # noqa: ANN001, ANN201, D102
        super().delete_queryset(request, queryset.filter(self.done()))  # a row that moved since


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("name", "user", "position", "status", "joined_at")
    readonly_fields = fields
    can_delete = False

    def get_queryset(self, request):  # noqa: ANN001, ANN201, D102
        return super().get_queryset(request).select_related("user")  # a query per seat


class GameAdminForm(forms.ModelForm):
    class Meta:
        model = Game
        fields = "__all__"  # noqa: DJ007 - the admin's own fields/exclude choose

    def clean_quiet_hours_time_zone(self) -> str:
        """A known zone (a typo would silently read the quiet hours in UTC)."""
        from games.errors import ValidationError
        from games.services.players import time_zone_valid

        try:
            return time_zone_valid(self.cleaned_data.get("quiet_hours_time_zone"))
        except ValidationError as exc:
            raise forms.ValidationError(str(exc)) from None

    def clean(self) -> dict[str, Any]:
        """The deadline policy within the bounds the site's forms and the API keep (a
        code review: a deadline of 1e8 hours overflowed every next prompt's deadline)."""
        from games.errors import ValidationError
        from games.services.deadlines import deadline_policy_check

        data = super().clean()
        names = ("deadline_hours", "grace_minutes", "quiet_hours_start", "quiet_hours_end",
                 "reminder_hours", "early_resolution_delay_seconds")  # fmt: skip
        if not self.errors and all(name in data for name in names):
            try:
                deadline_policy_check(**{name: data[name] for name in names})
            except ValidationError as exc:
                raise forms.ValidationError(str(exc)) from None
        return data


@admin.register(Game)
class GameAdmin(ListedFiltersOnly):
    form = GameAdminForm
    list_display = ("id", "name", "ruleset", "status", "seats_count", "organizer", "created_at")
    list_filter = ("status", "ruleset", "is_private")
    search_fields = ("name", "public_id")
    raw_id_fields = ("organizer",)  # not a drop-down of every account
    # The seed, its salt and a fixed set-up (dealt cards, secret goals) stay out of the
    # admin form: the log reveals them when the game ends.
    exclude = ("seed", "seed_salt", "setup", "invite_token", "create_key")
    # What the game is and what happened in it are read-only (an operations audit: a
    # finished game turned into 4X Dice for 5 seats answered 500 on every page while
    # verify_game still said OK); its name may be edited, and before it starts its privacy
    # (through the organizer's service, which logs it) and deadline policy.
    readonly_fields = (
        "public_id", "ruleset", "options", "engine_version", "seats_count", "organizer",
        "part_of_label", "part_of_path", "warnings", "seed_commitment", "status",
        "started_at", "finished_at", "ranking", "end_reason", "records", "rematch_of",
        "away_days",
    )  # fmt: skip
    inlines = [SeatInline]
    # Once the game has started these move by the organizer's tools only (a deadline
    # extended is capped, logged and told to the players; privacy and the sender check
    # are set before the start): edited here they bypassed them and the game's log.
    started_read_only = (
        "deadline_hours", "grace_minutes", "quiet_hours_start", "quiet_hours_end",
        "quiet_hours_time_zone", "reminder_hours", "early_resolution_delay_seconds",
        "is_private", "require_sender_match",
    )  # fmt: skip

    def get_readonly_fields(self, request, obj=None):  # noqa: ANN001, ANN201, D102
        fields = super().get_readonly_fields(request, obj)
        if obj is not None and obj.status != Game.Status.FORMING:  # started, or cancelled
            return (*fields, *self.started_read_only)
        return fields

    def save_model(self, request, obj, form, change):  # noqa: ANN001, ANN201
        """A forming game's privacy changes through ``game_privacy_set`` (logged
        ``privacy_changed``), as on the organizer's page."""
        private = None
        if change and "is_private" in form.changed_data:
            private, obj.is_private = obj.is_private, form.initial["is_private"]
        super().save_model(request, obj, form, change)
        if private is not None:
            from games.services.organizer import game_privacy_set

            obj.is_private = game_privacy_set(game=obj, by=request.user, private=private).is_private

    @admin.display(description="records")
    def records(self, obj: Game) -> str:
        """Links to the game's rows in the other lists (a staff-support audit: they could
        not be narrowed to one game)."""
        from django.urls import reverse
        from django.utils.html import format_html, format_html_join

        if obj.pk is None:
            return "-"
        lists = (("games", "prompt", "prompts"), ("games", "sealedorder", "sealed orders"),
                 ("games", "logentry", "log"), ("games", "seatoffer", "seat offers"),
                 ("games", "gameinvitation", "invitations"), ("games", "outboxmessage", "emails"), ("mail", "inboundmail", "inbound mail"))  # fmt: skip
        return format_html_join(
            " · ",
            '<a href="{}?game={}">{}</a>',
            ((reverse(f"admin:{app}_{model}_changelist"), obj.pk, label) for app, model, label in lists),
        ) or format_html("-")

    def has_add_permission(self, request):  # noqa: ANN001, D102
        return False  # a game is made on the site: seats, a committed seed, its log

    def has_delete_permission(self, request, obj=None):  # noqa: ANN001, ANN201, D102
        # Its seats, prompts, orders and log go with it, and a tournament's table loses
        # its result. An organizer cancels a game that has not started on the site.
        return False


@admin.register(Prompt)
class PromptAdmin(ReadOnlyAdmin):
    list_display = ("game", "number", "round", "phase", "status", "deadline", "resolved_at")
    list_filter = ("status", "phase", game_filter("game"))
    ordering = ("-id",)  # the primary key's index (the model's order sorts a join)
    exclude = ("events",)
    readonly_fields = ("game", "number", "round", "phase", "pending", "status", "resolved_at")

    # Deadlines move by the organizer's tools (capped, logged, the players told): the
    # admin shows prompts only.


@admin.register(SealedOrder)
class SealedOrderAdmin(ReadOnlyAdmin):
    list_display = ("prompt", "seat_name", "source", "commitment", "is_current", "submitted_at")
    list_filter = (game_filter("prompt__game"),)
    list_select_related = ("prompt__game",)
    ordering = ("-id",)
    # Text, parsed order and salt are sealed: not shown in the normal admin.
    fields = ("prompt", "seat_name", "source", "commitment", "is_current", "submitted_at")
    readonly_fields = fields


@admin.register(LogEntry)
class LogEntryAdmin(ReadOnlyAdmin):
    list_display = ("game", "seq", "kind", "created_at", "hash")
    list_filter = ("kind", game_filter("game"))
    ordering = ("-id",)
    # The payload as the public log shows it: while the game runs, revealed orders are
    # commitments only (some, like a 5X draft pass, the rules never show to others).
    fields = ("game", "seq", "kind", "created_at", "public_payload", "prev_hash", "hash")
    readonly_fields = fields

    @admin.display(description="payload")
    def public_payload(self, obj: LogEntry) -> str:
        import json

        from games.selectors_log import log_entry_public

        payload = log_entry_public(entry=obj)["payload"]
        return json.dumps(payload, indent=1, sort_keys=True, ensure_ascii=False)


def _player_subject() -> Q:
    """The emails whose subject quotes a player's own words (an answer to their email,
    ``games.mail.replies``: "Re: [5X game 1] PASS ISABELLA"): the subject may be a sealed
    order, one the rules may never reveal (replaced by a later one, or sealed for the
    open prompt of a game ended early), so the admin never shows it."""
    from games.mail.replies import REPLY_KIND

    return Q(kind=REPLY_KIND)


@admin.register(OutboxMessage)
class OutboxMessageAdmin(DeletableWhenDone):
    list_display = ("id", "kind", "to", "subject_shown", "status", "attempts", "created_at", "sent_at")
    list_filter = ("status", "kind", game_filter("game"))
    # Who it went to and what it is about; never its text or reply address.
    search_fields = ("to", "subject")
    ordering = ("-id",)
    raw_id_fields = ("seat", "game")  # not drop-downs of every seat and game
    # The body is the player's own view; the reply address is the seat's credential.
    exclude = ("body", "html", "reply_to", "headers", "subject")
    readonly_fields = (
        "to", "subject_shown", "kind", "seat", "game", "key", "status", "attempts", "last_error",
        "next_attempt_at", "created_at", "sent_at",
    )  # fmt: skip

    @admin.display(description="subject")
    def subject_shown(self, obj: OutboxMessage) -> str:
        """The subject, but not an answer's to a player's email: it repeats the player's
        own subject, which may be a sealed order (a secrecy audit: "Re: [5X game 1] PASS
        ISABELLA" in the list mid-game)."""
        from games.mail.replies import REPLY_KIND

        if obj.kind == REPLY_KIND:
            return "Re: … (the player's own subject: not shown, it may hold a sealed order)"
        return obj.subject

    def get_search_results(self, request, queryset, search_term):  # noqa: ANN001, ANN201, D102
        # A subject the list does not show is no search oracle either ("?q=ISABELLA": one
        # row, then none): such a row is found by its address only.
        found, duplicates = super().get_search_results(request, queryset, search_term)
        if search_term.strip():
            from django.utils.text import smart_split, unescape_string_literal

            by_address = Q()
            for word in smart_split(search_term):  # as the admin reads it: "a phrase"
                if word[:1] in ('"', "'") and word[-1:] == word[:1]:
                    word = unescape_string_literal(word)
                by_address &= Q(to__icontains=word)
            found = found.exclude(_player_subject() & ~by_address)
        return found, duplicates

    actions = ("send_again",)
    waiting_words = "still to be sent"

    def done(self) -> Q:  # noqa: D102 - sent, or failed for good: nothing more happens to it
        from games.services.retention import OUTBOX_DONE

        return Q(status__in=OUTBOX_DONE)

    def has_add_permission(self, request):  # noqa: ANN001, D102
        return False  # emails are written by the site

    def get_queryset(self, request):  # noqa: ANN001, ANN201, D102
        # The list shows neither text (an outbox of 180,000 rows read them all a page).
        return super().get_queryset(request).defer("body", "html")

    @admin.action(description="Send the selected failed emails again", permissions=["change"])
    def send_again(self, request, queryset):  # noqa: ANN001, ANN201
        """Failed emails (the mail server was away for days, a setting was wrong) go back to
        the queue: the minute's sweep sends them. Others are left as they are."""
        from games.services.outbox_sending import outbox_requeue_failed

        count = outbox_requeue_failed(ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"{count} failed email{'s' if count != 1 else ''} queued again.")


@admin.register(SeatOffer)
class SeatOfferAdmin(ReadOnlyAdmin):
    """Offers of a seat (made, accepted, declined or withdrawn on the site): read-only
    (an offer added here had no "by": a 500)."""

    list_display = ("game", "seat", "to_user", "by", "status", "created_at", "decided_at")
    list_filter = ("status", game_filter("game"))
    ordering = ("-id",)
    fields = list_display
    readonly_fields = fields


@admin.register(GameInvitation)
class GameInvitationAdmin(ReadOnlyAdmin):
    """Players invited to a forming game by name (by its organizer, or by a rematch),
    and whether they declined: read-only (invitations are made on the site, where the
    caps and the email are, and an invited player declines there)."""

    list_display = ("game", "user", "invited_by", "created_at", "declined_at")
    list_filter = (game_filter("game"), "declined_at")
    ordering = ("-id",)
    fields = list_display
    readonly_fields = fields
    list_select_related = ("game", "user", "invited_by")


@admin.register(GameMessage)
class GameMessageAdmin(ReadOnlyAdmin):
    """Table talk, to look into a report: read-only (a message is removed on the game's
    talk page, by its author, the organizer or staff)."""

    list_display = ("game", "author", "seat_name", "created_at", "removed_at", "removed_by")
    list_filter = (game_filter("game"),)
    ordering = ("-id",)
    fields = ("game", "author", "seat_name", "text", "created_at", "removed_at", "removed_by")
    readonly_fields = fields


# The players' webhooks (their own module: the signing secret is never shown).
from games import admin_webhooks  # noqa: E402, F401 - registers its admin classes
