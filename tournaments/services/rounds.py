"""Rounds: pairing (automatic or by hand), re-pairing, starting the games."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from engine.words import counted
from fivex_site.links import public_reverse, site_path
from games.errors import ValidationError
from tournaments import selectors
from tournaments.models import Bye, Registration, Round, Table, Tournament
from tournaments.pairing import PairingError, pair_json
from tournaments.pairing.sizes import plan
from tournaments.services.common import (
    TournamentError,
    lock_tournament,
    log_add,
    require_organizer,
)

#: The code of a refusal to do what is done already (the API answers it 409):
#: ``tournaments.services.tournaments.ALREADY_DONE``'s.
ALREADY_DONE = "already_done"


def _next_number(tournament: Tournament) -> int:
    last = tournament.rounds.order_by("-number").first()
    if last is not None and last.status == Round.Status.PAIRED:
        # A double click's second click (an audit: it said "not finished yet" about the
        # round the first click had just paired).
        raise TournamentError(
            f"Round {last.number} is paired already: check its tables, then start it (or "
            "re-pair it)."
        )
    if last is not None and last.status != Round.Status.FINISHED:
        raise TournamentError(f"Round {last.number} is not finished yet{selectors.round_waits_for(rnd=last)}.")
    number = 1 if last is None else last.number + 1
    if number > tournament.rounds_count:
        raise TournamentError(f"All {tournament.rounds_count} rounds have been played.")
    return number


def _store_pairing(
    *, rnd: Round, tables: Sequence[Sequence[int]], pairing_byes: Sequence[int]
) -> None:
    tournament = rnd.tournament
    for number, players in enumerate(tables, start=1):
        Table.objects.create(round=rnd, number=number, players=[int(p) for p in players])
    for reg_id in pairing_byes:
        Bye.objects.create(round=rnd, registration_id=int(reg_id), kind=Bye.Kind.PAIRING,
                           points=tournament.bye_points)
    for reg in tournament.registrations.filter(status=Registration.Status.ACTIVE):
        if rnd.number in reg.requested_byes and reg.first_round <= rnd.number:
            Bye.objects.create(round=rnd, registration=reg, kind=Bye.Kind.REQUESTED,
                               points=tournament.requested_bye_points)


def _pair_locked(
    *, tournament: Tournament, number: int, by: Any, rnd: Round | None, repaired: bool = False
) -> Round:
    seed = secrets.randbits(31)
    request = selectors.pairing_input(tournament=tournament, round_number=number, seed=seed)
    if not any(not p.get("withdrawn") for p in request["players"]):
        raise TournamentError("Nobody is registered and active for this round.")
    try:
        output = pair_json(request)
    except PairingError as exc:
        raise TournamentError(f"The round cannot be paired: {exc}") from None
    if rnd is None:
        rnd = Round.objects.create(tournament=tournament, number=number, seed=seed)
    rnd.seed = seed
    rnd.pairing_input = request
    rnd.pairing_output = output
    rnd.paired_by_hand = False
    # The organizer sees what the pairing could not avoid, as a hand pairing shows it (an
    # organizer's journey: a third meeting of two players went unsaid).
    rnd.warnings = [
        *hand_pairing_warnings(tournament=tournament, number=number,
                               tables=[[int(p) for p in t] for t in output["tables"]]),
        *_extra_byes_warning(tournament=tournament, request=request, output=output),
    ]  # fmt: skip
    rnd.save()
    _store_pairing(rnd=rnd, tables=output["tables"], pairing_byes=output["byes"])
    log_add(
        tournament=tournament,
        kind="round_paired",
        actor=by,
        payload={"round": number, "seed": seed, "input": request, "output": output,
                 **({"repaired": True} if repaired else {})},
    )
    return rnd


def _extra_byes_warning(*, tournament: Tournament, request: dict, output: dict) -> list[str]:
    """The pairing gives more byes than the table sizes need only when the forbidden pairs
    leave no other way: the organizer is told who sits out (and may pair by hand)."""
    active = sum(1 for p in request["players"] if not p.get("withdrawn"))
    fewest = plan(active, tuple(tournament.table_sizes))
    needed = fewest[0] if fewest else active
    if len(output["byes"]) <= needed:
        return []
    ids = [int(b) for b in output["byes"]]
    names = {r.pk: str(r.user)
             for r in tournament.registrations.select_related("user").filter(pk__in=ids)}  # fmt: skip
    who = ", ".join(sorted(names.get(i, f"entry #{i}") for i in ids))
    return [
        f"{counted(len(ids), 'pairing bye')} ({who}), {len(ids) - needed} more than the table sizes "
        "need: the pairs who must not meet leave no other way to seat everyone."
    ]


def _require_pairable(tournament: Tournament) -> None:
    if tournament.status == Tournament.Status.CLOSED:
        raise TournamentError("This tournament is closed: no more rounds can be paired.")
    if tournament.status not in (Tournament.Status.OPEN, Tournament.Status.RUNNING):
        raise TournamentError("Open the tournament before pairing a round.")


def round_pair(*, tournament: Tournament, by: Any) -> Round:
    """Pair the next round from the standings (``tournaments.pairing``). The pairing's
    input, seed and output go into the audit log, so the round can be re-paired byte
    for byte later. The games are created by :func:`round_start`."""
    with transaction.atomic():
        tournament = lock_tournament(tournament_id=tournament.pk)
        require_organizer(tournament=tournament, user=by)
        _require_pairable(tournament)
        number = _next_number(tournament)
        rnd = _pair_locked(tournament=tournament, number=number, by=by, rnd=None)
        if tournament.status == Tournament.Status.OPEN:
            tournament.status = Tournament.Status.RUNNING
            tournament.save(update_fields=["status"])
    return rnd


def round_repair(*, rnd: Round, by: Any, pairing_seen: str | None = None) -> Round:
    """Pair a round again (with a new seed) while its games have not been created.
    ``pairing_seen``: the ``pairing_digest`` the caller saw; a round paired again since (a
    retry whose first request went through, or someone else at the same moment) is not
    paired a second time (TournamentError, code ``already_done``)."""
    with transaction.atomic():
        tournament = lock_tournament(tournament_id=rnd.tournament_id)
        require_organizer(tournament=tournament, user=by)
        rnd = Round.objects.get(pk=rnd.pk)
        if rnd.status != Round.Status.PAIRED:
            raise TournamentError("This round has started; it can no longer be re-paired.")
        if pairing_seen and pairing_seen != pairing_digest(rnd=rnd):
            raise TournamentError(
                f"Round {rnd.number} was paired again since the pairing you sent: check the "
                "new pairing. Nothing was re-paired.",
                code=ALREADY_DONE,
            )
        rnd.tables.all().delete()
        rnd.byes.all().delete()
        return _pair_locked(tournament=tournament, number=rnd.number, by=by, rnd=rnd, repaired=True)


def _times_words(times: int) -> str:
    """How often, in words: "once", "twice", "3 times"."""
    return {1: "once", 2: "twice"}.get(times, f"{times} times")


def hand_pairing_warnings(
    *, tournament: Tournament, number: int, tables: Sequence[Sequence[int]]
) -> list[str]:
    """Warnings about a pairing: repeat meetings and forbidden pairs (by hand; an
    automatic pairing has only the repeats it could not avoid)."""
    regs = {r.pk: r for r in tournament.registrations.select_related("user")}
    met: dict[frozenset[int], int] = {}
    for table in selectors.tables_met_at(tournament=tournament, before=number):
        for i, a in enumerate(table.players):
            for b in table.players[i + 1:]:
                key = frozenset((a, b))
                met[key] = met.get(key, 0) + 1
    forbidden = {frozenset(p) for p in map(tuple, tournament.forbidden_pairs)}
    warnings = []
    for t, players in enumerate(tables, start=1):
        for i, a in enumerate(players):
            for b in players[i + 1:]:
                names = f"{regs[a].user} and {regs[b].user}"
                times = met.get(frozenset((a, b)), 0)
                if times:
                    warnings.append(f"Table {t}: {names} have met {_times_words(times)} before.")
                if frozenset((regs[a].user_id, regs[b].user_id)) in forbidden:
                    warnings.append(f"Table {t}: {names} are a forbidden pair.")
    return warnings


def round_by_hand_number(*, tournament: Tournament) -> int:
    """The round a pairing by hand would pair now: the paired one (re-paired) or the
    next. Raises TournamentError as ``round_pair_by_hand`` does when no round can be
    (one being played, all played, the tournament not open): the panel asks before it
    reads the names typed, whose refusal was all it said."""
    _require_pairable(tournament)
    last = tournament.rounds.order_by("-number").first()
    if last is not None and last.status == Round.Status.PAIRED:
        return last.number
    return _next_number(tournament)


def round_pair_by_hand(
    *,
    tournament: Tournament,
    tables: Sequence[Sequence[int]],
    byes: Sequence[int] = (),
    by: Any,
    force: bool = False,
) -> tuple[Round | None, list[str]]:
    """Pair the next round (or re-pair the paired one) by hand. Tables list
    registration ids in seat order. Returns ``(round, warnings)``; while there are
    warnings (repeats, forbidden pairs) and ``force`` is false nothing is saved and the
    round is ``None``. Raises ValidationError for an impossible pairing."""
    with transaction.atomic():
        tournament = lock_tournament(tournament_id=tournament.pk)
        require_organizer(tournament=tournament, user=by)
        number = round_by_hand_number(tournament=tournament)
        rnd: Round | None = tournament.rounds.filter(number=number, status=Round.Status.PAIRED).first()
        request = selectors.pairing_input(tournament=tournament, round_number=number, seed=0)
        active = {int(p["id"]) for p in request["players"] if not p.get("withdrawn")}
        # A player who asked for a bye this round keeps it: named among the byes (as the
        # panel lists it), it is not a pairing bye, and not an error (an organizer's
        # journey: copying the panel's own pairing was refused).
        requested = {
            r.pk for r in tournament.registrations.all()
            if number in (r.requested_byes or []) and r.first_round <= number
        }  # fmt: skip
        byes = [b for b in byes if int(b) not in requested]
        placed = [int(p) for t in tables for p in t] + [int(b) for b in byes]
        names = {
            r.pk: str(r.user)
            for r in tournament.registrations.select_related("user").filter(pk__in=set(placed) | active)
        }

        def who(ids: set[int]) -> str:
            return ", ".join(sorted(names.get(i, f"entry #{i}") for i in ids))

        twice = {p for p in placed if placed.count(p) > 1}
        if twice:
            # named: an organizer looking for "a player" in a dozen lines was not helped
            raise ValidationError(
                f"Placed twice: {who(twice)}. Write each player once, at a table or as a bye."
            )
        unknown = set(placed) - active

        if unknown:
            raise ValidationError(
                f"Not playing round {number}: {who(unknown)} (withdrawn, a requested bye, or a "
                "late entry from a later round)."
            )
        missing = active - set(placed)
        if missing:
            raise ValidationError(f"Not placed: {who(missing)}.")
        for t, players in enumerate(tables, start=1):
            if len(players) not in tournament.table_sizes:
                raise ValidationError(
                    f"Table {t} has {counted(len(players), 'player')}; allowed: "
                    f"{', '.join(map(str, tournament.table_sizes))}."
                )
        tables = [[int(p) for p in t] for t in tables]
        warnings = hand_pairing_warnings(tournament=tournament, number=number, tables=tables)
        fewest = plan(len(active), tuple(tournament.table_sizes))
        needed = fewest[0] if fewest else len(active)
        if len(byes) > needed:
            # A pairing bye scores points for no game: more than the fewest possible is
            # the organizer's call, made knowingly (the pairing contract's rule 2: byes only
            # when the players cannot be seated, as few as possible).
            warnings.append(
                f"{counted(len(byes), 'pairing bye')} ({who({int(b) for b in byes})}) where {needed} "
                f"would do: tables of {' or '.join(map(str, tournament.table_sizes))} can seat "
                f"more of them (a pairing bye scores {counted(tournament.bye_points, 'point')})."
            )
        if warnings and not force:
            return None, warnings
        output = {"tables": [[str(p) for p in t] for t in tables], "byes": [str(b) for b in byes]}
        if rnd is not None and rnd.paired_by_hand and rnd.pairing_output == output:
            # The same pairing sent twice (a double click, a retry): paired so already.
            raise TournamentError(
                f"Round {number} is paired so already: nothing was changed.", code=ALREADY_DONE
            )
        if rnd is None:
            rnd = Round.objects.create(tournament=tournament, number=number)
        else:
            rnd.tables.all().delete()
            rnd.byes.all().delete()
        rnd.pairing_input = request
        rnd.pairing_output = output
        rnd.paired_by_hand = True
        rnd.warnings = warnings
        rnd.save()
        _store_pairing(rnd=rnd, tables=tables, pairing_byes=[int(b) for b in byes])
        log_add(tournament=tournament, kind="round_paired_by_hand", actor=by,
                payload={"round": number, "output": output, "warnings": warnings})
        if tournament.status == Tournament.Status.OPEN:
            tournament.status = Tournament.Status.RUNNING
            tournament.save(update_fields=["status"])
    return rnd, warnings


def _tell_the_byes(*, tournament: Tournament, rnd: Round) -> None:
    """Players without a table this round get an email saying so (those at a table get
    their game's start email): once per round and player, sent after the commit."""
    from games.services.notifications import mailable
    from games.services.outbox import outbox_enqueue

    url = public_reverse("tournaments:detail", tournament.slug)
    for bye in rnd.byes.filter(kind__in=[Bye.Kind.PAIRING, Bye.Kind.REQUESTED]).select_related(
        "registration__user"
    ):
        user = bye.registration.user
        if not mailable(user):
            continue
        points = f"{bye.points:g} point{'' if bye.points == 1 else 's'}"
        why = "you asked for it" if bye.kind == Bye.Kind.REQUESTED else "the players could not all be seated"
        outbox_enqueue(
            to=user.email,
            subject=f"{tournament.name}: round {rnd.number} has started — you have a bye",
            body=(
                f"Round {rnd.number} of {tournament.name} has started. You have a bye this "
                f"round ({why}): no game to play, {points} in the standings.\n\n"
                f"Standings and pairings: {url}\n"
            ),
            kind="tournament",
            key=f"tournament:{tournament.pk}:round:{rnd.number}:bye:{bye.registration_id}",
        )


def pairing_digest(*, rnd: Round) -> str:
    """A short digest of the round's pairing (tables in seat order, byes): a Start sent
    from a page that showed another pairing is refused (``round_start``)."""
    import hashlib
    import json

    tables = [[t.number, list(t.players)] for t in rnd.tables.order_by("number")]
    byes = sorted(rnd.byes.values_list("registration_id", flat=True))
    text = json.dumps([tables, byes], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


#: The code of Start's refusal when a player the round places withdrew since its pairing
#: (the panel's page says who, so its refusal only says nothing started).
WITHDRAWN_SINCE_PAIRING = "withdrawn_since_pairing"


def results_changed_since_pairing(*, tournament: Tournament, rnd: Round) -> bool:
    """Whether what the pairing read from the earlier rounds' results (each paired
    player's points, earlier opponents, byes and seats) differs now: a result entered
    or corrected after the round was paired (its leaders and byes were chosen on the old
    standings). Ratings are left out: other tournaments of the pool move them. A player
    who withdrew since is left out too: a withdrawal is not a result (the panel and
    ``round_start`` name it on its own), and the input now marks them withdrawn."""
    stored = rnd.pairing_input or {}

    def facts(request: dict[str, Any]) -> dict[str, tuple]:
        return {
            p["id"]: (p.get("points"), sorted(p.get("opponents", [])), p.get("byes"), p.get("seats"))
            for p in request.get("players", [])
            if not p.get("withdrawn")
        }

    before = facts(stored)
    now = facts(selectors.pairing_input(tournament=tournament, round_number=rnd.number, seed=0))
    return any(pid in now and now[pid] != fact for pid, fact in before.items())


def round_start(*, rnd: Round, by: Any, pairing_seen: str | None = None) -> Round:
    """Create and start one game per table, its seats in the paired order, with the
    tournament's ruleset, options and deadline policy. ``pairing_seen``: the
    ``pairing_digest`` the organizer's page showed; a round paired again since (by
    someone else, at the same moment) is not started."""
    from games.services.games import game_create_seated

    with transaction.atomic():
        tournament = lock_tournament(tournament_id=rnd.tournament_id)
        require_organizer(tournament=tournament, user=by)
        rnd = Round.objects.select_for_update().get(pk=rnd.pk)
        if rnd.status != Round.Status.PAIRED:
            raise TournamentError("This round has already started.")
        if pairing_seen and pairing_seen != pairing_digest(rnd=rnd):
            raise TournamentError(
                f"Round {rnd.number} was paired again since your page showed it: check the "
                "new pairing, then start it. Nothing was started."
            )
        registrations = {r.pk: r for r in tournament.registrations.select_related("user")}
        users = {pk: r.user for pk, r in registrations.items()}
        # Everyone the round places, at a table or with a bye (a bye scores points).
        placed = [p for table in rnd.tables.all() for p in table.players]
        placed += [b.registration_id for b in rnd.byes.all()]
        gone = sorted(
            str(registrations[p].user) if p in registrations else f"entry #{p}"
            for p in placed
            if p not in registrations or registrations[p].status != Registration.Status.ACTIVE
        )
        if gone:
            raise TournamentError(
                f"{', '.join(gone)} withdrew after this round was paired: re-pair the round "
                "before starting it.",
                code=WITHDRAWN_SINCE_PAIRING,
            )
        if not rnd.paired_by_hand and results_changed_since_pairing(tournament=tournament, rnd=rnd):
            raise TournamentError(
                f"A result of an earlier round was entered or corrected after round {rnd.number} "
                "was paired: its pairing reads the old standings. Re-pair the round before "
                "starting it. Nothing was started."
            )
        for table in rnd.tables.order_by("number"):
            players = [users[p] for p in table.players]
            # "R2", not "round 2": the game has rounds of its own, and its emails read
            # "[Winter Swiss R2 · table 1] Your order: round 1, play". The tournament's name
            # gives way to the suffix when both do not fit a game's name (120 characters).
            suffix = f" R{rnd.number} · table {table.number}"
            game = game_create_seated(
                organizer=tournament.organizer,
                ruleset=tournament.ruleset,
                options=tournament.options,
                users=players,
                name=tournament.name[: 120 - len(suffix)].rstrip() + suffix,
                is_private=False,  # watched from the tournament's pages
                deadline_hours=tournament.deadline_hours,
                quiet_hours_start=tournament.quiet_hours_start,
                quiet_hours_end=tournament.quiet_hours_end,
                quiet_hours_time_zone=tournament.quiet_hours_time_zone,
                talk_open=tournament.table_talk,
                away_days=tournament.away_days,
                part_of=(
                    f"{tournament.name}, round {rnd.number}",
                    # From the site's root: the pages add the prefix they are served under.
                    site_path(reverse("tournaments:round", args=[tournament.slug, rnd.number])),
                ),
            )
            table.game = game
            table.save(update_fields=["game"])
        rnd.status = Round.Status.STARTED
        rnd.started_at = timezone.now()
        rnd.save(update_fields=["status", "started_at"])
        _tell_the_byes(tournament=tournament, rnd=rnd)
        log_add(
            tournament=tournament,
            kind="round_started",
            actor=by,
            payload={"round": rnd.number,
                     "games": {t.number: t.game_id for t in rnd.tables.all()}},
        )
    from tournaments.services.results import round_check_finished

    round_check_finished(rnd=rnd)
    return rnd


def round_remind(*, rnd: Round, by: Any) -> dict[str, Any]:
    """The organizer's reminder to every player the round's games wait for (each game's
    ``game_remind``: once per prompt and seat). Returns ``{"players": n, "tables": m,
    "failed": [...]}`` (a table that could not be reminded does not stop the others);
    TournamentError when nobody was reminded."""
    from games.errors import ApplicationError, GameStateError
    from games.models import Game
    from games.services.organizer import NOBODY_TO_REMIND, game_remind

    tournament = rnd.tournament
    require_organizer(tournament=tournament, user=by)
    if rnd.status != Round.Status.STARTED:
        raise TournamentError(f"Round {rnd.number} is not being played.")
    players = tables = 0
    failed: list[str] = []
    for table in rnd.tables.select_related("game").filter(game__status=Game.Status.ACTIVE).order_by("number"):
        try:
            reminded = game_remind(game=table.game, by=by)
        except ApplicationError as exc:
            if isinstance(exc, GameStateError) and exc.code == NOBODY_TO_REMIND:
                continue  # every order in, or its players reminded already
            failed.append(f"table {table.number}: {exc.message.rstrip('.')}")  # busy, no email address
            continue
        players += len(reminded)
        tables += 1
    if failed and not players:
        raise TournamentError("No reminder sent: " + "; ".join(failed) + ".")
    if not players:
        raise TournamentError(
            f"Nobody to remind in round {rnd.number}: every order is in, or the players were "
            "reminded for their prompt already."
        )
    with transaction.atomic():
        tournament = lock_tournament(tournament_id=tournament.pk)
        log_add(tournament=tournament, kind="players_reminded", actor=by,
                payload={"round": rnd.number, "players": players, "tables": tables})
    return {"players": players, "tables": tables, "failed": failed}


def round_extend(
    *, rnd: Round, by: Any, hours: float, reason: str = "", key: str = ""
) -> dict[str, Any]:
    """Extend the open prompt's deadline of every game the round is playing (running or
    paused) by ``hours``: each game's ``deadline_extend``, so each is capped, logged and
    told to its players as one game's extension is. Returns ``{"tables": n, "failed":
    [...], "replayed": False}`` (a table whose extension was refused, its cap reached say,
    does not stop the others); TournamentError when no table was extended.

    ``key``, the request's own (an API client's Idempotency-Key, the panel form's): when
    ``by`` extended this tournament's deadlines with it already, nothing more is extended
    and the answer is that extension's, ``replayed`` True (a retry after a timeout, a
    second tap); asked with other parameters, KeyReused. The whole call holds the
    tournament's lock, so a retry arriving while the first call runs waits for it."""
    from games.errors import ApplicationError, KeyReused
    from games.models import Game
    from games.presentation import and_list
    from games.services.create_once import request_fingerprint
    from games.services.organizer import EXTENSIONS_CAPPED, deadline_extend

    reason = (reason or "").strip()[:200]
    asked = request_fingerprint({"round": rnd.number, "hours": hours, "reason": reason})
    with transaction.atomic():
        tournament = lock_tournament(tournament_id=rnd.tournament_id)
        require_organizer(tournament=tournament, user=by)
        if key:
            before = tournament.log.filter(
                kind="deadlines_extended", actor=by, payload__key=key
            ).first()
            if before is not None:
                if before.payload.get("asked") != asked:
                    said = before.payload
                    raise KeyReused(
                        f"This Idempotency-Key extended round {said.get('round')} by "
                        f"{said.get('hours'):g} hours"
                        + (f" ({said['reason']})" if said.get("reason") else "")
                        + ": send a new key for another extension. Nothing was extended."
                    )
                return {"tables": before.payload.get("tables", 0), "failed": [], "replayed": True}
        rnd = Round.objects.get(pk=rnd.pk)
        if rnd.status != Round.Status.STARTED:
            raise TournamentError(f"Round {rnd.number} is not being played.")
        playing = (Game.Status.ACTIVE, Game.Status.PAUSED)
        extended = 0
        failed: list[str] = []
        capped: list[int] = []  # one sentence for them all, not the same one per table
        tables = list(rnd.tables.select_related("game").filter(game__status__in=playing).order_by("number"))
        for table in tables:
            try:  # each game under its own lock, in a savepoint: a refusal undoes only its own
                deadline_extend(game=table.game, by=by, hours=hours, reason=reason)
            except ApplicationError as exc:
                if exc.code == EXTENSIONS_CAPPED:
                    capped.append(table.number)
                else:
                    failed.append(f"table {table.number}: {exc.message.rstrip('.')}")
                continue
            extended += 1
        if capped:
            cap = getattr(settings, "GAMES_MAX_DEADLINE_EXTENSIONS", 3)
            times = f"{cap} time{'s' if cap != 1 else ''} already, the limit"
            if len(capped) == len(tables):
                raise TournamentError(f"No deadline extended: every table's deadline has been extended {times}.")
            which = f"table {capped[0]}" if len(capped) == 1 else f"tables {and_list([str(n) for n in capped])}"
            failed.insert(0, f"{which}: extended {times}")
        if not extended:
            raise TournamentError(
                "No deadline extended: " + "; ".join(failed) + "."
                if failed
                else f"No game of round {rnd.number} is being played."
            )
        payload: dict[str, Any] = {"round": rnd.number, "hours": hours, "tables": extended,
                                   "reason": reason}  # fmt: skip
        if key:  # kept to answer its retries (not shown: the log's readers see the rest)
            payload.update(key=key, asked=asked)
        log_add(tournament=tournament, kind="deadlines_extended", actor=by, payload=payload)
    return {"tables": extended, "failed": failed, "replayed": False}
