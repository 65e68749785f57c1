"""A player downloads everything the site holds about them (``account_export``): the
counterpart of closing the account (``fivex_site.account_close``), for data portability.

Read only, and in a fixed number of queries whatever the player's history (one per kind
of row: a player of 500 games costs what a player of one does). What goes in is the
player's own: their account, seats, the sealed orders their seats sent (the game page
shows a seat its own order; never another seat's order or hand), tournament entries and
results, rating history, the seat offers made to them, the mail the site still keeps to
and from them, what they organize, what they wrote at games' tables and the games they were invited to. What never goes in: the password's hash, two-factor
authentication's key and recovery codes (whether it is on goes in), the API token's and calendar feed's secrets or digests, the seats' reply-address tokens, the
games' seeds and invitation links, and the bodies of emails (a game email holds the
seat's reply address, a live credential; an account email's one-time link is dropped
once sent)."""

from __future__ import annotations

import email.parser
import email.policy
from datetime import UTC, datetime
from typing import Any

from django.db.models import Q
from django.utils import timezone

#: ``format`` and ``version`` of the file: a reader checks them before anything else.
EXPORT_FORMAT = "fivex-account-export"
EXPORT_VERSION = 1


def when(value: datetime | None) -> str | None:
    """A moment as the API writes it: ISO 8601 in UTC, ``Z``; None stays None."""
    if value is None:
        return None
    text = value.astimezone(UTC).isoformat()
    return text.removesuffix("+00:00") + "Z"


def account_export(*, user: Any) -> dict[str, Any]:
    """Everything the site holds about ``user``, as one JSON-ready dict (``format``
    ``fivex-account-export``, ``version`` 1). See the module's docstring for what is
    left out and why."""
    seats = _seats(user)
    registrations = _registrations(user)
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_at": when(timezone.now()),
        "account": _account(user),
        "seats": seats,
        "orders": _orders(user),
        "seat_offers": _offers(user),
        "tournaments": registrations,
        "ratings": _ratings(user),
        "emails_to_you": _emails_to(user),
        "emails_from_you": _emails_from(user),
        "organized": _organized(user),
        "table_talk": _table_talk(user),
        "invitations": _invitations(user),
    }


def _invitations(user: Any) -> list[dict[str, Any]]:
    """The games the player was invited to by name, whether they declined, and whether
    the organizer took the invitation back."""
    from games.models import GameInvitation

    return [
        {
            "game": game_id, "invited_by": by, "invited_at": when(at), "declined_at": when(declined),
            "withdrawn_at": when(withdrawn),
        }
        for game_id, by, at, declined, withdrawn in GameInvitation.objects.filter(user=user)
        .order_by("id")
        .values_list(
            "game_id", "invited_by__username", "created_at", "declined_at", "withdrawn_at"
        )
    ]  # fmt: skip


def _table_talk(user: Any) -> list[dict[str, Any]]:
    """What the player wrote at games' tables, removed messages too (their own words)."""
    from games.selectors_talk import own_messages

    return [
        {
            "game": m.game_id, "seat": m.seat_name, "text": m.text, "created_at": when(m.created_at),
            "removed_at": when(m.removed_at),
        }
        for m in own_messages(user=user)
    ]  # fmt: skip


