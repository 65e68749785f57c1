"""The tournament organizer's API: what the organizer's panel (``tournaments.panel``) and
the new tournament form do, for a league's bot or a script, through the same services
with the same checks, caps and audit-log entries.

    POST /api/tournaments/                                       create (a draft)
    GET  /api/tournaments/{slug}/organizer/                      the organizer's view
    POST /api/tournaments/{slug}/open/                           open for registration
    POST /api/tournaments/{slug}/rename/                         {"name": "…"}, until round 1
    POST /api/tournaments/{slug}/delete/                         {"confirm": true}: a draft
    POST /api/tournaments/{slug}/registrations/                  {"player": "ann"}: enter a player
    POST /api/tournaments/{slug}/registrations/{player}/withdraw/
    POST /api/tournaments/{slug}/rounds/                         pair the next round
    POST /api/tournaments/{slug}/rounds/by-hand/                 pair it (or re-pair it) by hand
    POST /api/tournaments/{slug}/rounds/{n}/repair/              pair the paired round again
    POST /api/tournaments/{slug}/rounds/{n}/start/               start its games
    POST /api/tournaments/{slug}/rounds/{n}/remind/              remind who is to order
    POST /api/tournaments/{slug}/rounds/{n}/extend/              extend its games' deadlines
    POST /api/tournaments/{slug}/rounds/{n}/tables/{t}/result/   enter or correct a result
    POST /api/tournaments/{slug}/close/                          {"confirm": true}

Each call checks, in this order: the tournament exists and the caller may see it (404; a
draft is its organizer's), the caller organizes it or is staff (403), the body (400,
the field named), then the service under the tournament's lock (409 with its message:
``conflict``, ``already_done`` for what was done already, ``withdrawn_since_pairing``,
``pairing_warnings``). Each answers with the organizer's view, as it stands after the
call. POSTs count against ``API_ORGANIZER_RATE``, as the games' organizer tools do."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django import forms as django_forms
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers as drf_serializers
from rest_framework import status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from fivex_site.links import public_url
from games.api import serializers as game_serializers
from games.api.base import BODY_ERRORS, BaseAPIView, location_header
from games.api.game_views import IDEMPOTENCY_KEY_SCHEMA, _create_key
from games.api.input_serializers import EmptyInputSerializer
from games.api.organizer_views import OrganizerThrottle
from games.errors import ApplicationError, GameStateError, NotFound, PermissionDenied
from games.selectors_players import NAME_NOT_ADDRESS, did_you_mean, player_by_name_or_email
from tournaments import api_organizer_serializers as o
from tournaments import selectors
from tournaments.api import TournamentListView, _when, tournament_payload
from tournaments.forms import parse_ranking, parse_tables
from tournaments.models import Registration, Round, Table, Tournament
from tournaments.services import results, rounds
from tournaments.services import tournaments as tsvc
from tournaments.services.common import TournamentError, is_league_administrator
from tournaments.text import name_shown

#: A pairing by hand with warnings, not forced: nothing was saved.
PAIRING_WARNINGS = "pairing_warnings"

#: What a log entry keeps and the API does not show: a pairing's input and output (the
#: panel shows them; long), an extension's request key and fingerprint (its retries').
LOG_NOT_SHOWN = ("input", "output", "key", "asked")

_ERR = game_serializers.ErrorSerializer
ERRORS = {
    400: OpenApiResponse(_ERR, description="Malformed request (`fields` names the input)"),
    401: OpenApiResponse(_ERR, description="Not authenticated"),
    403: OpenApiResponse(_ERR, description="Not the tournament's organizer (nor staff)"),
    404: OpenApiResponse(_ERR, description="No such tournament (a draft is its organizer's)"),
    429: OpenApiResponse(_ERR, description="Too many organizer calls"),
}


def _conflict(codes: str) -> OpenApiResponse:
    return OpenApiResponse(
        _ERR, description=f"The tournament's state refuses it, nothing changed: {codes}"
    )


def _schema(request: Any, conflicts: str, done: int = 200, **more: Any) -> Any:
    return extend_schema(
        request=request,
        responses={
            done: o.OrganizerTournamentSerializer,
            **ERRORS,
            409: _conflict(conflicts),
            **BODY_ERRORS,
            **more,
        },
    )


def _run(action: Callable[[], Any], field: str = "") -> Any:
    """``action()``; the tournament's state refusing it is a 409 with the service's message
    and code (the API's handler knows the games' errors only), a form's parse error a 400
    naming ``field``."""
    try:
        return action()
    except django_forms.ValidationError as exc:
        raise drf_serializers.ValidationError({field or "non_field_errors": exc.messages}) from None
    except ApplicationError as exc:
        if exc.code == tsvc.ALREADY_DONE:  # done already, nothing changed: a conflict
            raise GameStateError(exc.message, code=tsvc.ALREADY_DONE) from None
        if exc.code == rounds.WITHDRAWN_SINCE_PAIRING:
            raise GameStateError(exc.message, code=rounds.WITHDRAWN_SINCE_PAIRING) from None
        if isinstance(exc, TournamentError):
            raise GameStateError(exc.message) from None  # conflict
        raise


def organizer_payload(tournament: Tournament) -> dict[str, Any]:
    """The public payload, with what the organizer's panel shows besides: every
    registration, the paired round's pairing digest and warnings, and the audit log."""
    tournament = Tournament.objects.select_related("organizer").get(pk=tournament.pk)
    data = tournament_payload(tournament)
    latest = tournament.rounds.order_by("-number").defer(*selectors.PAIRING_DATA).first()
    paired = latest is not None and latest.status == Round.Status.PAIRED
    data.update(
        registrations=[
            {"player": r.user.username, "status": r.status, "first_round": r.first_round,
             "withdrawn_after_round": r.withdrawn_after_round,
             "requested_byes": list(r.requested_byes or [])}
            for r in tournament.registrations.select_related("user")
        ],  # fmt: skip
        pairing=rounds.pairing_digest(rnd=latest) if paired else "",
        warnings=list(latest.warnings or []) if latest is not None else [],
        results_changed_since_pairing=bool(
            paired and not latest.paired_by_hand
            and rounds.results_changed_since_pairing(tournament=tournament, rnd=latest)
        ),  # fmt: skip
        log=[
            {"seq": e.seq, "kind": e.kind, "actor": e.actor.username if e.actor else None,
             "at": _when(e.created_at),
             "payload": {k: v for k, v in e.payload.items() if k not in LOG_NOT_SHOWN}}
            for e in tournament.log.select_related("actor").order_by("-seq")[:30]
        ],  # fmt: skip
    )
    return data


