"""Creating and running a tournament: set-up, registrations, closing."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.text import slugify

import engine
from games.errors import NotFound, PermissionDenied, ValidationError
from games.presentation import one_line
from games.services.away import away_days_check
from games.services.create_once import created_before, request_fingerprint
from games.services.deadlines import deadline_policy_check, default_reminder_hours
from games.services.game_options import options_within_site_limits
from games.services.players import time_zone_valid
from tournaments.models import Registration, Round, Tournament
from tournaments.services import notices
from tournaments.services.common import (
    TournamentError,
    is_league_administrator,
    lock_tournament,
    log_add,
    own_rating_pool,
    require_organizer,
)
from tournaments.standings import TIEBREAKS, default_points_per_place
from tournaments.text import name_shown

#: Deletions of drafts (their own audit log goes with them).
audit = logging.getLogger("tournaments.audit")

#: A rating pool's name (a plain word: the league's pools never hold ":" or "#", which
#: the pools of one organizer's own do).
RATING_POOL_RE = re.compile(r"[A-Za-z0-9_.\-]{1,48}")


MAX_POINTS = 1000
"""The most (and, negated, the least) points a place or a bye may score: scores stay
exact sums in the standings and the audit log's JSON."""

#: The code of a refusal that finds the work done already (registered, withdrawn).
ALREADY_DONE = "already_done"

#: Slugs a tournament never gets: the paths of the tournaments' own pages.
RESERVED_SLUGS = frozenset({"new"})


def _points_value(value: Any) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and -MAX_POINTS <= value <= MAX_POINTS  # False for NaN; no float() of a huge int
    )