def _account(user: Any) -> dict[str, Any]:
    from allauth.account.models import EmailAddress

    from fivex_site.two_factor import two_factor_state
    from games.models import ApiToken, PlayerSettings
    from games.models_webhooks import PlayerWebhook

    addresses = [
        {"email": row.email, "verified": row.verified, "primary": row.primary}
        for row in EmailAddress.objects.filter(user=user).order_by("-primary", "email")
    ]
    if user.email and not any(a["email"].lower() == user.email.lower() for a in addresses):
        # An address set before allauth knew it (the admin, an old account): unverified.
        addresses.insert(0, {"email": user.email, "verified": False, "primary": True})
    player = PlayerSettings.objects.filter(user=user).first()
    token = ApiToken.objects.filter(user=user).values_list("created", flat=True).first()
    hook = PlayerWebhook.objects.filter(user=user).first()
    return {
        "player_name": user.get_username(),
        "first_name": user.first_name,
        "last_name": user.last_name,
        "date_joined": when(user.date_joined),
        "last_login": when(user.last_login),
        "site_administrator": bool(user.is_staff),
        "email_addresses": addresses,
        "time_zone": (player.time_zone if player else "") or None,
        "email_every_prompt": player.email_every_prompt if player else True,
        "away_until": when(player.away_until if player else None),
        "invitations": player.invitations if player else PlayerSettings.Invitations.ANYONE,
        "turn_emails": player.turn_emails if player else PlayerSettings.TurnEmails.EACH,
        "summary_hour": player.summary_hour if player else 8,
        # Whether they exist, never their secrets (nor the digests kept of them).
        "api_token": {"exists": token is not None, "created": when(token)},
        "calendar_feed": {"exists": bool(player and player.calendar_digest)},
        # The address it set (its own to see, as its page shows it), never the secret.
        "webhook": {
            "exists": hook is not None,
            "url": hook.url if hook else None,
            "active": hook.active if hook else None,
            "created": when(hook.created if hook else None),
        },
        # Whether it is on, never the app's key nor the recovery codes.
        "two_factor": two_factor_state(user=user),
        # Where the account is logged in (the Sessions page), never a session's key.
        "sessions": _sessions(user),
    }


def _sessions(user: Any) -> list[dict[str, Any]]:
    """The account's log-ins still kept (allauth.usersessions): when, from which address
    and browser."""
    from allauth.usersessions.models import UserSession

    return [
        {"logged_in": when(created), "ip": ip, "user_agent": agent}
        for created, ip, agent in UserSession.objects.filter(user=user)
        .order_by("created_at")
        .values_list("created_at", "ip", "user_agent")
    ]


#: The columns a game's entry reads (not its setup, options or seed: a big deal or a
#: secret, read for 500 games for nothing).
GAME_FIELDS = ("id", "name", "ruleset", "status", "created_at", "started_at", "finished_at")
SEAT_FIELDS = ("id", "game_id", "name", "position", "status", "joined_at", "left_at", "email_every_prompt")


def _game(game: Any) -> dict[str, Any]:
    """What the export says of a game: what its page shows anyone who may see it."""
    return {
        "id": game.pk,
        "title": game.title,
        "ruleset": game.ruleset,
        "status": game.status,
        "created_at": when(game.created_at),
        "started_at": when(game.started_at),
        "finished_at": when(game.finished_at),
    }


def _seats(user: Any) -> list[dict[str, Any]]:
    from games.models import Seat
    from games.presentation import place_of
    from games.selectors import OVER

    rows = (
        Seat.objects.filter(user=user)
        .select_related("game")
        .only(*SEAT_FIELDS, *(f"game__{name}" for name in GAME_FIELDS), "game__ranking")
        .order_by("game_id", "joined_at", "pk")
    )
    out = []
    for seat in rows:
        game = seat.game
        # A seat handed to another player finished in their hands, not this player's.
        over = game.status in OVER and game.ranking and seat.status != Seat.Status.REPLACED
        out.append({
            "game": _game(game),
            "seat": seat.name,
            "position": seat.position,
            "status": seat.status,
            "joined_at": when(seat.joined_at),
            "left_at": when(seat.left_at),
            "email_every_prompt": seat.email_every_prompt,
            "result": (place_of(game.ranking, seat.name) or None) if over else None,
        })  # fmt: skip
    return out


def _orders(user: Any) -> list[dict[str, Any]]:
    """The sealed orders the player's seats sent (or had entered for them: a default or
    forced order), each with its commitment and salt: a seat's own, as its game page
    shows it. A seat handed over shows nothing of a prompt still open (as its page no
    longer does); another seat's order is never read here."""
    from games.models import Prompt, SealedOrder, Seat

    rows = (
        SealedOrder.objects.filter(seat__user=user)
        .exclude(seat__status=Seat.Status.REPLACED, prompt__status=Prompt.Status.OPEN)
        .order_by("prompt__game_id", "prompt__number", "submitted_at", "pk")
        .values(
            "prompt__game_id", "prompt__number", "prompt__round", "prompt__phase", "seat_name",
            "text", "source", "submitted_at", "commitment", "salt", "is_current",
        )
    )  # fmt: skip
    return [
        {
            "game": row["prompt__game_id"],
            "prompt": row["prompt__number"],
            "round": row["prompt__round"],
            "phase": row["prompt__phase"],
            "seat": row["seat_name"],
            "text": row["text"],
            "source": row["source"],
            "submitted_at": when(row["submitted_at"]),
            "commitment": row["commitment"],
            "salt": row["salt"],
            # False: replaced by a later order of the seat (or withdrawn at a handover).
            "current": row["is_current"],
        }
        for row in rows
    ]