def _answer(tournament: Tournament, code: int = status.HTTP_200_OK,
            headers: dict[str, str] | None = None) -> Response:
    return Response(organizer_payload(tournament), status=code, headers=headers)


def _body(request: Request, serializer_class: type) -> dict[str, Any]:
    data = serializer_class(data=request.data)
    data.is_valid(raise_exception=True)
    return dict(data.validated_data)


class OrganizerView(BaseAPIView):
    throttle_classes = [OrganizerThrottle]

    def managed(self, request: Request, slug: str) -> Tournament:
        """The tournament, when the caller runs it: a draft is a 404 to strangers, any
        other tournament a 403 to all but its organizer and staff (before the body is read,
        as on the panel)."""
        tournament = Tournament.objects.select_related("organizer").filter(slug=slug).first()
        if tournament is None or not selectors.tournament_visible(
            tournament=tournament, user=request.user
        ):
            raise NotFound("No such tournament.")
        if not selectors.may_manage(tournament=tournament, user=request.user):
            raise PermissionDenied("Only the tournament's organizer can manage it.")
        return tournament

    def round_of(self, tournament: Tournament, number: int) -> Round:
        rnd = tournament.rounds.defer(*selectors.PAIRING_DATA).filter(number=number).first()
        if rnd is None:
            # 0: a number too large for a row id (the converter reads it as 0), not "round 0"
            raise NotFound(f"No round {number} in this tournament." if number else "No such round in this tournament.")
        return rnd

    def answer(self, tournament: Tournament, code: int = status.HTTP_200_OK) -> Response:
        return _answer(tournament, code)

    def body(self, request: Request, serializer_class: type) -> dict[str, Any]:
        return _body(request, serializer_class)


