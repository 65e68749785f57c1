"""Forms of the tournament pages (input parsing only; rules live in the services)."""

from __future__ import annotations

import json

from django import forms

import engine
from tournaments.standings import TIEBREAK_NAMES


def _ruleset_choices() -> list[tuple[str, str]]:
    return [(r.id, r.name) for r in engine.rulesets()]


class TournamentForm(forms.Form):
    name = forms.CharField(max_length=120)
    ruleset = forms.ChoiceField(choices=_ruleset_choices)
    options = forms.CharField(
        required=False, initial="{}", help_text='Ruleset options as JSON, e.g. {"leaders": true}.'
    )
    table_sizes = forms.CharField(
        initial="4, 3", help_text="Allowed players per table, most preferred first, e.g. 4, 3 or 2."
    )
    rounds_count = forms.IntegerField(min_value=1, max_value=30, initial=4, label="Rounds")
    deadline_hours = forms.FloatField(min_value=1, max_value=24 * 30, initial=48, label="Deadline (hours)")
    points_per_place = forms.CharField(
        required=False,
        help_text='Optional, JSON by table size, e.g. {"4": [3, 2, 1, 0]}. Default: 1 for first, 0 for last.',
    )
    tiebreaks = forms.MultipleChoiceField(
        choices=list(TIEBREAK_NAMES.items()), required=False,
        initial=["buchholz", "sonneborn_berger"], widget=forms.CheckboxSelectMultiple,
        help_text="Applied in the order listed.",
    )
    rating_pool = forms.CharField(required=False, help_text="Default: the game's id.")

    def clean_options(self) -> dict:
        return _json_object(self.cleaned_data.get("options"), "options")

    def clean_points_per_place(self) -> dict:
        return _json_object(self.cleaned_data.get("points_per_place"), "points per place")

    def clean_table_sizes(self) -> list[int]:
        raw = self.cleaned_data["table_sizes"]
        try:
            sizes = [int(x) for x in raw.replace(";", ",").split(",") if x.strip()]
        except ValueError:
            raise forms.ValidationError("Write whole numbers separated by commas, e.g. 4, 3.") from None
        if not sizes:
            raise forms.ValidationError("Give at least one table size.")
        return sizes


def _json_object(raw: str | None, what: str) -> dict:
    raw = (raw or "").strip()
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise forms.ValidationError(f"The {what} are not valid JSON: {exc}.") from None
    if not isinstance(value, dict):
        raise forms.ValidationError(f"The {what} must be a JSON object.")
    return value


def parse_ranking(text: str, names: dict[str, int]) -> list[list[int]]:
    """Parse ``"ann > bob = cat > dan"`` (usernames, ``=`` for ties) into groups of
    registration ids. Raises forms.ValidationError naming the unknown player."""
    groups = []
    lowered = {k.lower(): v for k, v in names.items()}
    for part in text.split(">"):
        group = []
        for name in part.split("="):
            name = name.strip()
            if not name:
                continue
            if name.lower() not in lowered:
                raise forms.ValidationError(
                    f"{name!r} is not at this table (players: {', '.join(sorted(names))})."
                )
            group.append(lowered[name.lower()])
        if group:
            groups.append(group)
    if not groups:
        raise forms.ValidationError("Write the ranking like: ann > bob = cat > dan.")
    return groups


def parse_tables(text: str, names: dict[str, int]) -> tuple[list[list[int]], list[int]]:
    """Parse a pairing by hand: one table per line (players in seat order, separated
    by commas or spaces); a line starting with ``bye:`` lists players with a bye."""
    lowered = {k.lower(): v for k, v in names.items()}
    tables: list[list[int]] = []
    byes: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        is_bye = line.lower().startswith("bye:")
        if is_bye:
            line = line[4:]
        ids = []
        for name in line.replace(",", " ").split():
            if name.lower() not in lowered:
                raise forms.ValidationError(f"Line {number}: {name!r} is not an active player.")
            ids.append(lowered[name.lower()])
        (byes.extend if is_bye else tables.append)(ids)
    if not tables:
        raise forms.ValidationError("Write at least one table.")
    return tables, byes
