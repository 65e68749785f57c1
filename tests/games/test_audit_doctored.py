"""Doctored exports and database logs (an audit got these past both verifiers): real
games are played through the services, exported, then edited as a forger would - most
edits re-hash every entry with the public formula, so only the log's own consistency,
or a hash or receipt saved outside it, can tell."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from engine.audit import GENESIS, entry_hash, verify_export
from games.models import Game, LogEntry
from games.selectors_log import game_export
from games.services.audit import log_append
from games.services.games import game_create, game_join, seat_resign
from games.services.organizer import game_end
from tests.conftest import ROOT
from tests.games.core_support import eager_celery, make_users, play_defaults, start_fixed

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]
NAMES = ["ann", "bob", "cat"]
_EXPORTS: dict[str, str] = {}  # built once per test run: plain JSON, no database rows


def _finished_game() -> Game:
    game, _seats = start_fixed(NAMES)
    assert play_defaults(game)
    assert game.status == Game.Status.FINISHED
    return game


def _ended_game() -> Game:
    game, _seats = start_fixed(NAMES)
    play_defaults(game, prompts=2)
    game_end(game=game, by=game.organizer, reason="players vanished")
    game.refresh_from_db()
    return game


def _walkover_game() -> Game:
    org, ann, bob = make_users(["org", "ann", "bob"])
    game = game_create(organizer=org, ruleset="6x5", options={}, seats_count=2, name="Duel")
    game_join(game=game, user=ann)
    game_join(game=game, user=bob)
    play_defaults(game, prompts=2)
    seat_resign(seat=game.seats.get(user=ann))
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game


GAMES = {"finished": _finished_game, "ended": _ended_game, "walkover": _walkover_game}


def exported(which: str) -> dict:
    """A fresh copy of the real export of a ``which`` game (played once per run)."""
    if which not in _EXPORTS:
        _EXPORTS[which] = json.dumps(game_export(game=GAMES[which]()))
    return json.loads(_EXPORTS[which])


def rehash(export: dict) -> dict:
    """Every entry's prev_hash and hash recomputed: the forger's last move."""
    prev = GENESIS
    for entry in export["entries"]:
        entry["prev_hash"] = prev
        entry["hash"] = entry_hash(
            prev_hash=prev, seq=entry["seq"], kind=entry["kind"],
            payload=entry["payload"], created_at=entry["created_at"],
        )  # fmt: skip
        prev = entry["hash"]
    return export


def append(export: dict, kind: str, payload: dict) -> dict:
    last = export["entries"][-1]
    export["entries"].append(
        {"seq": last["seq"] + 1, "kind": kind, "payload": payload, "created_at": last["created_at"]}
    )
    return rehash(export)


def cli(tmp_path, export: dict | str, *args: str) -> tuple[int, str]:
    """``python -m engine verify`` on the export (a dict, or the file's raw text)."""
    path = tmp_path / "export.json"
    path.write_text(export if isinstance(export, str) else json.dumps(export), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "engine", "verify", str(path), *args],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert "Traceback" not in run.stderr, run.stderr
    return run.returncode, run.stdout


def verify_game(game: Game) -> tuple[bool, str]:
    out = StringIO()
    try:
        call_command("verify_game", str(game.pk), stdout=out)
    except CommandError as exc:
        return False, out.getvalue() + str(exc)
    return True, out.getvalue()


@pytest.mark.parametrize("which", sorted(GAMES))
def test_real_exports_verify(tmp_path, which) -> None:
    export = exported(which)
    assert verify_export(export) == []
    code, out = cli(tmp_path, export)
    assert code == 0 and out.startswith("OK"), out


# ---------------------------------------------------------------- H1: after the end


@pytest.mark.parametrize("which", sorted(GAMES))
def test_a_second_ending_after_the_end_is_refused(tmp_path, which) -> None:
    export = exported(which)
    ending = copy.deepcopy(export["entries"][-1])
    end_seq = ending["seq"]
    if ending["payload"].get("ranking"):
        ending["payload"]["ranking"] = list(reversed(ending["payload"]["ranking"]))
    append(export, ending["kind"], ending["payload"])
    said = f"entry {end_seq + 1}: a second {ending['kind']} after the game ended at entry {end_seq}"
    assert said in verify_export(export)
    code, out = cli(tmp_path, export)
    assert code == 1 and said in out, out


def test_an_annulment_after_the_finish_is_refused() -> None:
    export = exported("finished")
    end_seq = export["entries"][-1]["seq"]
    append(export, "game_ended", {"reason": "result annulled"})
    assert f"entry {end_seq + 1}: a second game_ended after the game ended at entry {end_seq}" in (
        verify_export(export)
    )


def test_any_entry_after_the_end_is_refused() -> None:
    export = exported("ended")
    end_seq = export["entries"][-1]["seq"]
    append(export, "deadline_extended", {"prompt": 3, "hours": 2})
    assert f"entry {end_seq + 1}: deadline_extended after the game ended at entry {end_seq}" in (
        verify_export(export)
    )


def test_verify_game_refuses_a_second_game_finished_appended_in_the_database() -> None:
    game = _finished_game()
    assert verify_game(game)[0]
    ranking = list(reversed(game.ranking))
    log_append(game=game, kind="game_finished", payload={"ranking": ranking})
    ok, out = verify_game(game)
    last = LogEntry.objects.filter(game=game).order_by("-seq")[0].seq
    assert not ok
    assert f"entry {last}: a second game_finished after the game ended at entry {last - 1}" in out


# ---------------------------------------------------------------- H2: a cut-off log


def _replayed_final_state(export: dict) -> dict:
    """What ``final_state`` must be for the export's entries (the forger recomputes it:
    no hash covers it)."""
    import engine

    started = next(e for e in export["entries"] if e["kind"] == "game_started")["payload"]
    rules = engine.get(started["ruleset"])
    state = rules.new_game(
        players=list(started["seating"]), options=started["options"],
        seed=export["game"]["seed"], setup=export["game"]["setup"] or {},
    )  # fmt: skip
    for entry in export["entries"]:
        if entry["kind"] == "orders_revealed":
            step = {seat: order["text"] for seat, order in entry["payload"]["orders"].items()}
            state, _events = rules.submit_step(state, step)
    return state


NO_END = "the log does not end the game: no game_finished, game_ended or game_walkover entry"


@pytest.mark.parametrize("which", sorted(GAMES))
def test_a_log_cut_after_the_third_prompt_is_refused(tmp_path, which) -> None:
    export = exported(which)
    cut = [i for i, e in enumerate(export["entries"]) if e["kind"] == "prompt_resolved"][1]
    export["entries"] = export["entries"][: cut + 1]
    export["final_state"] = _replayed_final_state(export)
    assert NO_END in " ".join(verify_export(export))
    code, out = cli(tmp_path, export)
    assert code == 1 and NO_END in out, out


def test_a_log_without_its_game_finished_is_refused() -> None:
    export = exported("finished")
    export["entries"] = export["entries"][:-1]
    problems = verify_export(rehash(export))
    assert any(NO_END in p for p in problems), problems


def test_the_header_status_and_ranking_must_be_the_ending_entrys() -> None:
    finished, ended, walkover = exported("finished"), exported("ended"), exported("walkover")
    end_seq = finished["entries"][-1]["seq"]
    finished["game"]["status"] = "active"
    assert (
        f"the game's status is 'active', but entry {end_seq} (game_finished) says 'finished'"
        in verify_export(finished)
    )
    finished = exported("finished")
    finished["game"]["ranking"] = [["cat"], ["bob"], ["ann"]]  # not the ranking it finished with
    assert f"the game's ranking differs from the one entry {end_seq} (game_finished) gives" in (
        verify_export(finished)
    )
    finished["game"]["ranking"] = None
    assert f"the game's ranking differs from the one entry {end_seq} (game_finished) gives" in (
        verify_export(finished)
    )
    end_seq = ended["entries"][-1]["seq"]
    ended["game"].update(status="finished", ranking=[["ann"], ["bob", "cat"]])
    problems = verify_export(ended)
    assert f"the game's status is 'finished', but entry {end_seq} (game_ended) says 'abandoned'" in problems
    assert f"the game has a ranking, but entry {end_seq} (game_ended) ended it early, without one" in (
        problems
    )
    end_seq = walkover["entries"][-1]["seq"]
    walkover["game"]["ranking"] = list(reversed(walkover["game"]["ranking"]))
    assert f"the game's ranking differs from the one entry {end_seq} (game_walkover) gives" in (
        verify_export(walkover)
    )


def test_a_finished_game_ended_early_instead_is_refused() -> None:
    """The replay is over: the game finished, it was not ended by its organizer."""
    export = exported("finished")
    ending = export["entries"][-1]
    ending["kind"] = "game_ended"
    ending["payload"].pop("ranking")
    export["game"].update(status="abandoned", ranking=None)
    problems = verify_export(rehash(export))
    assert f"entry {ending['seq']}: game_ended, but the replay is over: the game finished" in problems


def test_verify_game_requires_the_ending_entry_of_a_game_that_is_over() -> None:
    game = _finished_game()
    LogEntry.objects.filter(game=game, kind="game_finished").delete()
    ok, out = verify_game(game)
    assert not ok and NO_END in out, out


def test_verify_game_refuses_an_ending_entry_in_a_game_going_on() -> None:
    from games.services.audit import end_reveal

    game, _seats = start_fixed(NAMES)
    play_defaults(game, prompts=1)
    assert verify_game(game)[0]
    log_append(game=game, kind="game_ended", payload={"reason": "", **end_reveal(game=game)})
    ok, out = verify_game(game)
    last = LogEntry.objects.filter(game=game).order_by("-seq")[0].seq
    assert not ok
    assert f"entry {last}: game_ended ended the game, but its status is 'active'" in out, out


# ---------------------------------------------------------------- M1: the header


HEADER_EDITS = [
    ("players", ["cat", "bob", "ann"], "the game's players are not the seating of entry {started} (game_started)"),
    ("ruleset", "6x5", "the game's ruleset is not the one entry {started} (game_started) gives"),
    ("options", {"leaders": False}, "the game's options are not the ones entry {started} (game_started) gives"),
    ("engine_version", "0", "the game's engine_version is not the one entry {started} (game_started) gives"),
    ("seed_commitment", "0" * 64, "the game's seed_commitment is not the one entry {started} (game_started) gives"),
    ("seed_salt", "0" * 32, "the game's seed_salt differs from the one entry {ended} ({kind}) reveals"),
]  # fmt: skip


@pytest.mark.parametrize(("field", "value", "said"), HEADER_EDITS)
@pytest.mark.parametrize("which", ["finished", "ended"])
def test_every_header_field_is_checked_against_the_log(tmp_path, which, field, value, said) -> None:
    export = exported(which)
    started = next(e for e in export["entries"] if e["kind"] == "game_started")
    said = said.format(started=started["seq"], ended=export["entries"][-1]["seq"], kind=export["entries"][-1]["kind"])
    assert export["game"][field] != value
    export["game"][field] = value
    assert said in verify_export(export)
    code, out = cli(tmp_path, export)
    assert code == 1 and said in out, out


@pytest.mark.parametrize("which", ["finished", "ended"])
def test_a_header_value_of_another_json_type_is_not_the_logs(tmp_path, which) -> None:
    """The game record must hold the log's values (README, "Verifying a game": its
    options among them). JSON ``1`` and ``0`` are not ``true`` and ``false``, though
    Python's ``==`` says they are: a record reading ``"leaders": 1, "all_leaders": 0``
    verified as OK."""
    export = exported(which)
    started = next(e for e in export["entries"] if e["kind"] == "game_started")
    assert started["payload"]["options"] == {"leaders": True, "all_leaders": False}
    export["game"]["options"] = {"leaders": 1, "all_leaders": 0}
    said = f"the game's options are not the ones entry {started['seq']} (game_started) gives"
    assert said in verify_export(export)
    code, out = cli(tmp_path, export)
    assert code == 1 and said in out, out


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda export: export.pop("game"), "the export has no game record (its \"game\" object)"),
        (lambda export: export.update(game=None), "the export has no game record (its \"game\" object)"),
        (lambda export: export.pop("format"), "the export names no format (fivex-game-log/1)"),
        (lambda export: export["game"].pop("players"), "the game record has no players"),
        (lambda export: export["game"].pop("ranking"), "the game record has no ranking"),
    ],
)
def test_a_header_or_format_left_out_is_a_problem(tmp_path, edit, said) -> None:
    export = exported("finished")
    edit(export)
    code, out = cli(tmp_path, export)
    assert code == 1 and said in out, out


