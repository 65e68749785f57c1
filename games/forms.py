"""Forms of the game pages. They only check the shape of the input; every rule is
enforced again by the services (and the engine), whose ApplicationError messages the
views show."""

from __future__ import annotations

import re
import uuid
from typing import Any

from django import forms
from django.conf import settings

import engine
from engine.base import Option
from games.errors import ApplicationError
from games.notes import order_text
from games.services.game_options import SITE_OPTION_LIMITS, game_options_check

ORDER_MAX_LENGTH = 4000


def option_field_name(ruleset_id: str, option_name: str) -> str:
    """The form field carrying one ruleset option (every ruleset's options share a form)."""
    return f"opt__{ruleset_id}__{option_name}"


# The web form's wording where the engine's option help (written for the command line,
# ``python -m engine games``) reads as developer text; other helps are capitalised.
OPTION_HELP = {
    ("5x", "leaders"): "Great Leaders in play. Untick for the rulebook's variant: 6 rounds "
    "without leaders or the Rocket (not recommended for 5-6 players).",
    ("5x", "all_leaders"): "Keep all 15 Great Leaders whatever the number of players.",
    ("6x5", "target"): "0 for the standard game, or N (1 or more) for Scoring Points: "
    "the first to N points wins.",
}


def _option_field(option: Option, ruleset_id: str = "") -> forms.Field:
    kind = type(option.default)
    help_text = OPTION_HELP.get((ruleset_id, option.name)) or (
        option.help[:1].upper() + option.help[1:]
    )
    if kind is bool:
        return forms.BooleanField(required=False, initial=option.default, help_text=help_text)
    if option.choices is not None:
        choices = [(str(c), str(c)) for c in option.choices]
        coerce: Any = int if kind is int else str
        return forms.TypedChoiceField(
            choices=choices,
            coerce=coerce,
            initial=str(option.default),
            help_text=help_text,
            required=False,
            empty_value=None,
        )
    if kind is int:
        site_max = SITE_OPTION_LIMITS.get((ruleset_id, option.name), (None, ""))[0]
        return forms.IntegerField(
            required=False,
            initial=option.default,
            min_value=option.minimum,
            max_value=option.maximum if option.maximum is not None else site_max,
            help_text=help_text,
        )
    return forms.CharField(initial=option.default, help_text=help_text, required=False)


def ruleset_choices(rulesets: Any) -> list[tuple[str, str]]:
    """The ruleset select's choices: name and player counts."""
    return [(r.id, f"{r.name} ({r.min_players}–{r.max_players} players)") for r in rulesets]


class RulesetOptionsMixin:
    """A form with a ``ruleset`` choice and one field per option of every ruleset
    (``opt__<ruleset>__<option>``); the page shows the chosen ruleset's fields only
    (``games/create.js``). Used by the game and the tournament forms."""

    def _add_option_fields(self) -> None:
        self.rulesets = {r.id: r for r in engine.rulesets()}
        self.option_groups: list[dict[str, Any]] = []
        for ruleset in self.rulesets.values():
            names = []
            for option in ruleset.options:
                field_name = option_field_name(ruleset.id, option.name)
                field = _option_field(option, ruleset.id)
                field.label = option.name.replace("_", " ").capitalize()
                self.fields[field_name] = field  # type: ignore[attr-defined]
                names.append(field_name)
            self.option_groups.append({"ruleset": ruleset, "field_names": names})

    def grouped_options(self) -> list[dict[str, Any]]:
        """Per ruleset: its description and its bound option fields, for the template."""
        return [
            {"ruleset": g["ruleset"], "fields": [self[n] for n in g["field_names"]]}  # type: ignore[index]
            for g in self.option_groups
        ]

    def chosen_options(self, data: dict[str, Any]) -> dict[str, Any] | None:
        """The chosen ruleset's options given on the form (None when no valid ruleset is
        chosen). Call from ``clean``. The other rulesets' option fields are hidden on the
        page and not used: a value left there (e.g. typed before switching games) must not
        block the form with an error the player cannot see; field errors are in place
        before ``clean`` runs, so theirs are dropped here."""
        ruleset = self.rulesets.get(data.get("ruleset", ""))
        if ruleset is None:
            return None
        for group in self.option_groups:
            if group["ruleset"].id != ruleset.id:
                for name in group["field_names"]:
                    self._errors.pop(name, None)  # type: ignore[attr-defined]
        raw = {o.name: data.get(option_field_name(ruleset.id, o.name)) for o in ruleset.options}
        return {k: v for k, v in raw.items() if v is not None}


