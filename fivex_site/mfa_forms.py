"""allauth.mfa's code forms (``MFA_FORMS``) with the site's words: what to type, and a
numeric keyboard on phones; and its passkey forms, which refuse a garbled credential as a
wrong key. The checks are allauth's (its TOTP, its recovery codes, its WebAuthn, its limit
on wrong codes)."""

import logging

from allauth.mfa.adapter import get_adapter
from allauth.mfa.base import forms as base_forms
from allauth.mfa.totp import forms as totp_forms
from allauth.mfa.webauthn import forms as webauthn_forms
from django import forms
from django.core.exceptions import ValidationError
from django.forms.fields import InvalidJSONInput

from fivex_site.mfa_secrets import SecretUnreadable

logger = logging.getLogger(__name__)


def _code_field(form, *, label: str, help_text: str) -> None:  # noqa: ANN001
    field = form.fields["code"]
    field.label = label
    field.help_text = help_text
    field.widget.attrs.update(
        {"inputmode": "numeric", "autocomplete": "one-time-code", "spellcheck": "false"}
    )
    field.widget.attrs.pop("placeholder", None)  # the label says it


ACTIVATION_CODE_WRONG = (
    "That code is not right. Type the 6-digit code the app shows now for FiveX (a new one "
    "every 30 seconds); if it is refused again, check that your phone's clock is right."
)
LOGIN_CODE_HELP = "6 digits from your authenticator app, or one of your recovery codes."
KEY_UNREADABLE = (
    "Your two-factor authentication cannot be checked: the key it was set up with can no "
    "longer be read on the site (the site's secret key was changed). No code can log you in "
    "for now. Ask the site's staff to remove your authenticator: you then log in with your "
    "password alone and can turn two-factor authentication on again."
)


def _clean_code_or_say_unreadable(clean) -> str:  # noqa: ANN001
    """allauth's check of the code; a stored key no key of the site opens is answered with
    what to do (not a server error)."""
    try:
        return clean()
    except SecretUnreadable:
        raise ValidationError(KEY_UNREADABLE, code="key_unreadable") from None


class ActivateTOTPForm(totp_forms.ActivateTOTPForm):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        _code_field(self, label="Code from the app",
                    help_text="6 digits; the app shows a new one every 30 seconds.")  # fmt: skip

    def clean_code(self) -> str:
        """A wrong code says what to check here (no recovery code exists yet)."""
        try:
            return super().clean_code()
        except ValidationError as exc:
            if exc.code != "incorrect_code":
                raise
            raise ValidationError(ACTIVATION_CODE_WRONG, code="incorrect_code") from None


class AuthenticateForm(base_forms.AuthenticateForm):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        _code_field(self, label="Code", help_text=LOGIN_CODE_HELP)

    def clean_code(self) -> str:
        return _clean_code_or_say_unreadable(super().clean_code)


class ReauthenticateForm(base_forms.ReauthenticateForm):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        _code_field(self, label="Code", help_text=LOGIN_CODE_HELP)

    def clean_code(self) -> str:
        return _clean_code_or_say_unreadable(super().clean_code)


# Passkeys and security keys (WebAuthn): the credential the browser posts is JSON text
# anyone may forge (the log-in with a passkey needs no account). allauth and fido2 read it
# trusting its shape: a missing field (KeyError), a number past Python's 4300 digits or
# nesting past its recursion limit was a server error. Each is refused as a wrong key is.
GARBLED_CREDENTIAL = (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError)


class CredentialField(forms.JSONField):
    """allauth's credential field, for JSON text Python cannot read too."""

    def to_python(self, value: object) -> object:
        try:
            return super().to_python(value)
        except GARBLED_CREDENTIAL:  # (invalid JSON is a ValidationError already)
            raise ValidationError(self.error_messages["invalid"], code="invalid", params={"value": value}) from None

    def bound_data(self, data: object, initial: object) -> object:
        try:
            return super().bound_data(data, initial)
        except GARBLED_CREDENTIAL:  # the form shown again with what was posted
            return InvalidJSONInput(data)


def _refuse_garbled(clean):  # noqa: ANN001, ANN202
    """allauth's check of a credential; one it cannot read refused as a wrong key."""
    try:
        return clean()
    except GARBLED_CREDENTIAL as exc:
        logger.info("A garbled passkey credential was refused (%s).", type(exc).__name__)
        raise get_adapter().validation_error("incorrect_code") from None


class AuthenticateWebAuthnForm(webauthn_forms.AuthenticateWebAuthnForm):
    credential = CredentialField(required=True, widget=forms.HiddenInput)

    def clean_credential(self) -> object:
        return _refuse_garbled(super().clean_credential)


class LoginWebAuthnForm(webauthn_forms.LoginWebAuthnForm):
    credential = CredentialField(required=True, widget=forms.HiddenInput)

    def clean_credential(self) -> object:
        return _refuse_garbled(super().clean_credential)


class ReauthenticateWebAuthnForm(webauthn_forms.ReauthenticateWebAuthnForm):
    credential = CredentialField(required=True, widget=forms.HiddenInput)

    def clean_credential(self) -> object:
        return _refuse_garbled(super().clean_credential)


KEY_NAME_MAX = 100
"""Characters in a passkey's or security key's name (allauth's forms take any length)."""


class AddWebAuthnForm(webauthn_forms.AddWebAuthnForm):
    credential = CredentialField(required=True, widget=forms.HiddenInput)
    name = forms.CharField(required=False, max_length=KEY_NAME_MAX)

    def clean(self) -> dict:
        return _refuse_garbled(super().clean)


class EditWebAuthnForm(webauthn_forms.EditWebAuthnForm):
    """Renaming a key: at most KEY_NAME_MAX characters."""

    name = forms.CharField(required=True, max_length=KEY_NAME_MAX)