def test_verify_game_checks_the_game_row_against_the_log() -> None:
    game = _ended_game()
    assert verify_game(game)[0]
    Game.objects.filter(pk=game.pk).update(ranking=[["ann"], ["bob", "cat"]])
    ok, out = verify_game(game)
    end_seq = LogEntry.objects.get(game=game, kind="game_ended").seq
    assert not ok
    assert f"the game has a ranking, but entry {end_seq} (game_ended) ended it early, without one" in out
    # The name is a label staff may change at any time (the admin), logged nowhere: a
    # game renamed after its end still verifies (a review: it failed for good).
    Game.objects.filter(pk=game.pk).update(ranking=None, name="Renamed")
    ok, out = verify_game(game)
    assert ok, out


# ---------------------------------------------------------------- L1, L2, L5: reading


def test_a_key_given_twice_is_refused(tmp_path) -> None:
    """Python keeps the last of two equal keys; a reader, or another parser, may see the
    first: the file means two things."""
    export = exported("finished")
    raw = json.dumps(export)
    revealed = next(e for e in export["entries"] if e["kind"] == "orders_revealed")
    order = next(iter(revealed["payload"]["orders"].values()))
    text = json.dumps(order["text"])
    assert raw.count(f'"text": {text}') >= 1
    doctored = raw.replace(f'"text": {text}', f'"text": "PASS GENGHIS", "text": {text}', 1)
    code, out = cli(tmp_path, doctored)
    assert code == 2, out
    assert 'the key "text" is given twice in one object' in out, out


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_refused(tmp_path, constant) -> None:
    raw = json.dumps(exported("ended")).replace('"final_state": {', f'"final_state": {{"x": {constant}, ', 1)
    code, out = cli(tmp_path, raw)
    assert code == 2 and f"{constant} is not a JSON number" in out, out


