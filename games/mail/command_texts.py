"""The texts answering the gateway's commands (HELP, STATUS, SHOW, QUIET, ALL), and a
message for a game that is over (its ranking, its page and log).

Secrecy: built from the seat's own view only (``games.selectors.seat_view``); once a
game is over without its rules ending it, the orders sealed and not revealed stay sealed.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from games.mail.reply_texts import _when, legal_orders_text
from games.presentation import and_list, event_text, prompt_stage
from games.rules_text import FORCED_NOTES


def finished_text(game: Any, *, details: bool = False) -> str:
    """An answer to a message for a game that is over; ``details`` (no command asked for
    more): its final ranking and where to read the rest (an order sent after the end got
    the one line)."""
    from games.services.notifications import game_url

    head = (
        "This game is over: orders are no longer accepted."
        if str(game.status) == "finished"
        else "This game was ended early: orders are no longer accepted."
    )
    if not details:
        return head
    ranking = final_ranking_lines(game) if str(game.status) == "finished" else []
    tail = f"The game's page: {game_url(game)} (or send STATUS)."
    return "\n\n".join([head, *(["\n".join(ranking)] if ranking else []), tail])


def final_ranking_lines(game: Any) -> list[str]:
    """A finished game's ranking as its last turn email gives it ("1. ann", "2. bob, cy":
    tied seats share a place); empty without one."""
    from games.templatetags.games_extras import placed

    lines = []
    for place, group in placed(game.ranking or []):
        names = group if isinstance(group, list | tuple) else [group]
        lines.append(f"{place}. {', '.join(str(n) for n in names)}")
    return ["Final ranking:", *lines] if lines else []


def game_over_text(seat: Any, command: str) -> str:
    """A command's answer once the game is over. Finished: every order has been revealed
    by the rules, so STATUS gives the final ranking, the seat's last view and the log.
    Abandoned, or won by walkover: the last prompt's sealed orders were never revealed and
    stay sealed, so no command shows a view or an order, only the game's page."""
    from games.services.notifications import game_url

    game = seat.game
    url = game_url(game)
    if str(game.status) != "finished":
        return (
            f"{command}: the game was ended early, without a ranking; orders sealed and not "
            f"revealed stay sealed. The game's page: {url}"
        )
    if game.end_reason:  # a walkover: over before its rules ended it
        return (
            f"{command}: the game is over ({game.end_reason}); orders sealed for the decision "
            f"that was open stay sealed. The game's page: {url}"
        )
    log = f"{url}log/"
    if command == "STATUS":
        ranking = final_ranking_lines(game)
        parts = [status_text(seat), "\n".join(ranking)] if ranking else [status_text(seat)]
        return "\n\n".join([*parts, f"The game's page: {url}\nIts log, every order revealed: {log}"])
    if command == "HELP":
        return (
            "HELP: no orders are asked any more. STATUS gives the final ranking; every "
            f"order of the game is in its log: {log}"
        )
    if command == "SHOW":
        return f"SHOW: no order is open any more. Every order of the game, yours too, is in its log: {log}"
    return f"{command}: the game is over; it sends no more emails."


def show_text(seat: Any) -> str:
    """SHOW: the seat's current order and its receipt."""
    from games.selectors import current_order

    order = current_order(seat=seat)
    if order is None:
        return "SHOW: you have no order for the current prompt."
    lines = ["SHOW: your current order:", ""]
    lines += [f"    {line}" for line in order.text.strip().splitlines()]
    lines += [
        "",
        f"Receipt (SHA-256 commitment): {order.commitment}",
        f"Submitted: {_when(order.submitted_at)} "
        f"({_source_words(order.source, seat.game.ruleset)})",
    ]
    return "\n".join(lines)


def _forced_words(ruleset: str) -> str:
    """STATUS: why the seat's order was entered for it."""
    note = FORCED_NOTES.get(ruleset)
    return f" (entered for you: {note})" if note else " (your only legal order, entered for you)"


def _source_words(source: str, ruleset: str) -> str:
    """How an order came in, for SHOW."""
    if source == "forced":
        return f"entered for you: {FORCED_NOTES.get(ruleset) or 'your only legal order'}"
    if source == "default":
        return "the default order"
    return f"by {source}"


