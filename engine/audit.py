"""Offline verification of a game's audit log (pure standard library + ``engine``).

A game's log is a chain of entries ``{seq, kind, payload, created_at, prev_hash, hash}``.
The exact formulas, so anyone can re-check a game without our code:

- canonical JSON: ``json.dumps(obj, sort_keys=True, separators=(",", ":"),
  ensure_ascii=False)`` encoded as UTF-8 (``engine.base.dumps``).
- entry hash: ``sha256(prev_hash_ascii + canonical_json({"seq": seq, "kind": kind,
  "payload": payload, "created_at": created_at}))`` as lowercase hex, where
  ``created_at`` is the ISO-8601 UTC string stored with the entry
  (``YYYY-MM-DDTHH:MM:SS.ffffffZ``). The first entry's ``prev_hash`` is 64 zeros.
- order commitment: ``sha256(salt_ascii + ":" + text_utf8)`` as lowercase hex, where
  ``salt`` is 32 lowercase hex digits and ``text`` the order exactly as submitted.
- seed commitment: ``sha256(seed_salt_ascii + ":" + decimal_seed_ascii)`` as hex.
- setup commitment: ``sha256(setup_salt_ascii + ":" + canonical_json(setup))`` as hex,
  where ``setup`` is the game's fixed set-up (``{}`` when none; e.g. 5X ``deal``: every
  seat's dealt leaders, 6x5 ``goals``: the secret goals) and ``setup_salt`` 32 lowercase
  hex digits.
- what is public when: while the game runs, ``game_started`` carries only
  ``seed_commitment`` and ``setup_commitment`` (never the set-up itself: it holds other
  seats' hidden cards or goals). The entry that ends the game (``game_finished``, or
  ``game_ended`` when the organizer stops a started game) reveals ``seed``,
  ``seed_salt``, ``setup`` and ``setup_salt``; so does ``game_walkover``, which ends a
  game when every seat but one has resigned (``winner``; ``ranking``: the winner, then
  the resigned seats sorted, tied). (Logs written before the commitment
  existed carry ``setup`` in ``game_started``; they are still accepted.) A log has at
  most one ending entry, and nothing follows it: the server writes no entry once a game
  is over.
- seating: the seat names in the order they joined, shuffled unless the organizer fixed
  the seating (``game_started.payload.seating_fixed``), by ``game_started.payload.
  seating_rule``: 2 is ``engine.rng.shuffled(s, names)`` with ``s`` the first 8 bytes
  (big-endian) of ``sha256("fivex-seating:" + decimal_seed)``, a stream the engine never
  deals from; 1 (logs without the key) is ``shuffled(engine.rng.seed_state(seed), names)``.

An export (``games.selectors_log.game_export``) is
``{"format": "fivex-game-log/1", "game": {...}, "entries": [...], "final_state": {...}}``;
:func:`verify_export` checks every hash link, every commitment against the revealed
text and salt, the seed, the set-up and the seating, then replays the game with the engine and
compares the final state with the exported one. The ``game`` record is covered by no hash:
each of its fields the log holds (``HEADER_FIELDS``, the seed and salts) must be the log's.
A key the site does not write (``EXPORT_KEYS``, ``GAME_KEYS``, ``ENTRY_KEYS``) is covered by no
hash and compared with nothing: the export is refused.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from typing import Any

from engine.words import counted

GENESIS = "0" * 64
EXPORT_FORMAT = "fivex-game-log/1"
#: The log entries that end a started game and reveal its seed and set-up.
ENDING_KINDS = ("game_finished", "game_ended", "game_walkover")

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_UNREADABLE = 2


def canonical(obj: Any) -> str:
    """Canonical JSON (sorted keys, no spaces, UTF-8 kept)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def entry_hash(*, prev_hash: str, seq: int, kind: str, payload: Any, created_at: str) -> str:
    """The hash of one log entry, chained to the previous entry's hash."""
    body = canonical({"seq": seq, "kind": kind, "payload": payload, "created_at": created_at})
    return hashlib.sha256((prev_hash + body).encode("utf-8")).hexdigest()


def order_commitment(*, salt: str, text: str) -> str:
    """The public receipt of a sealed order: sha256 over ``salt:text``."""
    return hashlib.sha256(f"{salt}:{text}".encode()).hexdigest()


def seed_commitment(*, seed_salt: str, seed: int) -> str:
    """The public commitment to a game's RNG seed."""
    return hashlib.sha256(f"{seed_salt}:{int(seed)}".encode()).hexdigest()


def setup_commitment(*, setup_salt: str, setup: Any) -> str:
    """The public commitment to a game's fixed set-up (hidden until the game ends)."""
    return hashlib.sha256(f"{setup_salt}:{canonical(setup)}".encode()).hexdigest()


