"""Starting a forming game: the seating, the committed seed and the first prompt."""

from __future__ import annotations

import secrets

from django.utils import timezone

from engine.audit import SEATING_RULE, seating_from_seed, seed_commitment
from engine.base import ScriptError
from games.errors import GameStateError, ValidationError
from games.models import Game, Seat
from games.services.audit import game_setup_commitment, log_append
from games.services.game_options import ruleset_get


def _start_locked(*, game: Game, fixed_order: list[str] | None) -> None:
    from games.services.notifications import notify_game_started
    from games.services.resolution import prompt_open

    rules = ruleset_get(game.ruleset)
    seats = list(Seat.objects.filter(game=game).order_by("joined_at", "id"))
    if len(seats) < rules.min_players:
        raise GameStateError(
            f"{rules.name} needs at least {rules.min_players} players; {len(seats)} joined."
        )
    join_order = [s.name for s in seats]
    seed = secrets.randbits(63)
    seed_salt = secrets.token_hex(16)
    if fixed_order is not None:
        if sorted(fixed_order) != sorted(join_order):
            raise ValidationError("The fixed seating must list every seated player exactly once.")
        seating = list(fixed_order)
    else:
        seating = seating_from_seed(seed=seed, names=join_order, rule=SEATING_RULE)
    try:
        state = rules.new_game(players=seating, options=game.options, seed=seed, setup=game.setup)
    except ScriptError as exc:
        raise ValidationError(str(exc)) from None
    by_name = {s.name: s for s in seats}
    for position, name in enumerate(seating):
        seat = by_name[name]
        seat.position = position
        seat.save(update_fields=["position"])
    now = timezone.now()
    game.seed = seed
    game.seed_salt = seed_salt
    game.seed_commitment = seed_commitment(seed_salt=seed_salt, seed=seed)
    game.seats_count = len(seats)
    game.status = Game.Status.ACTIVE
    game.started_at = now
    game.save()
    started = log_append(
        game=game,
        kind="game_started",
        payload={
            "ruleset": game.ruleset,
            "engine_version": game.engine_version,
            "options": game.options,
            # The set-up (dealt leaders, secret goals) stays sealed until the end.
            "setup_commitment": game_setup_commitment(game=game),
            "seed_commitment": game.seed_commitment,
            "join_order": join_order,
            "seating": seating,
            "seating_fixed": fixed_order is not None,
            "seating_rule": SEATING_RULE,
        },
    )
    prompt = prompt_open(game=game, state=state, number=1, now=now)
    # The emails name the log's newest entry: game_started, or an order entered for a
    # seat at the first prompt.
    head = getattr(prompt, "log_head", None) or (started.seq, started.hash)
    notify_game_started(game=game, state=state, prompt=prompt, head=head)