def _offers(user: Any) -> list[dict[str, Any]]:
    from games.models import SeatOffer

    rows = SeatOffer.objects.filter(to_user=user).select_related("game", "seat", "by").order_by("created_at", "pk")
    out = []
    for offer in rows:
        by_organizer = offer.by_organizer
        out.append({
            "game": offer.game_id,
            "game_title": offer.game.title,
            "seat": offer.seat.name,
            # A site administrator unnamed, as the offer's page says it.
            "offered_as": "organizer" if by_organizer else "staff",
            "offered_by": offer.by.get_username() if by_organizer else None,
            "status": offer.status,
            "created_at": when(offer.created_at),
            "decided_at": when(offer.decided_at),
        })  # fmt: skip
    return out


def _place_at(ranking: Any, registration_id: int) -> str | None:
    """Where a registration finished at a table (groups of registration ids, best first)."""
    from games.presentation import place_of

    return place_of(ranking, registration_id) or None


def _registrations(user: Any) -> list[dict[str, Any]]:
    """The player's tournament entries: the tournament, the entry, and each round they
    sat at a table in (its game and their place) or had a bye in."""
    from tournaments.models import Bye, Registration, Table

    registrations = list(
        Registration.objects.filter(user=user).select_related("tournament").order_by("registered_at", "pk")
    )
    if not registrations:
        return []
    ids = {reg.pk for reg in registrations}
    tables: dict[int, list[dict[str, Any]]] = {pk: [] for pk in ids}
    # The tables of those tournaments, read once: ``players`` holds registration ids.
    for table in (
        Table.objects.filter(round__tournament_id__in={reg.tournament_id for reg in registrations})
        .order_by("round__number", "number")
        .values("round__number", "number", "players", "game_id", "ranking", "result_source")
    ):
        for pk in ids.intersection(table["players"] or []):
            tables[pk].append({
                "round": table["round__number"],
                "table": table["number"],
                "game": table["game_id"],
                "place": _place_at(table["ranking"], pk) if table["ranking"] else None,
                "result_source": table["result_source"] or None,
            })  # fmt: skip
    byes: dict[int, list[dict[str, Any]]] = {pk: [] for pk in ids}
    for bye in Bye.objects.filter(registration_id__in=ids).order_by("round__number").values(
        "registration_id", "round__number", "kind", "points"
    ):
        byes[bye["registration_id"]].append(
            {"round": bye["round__number"], "kind": bye["kind"], "points": bye["points"]}
        )
    return [
        {
            "tournament": {
                "slug": reg.tournament.slug,
                "name": reg.tournament.name,
                "ruleset": reg.tournament.ruleset,
                "status": reg.tournament.status,
            },
            "status": reg.status,
            "registered_at": when(reg.registered_at),
            "first_round": reg.first_round,
            "withdrawn_after_round": reg.withdrawn_after_round,
            "requested_byes": reg.requested_byes,
            "tables": tables[reg.pk],
            "byes": byes[reg.pk],
        }
        for reg in registrations
    ]


def _ratings(user: Any) -> list[dict[str, Any]]:
    from tournaments.models import RatingEntry

    return [
        {
            "pool": row["pool"],
            "seq": row["seq"],
            "game": row["game_id"],
            "rating_before": row["rating_before"],
            "expected": row["expected"],
            "actual": row["actual"],
            "k": row["k"],
            "rating_after": row["rating_after"],
            "created_at": when(row["created_at"]),
        }
        for row in RatingEntry.objects.filter(user=user).order_by("pool", "seq", "pk").values(
            "pool", "seq", "game_id", "rating_before", "expected", "actual", "k", "rating_after",
            "created_at",
        )
    ]  # fmt: skip