#: How a game's seating is drawn from its seed (logged as ``seating_rule`` in
#: ``game_started``). Rule 1 shuffled with the seed's own RNG stream, the one the engine
#: deals from, so the public seating gave away the first draws of the hidden deal (which
#: 5X leaders are in play). Rule 2 shuffles with a stream of its own, derived from the
#: seed by SHA-256, that the engine never uses.
SEATING_RULE = 2


def seating_from_seed(*, seed: int, names: list[str], rule: int = 1) -> list[str]:
    """The shuffled seating of ``names`` (join order) for ``seed`` under ``rule`` (1 for
    games logged without a ``seating_rule``)."""
    from engine.rng import seed_state, shuffled

    if rule == 2:
        digest = hashlib.sha256(f"fivex-seating:{int(seed)}".encode()).digest()
        state = int.from_bytes(digest[:8], "big")
    elif rule == 1:
        state = seed_state(seed)
    else:
        raise ValueError(f"unknown seating rule {rule!r}")
    out, _state = shuffled(state, list(names))
    return out


def check_chain(entries: list[dict[str, Any]]) -> list[str]:
    """Problems of the hash chain: sequence gaps, broken links, edited entries."""
    problems: list[str] = []
    prev_hash = GENESIS
    expected_seq = 1
    for entry in entries:
        seq = entry.get("seq")
        if not isinstance(seq, int):
            problems.append(f"entry with no valid seq: {canonical(entry)[:80]}")
            continue
        if seq > expected_seq:
            if seq == expected_seq + 1:
                problems.append(
                    f"entry {expected_seq} missing: sequence jumps from {expected_seq - 1} to {seq}"
                )
            else:
                problems.append(
                    f"entries {expected_seq}-{seq - 1} missing: sequence jumps from "
                    f"{expected_seq - 1} to {seq}"
                )
        elif seq < expected_seq:
            problems.append(f"entry {seq}: out of order or duplicated (expected {expected_seq})")
        if entry.get("prev_hash") != prev_hash:
            problems.append(f"entry {seq}: prev_hash does not link to the previous entry")
        computed = entry_hash(
            prev_hash=str(entry.get("prev_hash", "")),
            seq=seq,
            kind=str(entry.get("kind", "")),
            payload=entry.get("payload"),
            created_at=str(entry.get("created_at", "")),
        )
        if computed != entry.get("hash"):
            problems.append(
                f"entry {seq}: does not match its hash (its seq, kind, payload or created_at was edited)"
            )
        prev_hash = str(entry.get("hash", ""))
        expected_seq = seq + 1
    return problems


#: The entries announcing a sealed order, and the sources each may carry.
_PLAYER = ("web", "api", "email")
ORDER_SOURCES: dict[str, tuple[str, ...]] = {
    "order_received": _PLAYER, "order_replaced": _PLAYER, "nmr_applied": ("default",),
    "order_forced": ("forced",),
}  # fmt: skip
_SOURCES_SAID = {_PLAYER: "a player's order: web, api or email", ("default",): "its source is default",
                 ("forced",): "its source is forced"}  # fmt: skip
#: An order's salt as the site makes it (``secrets.token_hex(16)``): a short or shared
#: salt lets anyone try the few legal orders against a commitment while the game runs.
SALT = re.compile(r"[0-9a-f]{32}")
#: ``created_at`` as the site writes it (``games.services.audit.log_time``).
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")
#: How far (seconds) an entry's time may be earlier than the one before it: entries are
#: written one after the other under the game's lock, stamped by the web or worker
#: machine's clock, and two machines' clocks may differ. The hash fixes each time for
#: good, so a clock a little off must never make an honest game fail for ever (a review:
#: 1 s did, with a web machine 2 s ahead of a worker); ten minutes back is no clock's doing.
CLOCK_SLACK = 600


