"""Account forms: allauth's, with the wording of a games site."""

from allauth.account.forms import SignupForm


class PlayerSignupForm(SignupForm):
    """Sign-up asks for the player name other players see; login stays by email."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        username = self.fields["username"]
        username.label = "Player name"
        username.help_text = "Shown to the other players at the table. You log in with your email."
        username.widget.attrs["placeholder"] = "Player name"