def time_zone_choices(current: str) -> list[tuple[str, str]]:
    """Every time zone for a select, ``current`` among them (an alias kept if chosen)."""
    from games.services.players import time_zone_names

    zones = time_zone_names()
    return [(z, z) for z in (zones if current in zones else (current, *zones))]


class GameCreateForm(RulesetOptionsMixin, forms.Form):
    """Create a game: ruleset, its options, seats, privacy and deadline."""

    name = forms.CharField(max_length=100, required=False, help_text="Optional.")
    ruleset = forms.ChoiceField(choices=())
    seats_count = forms.IntegerField(label="Number of seats", min_value=2, max_value=12, initial=5)
    is_private = forms.BooleanField(
        required=False,
        label="Private (by invitation link only)",
        help_text=(
            "Private games are not listed and only their players and organizer can watch"
            " them; players join with the invitation link."
        ),
    )
    require_sender_match = forms.BooleanField(
        required=False,
        label="Orders by email only from the player's own address",
        help_text=(
            "Besides the seat's private reply address, an emailed order must come from the"
            " address of the player's account."
        ),
    )
    talk_open = forms.BooleanField(
        required=False,
        initial=True,
        label="Table talk",
        help_text="The players write to each other on the game's talk page (read by whoever "
        "may watch the game). Off: only you write there.",
    )
    away_days = forms.TypedChoiceField(
        coerce=int,
        required=False,
        empty_value=0,
        choices=[(0, "No: a deadline is a deadline"), (1, "Up to 1 day a player"),
                 (3, "Up to 3 days a player"), (7, "Up to a week a player"),
                 (14, "Up to two weeks a player")],  # fmt: skip
        initial=0,
        label="Wait for players who are away",
        help_text="A player may say on their settings page until when they are away: a "
        "deadline passing while they are then waits for their return instead of playing "
        "their default order, up to this long in all over the game. Everyone is told.",
    )
    play = forms.BooleanField(
        required=False, initial=True, label="I play in this game too (take the first seat)"
    )
    accept_warnings = forms.BooleanField(
        required=False, label="I understand; create the game anyway"
    )
    # This form's own key, made when the page is shown: the form sent again (Back, then
    # Create once more; a resend after a network error) opens the game it created.
    # A plain Field: a CharField's own checks (its length, a NUL) failed a tampered key as
    # the hidden field's error, shown nowhere (an audit); every bad key is told here.
    create_key = forms.Field(required=False, widget=forms.HiddenInput)

    def clean_create_key(self) -> str:
        key = self.cleaned_data.get("create_key") or ""
        if key and not (isinstance(key, str) and re.fullmatch(r"[0-9a-f]{32}", key)):
            # a hidden field's error is shown nowhere: said above the form. The form shown
            # again carries a key of its own, not the one refused (a 5,000-character key
            # was echoed back into the page), so the next Create is a fresh request.
            self.add_error(None, "This form was out of date: check it and create the game again.")
            self.data = self.data.copy()
            self.data[self.add_prefix("create_key")] = uuid.uuid4().hex
            return ""
        return key
    # Fractions as the API and the tournament form take them (an operations audit: 1.5
    # was refused here only).
    deadline_hours = forms.FloatField(
        min_value=1,
        max_value=24 * 14,
        initial=getattr(settings, "GAMES_DEFAULT_DEADLINE_HOURS", 48),
        widget=forms.NumberInput(attrs={"step": "0.25"}),
        help_text="Hours each prompt stays open before missing orders are filled in "
        "(1 to 336; 1.5 is 90 minutes).",
    )
    grace_minutes = forms.IntegerField(
        min_value=0,
        max_value=24 * 60,
        required=False,
        initial=0,
        label="Grace (minutes)",
        help_text="Extra minutes after the deadline before missing orders are filled in.",
    )
    quiet_hours_start = forms.IntegerField(
        min_value=0,
        max_value=23,
        required=False,
        label="Quiet hours from (hour, 0-23)",
        help_text="Optional: no deadline falls in the quiet hours; it moves to their end.",
    )
    quiet_hours_end = forms.IntegerField(
        min_value=0, max_value=23, required=False, label="Quiet hours until (hour, 0-23)"
    )
    quiet_hours_time_zone = forms.ChoiceField(
        choices=(),
        required=False,
        label="Quiet hours on the clock of",
        help_text="Your own time zone unless you choose another (daylight saving included).",
    )
    reminder_hours = forms.FloatField(
        min_value=0,
        max_value=24 * 14,
        required=False,
        label="Reminder (hours before the deadline)",
        help_text="Seats without an order get an email this long before the deadline; 0: none;"
        " empty: 12 hours, or half the deadline when that is shorter.",
    )
    early_resolution_delay_seconds = forms.IntegerField(
        min_value=0,
        max_value=24 * 3600,
        required=False,
        initial=0,
        label="Early resolution delay (seconds)",
        help_text="When every order is in, wait this long (orders may still be replaced).",
    )

    def __init__(self, *args: Any, time_zone: str = "UTC", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._add_option_fields()
        self.fields["ruleset"].choices = ruleset_choices(self.rulesets.values())
        self.fields["quiet_hours_time_zone"].choices = time_zone_choices(time_zone)
        self.fields["quiet_hours_time_zone"].initial = time_zone
        self.fields["create_key"].initial = uuid.uuid4().hex
        # A game made through the API may wait any whole number of days up to 14: a form
        # filled in like it (``?like=``) offers its number too, and takes it back.
        given = str((self.data.get("away_days") if self.is_bound else self.initial.get("away_days")) or "")
        field = self.fields["away_days"]
        if given.isascii() and given.isdigit() and 0 < int(given) <= 14:
            if int(given) not in [value for value, _label in field.choices]:
                field.choices = sorted(
                    [*field.choices, (int(given), f"Up to {int(given)} days a player")]
                )

    # Left empty: the model's default (what an unset policy field means everywhere).
    POLICY_DEFAULTS = {"grace_minutes": 0, "early_resolution_delay_seconds": 0}

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        for name, default in self.POLICY_DEFAULTS.items():
            if name in data and data[name] is None:
                data[name] = default
        data["quiet_hours_time_zone"] = data.get("quiet_hours_time_zone") or "UTC"
        raw = self.chosen_options(data)
        seats = data.get("seats_count")
        if raw is None or seats is None:
            return data
        try:
            _rules, data["options"], data["warnings"] = game_options_check(
                ruleset=data["ruleset"], options=raw, seats_count=seats
            )
        except ApplicationError as exc:
            if exc.field in self.fields:
                # under the field it is about, which keeps the value typed
                self.add_error(exc.field, exc.message)
                return data
            raise forms.ValidationError(exc.message) from None
        return data


class OrderForm(forms.Form):
    """One order in the game's order language (several lines allowed)."""

    text = forms.CharField(
        max_length=ORDER_MAX_LENGTH,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false", "autocomplete": "off"}),
        label="Order",
    )
    prompt = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)

    def clean_text(self) -> str:
        """Notes ("# ...") are dropped before the order is sealed: never published; so is
        a full stop at a line's end, as by email."""
        typed = self.cleaned_data["text"]
        text = order_text(typed)
        if not text:
            raise forms.ValidationError(
                "The order is empty: lines starting with # are your notes, not orders."
                if "#" in typed
                else "The order is empty."
            )
        return text