@pytest.mark.parametrize("depth", [1500, 100_000])
def test_json_nested_too_deeply_cannot_be_read(tmp_path, depth) -> None:
    raw = json.dumps(exported("ended")).replace('"final_state": {', f'"final_state": {{"x": {"[" * depth}{"]" * depth}, ', 1)
    code, out = cli(tmp_path, raw)
    assert code == 2 and "nested too deeply" in out, out


def test_an_edited_timestamp_says_what_the_hash_covers(tmp_path) -> None:
    export = exported("finished")
    entry = export["entries"][10]
    stamp = entry["created_at"]  # ...T03:40:12.123456Z: another microsecond
    entry["created_at"] = stamp[:-2] + ("1" if stamp[-2] != "1" else "2") + "Z"
    said = f"entry {entry['seq']}: does not match its hash (its seq, kind, payload or created_at was edited)"
    code, out = cli(tmp_path, export)
    assert code == 1 and said in out, out


# ---------------------------------------------------------------- L3: consistency


def _revealed(export: dict, index: int = 0) -> tuple[dict, str, dict]:
    """The ``index``-th orders_revealed entry, its first seat and that seat's order."""
    entry = [e for e in export["entries"] if e["kind"] == "orders_revealed"][index]
    seat = sorted(entry["payload"]["orders"])[0]
    return entry, seat, entry["payload"]["orders"][seat]


