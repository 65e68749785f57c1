"""A player closes their own account: what it holds now (``account_close_summary``, the
confirmation page's list) and the closing itself (``account_close``).

The player name stays: it is the seat's name in hash-chained game logs and in the ratings
history, which cannot be rewritten, so the account row stays too, inactive, and nobody
can take the name again (sign-up's rules find it taken). What is the player's own and in
no game record goes: the addresses, the password, the settings, the keys to their games
and the mail the site kept of them. Their games go on without them as a resignation
leaves them."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, Q

from engine.words import counted
from games.errors import ApplicationError, GameBusy, GameStateError

logger = logging.getLogger(__name__)

GOING_ON = ("active", "paused")


class AccountClosed(ApplicationError):
    """The account was closed already (a second click, another tab): nothing changes."""

    default_code = "account_closed"


class LastSuperuser(ApplicationError):
    """The only active superuser cannot close the account: nobody could run the site."""

    default_code = "last_superuser"


@dataclass
class ClosingSummary:
    """What closing the account does: the seats it resigns and leaves, the seat offers it
    declines, the registrations it withdraws, and what it organizes (which goes on)."""

    resign: list[Any] = field(default_factory=list)  # Seat rows in games going on
    leave: list[Any] = field(default_factory=list)  # Seat rows in games still forming
    offers: list[Any] = field(default_factory=list)  # SeatOffer rows waiting for an answer
    withdraw: list[Any] = field(default_factory=list)  # Registration rows, tournament open
    organized_games: list[Any] = field(default_factory=list)  # going on without the player
    cancel: list[Any] = field(default_factory=list)  # forming, and nobody else has joined
    organized_tournaments: list[Any] = field(default_factory=list)

    @property
    def leave_open(self) -> list[Any]:
        """The seats left in games that stay open for other players (not cancelled)."""
        cancelled = {game.pk for game in self.cancel}
        return [seat for seat in self.leave if seat.game_id not in cancelled]


def account_close_summary(*, user: Any) -> ClosingSummary:
    """What ``user`` plays, has been offered, entered and organizes now: what closing the
    account would resign, leave, decline, withdraw from, and leave running."""
    from games.models import Game, Seat, SeatOffer
    from tournaments.models import Registration, Tournament

    seats = Seat.objects.filter(user=user).select_related("game").order_by("game_id")
    organized = list(
        Game.objects.filter(organizer=user, status__in=(Game.Status.FORMING, *GOING_ON))
        .annotate(others=Count("seats", filter=~Q(seats__user=user)))
        .order_by("pk")
    )
    return ClosingSummary(
        resign=list(seats.filter(status=Seat.Status.ACTIVE, game__status__in=GOING_ON)),
        leave=list(seats.filter(game__status=Game.Status.FORMING)),
        offers=list(
            SeatOffer.objects.filter(
                to_user=user, status=SeatOffer.Status.PENDING, game__status__in=GOING_ON
            )
            .select_related("game", "seat", "by")
            .order_by("game_id")
        ),
        withdraw=list(
            Registration.objects.filter(user=user, status=Registration.Status.ACTIVE)
            .exclude(tournament__status=Tournament.Status.CLOSED)
            .select_related("tournament")
            .order_by("tournament_id")
        ),
        organized_games=[g for g in organized if not _empty_forming(g)],
        cancel=[g for g in organized if _empty_forming(g)],
        organized_tournaments=list(
            Tournament.objects.filter(organizer=user)
            .exclude(status=Tournament.Status.CLOSED)
            .order_by("pk")
        ),
    )


def _empty_forming(game: Any) -> bool:
    """A game still forming that nobody but its organizer has joined: closing the
    organizer's account cancels it (it would wait on the open list for players, with
    nobody to start it)."""
    return game.status == game.Status.FORMING and not game.others


@dataclass
class Closed:
    """What ``account_close`` did: the games resigned and left, the tournaments withdrawn
    from (their titles, for the page that says so)."""

    name: str
    resigned: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)
    declined: list[str] = field(default_factory=list)  # "seat dan in League 7"
    withdrawn: list[str] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)  # forming games nobody else joined


def _each(rows: list[Any], act: Any) -> list[Any]:
    """``act(row)`` for each row; a row whose game or tournament moved on meanwhile (over,
    resigned already: an ApplicationError) is skipped. A game too busy to lock stops the
    whole closing (GameBusy): the account is closed completely or not at all."""
    done = []
    for row in rows:
        try:
            act(row)
        except GameBusy:
            raise
        except ApplicationError:
            continue
        done.append(row)
    return done


def account_close(*, user: Any) -> Closed:
    """Close ``user``'s account, at the player's own request, in one transaction:

    - the account is deactivated and its password made unusable: no login, and every
      session of it (in any browser) is logged out at its next request; its API token,
      calendar feed and seats' reply addresses stop working, its webhook is deleted, and
      its two-factor authentication (the app's key, the recovery codes) is removed;
    - its seats in games going on resign (``seat_resign``: logged ``seat_resigned``, its
      default orders from then on), it leaves the games still forming (``game_leave``),
      declines the seats offered to it and withdraws from the tournaments not closed
      (``registration_withdraw``); a game it organizes that is still forming and that
      nobody else joined is ended (``game_end``, abandoned: nobody would start it); the
      rest of what it organizes goes on (staff hold the organizer's tools in every game);
    - the emails still waiting to go to it are dropped (as ``account_deactivated`` does),
      then its addresses (``User.email``, every allauth address), names and settings are
      erased, and the mail the site kept to and from its own addresses (``_own_addresses``:
      verified, never one it only added) and its seats.

    The player name stays, reserved: it is in the game logs and ratings. No address is
    written to any log. Raises AccountClosed when the account is closed already, GameBusy
    when a game stays locked (nothing changed then)."""
    from allauth.account.models import EmailAddress

    from fivex_site.two_factor import two_factor_remove
    from games.models import GameInvitation, PlayerSettings, TalkRead, TurnSummary
    from games.services.games import game_leave, seat_resign
    from games.services.handover import seat_offer_decline
    from games.services.players import calendar_feed_revoke
    from games.services.seats import mail_tokens_rotate_for_user
    from games.services.talk import talk_erase_for_user
    from games.services.tokens import api_token_revoke
    from games.services.webhooks import webhook_remove
    from tournaments.services.tournaments import registration_withdraw

    with transaction.atomic():
        user = _lock_account(user_pk=user.pk)
        if not user.is_active:
            raise AccountClosed("This account is closed already: nothing was changed.")
        if user.is_superuser and not _other_superuser(user):
            raise LastSuperuser(
                "You are the site's only active superuser: make another account a superuser "
                "(in the admin) before you close yours, or nobody can run the site.",
            )
        addresses = _own_addresses(user)
        # Inactive first: the notices the resignations send skip it (``mailable``).
        user.is_active = False
        # A site administrator's rights go with the account (an account reopened in the
        # admin one day does not get them back unseen).
        user.is_staff = user.is_superuser = False
        user.set_unusable_password()
        user.save(update_fields=["is_active", "is_staff", "is_superuser", "password"])
        api_token_revoke(user=user)
        calendar_feed_revoke(user=user)
        webhook_remove(user=user)  # and its deliveries still waiting
        mail_tokens_rotate_for_user(user=user)
        talk_erase_for_user(user=user)
        # Invitations to games by name: nothing to keep (the organizer's list drops them).
        GameInvitation.objects.filter(user=user).delete()
        TalkRead.objects.filter(user=user).delete()  # how far they read each table's talk
        from allauth.usersessions.models import UserSession

        UserSession.objects.filter(user=user).delete()  # where they logged in from
        two_factor_remove(user=user)  # its authenticator app's key and recovery codes

        plans = account_close_summary(user=user)
        resigned = _each(plans.resign, lambda seat: seat_resign(seat=seat))
        left = _each(plans.leave, lambda seat: game_leave(game=seat.game, user=user))
        declined = _each(plans.offers, lambda offer: seat_offer_decline(offer=offer, by=user))
        cancelled = _each(plans.cancel, lambda game: _cancel(game=game, user=user))
        # After the resignations: a withdrawal tells the opponents of games the player
        # still plays, and there are none left.
        withdrawn = _each(
            plans.withdraw, lambda reg: registration_withdraw(registration=reg, by=user)
        )

        # Queued before or by the steps above (an account email, a last notice).
        _mail_drop(user=user, addresses=addresses)
        _mail_erase(user=user, addresses=addresses)
        EmailAddress.objects.filter(user=user).delete()
        PlayerSettings.objects.filter(user=user).delete()
        TurnSummary.objects.filter(user=user).delete()  # what its daily summaries told
        user.email = user.first_name = user.last_name = ""
        user.save(update_fields=["email", "first_name", "last_name"])
        # The account's id and public name only: never an address.
        logger.info(
            "account %s (%s) closed by its player: %s resigned, %d left, %s withdrawn",
            user.pk, user.get_username(), counted(len(resigned), "seat"), len(left),
            counted(len(withdrawn), "tournament"),
        )  # fmt: skip
    return Closed(
        name=user.get_username(),
        resigned=[seat.game.title for seat in resigned],
        left=[seat.game.title for seat in left],
        declined=[f"seat {offer.seat.name} in {offer.game.title}" for offer in declined],
        withdrawn=[reg.tournament.name for reg in withdrawn],
        cancelled=[game.title for game in cancelled],
    )


CANCELLED = "its organizer closed their account before anyone else joined"


def _cancel(*, game: Any, user: Any) -> None:
    """End (abandoned, logged ``game_ended`` with ``CANCELLED``) a forming game ``user``
    organizes, if nobody holds a seat in it now (the organizer's own was left just
    before). A player who joined since the summary was read keeps it forming (it goes
    on as the other games organized do): GameStateError, skipped."""
    from games.models import Seat
    from games.services.locking import lock_game
    from games.services.organizer import game_end

    with transaction.atomic():
        game = lock_game(game_id=game.pk)
        if game.status != game.Status.FORMING or Seat.objects.filter(game=game).exists():
            raise GameStateError("Somebody joined meanwhile: the game stays open.")
        game_end(game=game, by=user, reason=CANCELLED)


def _own_addresses(user: Any) -> list[str]:
    """The addresses whose mail is the player's to drop and erase: the verified ones, and
    the account's email if no other account has it. Anyone may add an address to their
    account unverified: matching on those, closing failed another player's queued turn
    emails and deleted their kept mail (a security review)."""
    from allauth.account.models import EmailAddress

    own = set(EmailAddress.objects.filter(user=user, verified=True).values_list("email", flat=True))
    if user.email and not (
        EmailAddress.objects.filter(email__iexact=user.email).exclude(user=user).exists()
        or get_user_model().objects.filter(email__iexact=user.email).exclude(pk=user.pk).exists()
    ):
        own.add(user.email)
    return sorted(own - {""})


def _lock_account(*, user_pk: int) -> Any:
    """The account's row, locked against a second closing. ``FOR NO KEY UPDATE``: a
    transaction that holds a game's or tournament's lock and inserts a row pointing at
    the account (a seat, a rating entry, a log entry naming it) takes a key-share lock on
    it, which ``FOR UPDATE`` would block while the closing waits for that game's lock: a
    deadlock (a review found it)."""
    return get_user_model().objects.select_for_update(no_key=True).get(pk=user_pk)


def _other_superuser(user: Any) -> bool:
    return get_user_model().objects.filter(is_superuser=True, is_active=True).exclude(pk=user.pk).exists()


def _mail_drop(*, user: Any, addresses: list[str]) -> None:
    """Fail the emails still waiting to go to the player (to one of its seats or its own
    addresses, ``_own_addresses``), "account deactivated", as ``account_deactivated`` does
    for an account staff deactivate."""
    from games.models import OutboxMessage

    to_them = Q(seat__user=user)
    for address in addresses:
        to_them |= Q(to__iexact=address)
    OutboxMessage.objects.filter(
        to_them, status__in=OutboxMessage.UNSENT
    ).update(status=OutboxMessage.Status.FAILED, last_error="account deactivated", next_attempt_at=None)


def _mail_erase(*, user: Any, addresses: list[str]) -> None:
    """Delete the mail the site kept to and from the player (``MAIL_RETENTION_DAYS``
    would, later): the emails sent to its addresses or failed for good (the ones dropped
    just before among them), and the messages it sent in that were dealt with. A message
    still to be read stays until it is (then refused: the account is closed) and pruned."""
    from fivex_site.account_export import mail_from, mail_to
    from games.mail.models import InboundMail
    from games.models import OutboxMessage
    from games.services.retention import OUTBOX_DONE, inbound_done

    # The mail recorded as the player's (``account_export.mail_to``/``mail_from``), and
    # mail kept from before that was recorded to or from its addresses; never a row
    # recorded as another account's (an address it had before this player verified it).
    to_them, from_them = mail_to(user), mail_from(user)
    for address in addresses:
        to_them |= Q(user__isnull=True, to__iexact=address)
        from_them |= Q(sender_user__isnull=True) & (Q(sender__iexact=address) | Q(envelope_sender__iexact=address))
    OutboxMessage.objects.filter(to_them, status__in=OUTBOX_DONE).delete()
    InboundMail.objects.filter(from_them).filter(inbound_done()).delete()
