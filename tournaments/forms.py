"""Forms of the tournament pages (input parsing only; rules live in the services)."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from django import forms

from games.forms import RulesetOptionsMixin, ruleset_choices, time_zone_choices
from tournaments.standings import TIEBREAK_NAMES
from tournaments.text import name_shown

MAX_FORBIDDEN_PAIRS = 100


class TournamentForm(RulesetOptionsMixin, forms.Form):
    """Create a tournament: the game and its options (one field per option, the chosen
    game's shown), table sizes, rounds, deadline, points per place, tie-breaks."""

    name = forms.CharField(max_length=120)
    ruleset = forms.ChoiceField(choices=(), label="Game")
    # The form's own key (as the new-game form's): sent again as it was (a second tap,
    # Back and Create) it opens the tournament it made instead of making a second one.
    create_key = forms.Field(required=False, widget=forms.HiddenInput)

    def clean_create_key(self) -> str:
        key = self.cleaned_data.get("create_key") or ""
        if key and not (isinstance(key, str) and re.fullmatch(r"[0-9a-f]{32}", key)):
            # A hidden field's error is shown nowhere: said above the form, which comes
            # back with a key of its own (not the one refused).
            self.add_error(None, "This form was out of date: check it and create the tournament again.")
            self.data = self.data.copy()
            self.data[self.add_prefix("create_key")] = uuid.uuid4().hex
            return ""
        return key

    table_sizes = forms.CharField(
        initial="4, 3", help_text="Allowed players per table, most preferred first, e.g. 4, 3 or 2.",
    )
    rounds_count = forms.IntegerField(min_value=1, max_value=30, initial=4, label="Rounds")
    deadline_hours = forms.FloatField(min_value=1, max_value=24 * 30, initial=48, label="Deadline (hours)")
    quiet_hours_start = forms.IntegerField(
        min_value=0, max_value=23, required=False, label="Quiet hours from (hour, 0-23)",
        help_text="Optional: no deadline of the tournament's games falls in the quiet hours.",
    )
    quiet_hours_end = forms.IntegerField(
        min_value=0, max_value=23, required=False, label="Quiet hours until (hour, 0-23)"
    )
    quiet_hours_time_zone = forms.ChoiceField(
        choices=(), required=False, label="Quiet hours on the clock of",
        help_text="Your own time zone unless you choose another (daylight saving included).",
    )
    points_per_place = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "spellcheck": "false"}),
        help_text="Optional, one line per table size: the size, a colon, the points from first "
        "to last place, e.g. 4: 3 2 1 0. Default: 1 for first, 0 for last, evenly between.",
    )
    bye_points = forms.FloatField(
        required=False, min_value=0, max_value=1000, label="Points for a pairing bye",
        help_text="Optional. Default: a first place at tables of two, an average place at "
        "bigger tables (of the first table size).",
    )
    requested_bye_points = forms.FloatField(
        required=False, min_value=0, max_value=1000, label="Points for a requested bye",
        help_text="Optional. Default: half a first place (of the first table size).",
    )
    allow_late_entry = forms.BooleanField(
        required=False, initial=True, label="Late entries",
        help_text="Players may register after round 1 is paired (they score 0 for the rounds "
        "they missed).",
    )
    table_talk = forms.BooleanField(
        required=False, initial=True, label="Table talk",
        help_text="The players of a table write to each other on its game's talk page (public, "
        "as the table is). Off: only you write there.",
    )
    away_days = forms.TypedChoiceField(
        coerce=int, required=False, empty_value=0, initial=0,
        choices=[(0, "No: a deadline is a deadline"), (1, "Up to 1 day a player"),
                 (3, "Up to 3 days a player"), (7, "Up to a week a player")],
        label="Tables wait for players who are away",
        help_text="A player may say on their settings page until when they are away: a "
        "deadline of their table passing then waits for their return, up to this long in all "
        "over each game (the round waits for that table).",
    )  # fmt: skip
    forbidden_pairs = forms.CharField(
        required=False, label="Pairs who must not meet",
        widget=forms.Textarea(attrs={"rows": 2, "spellcheck": "false"}),
        help_text="Optional, one pair a line: two player names or email addresses, e.g. "
        "ann bob. They are never seated at the same table (when a bye is needed anyway it "
        "goes where it keeps them apart; if they leave no way to seat everyone, the fewest "
        "players who must sit out get a bye, and you are told who).",
    )
    # Ticked boxes in the order they are posted: the page lists them in the chosen order,
    # and moves one up or down with its arrows.
    tiebreaks = forms.MultipleChoiceField(
        choices=list(TIEBREAK_NAMES.items()), required=False,
        initial=["buchholz", "sonneborn_berger"], widget=forms.CheckboxSelectMultiple,
        label="Tie-breaks, in order",
        help_text="The ticked tie-breaks apply from the top down; move one with its arrows.",
    )
    rating_pool = forms.CharField(
        required=False,
        max_length=48,
        help_text="Tournaments with the same pool share their players' ratings. "
        "Default: the game's short name (e.g. 5x). The league's pools are for league "
        "administrators; anyone else's tournaments are rated in pools of their own "
        "(yourname:5x).",
    )

    def __init__(
        self, *args: Any, time_zone: str = "UTC", emails: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.emails = emails  # players may be named by email address (staff only)
        if not emails:
            self.fields["forbidden_pairs"].help_text = (
                "Optional, one pair a line: two player names, e.g. ann bob. They are never "
                "seated at the same table (when a bye is needed anyway it goes where it keeps "
                "them apart; if they leave no way to seat everyone, the fewest players who "
                "must sit out get a bye, and you are told who)."
            )
        self._add_option_fields()
        self.fields["ruleset"].choices = ruleset_choices(self.rulesets.values())
        self.fields["quiet_hours_time_zone"].choices = time_zone_choices(time_zone)
        self.fields["quiet_hours_time_zone"].initial = time_zone
        self.fields["create_key"].initial = uuid.uuid4().hex

    def table_ranges(self) -> list[dict[str, str]]:
        """Each game's players per table, for the line under the table sizes (the page
        shows the chosen game's: ``games/create.js``)."""
        return [
            {"id": r.id, "text": f"{r.name}: tables of {r.min_players} to {r.max_players} players"
                                 + (" (2 for duels)." if r.min_players == 2 else ".")}
            for r in self.rulesets.values()
        ]  # fmt: skip

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        data["quiet_hours_time_zone"] = data.get("quiet_hours_time_zone") or "UTC"
        options = self.chosen_options(data)
        if options is not None:
            data["options"] = options
        return data

    def tiebreak_rows(self) -> list[dict[str, Any]]:
        """Every tie-break for the page: the chosen ones first, in their order (as posted,
        or the initial choice), then the others."""
        if self.is_bound:
            chosen = [k for k in self.data.getlist("tiebreaks") if k in TIEBREAK_NAMES]
        else:
            chosen = list(self.fields["tiebreaks"].initial)
        chosen = list(dict.fromkeys(chosen))
        rest = [k for k in TIEBREAK_NAMES if k not in chosen]
        return [
            {"key": k, "name": TIEBREAK_NAMES[k], "checked": k in chosen} for k in chosen + rest
        ]

    def clean_tiebreaks(self) -> list[str]:
        return list(dict.fromkeys(self.cleaned_data.get("tiebreaks") or []))

    def clean_forbidden_pairs(self) -> list[list[int]]:
        """``"ann bob"`` lines into ``[[user id, user id], ...]``; every name must be an
        account's."""
        from games.selectors_players import NAME_NOT_ADDRESS, did_you_mean, player_by_name_or_email

        lines = [ln.strip() for ln in (self.cleaned_data.get("forbidden_pairs") or "").splitlines()]
        lines = [ln for ln in lines if ln]
        if len(lines) > MAX_FORBIDDEN_PAIRS:
            raise forms.ValidationError(f"At most {MAX_FORBIDDEN_PAIRS} pairs.")
        pairs, errors = [], []
        for number, line in enumerate(lines, start=1):
            names = line.replace(",", " ").replace("&", " ").split()
            if len(names) != 2:
                errors.append(f"Line {number}: write two players, e.g. ann bob.")
                continue
            users = [player_by_name_or_email(text=n, emails=self.emails) for n in names]
            unknown = [n for n, u in zip(names, users, strict=True) if u is None]
            if unknown and any("@" in n for n in unknown) and not self.emails:
                errors.append(f"Line {number}: {NAME_NOT_ADDRESS}")
            elif unknown:
                hints = "".join(did_you_mean(n) for n in unknown)
                errors.append(f"Line {number}: no player {' or '.join(unknown)}.{hints}")
            elif users[0].pk == users[1].pk:
                errors.append(f"Line {number}: a pair is two different players.")
            else:
                pairs.append(sorted(u.pk for u in users))
        if errors:
            raise forms.ValidationError(errors)
        return [list(p) for p in dict.fromkeys(tuple(p) for p in pairs)]

    def clean_points_per_place(self) -> dict:
        return parse_points_per_place(self.cleaned_data.get("points_per_place") or "")

    def clean_table_sizes(self) -> list[int]:
        raw = self.cleaned_data["table_sizes"]
        try:
            sizes = [int(x) for x in raw.replace(";", ",").split(",") if x.strip()]
        except ValueError:
            raise forms.ValidationError("Write whole numbers separated by commas, e.g. 4, 3.") from None
        if not sizes:
            raise forms.ValidationError("Give at least one table size.")
        return sizes


def parse_points_per_place(text: str) -> dict[str, list[float]]:
    """``"4: 3 2 1 0"`` (one table size a line, or separated by ``;``; the points by
    spaces or commas) into ``{"4": [3, 2, 1, 0]}``; a JSON object of the same shape is
    read as it is. The service checks sizes, lengths and order."""
    text = text.strip()
    if not text:
        return {}
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise forms.ValidationError(f"The points per place are not valid JSON: {exc}.") from None
        except RecursionError:
            raise forms.ValidationError("The points per place are nested too deeply.") from None
        if not isinstance(value, dict):
            raise forms.ValidationError("The points per place must be a JSON object.")
        return value
    out: dict[str, list[float]] = {}
    for line in text.replace(";", "\n").splitlines():
        line = line.strip()
        if not line:
            continue
        size, colon, points = line.partition(":")
        try:
            key = str(int(size))
            values = [float(x) for x in points.replace(",", " ").split()]
        except ValueError:
            values = []
        if not colon or not values:
            raise forms.ValidationError(
                f"Write {name_shown(line)} as a table size, a colon and the points from first to last "
                "place, e.g. 4: 3 2 1 0."
            )
        if key in out:
            raise forms.ValidationError(f"Points per place for tables of {key} are given twice.")
        out[key] = [int(v) if v.is_integer() else v for v in values]
    return out


def _name_index(names: dict[str, int]) -> dict[str, int]:
    """``names`` (player name -> id) by any case and as the games spell them at a table
    ("Zoë" is also "zoe", "ann+b" "ann_b"), where that names one player only."""
    from games.services.games import seat_name_base

    index = {k.lower(): v for k, v in names.items()}
    folded: dict[str, set[int]] = {}
    for k, v in names.items():
        folded.setdefault(seat_name_base(k).lower(), set()).add(v)
    for key, ids in folded.items():
        if len(ids) == 1:
            index.setdefault(key, next(iter(ids)))
    return index


def _named(name: str, index: dict[str, int]) -> int | None:
    from games.services.games import seat_name_base

    found = index.get(name.lower())
    return found if found is not None else index.get(seat_name_base(name).lower())


def _longest_name() -> int:
    from django.contrib.auth import get_user_model

    return int(get_user_model()._meta.get_field("username").max_length or 150)


def tables_limit(*, players: int) -> int:
    """The longest pairing by hand worth reading for ``players`` active players: each
    named once, a name at most the username's length and a separator, and room for the
    ``bye:`` line and a comment."""
    return players * (_longest_name() + 2) + 200


def register_limit() -> int:
    """The longest text the panel's "register a player" field takes: a player name or an
    email address (a league administrator's), whichever may be longer."""
    from django.contrib.auth import get_user_model

    email = int(get_user_model()._meta.get_field("email").max_length or 254)
    return max(_longest_name(), email)


def parse_ranking(text: str, names: dict[str, int]) -> list[list[int]]:
    """Parse ``"ann > bob = cat > dan"`` (player names in any case, or as the game
    spells them in ASCII; ``=`` for ties) into groups of registration ids. Raises
    forms.ValidationError naming the unknown player."""
    groups = []
    index = _name_index(names)
    if not text.strip():
        raise forms.ValidationError("Write the ranking like: ann > bob = cat > dan.")
    for part in text.split(">"):
        group = []
        for name in part.split("="):
            name = name.strip()
            if not name:
                # "bob >> ivan", "bob > = ivan", "ann > bob >": a place left empty is more
                # likely a slip ("bob >= ivan"?) than meant; nothing is guessed.
                raise forms.ValidationError(
                    f"A place in the ranking is empty in {name_shown(' '.join(text.split()))}: write it like: "
                    "ann > bob = cat > dan."
                )
            found = _named(name, index)
            if found is None:
                raise forms.ValidationError(
                    f"{name_shown(name)} is not at this table (players: {', '.join(sorted(names))})."
                )
            group.append(found)
        groups.append(group)  # never empty: an empty place is refused above
    return groups


def parse_tables(text: str, names: dict[str, int]) -> tuple[list[list[int]], list[int]]:
    """Parse a pairing by hand: one table per line (players in seat order, separated
    by commas or spaces); a line starting with ``bye:`` lists players with a bye. Text
    longer than :func:`tables_limit` is refused unread."""
    limit = tables_limit(players=len(names))
    if len(text) > limit:
        raise forms.ValidationError(
            f"The pairing is too long ({len(text)} characters; at most {limit} for "
            f"{len(names)} players: a line per table, names of at most {_longest_name()} "
            "characters). Nothing was paired."
        )
    index = _name_index(names)
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
            found = _named(name, index)
            if found is None:
                raise forms.ValidationError(f"Line {number}: {name_shown(name)} is not an active player.")
            ids.append(found)
        (byes.extend if is_bye else tables.append)(ids)
    if not tables:
        raise forms.ValidationError("Write at least one table.")
    return tables, byes