def _resalt(export: dict, index: int, salt: str) -> tuple[dict, str]:
    """Give an order another salt, its commitment recomputed where it was announced and
    revealed (then re-hash)."""
    from engine.audit import order_commitment

    entry, seat, order = _revealed(export, index)
    old = order["commitment"]
    order["salt"], order["commitment"] = salt, order_commitment(salt=salt, text=order["text"])
    for other in export["entries"]:
        if other["payload"].get("commitment") == old:
            other["payload"]["commitment"] = order["commitment"]
    return entry, seat


def test_a_revealed_source_must_be_the_announced_one() -> None:
    export = exported("finished")
    entry, seat, order = _revealed(export, 1)
    assert order["source"] == "web"
    order["source"] = "default"
    announced = next(
        e for e in export["entries"]
        if e["kind"] == "order_received" and e["payload"]["seat"] == seat and e["payload"]["prompt"] == 2
    )  # fmt: skip
    problems = verify_export(rehash(export))
    assert (
        f"entry {entry['seq']}: the order of {seat} for prompt 2 is revealed as 'default', but entry "
        f"{announced['seq']} (order_received) announced it as 'web'"
    ) in problems


def test_an_announcement_whose_kind_and_source_disagree_is_refused() -> None:
    export = exported("finished")
    announced = next(e for e in export["entries"] if e["kind"] == "order_received")
    announced["payload"]["source"] = "default"
    problems = verify_export(rehash(export))
    assert f"entry {announced['seq']}: an order_received of source 'default' (a player's order: web, api or email)" in (
        problems
    )