def _check_orders(entries: list[dict[str, Any]]) -> tuple[list[str], list[dict[str, str]]]:
    """Check every revealed order against its commitment; return problems and steps."""
    problems: list[str] = []
    steps: list[dict[str, str]] = []
    latest: dict[tuple[int, str], str] = {}  # (prompt, seat) -> latest commitment
    announcing: dict[tuple[int, str], dict[str, Any]] = {}  # (prompt, seat) -> its entry
    salts: dict[str, Any] = {}  # salt -> the entry that revealed it
    for entry in entries:
        kind = entry.get("kind")
        payload = entry.get("payload") or {}
        seq = entry.get("seq")
        if kind in ORDER_SOURCES:
            latest[(payload.get("prompt"), payload.get("seat"))] = payload.get("commitment")
            announcing[(payload.get("prompt"), payload.get("seat"))] = entry
            if "source" in payload and payload["source"] not in ORDER_SOURCES[kind]:
                problems.append(
                    f"entry {seq}: an {kind} of source {payload['source']!r} "
                    f"({_SOURCES_SAID[ORDER_SOURCES[kind]]})"
                )
        elif kind == "orders_revealed":
            prompt = payload.get("prompt")
            step: dict[str, str] = {}
            orders = payload.get("orders") or {}
            if not isinstance(orders, dict):
                problems.append(f"entry {seq}: its orders are not an object of seat: order")
                continue
            for seat, order in sorted(orders.items()):
                if not isinstance(order, dict):
                    problems.append(f"entry {seq}: order of {seat} is not an object (text, salt, commitment)")
                    continue
                text, salt = order.get("text"), order.get("salt")
                if not isinstance(text, str) or not isinstance(salt, str):
                    problems.append(f"entry {seq}: order of {seat} has no text or salt")
                    continue
                computed = order_commitment(salt=salt, text=text)
                if computed != order.get("commitment"):
                    problems.append(
                        f"entry {seq}: order of {seat} for prompt {prompt} does not match "
                        f"its commitment (text or salt edited?)"
                    )
                announced = latest.get((prompt, seat))
                if announced is None:
                    problems.append(
                        f"entry {seq}: order of {seat} for prompt {prompt} was never announced"
                    )
                elif announced != computed:
                    problems.append(
                        f"entry {seq}: order of {seat} for prompt {prompt} is not the one "
                        f"last committed ({announced[:12]}…)"
                    )
                step[seat] = text
                where = f"entry {seq}: the salt of {seat}'s order for prompt {prompt}"
                if not SALT.fullmatch(salt):
                    problems.append(f"{where} is not 32 lowercase hex digits")
                elif salt in salts:
                    problems.append(f"{where} was used before, in entry {salts[salt]}")
                salts.setdefault(salt, seq)
                said = announcing.get((prompt, seat), {})
                told = (said.get("payload") or {}).get("source")
                if told is not None and order.get("source") != told:
                    problems.append(
                        f"entry {seq}: the order of {seat} for prompt {prompt} is revealed as "
                        f"{order.get('source')!r}, but entry {said.get('seq')} ({said.get('kind')}) "
                        f"announced it as {told!r}"
                    )
            steps.append(step)
    return problems, steps


def _check_times(entries: list[dict[str, Any]]) -> list[str]:
    """Each entry's ``created_at`` is the site's format (fixed width, so it orders as
    text) and never more than ``CLOCK_SLACK`` earlier than the entry before it."""
    from datetime import datetime, timedelta

    problems: list[str] = []
    previous: datetime | None = None
    previous_text = ""
    for entry in entries:
        text = entry.get("created_at")
        try:
            if not isinstance(text, str) or not TIMESTAMP.fullmatch(text):
                raise ValueError
            moment = datetime.fromisoformat(text[:-1])  # the format checked: fast, strict
        except ValueError:
            problems.append(f"entry {entry.get('seq')}: its time {text!r} is not YYYY-MM-DDTHH:MM:SS.ffffffZ")
            continue
        if previous is not None and moment < previous - timedelta(seconds=CLOCK_SLACK):
            problems.append(f"entry {entry.get('seq')}: its time goes back from {previous_text} to {text}")
        if previous is None or moment > previous:
            previous, previous_text = moment, text
    return problems


def _ending(entries: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, list[str]]:
    """The entry that ended the game (None: it never ended) and the problems of the
    entries after it. The server writes nothing once a game is over (offers still open
    are logged closed before the ending entry), so the ending entry must be the last: a second ``game_finished``
    appended after it would otherwise name another winner at the end of the file."""
    ended: dict[str, Any] | None = None
    problems: list[str] = []
    for entry in entries:
        kind = entry.get("kind")
        if ended is None:
            if kind in ENDING_KINDS:
                ended = entry
            continue
        what = f"a second {kind}" if kind in ENDING_KINDS else str(kind)
        problems.append(f"entry {entry.get('seq')}: {what} after the game ended at entry {ended.get('seq')}")
    return ended, problems


