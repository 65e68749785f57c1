"""Accounts in Django's admin with the site's rules: a player name and an address staff
set there pass what sign-up checks, and a changed address becomes the account's allauth
address (a staff-support audit: the stock forms took "Bob" beside "bob", "@" and mixed
alphabets, and left the old address the verified one). Players' two-factor authenticators:
listed and deleted, their keys never shown."""

from __future__ import annotations

from typing import Any

from allauth.mfa.models import Authenticator
from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.contrib.auth.signals import user_logged_in

from fivex_site.accounts import (
    account_deactivated,
    account_email_changed,
    account_email_check,
    player_name_check,
)
from fivex_site.two_factor import recovery_codes_drop_dangling
from games.admin import ListedFiltersOnly


class PlayerNameRules(forms.ModelForm):
    def clean_username(self) -> str:
        name = self.cleaned_data.get("username") or ""
        if self.instance.pk and "username" not in self.changed_data:
            # A name kept as it is (one made before these rules, or by createsuperuser,
            # which takes "@"): the account is still saved (deactivated, say).
            return name
        # The model's own uniqueness is exact: "Bob" beside "bob" is checked here.
        return player_name_check(name=name, user=self.instance)

    def clean_email(self) -> str:
        email = (self.cleaned_data.get("email") or "").strip()
        if self.instance.pk and "email" not in self.changed_data:
            return email
        return account_email_check(email=email, user=self.instance)


class PlayerChangeForm(PlayerNameRules, UserChangeForm):
    pass


class PlayerCreationForm(PlayerNameRules, AdminUserCreationForm):
    pass


User = get_user_model()
if admin.site.is_registered(User):
    admin.site.unregister(User)


@admin.register(User)
class PlayerAdmin(UserAdmin):
    form = PlayerChangeForm
    add_form = PlayerCreationForm

    def save_model(self, request: Any, obj: Any, form: Any, change: bool) -> None:
        old = (form.initial.get("email") or "") if change else ""
        super().save_model(request, obj, form, change)
        if change and "email" in form.changed_data:
            account_email_changed(user=obj, old=old)
        if change and "is_active" in form.changed_data and not obj.is_active:
            account_deactivated(user=obj, old_email=old)

if admin.site.is_registered(Authenticator):
    admin.site.unregister(Authenticator)  # allauth's: its change form shows and edits ``data``


@admin.register(Authenticator)
class AuthenticatorAdmin(ListedFiltersOnly):
    """A player's two-factor authenticators (allauth.mfa): which kind, when added and last
    used; staff delete a lost one (a player who lost their phone and their recovery codes),
    and the log-in asks for the password only again. The key (``data``: the authenticator
    app's secret, the recovery codes' seed) is never shown, edited, searched or filtered on:
    whoever reads it makes the player's codes. Nothing is added or changed here."""

    list_display = ("user", "type", "created_at", "last_used_at")
    list_filter = ("type", "created_at", "last_used_at")
    list_select_related = ("user",)
    search_fields = ("user__username",)
    ordering = ("-id",)
    fields = ("user", "type", "created_at", "last_used_at")
    readonly_fields = fields

    def get_queryset(self, request: Any) -> Any:
        return super().get_queryset(request).defer("data")

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def delete_model(self, request: Any, obj: Any) -> None:
        super().delete_model(request, obj)
        # The app gone, its recovery codes go too (as allauth's own "turn off" does).
        recovery_codes_drop_dangling(user_ids=[obj.user_id])

    def delete_queryset(self, request: Any, queryset: Any) -> None:
        user_ids = list(queryset.values_list("user_id", flat=True).distinct())
        super().delete_queryset(request, queryset)
        recovery_codes_drop_dangling(user_ids=user_ids)


def _admin_log_in_kept(sender: Any, request: Any = None, user: Any = None, **kwargs: Any) -> None:
    """A log-in at the admin's own login page is kept as the site's log-ins are
    (allauth.usersessions keeps only its own): listed on the staff member's Sessions page,
    and ended by its "Log out the other sessions" (a stolen staff session stayed open)."""
    from allauth.usersessions.models import UserSession
    from django.urls import reverse

    if request is None or user is None or request.path != reverse("admin:login"):
        return
    UserSession.objects.create_from_request(request, user=user)


user_logged_in.connect(_admin_log_in_kept, dispatch_uid="fivex_admin_log_in_kept")