class TournamentsView(TournamentListView):
    """The tournaments' list (public) and, by POST, a new tournament (any player may
    create one, as from the new tournament form)."""

    throttle_classes = [OrganizerThrottle]

    def get_permissions(self) -> list[Any]:
        return [IsAuthenticated()] if self.request.method == "POST" else [AllowAny()]

    @extend_schema(
        request=o.TournamentCreateInputSerializer,
        parameters=[
            location_header("The new tournament (GET it, or .../organizer/)."),
            OpenApiParameter(
                "Idempotency-Key", IDEMPOTENCY_KEY_SCHEMA, OpenApiParameter.HEADER, required=False,
                description="Your own key for this creation (1 to 64 letters, digits, "
                "'-', '_', '.', ':'; a UUID, say): sent again with the same key (a retry "
                "after a timeout), the call answers 200 with the tournament that key created, "
                "not a second one. Keys are yours alone and kept with the tournament.",
            ),  # fmt: skip
        ],
        responses={
            201: o.OrganizerTournamentSerializer,
            200: OpenApiResponse(
                o.OrganizerTournamentSerializer,
                description="The tournament this Idempotency-Key created before",
            ),
            **{k: ERRORS[k] for k in (400, 401)},
            **BODY_ERRORS,
            422: OpenApiResponse(
                _ERR,
                description="This Idempotency-Key created a tournament with other parameters "
                "(idempotency_key_reused): send a new key for a new tournament",
            ),
            429: ERRORS[429],
        },
        description="Create a tournament, in draft (only you and staff see it): open it for "
        "registration when ready. Checked as the new tournament form is (the game's options, "
        "the table sizes against its players, the points, the tie-breaks); logged "
        "`tournament_created`. A league administrator's pool is the pool named; anyone "
        "else's is a pool of their own.",
    )
    def post(self, request: Request) -> Response:
        data = _body(request, o.TournamentCreateInputSerializer)
        key = _create_key(request)
        admin = is_league_administrator(request.user)
        pairs, unknown = [], []
        for pair in data.pop("forbidden_pairs"):
            users = [player_by_name_or_email(text=n, emails=admin) for n in pair]
            unknown += [n for n, u in zip(pair, users, strict=True) if u is None]
            if not unknown:
                pairs.append([u.pk for u in users])
        if unknown:
            raise drf_serializers.ValidationError({"forbidden_pairs": [
                f"No player {name_shown(n)}.{did_you_mean(n)}" for n in unknown
            ]})  # fmt: skip
        tournament = tsvc.tournament_create(
            organizer=request.user, forbidden_pairs=pairs,
            table_sizes=data.pop("table_sizes"), create_key=key, **data,
        )  # fmt: skip
        location = {"Location": public_url(f"/api/tournaments/{tournament.slug}/")}
        made = status.HTTP_201_CREATED if tournament.created else status.HTTP_200_OK
        return _answer(tournament, made, location)


class OrganizerStateView(OrganizerView):
    """What the organizer's panel shows: the tournament, every registration, the paired
    round's pairing digest and warnings, and the audit log (newest first)."""

    @extend_schema(responses={200: o.OrganizerTournamentSerializer,
                              **{k: ERRORS[k] for k in (401, 403, 404)}})  # fmt: skip
    def get(self, request: Request, slug: str) -> Response:
        return self.answer(self.managed(request, slug))


class OpenView(OrganizerView):
    """Open a draft for registration (logged ``tournament_opened``)."""

    @_schema(EmptyInputSerializer, "conflict (only a draft can be opened: open already).")
    def post(self, request: Request, slug: str) -> Response:
        tournament = self.managed(request, slug)
        self.no_input(request)
        _run(lambda: tsvc.tournament_open(tournament=tournament, by=request.user))
        return self.answer(tournament)