def _revealed_setup(
    game: dict[str, Any], started: dict[str, Any], ended: dict[str, Any] | None
) -> tuple[dict[str, Any] | None, list[str]]:
    """The set-up to replay with (``None``: cannot replay) and the problems found.

    The set-up and its salt come from the entry that ended the game, else from the
    export's ``game`` record (server-side verification of a running game); both are
    checked against ``game_started``'s ``setup_commitment``."""
    started_payload = started.get("payload") or {}
    seq = started.get("seq")
    if "setup_commitment" not in started_payload:
        # A log written before set-up commitments: the set-up is in game_started.
        legacy = started_payload.get("setup") or {}
        return (legacy if isinstance(legacy, dict) else {}), []
    problems: list[str] = []
    ended_payload = (ended.get("payload") or {}) if ended is not None else {}
    setup, salt = ended_payload.get("setup"), ended_payload.get("setup_salt")
    if ended is not None and setup is None and ended_payload.get("seed") is not None:
        problems.append(f"entry {ended.get('seq')}: the game ended without revealing its set-up")
    if setup is None or salt is None:
        setup, salt = game.get("setup"), game.get("setup_salt")
    elif game.get("setup") is not None and game.get("setup_salt") is not None:
        if canonical(game.get("setup")) != canonical(setup) or game.get("setup_salt") != salt:
            problems.append(f"entry {ended.get('seq')}: revealed set-up differs from the game's")
    if not isinstance(setup, dict) or not isinstance(salt, str):
        problems.append("the set-up is not revealed: cannot replay")
        return None, problems
    if setup_commitment(setup_salt=salt, setup=setup) != started_payload.get("setup_commitment"):
        problems.append(
            f"entry {seq}: the revealed set-up does not match the published set-up commitment"
        )
    return setup, problems


#: The fields of an export's ``game`` record the log vouches for (the others: ``id`` and
#: ``public_id`` are the site's, in no entry; ``seed``, ``seed_salt``, ``setup`` and
#: ``setup_salt`` are checked against their commitments and the ending entry).
HEADER_FIELDS = ("name", "ruleset", "engine_version", "options", "players", "status", "ranking", "seed_commitment")


#: Every key of an export, of its ``game`` record and of a log entry that this verifier
#: knows. Any other key is covered by no hash and compared with nothing, so a reader
#: could be shown it as if it were verified: an export with one is refused.
EXPORT_KEYS = ("format", "game", "entries", "final_state")
GAME_KEYS = ("id", "public_id", *HEADER_FIELDS, "seed", "seed_salt", "setup", "setup_salt")
ENTRY_KEYS = ("seq", "kind", "payload", "created_at", "prev_hash", "hash")
#: How many entries with unknown keys are named one by one (the rest are counted).
_UNKNOWN_SHOWN = 5


def _keys(keys: list[str]) -> str:
    return ", ".join(json.dumps(key, ensure_ascii=False) for key in keys)


def _unknown_key_problems(export: dict[str, Any], game: dict[str, Any], entries: list[dict[str, Any]]) -> list[str]:
    """The keys of the export, its ``game`` record and its entries that no hash covers and
    nothing is compared with (the site writes none)."""
    problems = []
    unknown = sorted(set(export) - set(EXPORT_KEYS))
    if unknown:
        problems.append(
            f"the export has keys this verifier does not know, covered by no hash: {_keys(unknown)} "
            f"(an export has only {', '.join(EXPORT_KEYS)})"
        )
    unknown = sorted(set(game) - set(GAME_KEYS))
    if unknown:
        problems.append(
            f"the game record has keys this verifier does not know, covered by no hash: {_keys(unknown)} "
            f"(it has only {', '.join(GAME_KEYS)})"
        )
    odd = [(entry.get("seq"), sorted(set(entry) - set(ENTRY_KEYS))) for entry in entries]
    odd = [(seq, keys) for seq, keys in odd if keys]
    for seq, keys in odd[:_UNKNOWN_SHOWN]:
        problems.append(
            f"entry {seq}: keys this verifier does not know, covered by no hash: {_keys(keys)} "
            f"(an entry has only {', '.join(ENTRY_KEYS)})"
        )
    if len(odd) > _UNKNOWN_SHOWN:
        problems.append(f"and {len(odd) - _UNKNOWN_SHOWN} more entries with keys this verifier does not know")
    if "id" in game and (type(game["id"]) is not int or game["id"] < 1):
        problems.append(f"the game record's id {canonical(game['id'])[:40]} is not a positive whole number")
    if "public_id" in game and (not isinstance(game["public_id"], str) or not game["public_id"]):
        problems.append(f"the game record's public_id {canonical(game['public_id'])[:40]} is not a non-empty string")
    return problems


def _same(a: Any, b: Any) -> bool:
    """Whether two JSON values are the same JSON (``canonical``): ``0`` is not ``false``."""
    return canonical(a) == canonical(b)


