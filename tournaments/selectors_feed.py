"""What a tournament's Atom feed lists (``tournaments.feed``): each round as it starts
(who plays whom) and as it finishes (each table's result, the standings after it), and
the final standings once the tournament is closed; newest first. Everything in it is on
the tournament's public pages already."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from games.presentation import short_number
from tournaments import selectors
from tournaments.models import Registration, Round, Tournament
from tournaments.services.notices import standings_lines


def _names(registrations: list[Registration]) -> dict[int, str]:
    return {r.pk: r.user.username for r in registrations}


def _byes_line(rnd: Round, names: dict[int, str]) -> list[str]:
    byes = [
        f"{names.get(b.registration_id, '?')} ({b.get_kind_display().lower()}, "
        f"{short_number(b.points)} point{'' if short_number(b.points) == '1' else 's'})"
        for b in rnd.byes.all()
    ]
    return [f"Sitting out: {', '.join(byes)}."] if byes else []


def _started(rnd: Round, names: dict[int, str], link: str) -> dict[str, Any]:
    tables = [
        f"Table {t.number}: {', '.join(names.get(p, '?') for p in t.players)}."
        for t in sorted(rnd.tables.all(), key=lambda t: t.number)
    ]
    return {
        "heading": f"Round {rnd.number} started",
        "at": rnd.started_at,
        "lines": tables + _byes_line(rnd, names),
        "link": f"{link}#started",
    }


def _finished(
    tournament: Tournament, rnd: Round, names: dict[int, str], link: str, *, read: dict[str, Any]
) -> dict[str, Any]:
    lines = []
    for table in sorted(rnd.tables.all(), key=lambda t: t.number):
        order = " > ".join(" = ".join(names.get(p, "?") for p in group) for group in table.ranking or [])
        note = ""
        if table.scoreless:
            note = " (nobody played: no points, not rated)"
        elif table.result_source == "organizer":
            note = " (entered by the organizer)" if table.rated else " (not played: a forfeit)"
        lines.append(f"Table {table.number}: {order or 'no result'}{note}.")
    lines += _byes_line(rnd, names)
    rows = selectors.standings(tournament=tournament, upto=rnd.number, **read)
    if rows:
        lines += ["", f"Standings after round {rnd.number}:", *standings_lines(rows, me=None)]
    return {
        "heading": f"Round {rnd.number} results",
        "at": rnd.finished_at,
        "lines": lines,
        "link": f"{link}#results",
    }


def feed_entries(*, tournament: Tournament, limit: int = 30) -> list[dict[str, Any]]:
    """The newest ``limit`` entries, each ``heading``, ``at`` (when), ``lines`` (words,
    one a line) and ``link`` (a page of the tournament, unique to the entry)."""
    registrations = list(tournament.registrations.select_related("user"))
    names = _names(registrations)
    rounds = list(
        tournament.rounds.order_by("number")
        .defer(*selectors.PAIRING_DATA)
        .prefetch_related("tables", "byes")
    )
    # Each round's standings from what is read here (not the rounds read again per round).
    read = {"rounds_read": rounds, "registrations_read": registrations}
    entries: list[dict[str, Any]] = []
    for rnd in rounds:
        link = reverse("tournaments:round", args=[tournament.slug, rnd.number])
        if rnd.started_at is not None:
            entries.append(_started(rnd, names, link))
        if rnd.status == Round.Status.FINISHED and rnd.finished_at is not None:
            entries.append(_finished(tournament, rnd, names, link, read=read))
    if tournament.status == Tournament.Status.CLOSED and tournament.closed_at is not None:
        finished = any(r.status == Round.Status.FINISHED for r in rounds)
        rows = selectors.standings(tournament=tournament, **read) if finished else []
        entries.append({
            "heading": "Final standings" if rows else "Closed",
            "at": tournament.closed_at,
            "lines": standings_lines(rows, me=None) if rows else ["Closed before any round was played: no standings."],
            "link": reverse("tournaments:detail", args=[tournament.slug]) + "#closed",
        })  # fmt: skip
    entries.sort(key=lambda e: e["at"], reverse=True)
    return entries[:limit]
