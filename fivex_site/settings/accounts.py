"""Accounts (django-allauth): log in by email; the username is the public player name."""

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
ACCOUNT_EMAIL_SUBJECT_PREFIX = "[FiveX] "
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https" if IS_PRODUCTION else "http"
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_LOGIN_ON_PASSWORD_RESET = True
ACCOUNT_SESSION_REMEMBER = None
ACCOUNT_FORMS = {
    "signup": "fivex_site.forms.PlayerSignupForm",
    "change_password": "fivex_site.forms.ChangePasswordForm",
    "set_password": "fivex_site.forms.SetPasswordForm",
    "reset_password_from_key": "fivex_site.forms.ResetPasswordKeyForm",
}