def _header_problems(
    export: dict[str, Any], entries: list[dict[str, Any]], started: dict[str, Any] | None,
    ended: dict[str, Any] | None,
) -> list[str]:  # fmt: skip
    """The export's ``format`` and ``game`` record against the log. No hash covers the
    record: a page or a reader showing its players or ranking must be able to trust
    them, so each must be the log's (status and ranking: ``_status_problems``); its
    name, a label staff may change, only has to be there."""
    problems = []
    if "format" not in export:
        problems.append(f"the export names no format ({EXPORT_FORMAT})")
    game = export.get("game")
    if game is None:
        return [*problems, 'the export has no game record (its "game" object)']
    missing = [field for field in HEADER_FIELDS if field not in game]
    if missing:
        problems.append(f"the game record has no {', '.join(missing)}")
    created = next((e for e in entries if e.get("kind") == "game_created"), {})
    created_payload, where = created.get("payload") or {}, f"entry {created.get('seq')} (game_created)"
    # The name is not compared: a label staff may change at any time (the admin), with no
    # entry (none may follow the end); game_created keeps the first one.
    if started is None:
        if game.get("players"):
            problems.append("the game has players, but it never started (no game_started entry)")
        if "ruleset" in game and "ruleset" in created_payload and game["ruleset"] != created_payload["ruleset"]:
            problems.append(f"the game's ruleset is not the one {where} gives")
        return problems
    payload, where = started.get("payload") or {}, f"entry {started.get('seq')} (game_started)"
    # Compared as JSON, not with Python's ==, for which 1 == 1.0 == True: the record must
    # hold the log's very values ({"all_leaders": 0} is not {"all_leaders": false}).
    if "players" in game and not _same(game["players"], payload.get("seating")):
        problems.append(f"the game's players are not the seating of {where}")
    for field in ("ruleset", "engine_version", "seed_commitment"):
        if field in game and field in payload and not _same(game[field], payload[field]):
            problems.append(f"the game's {field} is not the one {where} gives")
    if "options" in game and "options" in payload and not _same(game["options"], payload["options"]):
        problems.append(f"the game's options are not the ones {where} gives")
    ended = ended or {}
    revealed = ended.get("payload") or {}
    if game.get("seed_salt") is not None and revealed.get("seed_salt") not in (None, game["seed_salt"]):
        problems.append(
            f"the game's seed_salt differs from the one entry {ended.get('seq')} ({ended.get('kind')}) reveals"
        )
    return problems


def _status_problems(game: dict[str, Any], ended: dict[str, Any] | None, *, running: bool) -> list[str]:
    """The game's ``status`` and ``ranking`` against the entry that ended it. An export
    is made once the game is over, so its log ends with an ending entry (a log cut off
    mid-game, its header left "finished", replayed as a shorter game); ``running``: the
    server checks a game going on, whose log has none yet."""
    status = game.get("status")
    if running:
        if ended is not None:
            return [f"entry {ended.get('seq')}: {ended.get('kind')} ended the game, but its status is {status!r}"]
        if game.get("ranking") is not None:
            return [f"the game is {status}, but has a ranking"]
        return []
    if ended is None:
        return [
            "the log does not end the game: no game_finished, game_ended or game_walkover entry "
            f"(the game's status is {status!r}; a game's log is exported once it is over: cut off?)"
        ]
    kind, where = ended.get("kind"), f"entry {ended.get('seq')} ({ended.get('kind')})"
    problems = []
    says = "abandoned" if kind == "game_ended" else "finished"
    if status != says:
        problems.append(f"the game's status is {status!r}, but {where} says {says!r}")
    if kind == "game_ended":
        if game.get("ranking") is not None:
            problems.append(f"the game has a ranking, but {where} ended it early, without one")
    elif not _same(game.get("ranking"), (ended.get("payload") or {}).get("ranking")):
        problems.append(f"the game's ranking differs from the one {where} gives")
    return problems


