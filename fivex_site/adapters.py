"""allauth's account adapter with the site's words (players have player names)."""

from allauth.account.adapter import DefaultAccountAdapter


class AccountAdapter(DefaultAccountAdapter):
    error_messages = {
        **DefaultAccountAdapter.error_messages,
        "username_taken": "That player name is taken; choose another.",
    }
