"""An export's keys that no hash covers and nothing compares (an extra top-level key, one
in the game record or in an entry) are refused by ``python -m engine verify`` (exit 1,
named), while the real export of a game of each ruleset still verifies. ``verify_game``
compares the export's ``id`` and ``public_id`` with the game's."""

from __future__ import annotations

import json
import subprocess
import sys
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from engine.audit import verify_export
from games.models import Game
from games.selectors_log import game_export, game_export_unchecked
from games.services.games import game_create, game_join
from tests.conftest import ROOT
from tests.games.core_support import eager_celery, make_users, play_defaults

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]
RULESETS = ["5x", "6x5", "4x-dice"]


def _finished(ruleset: str, prefix: str = "") -> Game:
    org, *players = make_users([f"{prefix}org", f"{prefix}ann", f"{prefix}bob", f"{prefix}cat"])
    game = game_create(organizer=org, ruleset=ruleset, options={}, seats_count=3, name=f"All {ruleset}")
    for user in players:
        game_join(game=game, user=user)
    game.refresh_from_db()
    assert play_defaults(game, prompts=400)
    assert game.status == Game.Status.FINISHED
    return game


def _cli(tmp_path, export: dict) -> tuple[int, str]:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "engine", "verify", str(path)], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert "Traceback" not in run.stderr, run.stderr
    return run.returncode, run.stdout


@pytest.mark.parametrize("ruleset", RULESETS)
def test_unknown_keys_are_refused_and_the_real_export_verifies(tmp_path, ruleset) -> None:
    export = game_export(game=_finished(ruleset))
    code, out = _cli(tmp_path, export)
    assert code == 0 and out.startswith("OK: "), out  # the site's own export: accepted

    extra = {**export, "verified_by": "the site"}
    code, out = _cli(tmp_path, extra)
    assert code == 1, out
    assert (
        'the export has keys this verifier does not know, covered by no hash: "verified_by" '
        "(an export has only format, game, entries, final_state)"
    ) in out
    assert "OK" not in out and "FAILED: 1 problem\n" in out

    extra = json.loads(json.dumps(export))
    extra["game"]["winner_note"] = "bob won fairly"
    code, out = _cli(tmp_path, extra)
    assert code == 1, out
    assert 'the game record has keys this verifier does not know, covered by no hash: "winner_note"' in out

    extra = json.loads(json.dumps(export))
    extra["entries"][2]["comment"] = "ann cheated"
    extra["entries"][3]["note"] = "x"
    extra["entries"][3]["by"] = "y"
    problems = verify_export(extra)
    assert problems == [
        f'entry {extra["entries"][2]["seq"]}: keys this verifier does not know, covered by no hash: "comment" '
        "(an entry has only seq, kind, payload, created_at, prev_hash, hash)",
        f'entry {extra["entries"][3]["seq"]}: keys this verifier does not know, covered by no hash: "by", "note" '
        "(an entry has only seq, kind, payload, created_at, prev_hash, hash)",
    ]
    code, out = _cli(tmp_path, extra)
    assert code == 1 and "FAILED: 2 problems\n" in out, out


def test_many_entries_with_unknown_keys_are_counted_after_the_first_five() -> None:
    export = game_export(game=_finished("5x"))
    for entry in export["entries"][:8]:
        entry["x"] = 1
    problems = verify_export(export)
    assert len(problems) == 6
    assert problems[-1] == "and 3 more entries with keys this verifier does not know"


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("id", "12", 'the game record\'s id "12" is not a positive whole number'),
        ("id", 0, "the game record's id 0 is not a positive whole number"),
        ("public_id", 7, "the game record's public_id 7 is not a non-empty string"),
        ("public_id", "", "the game record's public_id \"\" is not a non-empty string"),
    ],
)
def test_the_game_records_id_and_public_id_must_be_the_sites_kinds(field, value, said) -> None:
    export = game_export(game=_finished("5x"))
    export["game"][field] = value
    assert verify_export(export) == [said]


def test_verify_game_compares_the_exports_id_and_public_id_with_the_game(monkeypatch) -> None:
    game = _finished("5x")
    other = _finished("5x", prefix="o")
    out = StringIO()
    call_command("verify_game", str(game.pk), stdout=out)
    assert "OK" in out.getvalue()

    # The export the database gives is another game's (same log shape, another row).
    import games.management.commands.verify_game as command

    monkeypatch.setattr(command, "game_export_unchecked", lambda *, game: game_export_unchecked(game=other))
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("verify_game", str(game.pk), stdout=out)
    said = out.getvalue()
    assert f"the export's id {other.pk} is not the game's ({game.pk})" in said
    assert f"the export's public_id {other.public_id!r} is not the game's ({game.public_id!r})" in said