def verify_export(export: Any, *, final_state: Any = None, running: bool = False) -> list[str]:
    """Every problem found in an exported game log (empty list: all good).

    ``final_state`` overrides the export's ``final_state`` (the server passes its
    latest snapshot). ``running``: the game is going on (``verify_game`` on the
    server's records), so its log has no ending entry yet; an export is of a game that
    is over, and must end with one."""
    from engine import get
    from engine.base import EngineError, StepRejected, dumps, events_for

    if not isinstance(export, dict) or not isinstance(export.get("entries"), list):
        return ["not a game export: no entries list"]
    if "format" in export and export["format"] != EXPORT_FORMAT:
        return [f"not a {EXPORT_FORMAT} export (format {export.get('format')!r})"]
    game = export.get("game")
    game = {} if game is None else game
    entries = export["entries"]
    if not isinstance(game, dict):
        return ["not a game export: its game record is not an object"]
    if not entries:
        return ["the log has no entries: nothing to verify (a game's log starts with game_created)"]
    for index, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict) or not isinstance(entry.get("payload", {}), dict | None):
            return [f"entry #{index} of the list is not a log entry (an object with an object payload)"]
    problems = _unknown_key_problems(export, game, entries)
    problems += check_chain(entries) + _check_times(entries)
    order_problems, steps = _check_orders(entries)
    problems += order_problems
    ended, after_end = _ending(entries)
    problems += after_end
    started = next((e for e in entries if e.get("kind") == "game_started"), None)
    problems += _header_problems(export, entries, started, ended)
    problems += _status_problems(game, ended, running=running)

    if started is None:
        # A game ended before it started has nothing to replay; orders without a start
        # are a problem.
        if steps or export.get("final_state"):
            problems.append("no game_started entry")
        return problems
    setup = started.get("payload") or {}
    seed = game.get("seed")
    if ended is not None:
        revealed = (ended.get("payload") or {}).get("seed")
        if seed is None:
            seed = revealed
        elif revealed is not None and revealed != seed:
            problems.append(f"entry {ended.get('seq')}: revealed seed differs from the game's seed")
    if not isinstance(seed, int):
        problems.append("the seed is not revealed: cannot replay")
        return problems
    seed_salt = game.get("seed_salt")
    if ended is not None and seed_salt is None:
        seed_salt = (ended.get("payload") or {}).get("seed_salt")
    if seed_commitment(seed_salt=str(seed_salt), seed=seed) != setup.get("seed_commitment"):
        problems.append(
            f"entry {started.get('seq')}: the seed does not match the published seed commitment"
        )
    revealed_setup, setup_problems = _revealed_setup(game, started, ended)
    problems += setup_problems
    if revealed_setup is None:
        return problems
    players = setup.get("seating") or []
    if not setup.get("seating_fixed"):
        rule = setup.get("seating_rule", 1)
        names = list(setup.get("join_order") or [])
        if rule not in (1, 2):
            problems.append(f"entry {started.get('seq')}: unknown seating rule {rule!r}")
        elif seating_from_seed(seed=seed, names=names, rule=rule) != players:
            problems.append(f"entry {started.get('seq')}: seating is not the shuffle of the seed")

    script = {
        "game": setup.get("ruleset"),
        "players": players,
        "options": setup.get("options") or {},
        "seed": seed,
        "setup": revealed_setup,
    }
    try:
        ruleset = get(script["game"])
        state = ruleset.new_game(
            players=list(players), options=script["options"], seed=seed, setup=script["setup"]
        )
    except EngineError as exc:
        problems.append(f"cannot set the game up again: {exc}")
        return problems
    resolved = [e for e in entries if e.get("kind") == "prompt_resolved"]
    if len(resolved) != len(steps):
        problems.append(
            f"{len(steps)} orders_revealed entries but {len(resolved)} prompt_resolved entries"
        )
    for index, step in enumerate(steps, start=1):
        try:
            state, events = ruleset.submit_step(state, step)
        except StepRejected as exc:
            problems.append(f"replay: revealed step {index} refused by the rules: {exc}")
            return problems
        if index <= len(resolved):
            logged = (resolved[index - 1].get("payload") or {}).get("events")
            public = [e.get("text", "") for e in events_for(events, None)]
            if logged != public:
                problems.append(
                    f"entry {resolved[index - 1].get('seq')}: the public events of prompt "
                    f"{index} differ from the replay"
                )
    expected = final_state if final_state is not None else export.get("final_state")
    if expected is None:
        problems.append("no final state to compare the replay with")
    elif dumps(expected) != dumps(state):
        problems.append("replay: the final state differs from the stored state")
    logged_version = setup.get("engine_version")
    if (
        logged_version
        and logged_version != ruleset.version
        and any(p.startswith("replay:") for p in problems)
    ):
        problems.append(
            f"note: the game was played with {ruleset.id} engine version {logged_version}; "
            f"this engine is version {ruleset.version}"
        )
    ranking = game.get("ranking")
    if ruleset.is_over(state) and ranking is not None and ranking != ruleset.ranking(state):
        problems.append("replay: the stored ranking differs from the replayed ranking")
    if ruleset.is_over(state) and ended is not None and ended.get("kind") != "game_finished":
        problems.append(
            f"entry {ended.get('seq')}: {ended.get('kind')}, but the replay is over: the game finished"
        )
    if ended is not None and ended.get("kind") == "game_walkover":
        problems += _walkover_problems(entries, ended, players, ranking)
    if ended is not None and ended.get("kind") == "game_finished":
        logged_ranking = (ended.get("payload") or {}).get("ranking")
        if not ruleset.is_over(state):
            problems.append(f"entry {ended.get('seq')}: game_finished but the replay is not over")
        elif logged_ranking != ruleset.ranking(state):
            problems.append(f"entry {ended.get('seq')}: the logged ranking differs from the replay")
    return problems