# An extension's bounds and their messages: the organizer's form and the API's
# ``POST /api/games/{id}/extend/`` (games.api.organizer_serializers) read the same.
EXTEND_HOURS_MIN = 1
EXTEND_HOURS_MAX = 24 * 7
EXTEND_HOURS_MESSAGES = {
    "required": "Give the number of hours to extend the deadline by (1 to 168).",
    "invalid": "Give the number of hours to extend the deadline by as a whole number.",
    "min_value": "Extend the deadline by at least 1 hour.",
    "max_value": "Extend the deadline by at most 168 hours (a week) at a time.",
}
# The longest reason an organizer tool takes (told to the players, kept in the log).
ORGANIZER_REASON_MAX = 200


class DeadlineExtendForm(forms.Form):
    hours = forms.IntegerField(
        min_value=EXTEND_HOURS_MIN,
        max_value=EXTEND_HOURS_MAX,
        initial=24,
        error_messages=EXTEND_HOURS_MESSAGES,
    )
    reason = forms.CharField(max_length=ORGANIZER_REASON_MAX, required=False)
    # What the page showed: the prompt and how often its deadline was extended (a race
    # with the deadline, or a double click, then changes nothing).
    prompt = forms.IntegerField(min_value=1, required=False, widget=forms.HiddenInput)
    extensions = forms.IntegerField(min_value=0, required=False, widget=forms.HiddenInput)