class RenameView(OrganizerView):
    """Rename the tournament, a draft or open for registration, until its first round is
    paired (its games and emails carry its name from then on). Logged
    ``tournament_renamed`` with both names; the address (slug) stays."""

    @_schema(
        o.RenameInputSerializer,
        "conflict (a round is paired, or the tournament is closed), already_done (that is "
        "its name already).",
    )
    def post(self, request: Request, slug: str) -> Response:
        tournament = self.managed(request, slug)
        name = self.body(request, o.RenameInputSerializer)["name"]
        _run(lambda: tsvc.tournament_rename(tournament=tournament, by=request.user, name=name),
             "name")  # fmt: skip
        return self.answer(tournament)


class DeleteView(OrganizerView):
    """Delete a draft with no games (no round; nobody but its organizer registered): a
    tournament set up by mistake. It is gone, its audit log with it (the server's log
    records who deleted it). 204, no body."""

    @extend_schema(
        request=o.DeleteInputSerializer,
        responses={
            204: OpenApiResponse(description="Deleted"),
            **ERRORS,
            409: _conflict("conflict (not a draft: open, running or closed; players registered "
                           "in it: withdraw them first)."),  # fmt: skip
            **BODY_ERRORS,
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        tournament = self.managed(request, slug)
        self.body(request, o.DeleteInputSerializer)
        _run(lambda: tsvc.tournament_delete(tournament=tournament, by=request.user))
        return Response(status=status.HTTP_204_NO_CONTENT)


class RegistrationAddView(OrganizerView):
    """Enter a player (a league administrator's right: staff or the "can add registration"
    permission; any organizer may enter themselves). A late entry plays from the next
    round. Logged ``registration_added``; the player is told by email."""

    @_schema(
        o.RegistrationAddInputSerializer,
        "already_done (registered already), conflict (closed, no late entries, every round "
        "paired, a closed account, withdrawn after round 1 was paired).",
        done=201,
    )
    def post(self, request: Request, slug: str) -> Response:
        tournament = self.managed(request, slug)
        who = self.body(request, o.RegistrationAddInputSerializer)["player"].strip()
        admin = is_league_administrator(request.user)
        target = player_by_name_or_email(text=who, emails=admin)
        if target is None:
            said = NAME_NOT_ADDRESS if "@" in who and not admin else (
                f"No user {name_shown(who)}.{did_you_mean(who)}")  # fmt: skip
            raise drf_serializers.ValidationError({"player": [said]})
        _run(lambda: tsvc.registration_add(tournament=tournament, user=target, by=request.user))
        return self.answer(tournament, status.HTTP_201_CREATED)


class RegistrationWithdrawView(OrganizerView):
    """Withdraw a player: not paired from the next round on (a game under way goes on).
    Logged ``registration_withdrawn``; the player and their opponents are told."""

    @_schema(
        EmptyInputSerializer,
        "already_done (withdrawn already), conflict (the tournament is closed).",
    )
    def post(self, request: Request, slug: str, player: str) -> Response:
        tournament = self.managed(request, slug)
        self.no_input(request)
        registration = (
            Registration.objects.filter(tournament=tournament, user__username__iexact=player).first()
            if re.fullmatch(o.PLAYER_NAME, player) else None  # a NUL is no database text
        )  # fmt: skip
        if registration is None:
            raise NotFound(f"{name_shown(player)} is not registered in this tournament.")
        _run(lambda: tsvc.registration_withdraw(registration=registration, by=request.user))
        return self.answer(tournament)


class RoundPairView(OrganizerView):
    """Pair the next round from the standings (logged ``round_paired`` with its input and
    seed). Check its tables, then start it. Sent twice, the second is a 409: one round."""

    @_schema(
        EmptyInputSerializer,
        "conflict (a round is paired already or still being played, every round was "
        "played, the tournament is a draft or closed, nobody is active).",
        done=201,
    )
    def post(self, request: Request, slug: str) -> Response:
        tournament = self.managed(request, slug)
        self.no_input(request)
        _run(lambda: rounds.round_pair(tournament=tournament, by=request.user))
        return self.answer(tournament, status.HTTP_201_CREATED)


class RoundByHandView(OrganizerView):
    """Pair the next round by hand, or pair the paired round again by hand (logged
    ``round_paired_by_hand``). Warnings (a repeat meeting, a forbidden pair, byes the
    tables could avoid) refuse it unless ``force`` is true."""

    @_schema(
        o.PairByHandInputSerializer,
        "pairing_warnings (the message lists them; send force: true), already_done (the "
        "round is paired so by hand already), conflict (a round being played, every round "
        "played, the tournament a draft or closed).",
        done=201,
    )
    def post(self, request: Request, slug: str) -> Response:
        tournament = self.managed(request, slug)
        data = self.body(request, o.PairByHandInputSerializer)
        _run(lambda: rounds.round_by_hand_number(tournament=tournament))
        names = {
            r.user.username: r.pk for r in tournament.registrations.select_related("user")
            if r.status == Registration.Status.ACTIVE
        }  # fmt: skip
        # The panel's own reading of the names (any letter case), one line a table.
        text = "\n".join(" ".join(t) for t in data["tables"])
        if data["byes"]:
            text += "\nbye: " + " ".join(data["byes"])
        tables, byes = _run(lambda: parse_tables(text, names), "tables")
        rnd, warnings = _run(lambda: rounds.round_pair_by_hand(
            tournament=tournament, tables=tables, byes=byes, by=request.user, force=data["force"]
        ))  # fmt: skip
        if rnd is None:
            raise GameStateError(
                "Not saved: send \"force\": true to pair this way anyway. " + " ".join(warnings),
                code=PAIRING_WARNINGS,
            )
        return self.answer(tournament, status.HTTP_201_CREATED)


class RoundRepairView(OrganizerView):
    """Pair the paired round again, with a new seed (logged ``round_paired`` with
    ``repaired``): after a withdrawal, or a result corrected since the pairing."""

    @_schema(
        o.RepairInputSerializer,
        "conflict (the round has started), already_done (paired again since the `pairing` "
        "you sent).",
    )
    def post(self, request: Request, slug: str, number: int) -> Response:
        tournament = self.managed(request, slug)
        seen = self.body(request, o.RepairInputSerializer).get("pairing")
        rnd = self.round_of(tournament, number)
        _run(lambda: rounds.round_repair(rnd=rnd, by=request.user, pairing_seen=seen))
        return self.answer(tournament)


class RoundStartView(OrganizerView):
    """Create and start the round's games, one a table, seats in the paired order
    (logged ``round_started``); players with a bye are told by email."""

    @_schema(
        o.StartInputSerializer,
        "conflict (started already; paired again since the `pairing` you sent; a result "
        "corrected since the pairing: re-pair it), withdrawn_since_pairing (a player it "
        "places withdrew: re-pair it).",
    )
    def post(self, request: Request, slug: str, number: int) -> Response:
        tournament = self.managed(request, slug)
        seen = self.body(request, o.StartInputSerializer).get("pairing")
        rnd = self.round_of(tournament, number)
        _run(lambda: rounds.round_start(rnd=rnd, by=request.user, pairing_seen=seen))
        return self.answer(tournament)


class RoundRemindView(OrganizerView):
    """Email a reminder to every player the round's games wait for (each game's own
    reminder: once per prompt and seat; logged ``players_reminded``)."""

    @_schema(
        EmptyInputSerializer,
        "conflict (the round is not being played; nobody to remind: every order in, or "
        "reminded already; no email address).",
    )
    def post(self, request: Request, slug: str, number: int) -> Response:
        tournament = self.managed(request, slug)
        self.no_input(request)
        rnd = self.round_of(tournament, number)
        _run(lambda: rounds.round_remind(rnd=rnd, by=request.user))
        return self.answer(tournament)


class RoundExtendView(OrganizerView):
    """Extend the open prompt's deadline of every game the round is playing (each game's
    own extension, capped, logged and told; logged ``deadlines_extended``). Send an
    ``Idempotency-Key`` to make it safe to retry: the same key and body again extends
    nothing more and answers 200 with ``Idempotent-Replayed: true``. Without a key each
    call that passes is one more extension (a game's cap bounds them)."""

    @extend_schema(
        request=o.ExtendRoundInputSerializer,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key", IDEMPOTENCY_KEY_SCHEMA, OpenApiParameter.HEADER, required=False,
                description="Your own key for this extension (1 to 64 letters, digits, '-', "
                "'_', '.', ':'; a UUID, say): sent again with the same key and body (a retry "
                "after a timeout), the call extends nothing more and answers 200 with "
                "`Idempotent-Replayed: true`. Keys are yours alone, kept in the tournament's "
                "log (not shown). A refused call (409) kept nothing: its retry tries again.",
            ),  # fmt: skip
        ],
        responses={
            200: OpenApiResponse(
                o.OrganizerTournamentSerializer,
                description="Extended, or (`Idempotent-Replayed: true`) extended before with "
                "this Idempotency-Key: nothing more was extended",
            ),
            **ERRORS,
            409: _conflict("conflict (the round is not being played; every table's extensions "
                           "used up)."),  # fmt: skip
            **BODY_ERRORS,
            422: OpenApiResponse(
                _ERR,
                description="This Idempotency-Key extended the deadlines with another body "
                "(idempotency_key_reused): send a new key for another extension",
            ),
        },
    )
    def post(self, request: Request, slug: str, number: int) -> Response:
        tournament = self.managed(request, slug)
        data = self.body(request, o.ExtendRoundInputSerializer)
        key = _create_key(request)
        rnd = self.round_of(tournament, number)
        done = _run(lambda: rounds.round_extend(
            rnd=rnd, by=request.user, hours=data["hours"], reason=data["reason"], key=key
        ))  # fmt: skip
        response = self.answer(tournament)
        if done["replayed"]:
            response["Idempotent-Replayed"] = "true"
        return response