def _walkover_problems(
    entries: list[dict[str, Any]], ended: dict[str, Any], players: list[str], ranking: Any
) -> list[str]:
    """A game won because every other seat resigned: the winner is the one seat the log
    shows not resigned (a seat handed to another player plays again), first, and the
    resigned seats share last place."""
    resigned: set[str] = set()
    for entry in entries:
        if entry is ended:
            break
        seat = (entry.get("payload") or {}).get("seat")
        if entry.get("kind") == "seat_resigned":
            resigned.add(seat)
        elif entry.get("kind") == "seat_replaced":
            resigned.discard(seat)
    playing = [p for p in players if p not in resigned]
    payload = ended.get("payload") or {}
    where = f"entry {ended.get('seq')}"
    if len(playing) != 1:
        return [f"{where}: a walkover, but {len(playing)} seats had not resigned"]
    problems = []
    expected = [[playing[0]], sorted(resigned & set(players))]
    if payload.get("winner") != playing[0] or payload.get("ranking") != expected:
        problems.append(f"{where}: the walkover's ranking is not the one seat left, then the seats that resigned")
    if ranking is not None and ranking != payload.get("ranking"):
        problems.append("the stored ranking differs from the walkover's ranking")
    return problems


#: How deep an export's JSON may nest (a real one: 7 levels); deeper is refused before
#: anything recurses into it (the hashing, the replay).
MAX_DEPTH = 64


def no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.load``'s ``object_pairs_hook``: ValueError on a key given twice in one
    object (the export here, a script for ``python -m engine run``)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            # Python keeps the last value, a reader or another parser may see the first.
            raise ValueError(f"the key {json.dumps(key, ensure_ascii=False)} is given twice in one object")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _too_deep(obj: Any) -> bool:
    """Whether ``obj``'s arrays and objects nest deeper than ``MAX_DEPTH`` (level by
    level, no recursion)."""
    level, depth = [obj], 1
    while level:
        if depth > MAX_DEPTH:
            return True
        below: list[Any] = []
        for value in level:
            children = value.values() if type(value) is dict else value
            below += [child for child in children if type(child) is dict or type(child) is list]
        level, depth = below, depth + 1
    return False


def load_export(path: str) -> Any:
    """The export read from ``path`` as strict JSON: a key given twice in an object,
    NaN or Infinity, or nesting deeper than ``MAX_DEPTH`` raise ValueError (so do
    malformed JSON and text that is not UTF-8); OSError when the file cannot be read."""
    too_deep = f"nested too deeply (over {MAX_DEPTH} levels of arrays and objects)"
    with open(path, encoding="utf-8") as fh:
        try:
            export = json.load(fh, object_pairs_hook=no_duplicate_keys, parse_constant=_no_constant)
        except RecursionError:  # the decoder's limit, about 1,000 levels
            raise ValueError(too_deep) from None
    if isinstance(export, dict | list) and _too_deep(export):
        raise ValueError(too_deep)
    return export


HEX64 = re.compile(r"[0-9a-f]{64}")


def parse_expect(text: str) -> tuple[int, str]:
    """``SEQ:HASH`` (``--expect``) as ``(seq, hash)``; ValueError when it is not one."""
    seq, _sep, digest = text.strip().partition(":")
    digest = digest.strip().lower()
    if not seq.strip().isascii() or not seq.strip().isdigit() or not HEX64.fullmatch(digest):
        raise ValueError(f"{text!r} is not SEQ:HASH (an entry's number, a colon, its 64-hex-digit hash)")
    return int(seq), digest


def parse_receipt(text: str) -> str:
    """A receipt (``--receipt``): an order's commitment, 64 hex digits."""
    digest = text.strip().lower()
    if not HEX64.fullmatch(digest):
        raise ValueError(f"{text!r} is not a receipt (an order's commitment: 64 hex digits)")
    return digest


