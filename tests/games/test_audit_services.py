"""The audit log: hash chain, verify_game, tampering detection."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.core.management import CommandError, call_command

from engine.audit import GENESIS, check_chain, entry_hash, verify_export
from games.models import Game, LogEntry, StateSnapshot
from games.selectors_log import game_export_unchecked, game_log
from games.services.audit import log_time
from tests.games.core_support import eager_celery, play_prompt, start_fixed

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]
NAMES = ["ann", "bob", "cat"]


def _played(capture, prompts: int = 4) -> Game:
    game, seats = start_fixed(NAMES)
    for _ in range(prompts):
        play_prompt(game, seats, lambda _n, legal: legal[0], capture)
    return game


def _verify(game: Game) -> tuple[bool, str]:
    from io import StringIO

    out = StringIO()
    try:
        call_command("verify_game", str(game.pk), stdout=out)
    except CommandError as exc:
        return False, out.getvalue() + str(exc)
    return True, out.getvalue()


def test_hash_formula_is_the_documented_one(django_capture_on_commit_callbacks) -> None:
    game = _played(django_capture_on_commit_callbacks, prompts=1)
    entries = list(LogEntry.objects.filter(game=game).order_by("seq"))
    first = entries[0]
    assert first.prev_hash == GENESIS
    body = json.dumps(
        {"seq": 1, "kind": first.kind, "payload": first.payload, "created_at": log_time(first.created_at)},
        sort_keys=True, separators=(",", ":"), ensure_ascii=False,
    )  # fmt: skip
    assert first.hash == hashlib.sha256((GENESIS + body).encode()).hexdigest()
    for prev, entry in zip(entries, entries[1:], strict=False):
        assert entry.prev_hash == prev.hash
        assert entry.seq == prev.seq + 1


def test_verify_game_accepts_an_untouched_running_game(django_capture_on_commit_callbacks) -> None:
    game = _played(django_capture_on_commit_callbacks)
    ok, out = _verify(game)
    assert ok, out
    assert "OK" in out


def test_verify_game_detects_edited_payload(django_capture_on_commit_callbacks) -> None:
    game = _played(django_capture_on_commit_callbacks)
    entry = LogEntry.objects.filter(game=game, kind="orders_revealed").order_by("seq").first()
    payload = entry.payload
    seat = sorted(payload["orders"])[0]
    payload["orders"][seat]["text"] = "PLAY EXPAND"
    LogEntry.objects.filter(pk=entry.pk).update(payload=payload)
    ok, out = _verify(game)
    assert not ok
    assert f"entry {entry.seq}: does not match its hash (its seq, kind, payload or created_at was edited)" in out
    assert f"entry {entry.seq}: order of {seat} for prompt 1 does not match its commitment" in out


def test_verify_game_detects_deleted_entry(django_capture_on_commit_callbacks) -> None:
    game = _played(django_capture_on_commit_callbacks)
    victim = LogEntry.objects.filter(game=game, kind="order_received").order_by("seq")[2]
    victim.delete()
    ok, out = _verify(game)
    assert not ok
    assert (
        f"entry {victim.seq} missing: sequence jumps from {victim.seq - 1} to {victim.seq + 1}"
        in out
    )


def test_verify_game_detects_rewritten_chain_with_forged_order(
    django_capture_on_commit_callbacks,
) -> None:
    # A forger who edits an order and recomputes every hash still breaks the commitment.
    game = _played(django_capture_on_commit_callbacks)
    entries = list(LogEntry.objects.filter(game=game).order_by("seq"))
    target = next(e for e in entries if e.kind == "orders_revealed")
    seat = sorted(target.payload["orders"])[0]
    target.payload["orders"][seat]["salt"] = "0" * 32
    prev = GENESIS
    for e in entries:
        e.prev_hash = prev
        e.hash = entry_hash(
            prev_hash=prev, seq=e.seq, kind=e.kind, payload=e.payload,
            created_at=log_time(e.created_at),
        )  # fmt: skip
        LogEntry.objects.filter(pk=e.pk).update(payload=e.payload, prev_hash=prev, hash=e.hash)
        prev = e.hash
    ok, out = _verify(game)
    assert not ok
    assert "does not match its hash" not in out
    assert f"order of {seat} for prompt 1 does not match its commitment" in out


def _rechain(entries: list[LogEntry]) -> None:
    prev = GENESIS
    for e in entries:
        e.hash = entry_hash(
            prev_hash=prev, seq=e.seq, kind=e.kind, payload=e.payload,
            created_at=log_time(e.created_at),
        )  # fmt: skip
        LogEntry.objects.filter(pk=e.pk).update(payload=e.payload, prev_hash=prev, hash=e.hash)
        prev = e.hash


def test_verify_game_detects_forged_public_events(django_capture_on_commit_callbacks) -> None:
    game = _played(django_capture_on_commit_callbacks)
    entries = list(LogEntry.objects.filter(game=game).order_by("seq"))
    target = [e for e in entries if e.kind == "prompt_resolved"][1]
    target.payload["events"] = ["ann built every wonder"]
    _rechain(entries)
    ok, out = _verify(game)
    assert not ok
    assert f"entry {target.seq}: the public events of prompt 2 differ from the replay" in out


def test_verify_game_detects_a_snapshot_that_differs_from_the_replay(
    django_capture_on_commit_callbacks,
) -> None:
    game = _played(django_capture_on_commit_callbacks)
    snap = StateSnapshot.objects.filter(game=game).order_by("-prompt_number").first()
    state = snap.state
    assert _verify(game)[0]
    state["round"] = state["round"] + 1
    StateSnapshot.objects.filter(pk=snap.pk).update(state=state)
    ok, out = _verify(game)
    assert not ok and "replay: the final state differs from the stored state" in out


def test_check_chain_reports_out_of_order_and_broken_links() -> None:
    a = {"seq": 1, "kind": "x", "payload": {}, "created_at": "t", "prev_hash": GENESIS}
    a["hash"] = entry_hash(prev_hash=GENESIS, seq=1, kind="x", payload={}, created_at="t")
    b = {"seq": 2, "kind": "y", "payload": {"n": 1}, "created_at": "t", "prev_hash": "f" * 64}
    b["hash"] = entry_hash(prev_hash="f" * 64, seq=2, kind="y", payload={"n": 1}, created_at="t")
    assert check_chain([a]) == []
    assert check_chain([a, b]) == ["entry 2: prev_hash does not link to the previous entry"]
    assert verify_export({"nope": 1}) == ["not a game export: no entries list"]


def test_log_for_players_hides_seed_and_unrevealed_orders(
    django_capture_on_commit_callbacks,
) -> None:
    game = _played(django_capture_on_commit_callbacks, prompts=2)
    export = game_export_unchecked(game=game)
    dumped = json.dumps(game_log(game=game))
    assert str(game.seed) not in dumped and game.seed_salt not in dumped
    for entry in export["entries"]:
        if entry["kind"] == "orders_revealed":
            for order in entry["payload"]["orders"].values():
                assert order["salt"] not in dumped


def test_verify_game_detects_a_sealed_order_deleted_from_the_database(
    django_capture_on_commit_callbacks,
) -> None:
    # A staff audit: an order deleted in the admin left the log announcing it (the prompt
    # could never resolve) and verify_game said OK.
    import engine
    from games.models import SealedOrder
    from games.selectors import current_prompt, current_state
    from games.services.orders import order_submit

    game = _played(django_capture_on_commit_callbacks, prompts=2)
    prompt = current_prompt(game=game)
    name = next(n for n in prompt.pending if n not in prompt.forced)
    legal = engine.get(game.ruleset).legal_orders(current_state(game=game), name)
    with django_capture_on_commit_callbacks(execute=True):
        waiting = order_submit(seat=game.seats.get(name=name), text=legal[0], source="web")
    assert _verify(game)[0]
    resolved = SealedOrder.objects.filter(prompt__game=game, prompt__number=1).first()
    for victim in (resolved, waiting):
        SealedOrder.objects.filter(pk=victim.pk).delete()
    ok, out = _verify(game)
    assert not ok
    for victim in (resolved, waiting):
        assert (
            f"the sealed order of {victim.seat_name} for prompt {victim.prompt.number} "
            f"({victim.commitment[:12]}…) logged in entry" in out
        ), out
    assert "is missing" in out
    assert out.endswith(f"game {game.pk}: 2 problems found"), out  # it read "2 problem(s)"


def test_verify_game_detects_an_active_game_without_an_open_prompt(
    django_capture_on_commit_callbacks,
) -> None:
    from games.models import Prompt

    game = _played(django_capture_on_commit_callbacks, prompts=1)
    Prompt.objects.filter(game=game, status=Prompt.Status.OPEN).delete()
    ok, out = _verify(game)
    assert not ok and "the game is active but has no open prompt" in out, out
    assert out.endswith(f"game {game.pk}: 1 problem found"), out  # it read "1 problem(s)"


def test_verify_game_accepts_an_order_withdrawn_by_a_handover(
    django_capture_on_commit_callbacks,
) -> None:
    """A seat handed over with an order sealed: the order is withdrawn unread (kept, no
    longer current), which the database check must not call a tampered row."""
    from django.contrib.auth import get_user_model

    import engine
    from games.selectors import current_prompt, current_state
    from games.services.handover import seat_replace
    from games.services.orders import order_submit
    from games.services.organizer import game_end

    game = _played(django_capture_on_commit_callbacks, prompts=2)
    prompt = current_prompt(game=game)
    name = next(n for n in prompt.pending if n not in prompt.forced)
    legal = engine.get(game.ruleset).legal_orders(current_state(game=game), name)
    with django_capture_on_commit_callbacks(execute=True):
        order_submit(seat=game.seats.get(name=name), text=legal[0], source="web")
    staff = get_user_model().objects.create_user("staffer", "staffer@example.test", "pw", is_staff=True)
    new = get_user_model().objects.create_user("newbie", "newbie@example.test", "pw")
    with django_capture_on_commit_callbacks(execute=True):
        seat_replace(seat=game.seats.get(name=name), new_user=new, by=staff)
    assert LogEntry.objects.filter(game=game, kind="seat_replaced").get().payload["order_withdrawn"]
    ok, out = _verify(game)
    assert ok, out
    with django_capture_on_commit_callbacks(execute=True):
        game_end(game=game, by=game.organizer, reason="over")
    ok, out = _verify(game)
    assert ok, out