def test_timestamps_must_be_the_sites_and_never_go_backwards() -> None:
    export = exported("finished")
    entries = export["entries"]
    entries[5]["created_at"] = "2020-01-01T00:00:00.000000Z"
    entries[8]["created_at"] = "yesterday"
    problems = verify_export(rehash(export))
    assert f"entry {entries[5]['seq']}: its time goes back from {entries[4]['created_at']} to 2020-01-01T00:00:00.000000Z" in (
        problems
    )
    assert f"entry {entries[8]['seq']}: its time 'yesterday' is not YYYY-MM-DDTHH:MM:SS.ffffffZ" in problems


def test_a_machine_whose_clock_is_minutes_behind_does_not_fail_an_honest_game() -> None:
    # Regression (a review): entries stamped by a worker whose clock is 2 s behind the web
    # machine's went back 2 s, and the game failed verification for good (the hash fixes
    # the times); a clock off by minutes is an honest game's still.
    from datetime import datetime, timedelta

    export = exported("finished")
    entries = export["entries"]
    earlier = datetime.fromisoformat(entries[4]["created_at"][:-1]) - timedelta(minutes=3)
    for entry in entries[5:9]:  # written on the machine behind
        entry["created_at"] = earlier.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        earlier += timedelta(milliseconds=5)
    assert verify_export(rehash(export)) == []


@pytest.mark.parametrize("salt", ["", "0", "A" * 32, "0" * 31 + "g"])
def test_a_salt_not_of_32_lowercase_hex_digits_is_refused(salt) -> None:
    export = exported("finished")
    entry, seat = _resalt(export, 2, salt)
    problems = verify_export(rehash(export))
    assert f"entry {entry['seq']}: the salt of {seat}'s order for prompt 3 is not 32 lowercase hex digits" in problems


def test_a_salt_used_twice_is_refused() -> None:
    export = exported("finished")
    first, _seat, order = _revealed(export, 0)
    entry, seat = _resalt(export, 3, order["salt"])
    problems = verify_export(rehash(export))
    assert f"entry {entry['seq']}: the salt of {seat}'s order for prompt 4 was used before, in entry {first['seq']}" in (
        problems
    )


# ---------------------------------------------------------------- L4: the sealed orders


@pytest.mark.parametrize(("field", "value"), [("text", "PLAY SOMETHING ELSE"), ("salt", "0" * 32), ("source", "email")])
def test_verify_game_compares_the_sealed_orders_with_the_revealed_log(field, value) -> None:
    from games.models import SealedOrder

    game = _ended_game()
    assert verify_game(game)[0]
    order = SealedOrder.objects.filter(prompt__game=game, prompt__number=1, is_current=True).order_by("seat_name")[0]
    SealedOrder.objects.filter(pk=order.pk).update(**{field: value})
    ok, out = verify_game(game)
    revealed = LogEntry.objects.get(game=game, kind="orders_revealed", payload__prompt=1)
    assert not ok
    assert (
        f"entry {revealed.seq}: the {field} of {order.seat_name}'s order for prompt 1 is not the one "
        "its sealed order holds in the database"
    ) in out, out


# ---------------------------------------------------------------- M2: anchors


def test_the_ok_line_names_the_head_the_result_and_the_seed_commitment(tmp_path) -> None:
    for which in ("finished", "ended"):
        export = exported(which)
        head = export["entries"][-1]
        code, out = cli(tmp_path, export)
        assert code == 0, out
        assert f"OK: {len(export['entries'])} entries" in out
        assert f"head: entry {head['seq']} ({head['kind']}) {head['hash']}" in out
        assert f"seed commitment {export['game']['seed_commitment']}" in out
        if which == "ended":
            assert "result: ended early, no ranking" in out
        else:
            ranking = head["payload"]["ranking"]
            places, place = [], 1
            for group in ranking:
                places.append(f"{place}. {' = '.join(group)}")
                place += len(group)
            assert f"result: {', '.join(places)}" in out, out


