"""allauth's account adapter with the site's words (players have player names) and the
site's public address (``FIVEX_BASE_URL``) in its emails; its two-factor adapter with the
site's words."""

from dataclasses import dataclass
from email.utils import make_msgid
from urllib.parse import urlsplit, urlunsplit

from allauth.account.adapter import DefaultAccountAdapter
from allauth.mfa.adapter import DefaultMFAAdapter
from django.conf import settings
from django.contrib import messages

from fivex_site.links import public_url, site_path


@dataclass(frozen=True)
class PublicSite:
    """What allauth's email templates call ``current_site``: FiveX at its public address,
    not whatever Host header the request that sent the email came with."""

    name: str
    domain: str


def on_base_url(url: str) -> str:
    """``url``'s page at ``FIVEX_BASE_URL``, as every other email writes it (the base, then
    the page's path, query and fragment); an empty value stays empty."""
    if not url:
        return url
    parts = urlsplit(url)
    return public_url(urlunsplit(("", "", site_path(parts.path), parts.query, parts.fragment)))


class AccountAdapter(DefaultAccountAdapter):
    error_messages = {
        **DefaultAccountAdapter.error_messages,
        "username_taken": "That player name is taken; choose another.",
    }

    def send_mail(self, template_prefix, email, context):  # noqa: ANN001, ANN201
        """Links in account emails (confirmation, password reset, sign-up) point at
        ``FIVEX_BASE_URL`` like every other email: behind a proxy the request's Host may be
        an internal name, and its scheme plain HTTP."""
        context = {
            key: on_base_url(value) if key.endswith("_url") and isinstance(value, str) else value
            for key, value in context.items()
        }
        host = urlsplit(settings.FIVEX_BASE_URL).netloc
        context.setdefault("current_site", PublicSite(name="FiveX", domain=host))
        # What confirming changes, as the sign-up email says it: with mandatory
        # verification (production) it is the way in; with optional verification the
        # account works without it (game emails, orders by reply).
        from allauth.account import app_settings as allauth_settings

        mandatory = allauth_settings.EmailVerificationMethod.MANDATORY
        context.setdefault("verification_mandatory", allauth_settings.EMAIL_VERIFICATION == mandatory)
        # What someone who never signed up can do when the account works unconfirmed: set
        # its password through this address, then close it.
        from fivex_site.links import public_reverse

        context.setdefault("password_reset_url", public_reverse("account_reset_password"))
        context.setdefault("account_close_url", public_reverse("account_close"))
        from allauth.core import context as allauth_context

        msg = self.render_mail(
            template_prefix, email, {"request": allauth_context.request, "email": email, **context}
        )
        self._queue(msg)

    @staticmethod
    def _queue(msg) -> None:  # noqa: ANN001
        """The email goes out from the outbox, sent by a worker as game emails are, never
        from the web request: a mail server that is slow or away held the request (and a
        web worker) up to the mail timeout, or made sign-up a 500 with the account half
        made. Its text is dropped once sent (it holds a one-time link)."""
        from games.services.outbox import outbox_enqueue
        from games.services.outbox_sending import ACCOUNT_KIND, AUTOMATIC_HEADERS

        html = next(
            (content for content, kind in getattr(msg, "alternatives", []) if kind == "text/html"), ""
        )
        headers = {k: v for k, v in msg.extra_headers.items() if k not in AUTOMATIC_HEADERS}
        for to in msg.to:
            outbox_enqueue(
                to=to, subject=msg.subject, body=msg.body, html=html, kind=ACCOUNT_KIND,
                headers=headers,
            )  # fmt: skip

    def get_client_ip(self, request) -> str:  # noqa: ANN001
        """allauth's client address for its limits (X-Forwarded-For by
        ``TRUSTED_PROXY_COUNT``), or the connection's own when the header does not fit:
        allauth answered a header shorter than the count with ImproperlyConfigured (a
        500) and an unreadable one with a 403."""
        from django.core.exceptions import ImproperlyConfigured, PermissionDenied

        try:
            return super().get_client_ip(request)
        except (ImproperlyConfigured, PermissionDenied):
            return request.META.get("REMOTE_ADDR") or "0.0.0.0"

    def set_password(self, user, password) -> None:  # noqa: ANN001
        """A password changed, set or reset (allauth's flows all come here) also revokes
        every other key to the player's games: after a takeover, the new password must lock
        the other side out as it does out of the site's sessions - the API token, the
        calendar feed's address, and the seats' reply addresses (an order mailed to an old
        one is refused; the game pages and the emails from now on give the new one). Not
        run by the admin's password form or ``manage.py changepassword``."""
        from games.services.players import calendar_feed_revoke
        from games.services.seats import mail_tokens_rotate_for_user
        from games.services.tokens import api_token_revoke

        super().set_password(user, password)
        api_token_revoke(user=user)
        feed = calendar_feed_revoke(user=user)
        seats = mail_tokens_rotate_for_user(user=user)
        request = getattr(self, "request", None)
        if request is not None and (seats or feed):
            told = []
            if seats:
                told.append(
                    "Your games' reply addresses changed too: replies to emails you had"
                    " before are refused; your game pages and the emails from now on give"
                    " the new ones."
                )
            if feed:
                told.append("Your calendar feed was turned off; turn it on again in Calendar.")
            self.add_message(request, messages.INFO, message=" ".join(told))

    def render_mail(self, template_prefix, email, context, headers=None):  # noqa: ANN001, ANN201
        """allauth's emails (sign-up confirmation, password reset) are sent by a machine
        like every other mail of the site: autoresponders are asked not to answer."""
        from games.services.outbox_sending import AUTOMATIC_HEADERS

        msg = super().render_mail(template_prefix, email, context, headers=headers)
        for name, value in AUTOMATIC_HEADERS.items():
            msg.extra_headers.setdefault(name, value)
        # Named after the public host, not the machine that happened to send it.
        domain = urlsplit(settings.FIVEX_BASE_URL).hostname or "localhost"
        msg.extra_headers.setdefault("Message-ID", make_msgid(domain=domain))
        return msg


class MFAAdapter(DefaultMFAAdapter):
    """allauth's two-factor adapter (``MFA_ADAPTER``) with the site's words: a refused code
    says what to type instead of allauth's bare "Incorrect code."; and the secrets it
    stores (the authenticator app's key, the recovery codes' seed) encrypted under
    ``SECRET_KEY`` (``fivex_site.mfa_secrets``)."""

    def encrypt(self, text: str) -> str:
        from fivex_site.mfa_secrets import secret_encrypt

        return secret_encrypt(text)

    def decrypt(self, encrypted_text: str) -> str:
        """Raises ``fivex_site.mfa_secrets.SecretUnreadable`` when no key opens it: the
        code forms answer it with a message (``fivex_site.mfa_forms``)."""
        from fivex_site.mfa_secrets import secret_decrypt

        return secret_decrypt(encrypted_text)

    error_messages = {
        **DefaultMFAAdapter.error_messages,
        "incorrect_code": (
            "That code is not right. Enter the 6-digit code your authenticator app shows "
            "now (a new one every 30 seconds, each used once), or one of your unused "
            "recovery codes."
        ),
        "unverified_email": (
            "Confirm your email address first (Email addresses): two-factor "
            "authentication is turned on only for an account whose addresses are all "
            "confirmed, so that the address can still reach you if you lose your codes."
        ),
        "add_email_blocked": (
            "An address cannot be added while two-factor authentication is on: turn it off "
            "(Two-factor authentication), add and confirm the address, then turn it on again."
        ),
    }