class GameEndForm(forms.Form):
    reason = forms.CharField(max_length=ORGANIZER_REASON_MAX, required=False)
    confirm = forms.BooleanField(
        required=True,
        label="Yes, end this game now",
        error_messages={"required": "Tick the box to confirm: nothing was ended."},
    )


class SeatReplaceForm(forms.Form):
    seat = forms.TypedChoiceField(
        coerce=int,
        choices=(),
        error_messages={
            "invalid_choice": "That seat cannot be handed over: it is not a seat of this game "
            "any more (it was handed over already, or the page is out of date); choose a "
            "seat from the list."
        },
    )
    username = forms.CharField(max_length=150, label="New player's username")
    # A handover is final (the replaced player does not come back): ticked on purpose.
    confirm = forms.BooleanField(required=False)

    def __init__(
        self, *args: Any, seats: list[Any] | None = None, at_once: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.at_once = at_once  # a site administrator's handover; an organizer's is an offer
        self.seats = {s.pk: s for s in seats or []}
        self.fields["seat"].choices = [(s.pk, s.name) for s in seats or []]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        seat = self.seats.get(data.get("seat"))
        if seat is not None and not data.get("confirm"):
            raise forms.ValidationError(
                f'Nothing was changed: tick "{replace_confirm_label(seat, self.at_once)}" to '
                + ("hand the seat over." if self.at_once else "offer the seat.")
            )
        return data


def replace_confirm_label(seat: Any, at_once: bool = False) -> str:
    """The replace form's tick box for ``seat``: "Yes, offer bob's seat to the new player;
    if they accept, bob cannot come back" (``at_once``, a site administrator's handover:
    "Yes, hand bob's seat to the new player; bob cannot come back")."""
    if at_once:
        return f"Yes, hand {seat.name}'s seat to the new player; {seat.user} cannot come back"
    return (
        f"Yes, offer {seat.name}'s seat to the new player; if they accept, {seat.user} "
        "cannot come back"
    )


def handover_player(text: Any, *, staff: bool) -> Any:
    """The account a seat is handed (or offered) to, named as the organizer's replace form
    takes it: a player name, whatever its case, or for a site administrator (``staff``)
    also an email address. A closed or deactivated account is nobody. Raises
    games.errors.ValidationError with the form's words when nobody is found."""
    from games import selectors_players
    from games.errors import ValidationError

    new_user = selectors_players.player_by_name_or_email(text=text, emails=staff)
    if new_user is not None:
        return new_user
    if "@" in str(text or "") and not staff:
        raise ValidationError(selectors_players.NAME_NOT_ADDRESS)
    nobody = (
        "There is no player with that name or email address."
        if staff
        else "There is no player with that name."
    )
    raise ValidationError(nobody + selectors_players.did_you_mean(text))
