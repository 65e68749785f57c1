"""Account forms: allauth's, with the wording of a games site."""

from allauth.account.forms import SignupForm
from django import forms


class PlayerSignupForm(SignupForm):
    """Sign-up asks for the player name other players see; login stays by email."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        username = self.fields["username"]
        username.label = "Player name"
        username.help_text = "Shown to the other players at the table. You log in with your email."
        username.widget.attrs["placeholder"] = "Player name"

    # Filled by account.js with the browser's time zone; the player can change it later.
    time_zone = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)

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