def anchor_problems(
    entries: list[dict[str, Any]], *, expect: list[tuple[int, str]], receipts: list[str]
) -> tuple[list[str], list[str]]:
    """The export against what a player kept outside it: hashes of entries (from the log
    page or an email, ``--expect SEQ:HASH``) and the receipts of their orders
    (``--receipt``). A forger who re-hashes the whole log from some entry on changes the
    hash of every later entry, and a rewritten order has another commitment. Returns the
    problems and the lines saying what matched."""
    problems: list[str] = []
    found: list[str] = []
    entries = [e for e in entries if isinstance(e, dict)]  # the others are problems already
    by_seq = {e.get("seq"): e for e in entries}
    for seq, digest in expect:
        entry = by_seq.get(seq)
        if entry is None:
            problems.append(f"--expect {seq}: the log has no entry {seq}")
        elif entry.get("hash") != digest:
            problems.append(f"--expect {seq}: entry {seq} has hash {entry.get('hash')}, not {digest}")
    revealed: dict[str, tuple[str, Any, Any]] = {}
    for entry in entries:
        if entry.get("kind") == "orders_revealed":
            payload = entry.get("payload")
            orders = payload.get("orders") if isinstance(payload, dict) else None
            for seat, order in (orders.items() if isinstance(orders, dict) else []):
                if isinstance(order, dict) and isinstance(order.get("commitment"), str):
                    revealed.setdefault(order["commitment"], (seat, payload.get("prompt"), entry.get("seq")))
    # An order sealed and never revealed (replaced, withdrawn at a handover, or open when
    # the game ended) is in the log still: the entry that announced its commitment.
    sealed: dict[str, tuple[Any, Any, Any]] = {}
    for entry in entries:
        payload = entry.get("payload")
        if entry.get("kind") in ORDER_SOURCES and isinstance(payload, dict):
            commitment = payload.get("commitment")
            if isinstance(commitment, str):
                sealed.setdefault(commitment, (payload.get("seat"), payload.get("prompt"), entry.get("seq")))
    for receipt in receipts:
        if receipt in revealed:
            seat, prompt, seq = revealed[receipt]
            found.append(f"receipt {receipt}: the order of {seat} for prompt {prompt}, revealed in entry {seq}")
        elif receipt in sealed:
            seat, prompt, seq = sealed[receipt]
            found.append(
                f"receipt {receipt}: an order of {seat} for prompt {prompt}, sealed in entry {seq} "
                "and never revealed (replaced, withdrawn, or still sealed when the game ended)"
            )
        else:
            problems.append(f"receipt {receipt}: no order in the log has this commitment")
    return problems, found


def _result(ended: dict[str, Any]) -> str:
    """The game's result as the ending entry gives it, for the OK line."""
    ranking = (ended.get("payload") or {}).get("ranking")
    if ended.get("kind") == "game_ended" or not isinstance(ranking, list):
        return "ended early, no ranking"
    places, place = [], 1
    for group in ranking:
        group = group if isinstance(group, list) else [group]
        places.append(f"{place}. {' = '.join(str(name) for name in group)}")
        place += len(group)
    return ", ".join(places)


def verify_export_file(
    path: str, *, expect: list[tuple[int, str]] | None = None, receipts: list[str] | None = None
) -> int:
    """``python -m engine verify EXPORT.json [--expect SEQ:HASH]... [--receipt C]...``:
    print the verdict; exit 0 (all good), 1 (problems found) or 2 (file unreadable: not
    strict JSON, see ``load_export``). The OK line names the head (the ending entry, its
    hash), the result and the seed commitment: what a player compares with what they kept."""
    try:
        export = load_export(path)
    except (OSError, ValueError) as exc:
        sys.stdout.write(f"cannot read {path}: {exc}\n")
        return EXIT_UNREADABLE
    if not isinstance(export, dict) or not isinstance(export.get("entries"), list):
        sys.stdout.write(f"{path}: not a game export (no entries list)\n")
        return EXIT_UNREADABLE
    expect, receipts = expect or [], receipts or []
    found: list[str] = []
    try:
        problems = verify_export(export)
        anchored, found = anchor_problems(export["entries"], expect=expect, receipts=receipts)
        problems += anchored
    except Exception as exc:  # a shape no check above foresaw: a verdict, not a traceback
        problems = [f"malformed export: {type(exc).__name__}: {exc}"]
    if problems:
        for line in problems:
            sys.stdout.write(line + "\n")
        sys.stdout.write(f"FAILED: {counted(len(problems), 'problem')}\n")
        return EXIT_PROBLEMS
    for line in found:
        sys.stdout.write(line + "\n")
    head = export["entries"][-1]  # verified: the ending entry
    checked = ""
    if expect:
        checked += f"; {len(expect)} saved hash{'es' if len(expect) != 1 else ''} matched"
    if receipts:
        checked += f"; {len(receipts)} receipt{'s' if len(receipts) != 1 else ''} found"
    commitment = export["game"].get("seed_commitment") or "none (the game never started)"
    sys.stdout.write(
        f"OK: {len(export['entries'])} entries; chain, commitments, game record and replay verified{checked}\n"
        f"head: entry {head.get('seq')} ({head.get('kind')}) {head.get('hash')}\n"
        f"result: {_result(head)}\n"
        f"seed commitment {commitment}\n"
    )
    return EXIT_OK