def mail_to(user: Any) -> Q:
    """The outbox rows that went to the account: recorded against it when queued (to one
    of its seats, or to an address that was its verified one then), or, queued before
    that was recorded, to one of its seats. Never matched on an address as it stands
    now: an address another player gave up and this one verified later would give them
    the first player's mail."""
    return Q(user=user) | Q(user__isnull=True, seat__user=user)


def mail_from(user: Any) -> Q:
    """The inbound messages the account sent: to one of its seats' reply addresses, or
    from an address that was its verified one when the message came (recorded then)."""
    return Q(sender_user=user) | Q(seat__user=user)


def _emails_to(user: Any) -> list[dict[str, Any]]:
    """The emails the site still keeps that went (or are going) to the player
    (``mail_to``). Their headers, not their bodies."""
    from games.models import OutboxMessage

    rows = OutboxMessage.objects.filter(mail_to(user)).order_by("created_at", "pk").values(
        "to", "subject", "kind", "status", "game_id", "created_at", "sent_at"
    )
    return [
        {
            "to": row["to"],
            "subject": row["subject"],
            "kind": row["kind"],
            "status": row["status"],
            "game": row["game_id"],
            "created_at": when(row["created_at"]),
            "sent_at": when(row["sent_at"]),
        }
        for row in rows
    ]


def _subject(raw: Any) -> str:
    """The Subject of a kept inbound message (its header section only is read)."""
    try:
        headers = email.parser.BytesHeaderParser(policy=email.policy.default).parsebytes(bytes(raw))
        return str(headers.get("Subject") or "")
    except Exception:  # noqa: BLE001 - a malformed header: the rest of the export stands
        return ""


def _emails_from(user: Any) -> list[dict[str, Any]]:
    """The messages the site still keeps that the player sent in (orders by email,
    ``mail_from``). When, the subject, and what became of it; not the message itself
    (its headers name the seat's reply address, a credential)."""
    from games.mail.models import InboundMail

    rows = InboundMail.objects.filter(mail_from(user)).order_by("created_at", "pk").values(
        "message_id", "sender", "raw", "seat__user_id", "seat__game_id", "status", "outcome",
        "created_at", "processed_at",
    )  # fmt: skip
    return [
        {
            "message_id": row["message_id"],
            "sender": row["sender"],
            "subject": _subject(row["raw"]),
            # The game only when the message went to a seat of theirs.
            "game": row["seat__game_id"] if row["seat__user_id"] == user.pk else None,
            "status": row["status"],
            "outcome": row["outcome"],
            "received_at": when(row["created_at"]),
            "processed_at": when(row["processed_at"]),
        }
        for row in rows
    ]


def _organized(user: Any) -> dict[str, Any]:
    """The games and tournaments the player organizes, and the organizer's actions they
    took in them (as the games' logs and the tournaments' logs record them)."""
    from games.models import Game, LogEntry
    from tournaments.models import Tournament, TournamentLog

    games = [_game(game) for game in Game.objects.filter(organizer=user).only(*GAME_FIELDS).order_by("created_at", "pk")]
    tournaments = [
        {
            "slug": row["slug"],
            "name": row["name"],
            "ruleset": row["ruleset"],
            "status": row["status"],
            "created_at": when(row["created_at"]),
        }
        for row in Tournament.objects.filter(organizer=user).order_by("created_at", "pk").values(
            "slug", "name", "ruleset", "status", "created_at"
        )
    ]
    game_actions = [
        {"game": row["game_id"], "seq": row["seq"], "kind": row["kind"], "at": when(row["created_at"])}
        for row in LogEntry.objects.filter(game__organizer=user, payload__as="organizer")
        .order_by("game_id", "seq")
        .values("game_id", "seq", "kind", "created_at")
    ]
    tournament_actions = [
        {"tournament": row["tournament__slug"], "seq": row["seq"], "kind": row["kind"],
         "at": when(row["created_at"])}
        for row in TournamentLog.objects.filter(actor=user)
        .order_by("tournament_id", "seq")
        .values("tournament__slug", "seq", "kind", "created_at")
    ]  # fmt: skip
    return {
        "games": games,
        "tournaments": tournaments,
        "game_actions": game_actions,
        "tournament_actions": tournament_actions,
    }
