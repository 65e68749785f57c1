"""Account forms: allauth's, with the wording of a games site."""

from allauth.account import forms as allauth_forms
from allauth.account.forms import SignupForm
from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.forms.utils import ErrorList
from django.utils.html import escape


def password_rules_in_one_sentence(form: forms.Form) -> None:
    """The new password's rules as one sentence: Django's list (``<ul>``) inside the
    paragraph of allauth's form layout is invalid markup, and browsers empty the help
    element the field's ``aria-describedby`` names (screen readers read nothing)."""
    from django.contrib.auth.password_validation import password_validators_help_texts

    password = form.fields.get("password1")
    if password is None:
        return
    rules = [r.rstrip(".") for r in password_validators_help_texts()]
    # One sentence: the rules after the first start in lower case ("...; your password").
    rules = rules[:1] + [r[:1].lower() + r[1:] for r in rules[1:]]
    password.help_text = escape("; ".join(rules) + ".") if rules else ""


class _ErrorListKeepingId(ErrorList):
    """Django's error list, whose copy keeps its id (``as_p`` shows a copy of the form's
    errors: Django's copy dropped the ``field_id`` the list's id is made of)."""

    def copy(self) -> "_ErrorListKeepingId":
        copy = super().copy()
        copy.field_id = self.field_id
        return copy


class LoginForm(allauth_forms.LoginForm):
    """allauth's login form; a refusal of the pair (a wrong password) marks both fields
    invalid and describes them by it, as a field's own error is wired."""

    #: The form's error list has the id ``<this>_error`` (Django's naming).
    error_list_id = "id_login_form"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.error_class = _ErrorListKeepingId  # Django's form sets its own in __init__

    def full_clean(self) -> None:
        super().full_clean()
        errors = self.non_field_errors()
        if not errors:
            return
        errors.field_id = self.error_list_id
        for name in ("login", "password"):
            if name not in self.fields or name in self.errors:
                continue
            described = [f"{self.error_list_id}_error"]
            if self.fields[name].help_text:  # "Forgot your password?" stays described
                described.append(f"{self[name].auto_id}_helptext")
            attrs = self.fields[name].widget.attrs
            attrs["aria-invalid"] = "true"
            attrs["aria-describedby"] = " ".join(described)


class ChangePasswordForm(allauth_forms.ChangePasswordForm):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        password_rules_in_one_sentence(self)


class SetPasswordForm(allauth_forms.SetPasswordForm):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        password_rules_in_one_sentence(self)


class ResetPasswordKeyForm(allauth_forms.ResetPasswordKeyForm):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        password_rules_in_one_sentence(self)


class PlayerSignupForm(SignupForm):
    """Sign-up asks for the player name other players see; login stays by email."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        username = self.fields["username"]
        username.label = "Player name"
        username.help_text = "Shown to the other players at the table. You log in with your email."
        username.widget.attrs["placeholder"] = "Player name"
        password_rules_in_one_sentence(self)

    # Filled by account.js with the browser's time zone; the player can change it later.
    # A plain Field: CharField's own checks (length, NUL) would refuse the sign-up.
    time_zone = forms.Field(required=False, widget=forms.HiddenInput)

    def clean_time_zone(self) -> str:
        """The browser's zone if it is a plain short name; anything odd (too long, a NUL)
        is ignored rather than refusing the sign-up (the player reads UTC until it
        chooses)."""
        value = self.cleaned_data.get("time_zone") or ""
        if not isinstance(value, str) or len(value) > 64 or not value.isprintable():
            return ""
        from games.services.players import time_zone_aliases

        # An old name a browser reports (Chrome's "Asia/Calcutta") is stored as the zone's
        # name now, as the time zone chooser lists it.
        return time_zone_aliases().get(value.strip(), value.strip())

    def save(self, request):  # noqa: ANN001, ANN201 - allauth's signature
        from games.errors import ValidationError
        from games.services.players import player_time_zone_set

        user = super().save(request)
        zone = self.cleaned_data.get("time_zone")
        if zone:
            try:
                player_time_zone_set(user=user, time_zone=zone)
            except ValidationError:
                pass  # an odd browser value: UTC until the player chooses
        return user


class AddEmailForm(allauth_forms.AddEmailForm):
    """Adding an address to one's account: not one another account has, confirmed or not
    (``account_email_check``, as sign-up and the admin refuse it). allauth's own form,
    hiding whether an address is registered, took it unconfirmed and mailed its owner a
    confirmation "for the player" who added it; the owner could then not sign up with
    their own address (a review). The refusal tells a logged-in player that an address
    is registered, which sign-up tells anyone with optional verification and hides with
    mandatory verification: the price of keeping an address its owner's."""

    def clean_email(self) -> str:
        from fivex_site.accounts import account_email_check

        return account_email_check(email=super().clean_email(), user=self.user)


class AdminLoginForm(AdminAuthenticationForm):
    """The admin's login form, with the site login's limits: failed attempts count as
    allauth's do (its ``login_failed`` rate: per client address and per name), so a staff
    account's password cannot be guessed at ``/admin/login/`` without end (the admin's
    own form counts nothing, and staff may hand over seats and end games). An account with
    two-factor authentication on is sent to the site's log-in, which asks for its code."""

    error_messages = {
        **AdminAuthenticationForm.error_messages,
        "too_many": "Too many failed login attempts. Try again later.",
        "two_factor": (
            "This account uses two-factor authentication: log in on the site's log-in page "
            "(/accounts/login/, it asks for your code), then open the admin again."
        ),
    }

    def clean(self) -> dict:
        from allauth.account.adapter import get_adapter
        from allauth.mfa.utils import is_mfa_enabled
        from django.contrib.auth import get_user_model
        from django.core.exceptions import ValidationError

        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if username is not None and password:
            # One count per account, whether its name or its address was typed (each had
            # its own five attempts).
            account = (
                get_user_model().objects.filter(email__iexact=username.strip()).first()
                if "@" in username
                else None
            )
            name = account.get_username() if account is not None else username
            try:
                self.user_cache = get_adapter(self.request).authenticate(
                    self.request, username=name, password=password
                )
            except ValidationError as exc:  # allauth's "too many login attempts"
                raise forms.ValidationError(
                    self.error_messages["too_many"], code="too_many"
                ) from exc
            if self.user_cache is not None and not self.user_cache.is_active:
                # allauth hands back an inactive account whose password matched; the
                # admin's answer must not tell a right password from a wrong one.
                self.user_cache = None
            if self.user_cache is None:
                raise self.get_invalid_login_error()
            self.confirm_login_allowed(self.user_cache)
            if is_mfa_enabled(self.user_cache):
                # The admin's form asks no code: logging in here would skip the second
                # factor. The site's log-in asks it, and the admin takes its session.
                self.user_cache = None
                raise forms.ValidationError(self.error_messages["two_factor"], code="two_factor")
        return self.cleaned_data
