"""allauth's account adapter with the site's words (players have player names)."""

from allauth.account.adapter import DefaultAccountAdapter


class AccountAdapter(DefaultAccountAdapter):
    error_messages = {
        **DefaultAccountAdapter.error_messages,
        "username_taken": "That player name is taken; choose another.",
    }

    def render_mail(self, template_prefix, email, context, headers=None):  # noqa: ANN001, ANN201
        """allauth's emails (sign-up confirmation, password reset) are sent by a machine
        like every other mail of the site: autoresponders are asked not to answer."""
        from games.services.notifications import AUTOMATIC_HEADERS

        msg = super().render_mail(template_prefix, email, context, headers=headers)
        for name, value in AUTOMATIC_HEADERS.items():
            msg.extra_headers.setdefault(name, value)
        return msg