def status_text(seat: Any) -> str:
    """STATUS: the seat's own view of the game (``seat_view``) as the turn emails show
    it, then the seats, the open prompt, the seat's order and the latest events."""
    from games.email_text import email_legal_lines, view_as_text
    from games.selectors import seat_view

    view = dict(seat_view(seat=seat))
    wrapper = {k: view.pop(k, None) for k in ("game", "seat", "prompt", "my_order", "legal_orders", "events")}
    view.pop("view", None)
    lines = ["STATUS: your view of the game", ""]
    if view:
        lines += [view_as_text(ruleset=seat.game.ruleset, view=view, seat_name=seat.name), ""]
    seats = (wrapper["game"] or {}).get("seats") or []
    names = [s["name"] + ("" if s["status"] == "active" else f" ({s['status']})") for s in seats]
    lines.append("Seats: " + (", ".join(names) or "none yet"))
    prompt = wrapper["prompt"]
    if prompt:
        deadline = prompt.get("deadline")
        when = _when(datetime.fromisoformat(deadline)) if deadline else "none"
        waiting = [p for p in prompt.get("pending") or [] if p not in (prompt.get("ready") or [])]
        # As the turn emails say it ("prompt 4 (turn 4)"), and "you" to the seat itself.
        stage = prompt_stage(ruleset=seat.game.ruleset, round_number=prompt["round"],
                             phase=prompt["phase"])
        waiting = ["you" if name == seat.name else name for name in waiting]
        lines.append(
            f"Decision {prompt['number']} ({stage}), deadline {when}: "
            + (f"waiting for {and_list(waiting)}." if waiting else "every order is in.")
        )
        order = wrapper["my_order"]
        lines.append(
            f"Your order: {order['text']}"
            + (_forced_words(seat.game.ruleset) if order["source"] == "forced" else "")
            if order
            else "You have no order for it."
        )
    if wrapper["legal_orders"]:
        listed = email_legal_lines(seat.game.ruleset, wrapper["legal_orders"], view or None, seat.name)
        lines += ["Legal orders now:", *(f"    {line}" for line in listed)]
    # as the turn emails write them (4X Dice's dice "0/1", not the log's "[0, 1]")
    over = str(seat.game.status) == "finished"
    events = [event_text(ruleset=seat.game.ruleset, text=e["text"],
                         board=view.get("board") if over else None)
              for e in wrapper["events"] or [] if e.get("text")]
    if events:
        lines += ["Last prompt:", *(f"- {text}" for text in events)]
    return "\n".join(lines)


def absence_text(seat: Any, command: str, *, foreign: bool = False) -> str:
    """``AWAY <day>`` or ``BACK``: the seat's player says until when they are away (as on
    their settings page; whatever the game), and the answer says what it does.
    ``foreign``: the message came from another address than the player's: nothing is
    changed. The seat's address orders for that seat; being away holds or frees the
    deadlines of every game of the player's, which a leaked address of one game must not
    reach (a stranger's BACK had a player's defaults played everywhere)."""
    from datetime import date

    from games.errors import ValidationError
    from games.presentation import away_end_words
    from games.selectors_players import time_zone_of
    from games.services.away import player_away_set

    if foreign:
        return (
            f"{command}: being away changes every game of yours, so it is taken only from "
            "your account address (or another address you verified on the site), or on "
            "your settings page. Nothing was changed."
        )
    if command != "BACK" and not re.fullmatch(r"AWAY \d{4}-\d{2}-\d{2}", command):
        # "AWAY 5 DECEMBER", "AWAY": nothing is guessed (05/12 is May or December).
        return (
            f"{command}: write the last day you are away as year-month-day, AWAY 2026-12-05 "
            "(or AWAY UNTIL 2026-12-05), alone on a line. Nothing was changed."
        )
    try:
        day = None if command == "BACK" else date.fromisoformat(command.split()[-1])
        until = player_away_set(user=seat.user, until=day)
    except ValueError:
        return f"{command}: that is no day of the calendar; nothing was changed."
    except ValidationError as exc:
        return f"{command}: {exc.message} Nothing was changed."
    if until is None:
        return "BACK: you are not away any more: deadlines are as their games set them."
    return (
        f"{command}: you are away until {away_end_words(until, time_zone_of(user=seat.user))}."
        " The games made to wait for "
        "players who are away move a deadline passing meanwhile to your return (each as long "
        "as it allows); the others play your default orders as usual. Send BACK when you are."
    )


def command_text(seat: Any, command: str) -> str:
    """The answer to one command line."""
    if command == "HELP":
        return "HELP: " + legal_orders_text(seat)
    if command == "STATUS":
        return status_text(seat)
    if command == "QUIET":
        return (
            "QUIET: from now on you get only the emails that ask for your order in this game "
            "(and its start, its end, reminders and notices). Send ALL for an email after "
            "every decision again."
        )
    if command == "ALL":
        return "ALL: from now on you get an email after every decision of this game."
    return show_text(seat)
