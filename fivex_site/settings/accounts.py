"""Accounts (django-allauth): log in by email; the username is the public player name."""

from datetime import timedelta

from django.core.exceptions import ImproperlyConfigured

from .base import IS_PRODUCTION, env

AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]

LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "home"
ACCOUNT_LOGOUT_REDIRECT_URL = "home"

ACCOUNT_ADAPTER = "fivex_site.adapters.AccountAdapter"
ACCOUNT_LOGIN_METHODS = {"email"}
# Sign-up asks for the player name shown at the table; login uses the email address.
ACCOUNT_SIGNUP_FIELDS = ["email*", "username*", "password1*", "password2*"]
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_USERNAME_MIN_LENGTH = 2
ACCOUNT_USERNAME_VALIDATORS = "fivex_site.validators.username_validators"
ACCOUNT_EMAIL_VERIFICATION = env.str(
    "ACCOUNT_EMAIL_VERIFICATION", default="mandatory" if IS_PRODUCTION else "optional"
)
if ACCOUNT_EMAIL_VERIFICATION not in {"none", "optional", "mandatory"}:
    # "bogus" was taken silently (a README audit); allauth's three modes only.
    raise ImproperlyConfigured(
        "ACCOUNT_EMAIL_VERIFICATION must be 'none', 'optional' or 'mandatory', "
        f"not {ACCOUNT_EMAIL_VERIFICATION!r}."
    )
ACCOUNT_EMAIL_SUBJECT_PREFIX = "[FiveX] "
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https" if IS_PRODUCTION else "http"
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_LOGIN_ON_PASSWORD_RESET = True
ACCOUNT_SESSION_REMEMBER = None
# A security notice to the account's address when its password, email addresses or
# two-factor authentication change (allauth's, with the address and browser it came from):
# a player whose account was taken over learns of it.
ACCOUNT_EMAIL_NOTIFICATIONS = True
# Each log-in is kept (allauth.usersessions: when, from which address and browser) so that a
# player sees where they are signed in and logs the others out. Not allauth's "last seen" on
# every request (a row written per page view): fivex_site.middleware.SessionSeenMiddleware
# writes it at most hourly.
USERSESSIONS_TRACK_ACTIVITY = False
ACCOUNT_FORMS = {
    "login": "fivex_site.forms.LoginForm",
    "signup": "fivex_site.forms.PlayerSignupForm",
    "change_password": "fivex_site.forms.ChangePasswordForm",
    "set_password": "fivex_site.forms.SetPasswordForm",
    "reset_password_from_key": "fivex_site.forms.ResetPasswordKeyForm",
    "add_email": "fivex_site.forms.AddEmailForm",
}

# allauth limits failed logins, sign-ups and password resets per client address. Behind
# the TLS proxy production runs behind, every request comes from the proxy's address:
# the client's is the last one the proxy adds to X-Forwarded-For (TRUSTED_PROXY_COUNT
# proxies of yours in front), or a header the proxy sets (TRUSTED_CLIENT_IP_HEADER, e.g.
# X-Real-IP or CF-Connecting-IP). Without it one stranger's ten bad logins a minute
# would lock every player out.
ALLAUTH_TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=1 if IS_PRODUCTION else 0)
ALLAUTH_TRUSTED_CLIENT_IP_HEADER = env.str("TRUSTED_CLIENT_IP_HEADER", default="") or None

# Two-factor authentication (allauth.mfa): an authenticator app (TOTP, a QR code to scan),
# recovery codes and passkeys / security keys (WebAuthn, fido2), under *Account -> Two-factor
# authentication* (/accounts/2fa/). With it on, the log-in asks for a code or the key after
# the password (allauth's login stage); a passkey also logs in on its own, without the
# password (MFA_PASSKEY_LOGIN_ENABLED: the key checks the player's PIN or fingerprint
# itself). allauth's WebAuthn script is a static file (mfa/js/webauthn.js): the site's CSP
# ('self') runs it, no inline script. The API's tokens and orders by email are not affected.
MFA_ADAPTER = "fivex_site.adapters.MFAAdapter"
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes", "webauthn"]
MFA_PASSKEY_LOGIN_ENABLED = True
# WebAuthn needs a secure origin: https://, or http://localhost in development and the
# browser tests (fido2 accepts it as browsers do). Never relaxed.
MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN = False
# "Trust this browser": after the code (or key), the player may have this browser skip the
# second step for two weeks (the session's own age). A signed note in a cookie (HttpOnly,
# Secure in production, as the session's), void as soon as the password, the account's
# authenticators or recovery codes change, or SECRET_KEY changes with the old key dropped
# from SECRET_KEY_FALLBACKS (allauth's fingerprint: fivex_site/two_factor_trust.py);
# another browser still asks.
MFA_TRUST_ENABLED = True
MFA_TRUST_COOKIE_AGE = timedelta(days=14)
# The name an authenticator app shows beside the code (and the QR code's issuer).
MFA_TOTP_ISSUER = "FiveX"
MFA_RECOVERY_CODE_COUNT = 10
MFA_FORMS = {
    "activate_totp": "fivex_site.mfa_forms.ActivateTOTPForm",
    "authenticate": "fivex_site.mfa_forms.AuthenticateForm",
    "reauthenticate": "fivex_site.mfa_forms.ReauthenticateForm",
    # Passkeys: a garbled credential (forged JSON) refused as a wrong key, not a 500.
    "authenticate_webauthn": "fivex_site.mfa_forms.AuthenticateWebAuthnForm",
    "login_webauthn": "fivex_site.mfa_forms.LoginWebAuthnForm",
    "reauthenticate_webauthn": "fivex_site.mfa_forms.ReauthenticateWebAuthnForm",
    "add_webauthn": "fivex_site.mfa_forms.AddWebAuthnForm",
    # A key's name at most 100 characters (allauth's forms take any length).
    "edit_webauthn": "fivex_site.mfa_forms.EditWebAuthnForm",
}
# A wrong code counts as a failed login (allauth's ``login_failed`` rate, per client
# address and per account: ACCOUNT_RATE_LIMITS); a code used once is refused a second time
# within its 30 seconds. Both are kept in the cache: per process without CACHE_URL.