class ResultView(OrganizerView):
    """Enter or correct a table's result (logged ``result_entered`` or
    ``result_corrected`` with the reason; the pool's ratings rebuilt): an offline game, a
    forfeit (``forfeit``: not rated), a double forfeit (``nobody_played``). The same result
    sent again is a 409 already_done; the tournament's state refusing it (the round not
    started, the game still being played, the tournament closed) a 409 conflict."""

    @_schema(
        o.ResultInputSerializer,
        "already_done (the table's result is that already), conflict (the round has not "
        "started yet, the table's game is still being played: end it first, the tournament "
        "is closed: its results are final).",
    )
    def post(self, request: Request, slug: str, number: int, table: int) -> Response:
        tournament = self.managed(request, slug)
        data = self.body(request, o.ResultInputSerializer)
        row = Table.objects.select_related("round").filter(
            round__tournament=tournament, round__number=number, number=table
        ).first()
        if row is None:
            self.round_of(tournament, number)  # no such round: said so, not "no table 1 in it"
            raise NotFound(f"No table {table} in round {number} of this tournament.")
        regs = {r.user.username: r.pk for r in tournament.registrations.select_related("user")
                if r.pk in row.players}  # fmt: skip
        ranking: list[list[int]] = []
        if data["ranking"]:  # the panel's own reading of the names
            text = " > ".join(" = ".join(group) for group in data["ranking"])
            ranking = _run(lambda: parse_ranking(text, regs), "ranking")
        _run(lambda: results.result_enter(
            table=row, ranking=ranking, by=request.user, reason=data["reason"],
            rated=not data["forfeit"], scoreless=data["nobody_played"],
        ))  # fmt: skip
        return self.answer(tournament)


class CloseView(OrganizerView):
    """Close the tournament: no more rounds, the standings final (logged
    ``tournament_closed``; the players are told). Closed already: 409 already_done."""

    @_schema(
        o.CloseInputSerializer,
        "conflict (a round is still being played), already_done (closed already).",
    )
    def post(self, request: Request, slug: str) -> Response:
        tournament = self.managed(request, slug)
        self.body(request, o.CloseInputSerializer)
        closed = _run(lambda: tsvc.tournament_close(tournament=tournament, by=request.user))
        if not closed.just_closed:
            raise GameStateError(
                "The tournament was already closed: nothing changed.", code=tsvc.ALREADY_DONE
            )
        return self.answer(tournament)
