"""Emails of the tournaments room: a registration someone else made (to the player), a
finished round (to its players and the organizer), a result entered or corrected by hand
(to the table's players), a withdrawal (to the opponents of a game going on, and to the
player when someone else withdrew them) and the final standings (to every player). Written inside the caller's transaction (which
holds the tournament's lock) into the games room's outbox, so they are sent after the
commit, once: every message has a key."""

from __future__ import annotations

from typing import Any

from fivex_site.links import public_reverse
from games.presentation import and_list, ordinal, place_of, short_number
from games.services.notifications import mailable
from tournaments import selectors
from tournaments.models import Registration, Round, Table, Tournament
from tournaments.standings import TIEBREAK_NAMES, place_points

#: How many lines of the standings an email quotes (the page has them all).
TOP_LINES = 10


def _points(value: float) -> str:
    text = short_number(value)
    return f"{text} point{'' if text == '1' else 's'}"


def _url(name: str, *args: Any) -> str:
    return public_reverse(name, *args)




def _rank(row: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    """``3rd``, or ``tied 3rd`` when another player has the same rank."""
    tied = sum(1 for r in rows if r["rank"] == row["rank"]) > 1
    return f"{'tied ' if tied else ''}{ordinal(row['rank'])}"


def standing_words(row: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    """A player's place in the standings ``rows``: "tied 2nd of 8 with 2 points"."""
    return f"{_rank(row, rows)} of {len(rows)} with {_points(row['points'])}"


def _tiebreak_words(row: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    """`` (Buchholz 4.5, Wins 1)`` for a player level on points with another, whose order
    the tie-breaks decided (a participant's journey: "2. grace — 2 points" above "3. erin —
    2 points" said nothing of why); "" otherwise."""
    level = sum(1 for r in rows if round(r["points"], 9) == round(row["points"], 9)) > 1
    if not level or not row.get("tiebreaks"):
        return ""
    values = ", ".join(
        f"{TIEBREAK_NAMES.get(key, key)} {short_number(value)}" for key, value in row["tiebreaks"].items()
    )
    return f" ({values})"


def _standings_line(row: dict[str, Any], rows: list[dict[str, Any]], mark: str = "") -> str:
    # "(withdrawn)" as the web page says it: a player who left, ranked above the reader,
    # puzzled (the tournaments audit).
    gone = " (withdrawn)" if row.get("withdrawn") else ""
    return (f"{row['rank']:>3}. {row['user']}{gone} — {_points(row['points'])}"
            f"{_tiebreak_words(row, rows)}{mark}")


def standings_lines(rows: list[dict[str, Any]], *, me: int | None) -> list[str]:
    """The top of the standings, one line a player (tied ranks share their number, and
    players level on points show the tie-breaks that ordered them), and the reader's own
    line below them if it is further down."""
    lines = []
    for row in rows[:TOP_LINES]:
        mark = "  <- you" if row["registration"].pk == me else ""
        lines.append(_standings_line(row, rows, mark))
    mine = next((r for r in rows[TOP_LINES:] if r["registration"].pk == me), None)
    if mine is not None:
        lines.append("     …")
        lines.append(_standings_line(mine, rows, "  <- you"))
    if len(rows) > TOP_LINES and mine is None:
        lines.append(f"     … and {len(rows) - TOP_LINES} more")
    return lines


def _place_text(ranking: list[list[int]], reg_id: int) -> str:
    return place_of(ranking, reg_id) or "not ranked"


def _table_result(
    tournament: Tournament, table: Table, reg_id: int, names: dict[int, str], reason: str = ""
) -> str:
    ppp = selectors.points_for(tournament).get(len(table.players), [])
    points = place_points([[str(p) for p in g] for g in table.ranking], ppp)[str(reg_id)]
    order = " > ".join(" = ".join(names[p] for p in group) for group in table.ranking)
    by_hand = ""
    if table.result_source == "organizer":
        by_hand = f" Entered by the organizer: {reason}" if reason else " Entered by the organizer."
        by_hand += "" if by_hand.endswith((".", "!", "?")) else "."
        if table.scoreless:
            return (
                f"Your result at table {table.number}: no points. Nobody played it (a forfeit "
                f"for everyone): not rated, and no meeting for the pairing of later rounds."
                f"{by_hand}"
            )
        if not table.rated:
            by_hand += " Not played (a forfeit): it counts in the standings, not in the ratings."
    elif not table.rated and table.game_id is not None:
        if table.scoreless:  # nobody played: a double forfeit
            return (
                f"Your result at table {table.number}: no points. Nobody sent an order in the "
                f"game (every one was a default): a forfeit for everyone, not rated, and no "
                f"meeting for the pairing of later rounds (the game ended {order})."
            )
        silent = selectors.silent_seats(game=table.game_id)
        who = and_list(silent) if silent else "a player"
        by_hand = (f" Not rated: {who} sent no order in the game (every one was a default); it "
                   "counts in the standings as it ended.")
    return (
        f"Your result at table {table.number}: {_place_text(table.ranking, reg_id)}, "
        f"{_points(points)} ({order}).{by_hand}"
    )


def _hand_reasons(tournament: Tournament, rnd: Round) -> dict[int, str]:
    """The organizer's latest reason for each table of ``rnd`` whose result was entered
    or corrected by hand (from the tournament's log), by table number."""
    reasons: dict[int, str] = {}
    entries = tournament.log.filter(kind__in=("result_entered", "result_corrected")).order_by("seq")
    for entry in entries:
        payload = entry.payload or {}
        if payload.get("round") == rnd.number and isinstance(payload.get("table"), int):
            reasons[payload["table"]] = str(payload.get("reason") or "")
    return reasons


def round_finished(*, tournament: Tournament, rnd: Round) -> None:
    """Round ``rnd`` has every result: each of its players gets their result and the
    standings; the organizer is told what to do next."""
    from games.services.outbox import outbox_enqueue_many

    rows = selectors.standings(tournament=tournament)
    by_reg = {row["registration"].pk: row for row in rows}
    names = {row["registration"].pk: str(row["user"]) for row in rows}
    last = rnd.number >= tournament.rounds_count
    detail = _url("tournaments:detail", tournament.slug)
    if last:
        next_step = (
            "That was the last round. The standings become final when the organizer closes "
            "the tournament."
        )
    else:
        next_step = (
            f"Round {rnd.number + 1} of {tournament.rounds_count} starts when the organizer "
            f"pairs and starts it: you will get your game's email then."
        )
    results: dict[int, str] = {}
    reasons = _hand_reasons(tournament, rnd)
    for table in rnd.tables.all():
        for reg_id in table.players:
            reason = reasons.get(table.number, "")
            results[reg_id] = _table_result(tournament, table, reg_id, names, reason)
    for bye in rnd.byes.all():
        results[bye.registration_id] = (
            f"You had a bye ({bye.get_kind_display()}): {_points(bye.points)}."
        )
    messages = []
    # Everyone who played the round, also a player who withdrew during it (told only
    # that they will not be paired again), and a late entrant waiting for a later round
    # (a participant's journey: the standings everyone got listed them, and they heard
    # nothing).
    waiting = tournament.registrations.filter(
        status=Registration.Status.ACTIVE, first_round__gt=rnd.number
    ).exclude(pk__in=list(results))
    for reg in waiting:
        results[reg.pk] = (
            f"You entered late: you play from round {reg.first_round}; the rounds before "
            "score 0 for you."
        )
    for reg in tournament.registrations.filter(pk__in=list(results)).select_related("user"):
        if not mailable(reg.user):
            continue
        row = by_reg.get(reg.pk)
        withdrawn = reg.status == Registration.Status.WITHDRAWN
        place = (
            [f"You are {standing_words(row, rows)}."]
            if row is not None
            else []
        )
        body = "\n".join(
            [
                f"Round {rnd.number} of {tournament.name} is over.",
                "",
                results[reg.pk],
                *place,
                "",
                f"Standings after round {rnd.number}:",
                *standings_lines(rows, me=reg.pk),
                "",
                "You have withdrawn from the tournament: you will not be paired again."
                if withdrawn
                else next_step,
                "",
                f"Standings and pairings: {detail}",
                "",
            ]
        )
        standing = f" — you are {_rank(row, rows)} of {len(rows)}" if row is not None else ""
        messages.append(
            {
                "to": reg.user.email,
                "subject": f"{tournament.name}: round {rnd.number} is over{standing}",
                "body": body,
                "kind": "tournament",
                "key": f"tournament:{tournament.pk}:round:{rnd.number}:over:{reg.pk}",
            }
        )
    organizer = tournament.organizer
    playing = next((m for m in messages if m["to"] == organizer.email), None)
    if organizer.email:
        manage = _url("tournaments:manage", tournament.slug)
        todo = (
            "Close the tournament to make the standings final."
            if last
            else f"Pair round {rnd.number + 1}, check the tables and start it."
        )
    if organizer.email and playing is not None:
        # An organizer who plays gets one email: its own result, then its task.
        playing["body"] += f"As the organizer: {todo}\nOrganizer panel: {manage}\n"
    elif organizer.email:
        messages.append(
            {
                "to": organizer.email,
                "subject": f"{tournament.name}: every result of round {rnd.number} is in",
                "body": "\n".join(
                    [
                        f"Every table of round {rnd.number} of {tournament.name} has its "
                        "result.",
                        "",
                        f"Standings after round {rnd.number}:",
                        *standings_lines(rows, me=None),
                        "",
                        todo,
                        f"Organizer panel: {manage}",
                        "",
                    ]
                ),
                "kind": "tournament",
                "key": f"tournament:{tournament.pk}:round:{rnd.number}:over:organizer",
            }
        )
    outbox_enqueue_many(messages=messages)


def result_by_hand(
    *, tournament: Tournament, table: Table, old: list[list[int]] | None, reason: str, seq: int
) -> None:
    """The organizer entered or corrected a table's result: its players are told the
    result, the old one if there was one, and why."""
    from games.services.outbox import outbox_enqueue_many

    regs = {
        r.pk: r
        for r in tournament.registrations.filter(pk__in=table.players).select_related("user")
    }
    names = {pk: str(r.user) for pk, r in regs.items()}
    rnd = table.round
    what = "corrected" if old else "entered"
    before = (
        "It was: " + " > ".join(" = ".join(names[p] for p in g) for g in old) + ".\n" if old else ""
    )
    # A correction moves the standings the players were sent: each is told its place now
    # (the tournaments audit: told "tied 3rd" by the round's email, a player corrected to
    # "tied 1st" heard only the table's new result).
    rows = selectors.standings(tournament=tournament) if old else []
    by_reg = {row["registration"].pk: row for row in rows}
    messages = []
    for reg_id in table.players:
        reg = regs.get(reg_id)
        if reg is None or not mailable(reg.user):
            continue
        row = by_reg.get(reg_id)
        place = f"Your place in the standings now: {standing_words(row, rows)}.\n" if row else ""
        messages.append(
            {
                "to": reg.user.email,
                "subject": f"{tournament.name}: the organizer {what} your result of round "
                f"{rnd.number}",
                "body": (
                    f"The organizer of {tournament.name} {what} the result of round "
                    f"{rnd.number}, table {table.number}.\n\n"
                    f"{_table_result(tournament, table, reg_id, names)}\n{before}"
                    f"Reason: {reason}\n{place}\n"
                    f"Standings and pairings: {_url('tournaments:detail', tournament.slug)}\n"
                ),
                "kind": "tournament",
                "key": f"tournament:{tournament.pk}:log:{seq}:result:{reg_id}",
            }
        )
    outbox_enqueue_many(messages=messages)


def tournament_closed(*, tournament: Tournament) -> None:
    """Final standings to every player who took part (withdrawn players included: their
    place is final too)."""
    from games.services.outbox import outbox_enqueue_many

    rows = selectors.standings(tournament=tournament)
    detail = _url("tournaments:detail", tournament.slug)
    if not tournament.rounds.filter(status=Round.Status.FINISHED).exists():
        # Called off before any round was played: no ranking to announce (everyone was
        # "tied 1st" on 0 points, told they shared first place).
        outbox_enqueue_many(messages=[{
            "to": row["user"].email,
            "subject": f"{tournament.name} is closed: no round was played",
            "body": "\n".join([
                f"{tournament.name} was closed before any round was played: no game, no "
                "standings.",
                "",
                f"The tournament: {detail}",
                "",
            ]),
            "kind": "tournament",
            "key": f"tournament:{tournament.pk}:closed:{row['registration'].pk}",
        } for row in rows if mailable(row["user"])])  # fmt: skip
        return
    winners = {r["registration"].pk: str(r["user"]) for r in rows if r["rank"] == 1}
    messages = []
    for row in rows:
        user = row["user"]
        if not mailable(user):
            continue
        reg = row["registration"]
        others = [name for pk, name in winners.items() if pk != reg.pk]
        if reg.pk in winners:
            won = f"You share first place with {', '.join(others)}." if others else "You won!"
        else:
            won = f"{'Winners' if len(winners) > 1 else 'Winner'}: {', '.join(winners.values())}."
        messages.append(
            {
                "to": user.email,
                "subject": f"{tournament.name} is over — you finished {_rank(row, rows)} "
                f"of {len(rows)}",
                "body": "\n".join(
                    [
                        f"{tournament.name} is closed: the standings are final.",
                        "",
                        f"You finished {_rank(row, rows)} of {len(rows)} with "
                        f"{_points(row['points'])}. {won}",
                        "",
                        "Final standings:",
                        *standings_lines(rows, me=reg.pk),
                        "",
                        f"Standings, rounds and every game: {detail}",
                        "",
                    ]
                ),
                "kind": "tournament",
                "key": f"tournament:{tournament.pk}:closed:{reg.pk}",
            }
        )
    outbox_enqueue_many(messages=messages)


def registered(*, tournament: Tournament, registration: Registration, by: Any = None) -> None:
    """Confirm a registration to its player: what it commits them to and what comes next
    (a participant's journey: a self-registration was confirmed on the page only); ``by``:
    the league administrator who entered them, when they did not register themselves
    (then: how to withdraw)."""
    from games.services.outbox import outbox_enqueue_many

    user = registration.user
    if not mailable(user):
        return
    detail = _url("tournaments:detail", tournament.slug)
    start = (
        f"You start in round {registration.first_round}; the rounds before score 0 for you."
        if registration.first_round > 1
        else "" if by is not None else "Round 1 starts when the organizer pairs and starts it."
    )
    who = f"{by} registered you" if by is not None else "You are registered"
    last = (
        f"If you do not want to play, withdraw on the tournament's page: {detail}"
        if by is not None
        else f"Standings, pairings, byes and withdrawal: {detail}"
    )
    outbox_enqueue_many(messages=[{
        "to": user.email,
        "subject": f"{tournament.name}: {by} registered you" if by is not None
        else f"{tournament.name}: you are registered",
        "body": "\n".join([
            f"{who} in {tournament.name} ({tournament.rounds_count} rounds, one game per "
            f"round).{' ' + start if start else ''}",
            "",
            "Each round's game starts with its own email; you play it like any other game.",
            last,
            "",
        ]),
        "kind": "tournament",
        "key": f"tournament:{tournament.pk}:registered:{registration.pk}:{registration.first_round}",
    }])


def withdrawn_mid_game(*, tournament: Tournament, registration: Registration) -> int:
    """Tell the players of every game still going on of a player who withdrew, and who
    still plays its seat there (a participant's journey: an opponent learnt it from the
    standings only): the game's players as they stand (a substitute, not the player it
    replaced; nobody who resigned). Returns how many emails were queued."""
    from games.models import Game, Seat
    from games.services.outbox import outbox_enqueue_many

    tables = (
        Table.objects.filter(round__tournament=tournament, round__status=Round.Status.STARTED,
                             game__status__in=[Game.Status.ACTIVE, Game.Status.PAUSED])
        .select_related("round", "game")
    )
    name = registration.user.username
    messages = []
    for table in (t for t in tables if registration.pk in t.players):
        seats = list(Seat.objects.filter(game=table.game, status=Seat.Status.ACTIVE).select_related("user"))
        theirs = next((s for s in seats if s.user_id == registration.user_id), None)
        if theirs is None:  # resigned, or handed to someone else: no game of theirs goes on
            continue
        for seat in seats:
            if seat is theirs or not mailable(seat.user):
                continue
            messages.append({
                "to": seat.user.email,
                "subject": f"{tournament.name}: {name} withdrew",
                "body": "\n".join([
                    f"{name} withdrew from {tournament.name}: {name} is not paired in the "
                    "rounds to come.",
                    "",
                    f"Your game with {name} (round {table.round.number}, table {table.number}) "
                    f"goes on: {name} may still play it, or resign it; at each deadline a "
                    "missing order is filled with the default order. Its result counts as the "
                    "game ends (a game in which a player sent no order of their own is not "
                    "rated).",
                    "",
                    f"Your game: {public_reverse('games:detail', table.game_id)}",
                    "",
                ]),
                "kind": "tournament",
                "key": f"tournament:{tournament.pk}:withdrawn:{registration.pk}:{table.pk}:{seat.user_id}",
            })
    outbox_enqueue_many(messages=messages)
    return len(messages)


def withdrawn_by_other(*, tournament: Tournament, registration: Registration, by: Any, seq: int) -> None:
    """Tell a player the organizer (or a site administrator) withdrew: who did, from which
    tournament, what becomes of the game they still play (it goes on) or of a round
    paired with them and not started (paired again without them), their standing and
    whether they may register again (an audit: only their opponents were told). Not sent
    for a player's own withdrawal: the page said it as they clicked."""
    from games.models import Game, Seat
    from games.services.outbox import outbox_enqueue_many

    user = registration.user
    if not mailable(user):
        return
    role = "the organizer" if getattr(by, "pk", None) == tournament.organizer_id else "a site administrator"
    lines = [f"{by} ({role}) withdrew you from {tournament.name}: you are not paired in the "
             "rounds to come.", ""]  # fmt: skip
    tables = (
        Table.objects.filter(round__tournament=tournament, round__status=Round.Status.STARTED,
                             game__status__in=[Game.Status.ACTIVE, Game.Status.PAUSED])
        .select_related("round").order_by("round__number", "number")
    )  # fmt: skip
    for table in (t for t in tables if registration.pk in t.players):
        if not Seat.objects.filter(game_id=table.game_id, user=user, status=Seat.Status.ACTIVE).exists():
            continue  # resigned, or handed to someone else: no game of theirs goes on
        lines += [
            f"Your game of round {table.round.number} (table {table.number}) goes on: you may "
            "still play it, or resign it; at each deadline a missing order is filled with the "
            "default order. Its result counts in the standings as the game ends.",
            f"Your game: {public_reverse('games:detail', table.game_id)}",
            "",
        ]
    for rnd in tournament.rounds.filter(status=Round.Status.PAIRED).prefetch_related("tables", "byes"):
        table = next((t for t in rnd.tables.all() if registration.pk in t.players), None)
        bye = any(b.registration_id == registration.pk for b in rnd.byes.all())
        if table is not None or bye:
            where = f"at table {table.number}" if table is not None else "with a bye"
            lines += [f"Round {rnd.number} was paired with you {where}: it is paired again "
                      "without you before it starts.", ""]  # fmt: skip
    played = (registration.withdrawn_after_round or 0) >= registration.first_round
    lines.append(
        "Your results stay in the standings, marked withdrawn." if played
        else "You played no round: you are not in the standings."
    )
    lines.append(
        "You cannot register again." if tournament.rounds.exists()
        else "You may register again from the tournament's page until round 1 is paired."
    )
    lines += [
        f"If this is a mistake, ask the organizer ({tournament.organizer}).",
        "",
        f"The tournament: {_url('tournaments:detail', tournament.slug)}",
        "",
    ]
    outbox_enqueue_many(messages=[{
        "to": user.email,
        "subject": f"{tournament.name}: {by} withdrew you",
        "body": "\n".join(lines),
        "kind": "tournament",
        "key": f"tournament:{tournament.pk}:log:{seq}:withdrawn:{registration.pk}",
    }])


def withdrawn_after_pairing(*, tournament: Tournament, registration: Registration, seq: int) -> None:
    """Tell the organizer that a player withdrew themselves from a round paired with them
    and not started: Start waits for a re-pair (h3's organizer walk: the panel alone
    said it, when the organizer came back to start the round). Not sent for the
    organizer's own withdrawal of a player, nor when no paired round seats them."""
    from games.services.outbox import outbox_enqueue_many

    organizer = tournament.organizer
    if not mailable(organizer):
        return
    name = registration.user.username
    messages = []
    for rnd in tournament.rounds.filter(status=Round.Status.PAIRED).prefetch_related("tables", "byes"):
        table = next((t for t in rnd.tables.all() if registration.pk in t.players), None)
        bye = any(b.registration_id == registration.pk for b in rnd.byes.all())
        if table is None and not bye:
            continue
        where = f"table {table.number}" if table is not None else "a bye"
        messages.append({
            "to": organizer.email,
            "subject": f"{tournament.name}: {name} withdrew after round {rnd.number} was paired",
            "body": "\n".join([
                f"{name} withdrew from {tournament.name} after round {rnd.number} was paired "
                f"({where}). Round {rnd.number} cannot start as it is: re-pair it from the "
                "organizer panel, then start it.",
                "",
                f"Organizer panel: {_url('tournaments:manage', tournament.slug)}",
                "",
            ]),
            "kind": "tournament",
            "key": f"tournament:{tournament.pk}:log:{seq}:withdrawn-after-pairing",
        })  # fmt: skip
    outbox_enqueue_many(messages=messages)