def test_expect_checks_a_saved_hash(tmp_path) -> None:
    export = exported("finished")
    saved = dict(export["entries"][20])  # what the player wrote down
    code, out = cli(tmp_path, export, "--expect", f"{saved['seq']}:{saved['hash']}", "--expect",
                    f"{export['entries'][-1]['seq']}:{export['entries'][-1]['hash'].upper()}")  # fmt: skip
    assert code == 0 and "2 saved hashes matched" in out, out
    # A forger rewrites an entry before the one saved and re-hashes: the chain verifies,
    # the hash a player saved does not.
    _resalt(export, 0, "ab" * 16)
    rehash(export)
    code, out = cli(tmp_path, export, "--expect", f"{saved['seq']}:{saved['hash']}")
    assert code == 1, out
    assert f"--expect {saved['seq']}: entry {saved['seq']} has hash {export['entries'][20]['hash']}, not {saved['hash']}" in out
    code, out = cli(tmp_path, export, "--expect", f"999:{saved['hash']}")
    assert code == 1 and "--expect 999: the log has no entry 999" in out, out


def test_a_malformed_expect_cannot_be_read(tmp_path) -> None:
    code, out = cli(tmp_path, exported("ended"), "--expect", "twelve")
    assert code == 2, out


def test_receipt_checks_an_order_was_revealed(tmp_path) -> None:
    export = exported("finished")
    entry, seat, order = _revealed(export, 2)
    order = dict(order)  # the receipt the player kept
    code, out = cli(tmp_path, export, "--receipt", order["commitment"])
    assert code == 0, out
    assert f"receipt {order['commitment']}: the order of {seat} for prompt 3, revealed in entry {entry['seq']}" in out
    assert "1 receipt found" in out
    forged = "f" * 64
    code, out = cli(tmp_path, export, "--receipt", forged)
    assert code == 1 and f"receipt {forged}: no order in the log has this commitment" in out, out
    # The forger replaces the order (a new salt, a new commitment) and re-hashes: the
    # player's receipt is no longer in the log.
    _resalt(export, 2, "ab" * 16)
    code, out = cli(tmp_path, rehash(export), "--receipt", order["commitment"])
    assert code == 1 and f"receipt {order['commitment']}: no order in the log has this commitment" in out, out


def test_the_receipt_of_an_order_never_revealed_is_found_where_it_was_sealed(tmp_path) -> None:
    # Regression (a review): --receipt looked only at revealed orders, so the receipt of
    # an order replaced later, or sealed at the prompt open when the game was ended, failed
    # an honest game's check; the seat page and the emails give a receipt for each one.
    import engine
    from games.models import Prompt
    from games.selectors import current_state
    from games.services.orders import order_submit

    game, seats = start_fixed(NAMES)
    rules = engine.get(game.ruleset)
    legal = rules.legal_orders(current_state(game=game), "ann")
    first = order_submit(seat=seats["ann"], text=legal[0], source="web")
    second = order_submit(seat=seats["ann"], text=legal[1], source="web")  # replaces it
    assert first.commitment != second.commitment
    prompt = Prompt.objects.get(game=game, status=Prompt.Status.OPEN)
    assert prompt.number == 1
    game_end(game=game, by=game.organizer, reason="club closed")  # prompt 1 never resolved
    game.refresh_from_db()
    export = game_export(game=game)
    code, out = cli(tmp_path, export, "--receipt", first.commitment, "--receipt", second.commitment)
    assert code == 0, out
    for order in (first, second):
        assert f"receipt {order.commitment}: an order of ann for prompt 1, sealed in entry " in out, out
    assert "never revealed" in out


def test_a_game_cancelled_before_it_started_still_verifies(tmp_path) -> None:
    org, ann = make_users(["org", "ann"])
    game = game_create(organizer=org, ruleset="5x", options={}, seats_count=3, name="Never")
    game_join(game=game, user=ann)
    game_end(game=game, by=org, reason="nobody came")
    game.refresh_from_db()
    export = json.loads(json.dumps(game_export(game=game)))
    assert export["entries"][-1]["kind"] == "game_ended"
    code, out = cli(tmp_path, export)
    assert code == 0, out
    assert "result: ended early, no ranking" in out and "seed commitment none (the game never started)" in out
    export["game"]["players"] = ["ann"]
    code, out = cli(tmp_path, export)
    assert code == 1 and "the game has players, but it never started" in out, out