def _check_points(points_per_place: Mapping[str, Any], sizes: Sequence[int]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for key, values in (points_per_place or {}).items():
        try:
            size = int(key)
        except (TypeError, ValueError):
            raise ValidationError(
                f"Points per place: {name_shown(str(key))} is not a table size.", field="points_per_place"
            ) from None
        if size not in sizes:
            raise ValidationError(
                f"Points per place given for tables of {size}, which are not allowed.",
                field="points_per_place",
            )
        if (
            not isinstance(values, list)
            or len(values) != size
            or not all(_points_value(v) for v in values)
        ):
            raise ValidationError(
                f"Points per place for tables of {size} must be {size} numbers from "
                f"-{MAX_POINTS} to {MAX_POINTS}.",
                field="points_per_place",
            )
        if any(a < b for a, b in zip(values, values[1:], strict=False)):
            raise ValidationError(
                f"Points per place for tables of {size} must not increase.", field="points_per_place"
            )
        out[str(size)] = [float(v) for v in values]
    return out


def tournament_create(
    *,
    organizer: Any,
    name: str,
    ruleset: str,
    options: Mapping[str, Any] | None = None,
    table_sizes: Sequence[int],
    rounds_count: int,
    deadline_hours: float = 48,
    quiet_hours_start: int | None = None,
    quiet_hours_end: int | None = None,
    quiet_hours_time_zone: str = "UTC",
    points_per_place: Mapping[str, Any] | None = None,
    bye_points: float | None = None,
    requested_bye_points: float | None = None,
    tiebreaks: Sequence[str] = ("buchholz", "sonneborn_berger"),
    rating_pool: str = "",
    forbidden_pairs: Sequence[Sequence[int]] = (),
    allow_late_entry: bool = True,
    table_talk: bool = True,
    away_days: int = 0,
    create_key: str = "",
) -> Tournament:
    """Create a tournament in draft. Checks the ruleset, its options (through the
    engine), the table sizes against the ruleset's player counts, the points per place
    and the tie-breaks. Raises ValidationError. ``create_key``: the request's own key (an
    API client's Idempotency-Key): when the organizer already created a tournament with
    it, that one is returned, ``tournament.created`` False (a retry), never a second one;
    the same key with other parameters raises KeyReused."""
    fingerprint = ""
    if create_key:
        # what this request asks for: every argument but who asks and the key (read first,
        # before any other name is bound)
        asked = {k: v for k, v in locals().items() if k not in ("organizer", "create_key", "fingerprint")}
        fingerprint = request_fingerprint(asked)
        earlier = _created_with(organizer=organizer, create_key=create_key, fingerprint=fingerprint)
        if earlier is not None:
            return earlier
    name = one_line(name)  # it ends up in email subjects: one line
    if not name:
        raise ValidationError("A tournament needs a name.", field="name")
    try:
        rules = engine.get(ruleset)
    except engine.ScriptError:
        raise ValidationError(f"Unknown game {name_shown(str(ruleset))}.") from None
    try:
        normalized = rules.normalize_options(options or {})
    except engine.ScriptError as exc:
        raise ValidationError(str(exc)) from None
    # The bounds every game created on this site respects (its tables are such games).
    options_within_site_limits(ruleset_id=rules.id, options=normalized)
    rating_pool = (rating_pool or "").strip()
    # The organizer's own pool as the pages name it ("ann:5x"): that pool, the prefix
    # being the one own_rating_pool adds (none for a league administrator).
    own_prefix = own_rating_pool(organizer=organizer, pool="")
    if own_prefix and rating_pool.casefold().startswith(own_prefix.casefold()):
        rating_pool = rating_pool[len(own_prefix) :]
    if ":" in rating_pool:
        mine = f" your tournaments are rated in pools of your own ({own_prefix}5x for 5x):" if own_prefix else ""
        raise ValidationError(
            f"A rating pool's name holds no colon:{mine} write its name alone, e.g. 5x or "
            "winter-league.",
            field="rating_pool",
        )
    if rating_pool and not RATING_POOL_RE.fullmatch(rating_pool):
        raise ValidationError(
            "A rating pool's name is 1 to 48 letters, digits, dots, dashes or underscores "
            "(e.g. 5x or winter-league).",
            field="rating_pool",
        )
    sizes = [int(s) for s in table_sizes] if table_sizes else []
    if not sizes or len(set(sizes)) != len(sizes):
        raise ValidationError(
            "Give one or more distinct table sizes, most preferred first.", field="table_sizes"
        )
    for size in sizes:
        if not rules.min_players <= size <= rules.max_players:
            raise ValidationError(
                f"{rules.name} is for {rules.min_players} to {rules.max_players} players; "
                f"a table of {size} is not possible.",
                field="table_sizes",
            )
        if not 2 <= size <= 6:
            raise ValidationError("Tables seat 2 to 6 players.", field="table_sizes")
    deadline_policy_check(
        deadline_hours=deadline_hours, grace_minutes=0, quiet_hours_start=quiet_hours_start,
        quiet_hours_end=quiet_hours_end,
        reminder_hours=default_reminder_hours(deadline_hours), early_resolution_delay_seconds=0,
    )  # fmt: skip
    quiet_hours_time_zone = time_zone_valid(quiet_hours_time_zone or "UTC")
    if not isinstance(rounds_count, int) or not 1 <= rounds_count <= 30:
        raise ValidationError("The number of rounds must be 1 to 30.", field="rounds_count")
    for tb in tiebreaks:
        if tb not in TIEBREAKS:
            raise ValidationError(
                f"Unknown tie-break {name_shown(str(tb))} (choose from {', '.join(TIEBREAKS)}).", field="tiebreaks"
            )
    points = _check_points(points_per_place or {}, sizes)
    if bye_points is None:
        # A pairing bye scores like a win at two-player tables, like an average place
        # at bigger ones.
        size = sizes[0]
        ppp = points.get(str(size)) or default_points_per_place(size)
        bye_points = max(0.0, ppp[0] if size == 2 else sum(ppp) / len(ppp))
    if requested_bye_points is None:
        # Half a win, on the tournament's own scale (0.5 with the default points).
        size = sizes[0]
        requested_bye_points = max(
            0.0, (points.get(str(size)) or default_points_per_place(size))[0] / 2
        )
    for what, value in (("A pairing bye", bye_points), ("A requested bye", requested_bye_points)):
        if not _points_value(value) or value < 0:
            raise ValidationError(f"{what} scores 0 to {MAX_POINTS} points.")
    pairs = []
    for pair in forbidden_pairs:
        if len(pair) != 2 or pair[0] == pair[1]:
            raise ValidationError("A forbidden pair names two different players.")
        pairs.append(sorted(int(x) for x in pair))
    base = slugify(name)[:100] or "tournament"
    slug, n = base, 2
    while slug in RESERVED_SLUGS or Tournament.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    try:
        with transaction.atomic():
            tournament = Tournament.objects.create(
                create_key=create_key,
                create_fingerprint=fingerprint,
                name=name[:120],
                slug=slug,
                organizer=organizer,
                ruleset=rules.id,
                options=normalized,
                table_sizes=sizes,
                rounds_count=rounds_count,
                deadline_hours=float(deadline_hours),
                quiet_hours_start=quiet_hours_start,
                quiet_hours_end=quiet_hours_end,
                quiet_hours_time_zone=quiet_hours_time_zone,
                points_per_place=points,
                bye_points=float(bye_points),
                requested_bye_points=float(requested_bye_points),
                tiebreaks=list(tiebreaks),
                rating_pool=own_rating_pool(organizer=organizer, pool=rating_pool or rules.id),
                forbidden_pairs=pairs,
                allow_late_entry=allow_late_entry,
                table_talk=bool(table_talk),
                away_days=away_days_check(away_days),
            )
            tournament = lock_tournament(tournament_id=tournament.pk)
            log_add(
                tournament=tournament,
                kind="tournament_created",
                actor=organizer,
                payload={
                    "ruleset": rules.id,
                    "options": normalized,
                    "table_sizes": sizes,
                    "rounds": rounds_count,
                    "deadline_hours": float(deadline_hours),
                    "quiet_hours": [quiet_hours_start, quiet_hours_end, quiet_hours_time_zone],
                    "points_per_place": points,
                    "bye_points": tournament.bye_points,
                    "tiebreaks": list(tiebreaks),
                    "rating_pool": tournament.rating_pool,
                    "table_talk": tournament.table_talk,
                    **({"away_days": tournament.away_days} if tournament.away_days else {}),
                },
            )
    except IntegrityError:
        # The same key at the same moment (a retry racing its first request): the other
        # request's tournament.
        earlier = (
            _created_with(organizer=organizer, create_key=create_key, fingerprint=fingerprint)
            if create_key else None
        )  # fmt: skip
        if earlier is None:
            raise
        return earlier
    tournament.created = True
    return tournament


def _created_with(*, organizer: Any, create_key: str, fingerprint: str) -> Tournament | None:
    """The tournament ``organizer`` created with ``create_key`` (``created`` False), or
    None; created with other parameters (another ``fingerprint``): KeyReused."""
    return created_before(
        Tournament.objects, organizer=organizer, create_key=create_key, fingerprint=fingerprint,
        reused=lambda t: "This Idempotency-Key made another tournament (its first request asked "
        f"for other parameters: {t.slug}); send a new key for a new tournament.",
    )  # fmt: skip


def tournament_open(*, tournament: Tournament, by: Any) -> Tournament:
    """Open a draft tournament for registration."""
    with transaction.atomic():
        tournament = lock_tournament(tournament_id=tournament.pk)
        require_organizer(tournament=tournament, user=by)
        if tournament.status != Tournament.Status.DRAFT:
            raise TournamentError("Only a draft tournament can be opened.")
        tournament.status = Tournament.Status.OPEN
        tournament.save(update_fields=["status"])
        log_add(tournament=tournament, kind="tournament_opened", actor=by, payload={})
    return tournament


#: The longest name a tournament takes (its column's; the forms' and the API's bound).
NAME_MAX_CHARS = 120


def tournament_rename(*, tournament: Tournament, by: Any, name: Any) -> Tournament:
    """Rename the tournament, a draft or one open for registration, until its first round
    is paired (its games are named after it, and its emails say it, from then on): logged
    ``tournament_renamed`` with the old and new names. Its address (slug) stays: links to
    it keep working. Raises ValidationError (no name, too long), TournamentError (a round
    paired, closed; ``already_done``: that is its name already) or PermissionDenied."""
    name = one_line(name) if isinstance(name, str) else ""
    if not name:
        raise ValidationError("A tournament needs a name.", field="name")
    if len(name) > NAME_MAX_CHARS:
        raise ValidationError(
            f"A tournament's name takes at most {NAME_MAX_CHARS} characters ({len(name)} "
            "given).", field="name",
        )  # fmt: skip
    with transaction.atomic():
        tournament = lock_tournament(tournament_id=tournament.pk)
        require_organizer(tournament=tournament, user=by)
        if tournament.status not in (Tournament.Status.DRAFT, Tournament.Status.OPEN) or (
            tournament.rounds.exists()
        ):
            raise TournamentError(
                "A tournament is renamed until its first round is paired: its games and "
                "emails carry its name. Nothing was changed."
            )
        if name == tournament.name:
            raise TournamentError(
                f"The tournament is called {name} already: nothing was changed.", code=ALREADY_DONE
            )
        log_add(tournament=tournament, kind="tournament_renamed", actor=by,
                payload={"from": tournament.name, "to": name})  # fmt: skip
        tournament.name = name
        tournament.save(update_fields=["name"])
    return tournament


def tournament_delete(*, tournament: Tournament, by: Any) -> str:
    """Delete a draft that has no games (no round, nobody but its organizer registered):
    a tournament set up by mistake. Its audit log goes with it; the deletion is written
    to the server's log (``tournaments.audit``: who deleted which). Returns its name.
    Raises TournamentError (not a draft; players registered) or PermissionDenied."""
    with transaction.atomic():
        tournament = lock_tournament(tournament_id=tournament.pk)
        require_organizer(tournament=tournament, user=by)
        if tournament.status != Tournament.Status.DRAFT:
            raise TournamentError(
                f"Only a draft is deleted: this tournament is {tournament.get_status_display()}"
                + (" (close it instead)" if tournament.status != Tournament.Status.CLOSED else "")
                + ". Nothing was changed."
            )
        if tournament.rounds.exists():  # a draft pairs none; said should that ever change
            raise TournamentError("This draft has rounds: it is not deleted. Nothing was changed.")
        others = sorted(
            tournament.registrations.filter(status=Registration.Status.ACTIVE)
            .exclude(user=tournament.organizer)
            .values_list("user__username", flat=True)
        )
        if others:
            from games.presentation import and_list

            were = "is" if len(others) == 1 else "are"
            raise TournamentError(
                f"{and_list(others)} {were} registered in this draft: withdraw them first "
                "(they were told they are registered). Nothing was changed."
            )
        name, slug, pk = tournament.name, tournament.slug, tournament.pk
        tournament.delete()
    audit.info("draft tournament %s (%r, id %s) deleted by %s (id %s)", slug, name, pk,
               getattr(by, "username", by), getattr(by, "pk", None))  # fmt: skip
    return name


def _rounds_paired(tournament: Tournament) -> int:
    return tournament.rounds.count()


def _rounds_started(tournament: Tournament) -> int:
    return tournament.rounds.exclude(status=Round.Status.PAIRED).count()


def registration_add(*, tournament: Tournament, user: Any, by: Any = None) -> Registration:
    """Register ``user`` (by themselves, or by the organizer). A late entry (after the
    first round was paired) starts with the next round and scores 0 for the rounds it
    missed. Registering oneself twice returns the same registration (re-activating a
    withdrawal before the start); the organizer entering a player registered already is
    told so (TournamentError, code ``already_done``)."""
    with transaction.atomic():
        tournament = lock_tournament(tournament_id=tournament.pk)
        existing = Registration.objects.filter(tournament=tournament, user=user).first()
        if by is not None and by != user:
            require_organizer(tournament=tournament, user=by)
            # Said before the league administrator's right: it is true for any organizer
            # (the standings list the players), and what the panel's form needs to hear.
            if existing is not None and existing.status == Registration.Status.ACTIVE:
                raise TournamentError(f"{user} is already registered.", code=ALREADY_DONE)
            if not is_league_administrator(by):
                # Entering someone else seats them in games and moves their rating: a
                # league administrator's right (staff, or the permission), not every
                # player's who creates a tournament. Players register themselves.
                raise PermissionDenied(
                    "Players register themselves from the tournament's page; entering "
                    "another player takes a league administrator (the site's \"can add "
                    "registration\" permission)."
                )
            if not user.is_active:  # closed by its player, or deactivated by staff
                raise TournamentError(
                    f"{user}'s account is closed: a closed account cannot be entered."
                )
        if tournament.status == Tournament.Status.CLOSED:
            raise TournamentError("This tournament is closed.")
        if tournament.status == Tournament.Status.DRAFT and by != tournament.organizer:
            raise TournamentError("This tournament is not open for registration yet.")
        paired = _rounds_paired(tournament)
        if paired and not tournament.allow_late_entry:
            raise TournamentError("This tournament has started and takes no late entries.")
        if paired >= tournament.rounds_count:
            raise TournamentError("Every round of this tournament has been paired.")
        if existing is not None:
            if existing.status == Registration.Status.ACTIVE:
                return existing
            if paired:
                raise TournamentError(
                    "You withdrew from this tournament after its first round was paired: "
                    "you cannot register again."
                )
            existing.status = Registration.Status.ACTIVE
            existing.save(update_fields=["status"])
            log_add(tournament=tournament, kind="registration_restored", actor=by or user,
                    payload={"registration": existing.pk, "user": user.pk,
                             "player": user.username})
            return existing
        reg = Registration.objects.create(tournament=tournament, user=user, first_round=paired + 1)
        log_add(
            tournament=tournament,
            kind="registration_added",
            actor=by or user,
            payload={"registration": reg.pk, "user": user.pk, "player": user.username,
                     "first_round": reg.first_round},
        )
        notices.registered(tournament=tournament, registration=reg,
                           by=by if by is not None and by != user else None)
    return reg


def _require_not_closed(tournament: Tournament) -> None:
    """Withdrawals and byes change the standings: a closed tournament's are final."""
    if tournament.status == Tournament.Status.CLOSED:
        raise TournamentError("This tournament is closed: its standings are final.")


def registration_withdraw(*, registration: Registration, by: Any) -> Registration:
    """Withdraw a registration: it is not paired from the next round on. Games already
    under way continue (the player may resign them). The opponents of a game going on are
    told; so is the player, when someone else (the organizer, staff) withdrew them. A registration withdrawn already is
    left as it is (TournamentError, code ``already_done``: the panel said "Registration
    withdrawn." again)."""
    with transaction.atomic():
        tournament = lock_tournament(tournament_id=registration.tournament_id)
        registration = Registration.objects.get(pk=registration.pk)
        if by != registration.user:
            require_organizer(tournament=tournament, user=by)
        _require_not_closed(tournament)
        if registration.status == Registration.Status.WITHDRAWN:
            who = "You have" if by == registration.user else f"{registration.user} has"
            raise TournamentError(f"{who} withdrawn already: nothing was changed.", code=ALREADY_DONE)
        registration.status = Registration.Status.WITHDRAWN
        # The rounds it took part in: a round paired but not started is re-paired
        # without it (round_start insists), so it is not one of them.
        registration.withdrawn_after_round = _rounds_started(tournament)
        registration.save(update_fields=["status", "withdrawn_after_round"])
        entry = log_add(tournament=tournament, kind="registration_withdrawn", actor=by,
                        payload={"registration": registration.pk, "player": registration.user.username})
        notices.withdrawn_mid_game(tournament=tournament, registration=registration)
        if by != registration.user:  # their own click needs no email: the page said it
            notices.withdrawn_by_other(tournament=tournament, registration=registration, by=by,
                                       seq=entry.seq)
        elif by.pk != tournament.organizer_id:  # a paired round now waits for a re-pair
            notices.withdrawn_after_pairing(tournament=tournament, registration=registration,
                                            seq=entry.seq)
    return registration


def _locked_own_registration(*, registration: Registration, by: Any) -> tuple[Tournament, Registration]:
    """Lock the registration's open tournament and reload the registration, for its player or
    the organizer (call inside a transaction)."""
    tournament = lock_tournament(tournament_id=registration.tournament_id)
    registration = Registration.objects.get(pk=registration.pk)
    if by != registration.user:
        require_organizer(tournament=tournament, user=by)
    _require_not_closed(tournament)
    return tournament, registration


def bye_cancel(*, registration: Registration, round_number: int, by: Any) -> Registration:
    """Take back a requested bye for a round that is not paired yet."""
    with transaction.atomic():
        tournament, registration = _locked_own_registration(registration=registration, by=by)
        if round_number not in registration.requested_byes:
            raise NotFound(f"No bye was requested for round {round_number}.")
        if round_number <= _rounds_paired(tournament):
            raise TournamentError(
                f"Round {round_number} is paired already: its bye stands (the organizer may "
                "pair the round again)."
            )
        registration.requested_byes = [r for r in registration.requested_byes if r != round_number]
        registration.save(update_fields=["requested_byes"])
        log_add(tournament=tournament, kind="bye_cancelled", actor=by,
                payload={"registration": registration.pk, "round": round_number})
    return registration


def bye_request(*, registration: Registration, round_number: int, by: Any) -> Registration:
    """Ask for a bye in a future round (scores the tournament's requested-bye points); a
    withdrawn registration is refused (TournamentError)."""
    with transaction.atomic():
        tournament, registration = _locked_own_registration(registration=registration, by=by)
        if registration.status == Registration.Status.WITHDRAWN:
            # Paired in no round any more: a bye would score for someone not playing.
            who = "You have" if by == registration.user else f"{registration.user} has"
            raise TournamentError(
                f"{who} withdrawn from this tournament: a bye is for a player still in it."
            )
        paired = _rounds_paired(tournament)
        if not isinstance(round_number, int) or not 1 <= round_number <= tournament.rounds_count:
            # No such round: the request itself is wrong (400 over the API).
            raise ValidationError(
                f"A bye can be requested for a round that is not paired yet "
                f"({paired + 1} to {tournament.rounds_count})."
                if paired < tournament.rounds_count
                else "Every round of this tournament has been paired: no bye can be requested any more."
            )
        if round_number <= paired:
            # The tournament's state refuses it (409 over the API, as taking one back).
            later = (
                f"a bye can be requested for a round that is not paired yet "
                f"({paired + 1} to {tournament.rounds_count})"
                if paired < tournament.rounds_count
                else "every round of this tournament has been paired: no bye can be requested any more"
            )
            raise TournamentError(f"No bye for round {round_number}: round {round_number} is paired already; {later}.")
        if round_number not in registration.requested_byes:
            registration.requested_byes = sorted([*registration.requested_byes, round_number])
            registration.save(update_fields=["requested_byes"])
            log_add(tournament=tournament, kind="bye_requested", actor=by,
                    payload={"registration": registration.pk, "round": round_number})
    return registration


def tournament_close(*, tournament: Tournament, by: Any) -> Tournament:
    """Close the tournament: no more rounds; the standings are final. A round paired but
    never started (no game made) is dropped first, logged (``round_dropped``), and named
    by the result's ``dropped_round``: without this, ending a tournament early after
    pairing its next round was a dead end. A round being played is refused. Closing a
    closed tournament changes nothing; the result's ``just_closed`` says which it was (a
    double click's second request finds it closed)."""
    with transaction.atomic():
        tournament = lock_tournament(tournament_id=tournament.pk)
        require_organizer(tournament=tournament, user=by)
        tournament.just_closed = False
        tournament.dropped_round = None
        if tournament.status == Tournament.Status.CLOSED:
            return tournament
        playing = tournament.rounds.filter(status=Round.Status.STARTED).order_by("number").first()
        if playing is not None:
            raise TournamentError(
                f"Round {playing.number} is still being played: every table needs its result "
                "before the tournament closes (end a game that will not finish from its page, "
                "then enter its result here)."
            )
        for rnd in tournament.rounds.filter(status=Round.Status.PAIRED).order_by("number"):
            # Its tables and byes go with it (cascade); no game exists before the start.
            log_add(tournament=tournament, kind="round_dropped", actor=by, payload={"round": rnd.number})
            tournament.dropped_round = rnd.number
            rnd.delete()
        tournament.status = Tournament.Status.CLOSED
        tournament.closed_at = timezone.now()
        tournament.save(update_fields=["status", "closed_at"])
        log_add(tournament=tournament, kind="tournament_closed", actor=by, payload={})
        notices.tournament_closed(tournament=tournament)
        tournament.just_closed = True
    return tournament


def registration_get(*, tournament: Tournament, registration_id: int | str) -> Registration:
    """The registration with that id in the tournament (a whole number, or its text in the
    digits 0-9 as a form sends it: Django's own reading took "٣" for 3); NotFound
    otherwise."""
    from fivex_site.converters import row_id

    pk = registration_id if type(registration_id) is int else row_id(registration_id)
    try:
        return Registration.objects.get(tournament=tournament, pk=pk or 0)
    except Registration.DoesNotExist:
        raise NotFound("No such registration.") from None
