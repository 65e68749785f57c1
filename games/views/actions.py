"""POST actions of the game pages. Each one calls one service and redirects back
(POST-redirect-GET); an ApplicationError becomes a message on the next page."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.utils.html import format_html

from games import selectors, selectors_invitations, selectors_lists
from games.errors import ApplicationError, NoSeat, NotFound, OrderRefused, PermissionDenied
from games.forms import (
    DeadlineExtendForm,
    GameEndForm,
    OrderForm,
    SeatReplaceForm,
    handover_player,
)
from games.models import Game, Prompt, Seat, SeatOffer
from games.notes import INVISIBLE_RE
from games.presentation import (
    and_list,
    decision_words,
    hours_length,
    refusal_sentence,
    replace_note,
)
from games.services import games as game_services
from games.services import handover
from games.services import invitations as invitation_services
from games.services import orders as order_services
from games.services import organizer as organizer_services
from games.services import rematch as rematch_services
from games.services import seats as seat_services
from games.views.common import load_game, load_visible_game, over_api_rate, post_action


def _my_seat(request: HttpRequest, game: object) -> Seat:
    seat = selectors.seat_for_user(game=game, user=request.user)
    if seat is None:  # never held one, or it was handed over: say which
        raise NoSeat(selectors.no_seat_reason(game_id=game.pk, user=request.user))
    return seat


def _form_text(form: object) -> str:
    """A refused form's errors in one message."""
    errors = form.errors.get_json_data()  # type: ignore[attr-defined]
    return "; ".join(e["message"] for field in errors.values() for e in field) or "The form was not valid."


def _form_error(request: HttpRequest, form: object) -> None:
    messages.error(request, _form_text(form))


@login_required
@post_action
def game_join(request: HttpRequest, game_id: int) -> HttpResponse:
    """Take a free seat in an open game (or a private one with its invitation token)."""
    token = request.POST.get("invite_token") or None
    user = request.user
    try:
        game = selectors.game_for_joining(game_id=game_id, user=user, token=token)
    except NotFound as exc:
        raise Http404(exc.message) from None
    seat, created = game_services.game_join_seat(game=game, user=request.user, invite_token=token)
    if not created:  # a double click, a stale page
        messages.info(request, f"You already hold the seat {seat.name} in this game.")
    else:
        messages.success(request, "You joined the game.")
    return redirect("games:detail", game_id=game.pk)


def game_invite(request: HttpRequest, game_id: int, token: str) -> HttpResponse:
    """The invitation link of a private game: a page with one button to join (for a
    visitor not logged in: what the game is, and sign up or log in, back here after)."""
    game = load_game(game_id)
    if not game.invite_token or not constant_time_compare(str(game.invite_token), token):
        # A player invited by name holding an old link (the organizer renewed it): the
        # new one, which their games page shows them anyway.
        if request.user.is_authenticated and game.status == Game.Status.FORMING and any(
            i.game_id == game.pk
            for i in selectors_invitations.invitations_waiting(user=request.user)
        ):
            messages.info(request, "This game's invitation link was renewed: here is the new one.")
            return redirect("games:invite", game_id=game.pk, token=game.invite_token)
        raise Http404("This invitation link is not valid.")
    if request.user.is_authenticated:
        seat = selectors.seat_for_user(game=game, user=request.user)
        if seat is not None:
            return redirect("games:detail", game_id=game.pk)
    return render(request, "games/game_invite.html", {"game": game, "token": token})


@login_required
@post_action
def game_rematch(request: HttpRequest, game_id: int) -> HttpResponse:
    """Play a game that is over again with the same players: a new private game, the
    others emailed its invitation link (asked twice, or by two players: the same one)."""
    game = load_visible_game(request, game_id)
    new = rematch_services.game_rematch(game=game, by=request.user)
    if new.created:
        messages.success(
            request,
            "The rematch is made: the other players were emailed its invitation link. It "
            "starts by itself when every seat is taken; you can start it earlier here.",
        )
        return redirect("games:detail", game_id=new.pk)
    who = "You" if new.organizer_id == request.user.pk else str(new.organizer)
    messages.info(request, f"{who} asked for this rematch already: nothing new was made.")
    if new.organizer_id == request.user.pk or new.seats.filter(user=request.user).exists():
        return redirect("games:detail", game_id=new.pk)
    if new.status == Game.Status.FORMING:  # their seat is taken there
        return redirect("games:invite", game_id=new.pk, token=new.invite_token)
    return redirect("games:detail", game_id=game.pk)  # it started without them


@login_required
@post_action
def players_invite(request: HttpRequest, game_id: int) -> HttpResponse:
    """The organizer invites players by name to a forming game (each one emailed)."""
    game = load_visible_game(request, game_id)
    typed = request.POST.get("players", "")[:4000]
    try:
        result = invitation_services.invite_players(game=game, by=request.user, names=typed)
    except ApplicationError as exc:
        messages.error(request, exc.message)
        request.session[f"invite_draft_{game.pk}"] = typed  # the form shows it again
        return redirect(f"{reverse('games:detail', args=[game.pk])}#invite-players")
    said = []
    if result["invited"]:
        said.append(f"Invited {and_list(result['invited'])}: each was emailed the game's link.")
    if result["skipped"]:
        said.append(
            "Not invited: "
            + "; ".join(f"{name} ({why})" for name, why in result["skipped"].items())
            + "."
        )
    (messages.success if result["invited"] else messages.info)(request, " ".join(said))
    return redirect(f"{reverse('games:detail', args=[game.pk])}#invite-players")


@login_required
@post_action
def invite_link_renew(request: HttpRequest, game_id: int) -> HttpResponse:
    """The organizer renews a forming game's invitation link (the old one stops working)."""
    from games.services.organizer import invite_link_renew as renew

    renew(game=load_visible_game(request, game_id), by=request.user)
    messages.success(
        request,
        "The game has a new invitation link (below): the old one no longer lets anyone in. "
        "Players you invited by name find the new one on their games page.",
    )
    return redirect(f"{reverse('games:detail', args=[game_id])}#invite-url")


@login_required
@post_action
def invitation_withdraw(request: HttpRequest, game_id: int) -> HttpResponse:
    """The organizer takes back a player's invitation to a forming game."""
    game = load_visible_game(request, game_id)
    name = request.POST.get("player", "")[:150]
    try:
        invitation = invitation_services.invitation_withdraw(game=game, by=request.user, name=name)
    except NotFound as exc:  # a name not (or no longer) on the list: said, not a 404 page
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            f"You took back {invitation.user}'s invitation: it is no longer on their games "
            "page (invite them again to show it again).",
        )
    return redirect(f"{reverse('games:detail', args=[game.pk])}#invited")


@login_required
def invitation_decline(request: HttpRequest, game_id: int) -> HttpResponse:
    """An invited player declines (from the games page; the game may be private)."""
    if request.method != "POST":
        return redirect("games:list")
    try:
        invitation = invitation_services.invitation_decline(game_id=game_id, user=request.user)
    except NotFound as exc:
        raise Http404(exc.message) from None
    except ApplicationError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"You declined the invitation to {invitation.game.title}.")
    return redirect(f"{reverse('games:list')}#invitations")


@login_required
@post_action
def game_leave(request: HttpRequest, game_id: int) -> HttpResponse:
    """Give up a seat before the game starts."""
    game = load_visible_game(request, game_id)
    game_services.game_leave(game=game, user=request.user)
    messages.success(request, "You left the game.")
    return redirect("games:list")


@login_required
@post_action
def game_start(request: HttpRequest, game_id: int) -> HttpResponse:
    """The organizer starts the game with the seats filled so far."""
    game = load_visible_game(request, game_id)
    game_services.game_start(game=game, user=request.user)
    messages.success(request, "The game has started.")
    return redirect("games:detail", game_id=game.pk)


def _typed_draft(data: Any) -> str:
    """The text of the order box, refused, as it goes back into the box: as typed, notes
    and all, less what shows nothing (a bidi override would turn the page's text round).
    Every refusal of a typed order keeps it so (the form's, the rate limit's, the
    service's)."""
    return INVISIBLE_RE.sub("", str(data.get("text") or ""))[:4000]


@login_required
@post_action
def order_submit(request: HttpRequest, game_id: int) -> HttpResponse:
    """Submit (or replace) the seat's sealed order for the open prompt."""
    game = load_visible_game(request, game_id)
    seat = _my_seat(request, game)
    data = request.POST.copy()
    if not data.get("text") and data.getlist("word"):  # the word-by-word form
        data["text"] = " ".join([data.get("verb", ""), *data.getlist("word")]).strip()
    # The text box's form says so: a refusal of what was typed there is shown next to it.
    typed = data.get("typed") == "1"
    form = OrderForm(data)
    if not form.is_valid():
        _form_error(request, form)
        if typed:
            request.session[f"order_draft_{game.pk}"] = _typed_draft(data)
            request.session[f"order_error_{game.pk}"] = "; ".join(
                e["message"] for field in form.errors.get_json_data().values() for e in field
            )
        return redirect("games:detail", game_id=game.pk)
    text = form.cleaned_data["text"]
    refusal = over_api_rate(request, "orders")
    if refusal:
        messages.error(request, refusal)
        if typed:  # as typed, notes and all, to send again
            request.session[f"order_draft_{game.pk}"] = _typed_draft(data)
        return redirect("games:detail", game_id=game.pk)
    try:
        order = order_services.order_submit(
            seat=seat, text=text, source="web", expected_prompt=form.cleaned_data.get("prompt")
        )
    except ApplicationError as exc:
        # Typed: back in the box as typed (a prompt resolved under the typing lost its
        # "# ..." lines); a picker's choice as its order text.
        request.session[f"order_draft_{game.pk}"] = _typed_draft(data) if typed else text
        # The engine's reason as a sentence ("you cannot hit your own dice" read as a
        # fragment); the API says it as the engine does.
        said = (
            refusal_sentence(exc.message, names=game.seats.values_list("name", flat=True))
            if isinstance(exc, OrderRefused)
            else decision_words(exc.message)  # the API's word is "prompt"
        )
        if typed:
            request.session[f"order_error_{game.pk}"] = said
        if said != exc.message:
            messages.error(request, said)
            return redirect("games:detail", game_id=game.pk)
        raise
    request.session.pop(f"order_draft_{game.pk}", None)
    request.session.pop(f"order_error_{game.pk}", None)
    if getattr(order, "already_stored", False) and order.prompt.status != Prompt.Status.OPEN:
        # The form of a prompt resolved since, sent again (a double submit, Back and
        # send): its order's receipt again, nothing stored; say so and what is open now.
        messages.info(request, _replayed_order_said(game=game, seat=seat, order=order))
        _point_to_the_next_game(request, game)
        return redirect("games:detail", game_id=game.pk)
    messages.success(request, _sealed_said(order))
    _point_to_the_next_game(request, game)
    return redirect("games:detail", game_id=game.pk)


def _sealed_said(order: Any) -> str:
    """What a player is told after sending an order for the open prompt: stored now, or
    the same order sealed already (a double click, a retry: nothing stored), and what
    happens next. "Yours was the last order" only when this order completed the prompt."""
    # The receipt (the whole commitment) is in the order panel below; a 64-digit hash is
    # no news to lead with.
    receipt = f"receipt {order.commitment[:12]}…"
    again = getattr(order, "already_stored", False)
    if again:
        said = f"This order was sealed already for decision {order.prompt.number} ({receipt}); nothing new was stored."
    elif getattr(order, "replaced_earlier", False):
        said = f"Order received and sealed in place of your earlier one ({receipt})."
    else:
        said = f"Order received and sealed ({receipt})."
    ready_at, resolve_after = (
        Prompt.objects.filter(pk=order.prompt_id).values_list("ready_at", "resolve_after").first()
        or (None, None)
    )
    if ready_at is None or (resolve_after is not None and resolve_after > timezone.now()):
        return f"{said} {replace_note(ready_at=ready_at, resolve_after=resolve_after)}"
    if getattr(order, "completed_prompt", False):
        return said + " Yours was the last order: the decision is being resolved now."
    return said + " Every order is in: the decision is being resolved now" + (
        "." if again else ", with this order."
    )


def _replayed_order_said(*, game: Any, seat: Seat, order: Any) -> str:
    """What a player is told when the order they sent again is the one already sealed
    for a prompt that has resolved since."""
    said = (
        f"This order was sealed already for decision {order.prompt.number} "
        f"(receipt {order.commitment[:12]}…); nothing new was stored."
    )
    now = Prompt.objects.filter(game_id=game.pk, status=Prompt.Status.OPEN).first()
    if now is None:
        over = Game.objects.filter(
            pk=game.pk, status__in=(Game.Status.FINISHED, Game.Status.ABANDONED)
        ).exists()
        return said + (" The game is over." if over else "")
    if seat.name not in now.pending:
        return said + f" Decision {now.number} is open now; it asks no order of you."
    if now.orders.filter(seat_name=seat.name, is_current=True).exists():
        return said + f" Decision {now.number} is open now; your order for it is in."
    if Game.objects.filter(pk=game.pk, status=Game.Status.PAUSED).exists():
        # no order is accepted while paused (an audit: "waits for your order" then)
        return said + (
            f" Decision {now.number} is open, but the game is paused: your order for it is "
            "accepted again when the game resumes."
        )
    return said + f" Decision {now.number} is open now and waits for your order."


def _point_to_the_next_game(request: HttpRequest, game: Any) -> None:
    """After an order, the player's next game waiting for one (the nearest deadline
    first), for someone playing many games at once."""
    needed = {
        game_id: prompt
        for game_id, prompt in selectors_lists.orders_needed(user=request.user).items()
        if game_id != game.pk
    }
    if not needed:
        return
    far = timezone.now() + timedelta(days=3650)
    game_id = min(needed, key=lambda g: (needed[g].deadline or far, g))
    nearest = Game.objects.filter(pk=game_id).first()
    if nearest is None:
        return
    others = len(needed) - 1
    messages.info(
        request,
        format_html(
            'Next: <a href="{}">{}</a> waits for your order{}.',
            reverse("games:detail", args=[game_id]),
            nearest.title,
            f" ({others} more game{'s' if others != 1 else ''} too)" if others else "",
        ),
    )


@login_required
@post_action
def seat_resign(request: HttpRequest, game_id: int) -> HttpResponse:
    """Resign the seat (the game goes on with default orders for it, or ends when one
    seat is left playing)."""
    game = load_visible_game(request, game_id)
    seat = _my_seat(request, game)
    if request.POST.get("confirm") != "yes":
        messages.error(request, "Tick the confirmation box to resign.")
        return redirect("games:detail", game_id=game.pk)
    game_services.seat_resign(seat=seat)
    game.refresh_from_db()
    if game.status == game.Status.FINISHED:
        messages.success(request, f"You resigned: the game is over ({game.end_reason}).")
    else:
        messages.success(request, "You resigned from this game.")
    return redirect("games:detail", game_id=game.pk)


@login_required
@post_action
def mail_token_rotate(request: HttpRequest, game_id: int) -> HttpResponse:
    """Replace the seat's private reply address (the old one stops working)."""
    game = load_visible_game(request, game_id)
    seat = _my_seat(request, game)
    seat_services.mail_token_rotate(seat=seat)
    # The address itself is on the page (Orders by email), not in the message: a flash
    # message travels in the messages cookie, signed but not encrypted (a security review).
    messages.success(
        request, "Your private order address was replaced: the new one is under Orders by "
        "email; the old one no longer works.",
    )  # fmt: skip
    return redirect("games:detail", game_id=game.pk)


@login_required
@post_action
def mail_when(request: HttpRequest, game_id: int) -> HttpResponse:
    """Email the seat after every decision (``every=1``) or only when it must order (``0``)."""
    game = load_visible_game(request, game_id)
    seat = _my_seat(request, game)
    every = request.POST.get("every")
    if every not in ("0", "1"):
        messages.error(request, "Choose when to be emailed: after every decision, or only when you must order.")
        return redirect("games:detail", game_id=game.pk)
    seat_services.seat_email_every_prompt_set(seat=seat, every=every == "1")
    if every == "1":
        messages.success(request, "You will be emailed after every decision of this game.")
    else:
        messages.success(
            request,
            "You will be emailed only when you must order (and at the start, the end and "
            "for reminders); the game page shows every move.",
        )
    return redirect("games:detail", game_id=game.pk)


# The organizer's fields kept when a tool refuses (the page shows them again, in error).
_KEPT_FIELDS = ("hours", "reason", "username", "seat")


def _keep_organizer_form(request: HttpRequest, game_id: int, action: str, error: str) -> None:
    """Remember the refused tool, its error and what was typed: the page reopens the
    tools on that form, with the values and the error tied to them."""
    request.session[f"organizer_draft_{game_id}"] = {
        "action": action,
        "error": error,
        **{name: str(request.POST.get(name) or "")[:200] for name in _KEPT_FIELDS},
    }


#: The organizer's tools that change the game (all but ``remind``).
CHANGING_ACTIONS = frozenset(
    {"extend", "pause", "resume", "replace", "withdraw-offer", "privacy", "talk", "end"}
)


@login_required
@post_action
def organizer_action(request: HttpRequest, game_id: int, action: str) -> HttpResponse:
    """The organizer's tools: extend the deadline, remind the players who owe an order,
    pause, resume, replace a seat, end (or,
    before the start, cancel), and before the start make the game private or public.
    A refusal keeps the form (``_keep_organizer_form``)."""
    game = load_visible_game(request, game_id)
    if not selectors.may_organize(game=game, user=request.user):
        raise PermissionDenied("Only the organizer of this game may do that.")
    # An organizer who plays in a tournament's game only reminds (the services refuse
    # the rest too; this says it before any form is read).
    if action in CHANGING_ACTIONS and not selectors.may_change_game(game=game, user=request.user):
        raise PermissionDenied(selectors.PLAYS_AT_THE_TABLE)
    try:
        response = _organizer_action(request, game, action)
    except ApplicationError as exc:
        _keep_organizer_form(request, game.pk, action, decision_words(exc.message))
        raise
    return response


def _refuse(request: HttpRequest, game: Game, action: str, text: str) -> None:
    """An organizer tool's refusal: the message, and the form kept."""
    messages.error(request, text)
    _keep_organizer_form(request, game.pk, action, text)


def _organizer_action(request: HttpRequest, game: Game, action: str) -> HttpResponse:
    if action == "extend":
        form = DeadlineExtendForm(request.POST)
        if not form.is_valid():
            _refuse(request, game, action, _form_text(form))
        else:
            prompt = organizer_services.deadline_extend(
                game=game,
                by=request.user,
                hours=form.cleaned_data["hours"],
                reason=form.cleaned_data["reason"],
                prompt_number=form.cleaned_data.get("prompt"),
                extensions_seen=form.cleaned_data.get("extensions"),
            )
            messages.success(
                request,
                f"The deadline of decision {prompt.number} was extended by "
                f"{hours_length(form.cleaned_data['hours'])}.",
            )
    elif action == "remind":
        reminded = organizer_services.game_remind(game=game, by=request.user)
        messages.success(request, f"Reminder sent to {and_list(reminded)}.")
    elif action == "pause":
        organizer_services.game_pause(
            game=game, by=request.user, reason=str(request.POST.get("reason") or "")[:200]
        )
        messages.success(request, "The game is paused; deadlines are stopped.")
    elif action == "resume":
        organizer_services.game_resume(game=game, by=request.user)
        messages.success(request, "The game is running again.")
    elif action == "replace":
        # An active seat, or one whose player resigned (a substitute takes it over).
        seats = list(Seat.objects.filter(game=game, status__in=("active", "resigned")))
        form = SeatReplaceForm(request.POST, seats=seats, at_once=request.user.is_staff)
        if not form.is_valid():
            _refuse(request, game, action, _form_text(form))
        else:
            # Nobody by that name: a ValidationError, the form kept (``organizer_action``).
            new_user = handover_player(form.cleaned_data["username"], staff=request.user.is_staff)
            seat = form.seats[form.cleaned_data["seat"]]
            if request.user.is_staff:  # a site administrator hands it over at once
                handover.seat_replace(seat=seat, new_user=new_user, by=request.user)
                messages.success(request, f"Seat {seat.name} now belongs to {new_user}.")
            else:
                handover.seat_offer(seat=seat, new_user=new_user, by=request.user)
                messages.success(
                    request,
                    f"Seat {seat.name} is offered to {new_user}, who was emailed; it changes "
                    "hands when they accept (nothing changes until then).",
                )
    elif action == "withdraw-offer":
        offer = SeatOffer.objects.filter(
            pk=_int_or_none(request.POST.get("offer")), game=game
        ).first()
        if offer is None:
            _refuse(request, game, action, "There is no such offer in this game.")
        else:
            handover.seat_offer_withdraw(offer=offer, by=request.user)
            messages.success(request, f"The offer of seat {offer.seat.name} was withdrawn.")
    elif action == "privacy":
        private = request.POST.get("private") == "1"
        organizer_services.game_privacy_set(game=game, by=request.user, private=private)
        messages.success(
            request,
            "The game is private: share its invitation link."
            if private
            else "The game is public: it is listed among the open games.",
        )
    elif action == "talk":
        from games.services.talk import talk_open_set

        opened = request.POST.get("open") == "1"
        talk_open_set(game=game, by=request.user, open_=opened)
        messages.success(
            request,
            "Table talk is open to the players."
            if opened
            else "Table talk is closed to the players: only you write there now.",
        )
    elif action == "end":
        form = GameEndForm(request.POST)
        if not form.is_valid():
            _refuse(request, game, action, _form_text(form))
        else:
            forming = game.status == Game.Status.FORMING
            organizer_services.game_end(
                game=game, by=request.user, reason=form.cleaned_data["reason"]
            )
            said = "The game was cancelled." if forming else "The game has been ended."
            if game.part_of_path and not forming:
                # A tournament's table: its result is entered in the tournament's panel.
                said += (
                    f" It has no ranking here: enter its result in "
                    f"{game.part_of_label or 'the tournament it belongs to'} (the link above)."
                )
            messages.success(request, said)
    else:
        raise Http404("Unknown organizer action.")
    return redirect("games:detail", game_id=game.pk)


def _int_or_none(text: Any) -> int | None:
    try:
        return int(str(text))
    except ValueError:
        return None


def _offer_for(request: HttpRequest, game_id: int, offer_id: int) -> SeatOffer:
    """The offer of a seat made to the requester (anyone else: no such page)."""
    offer = (
        SeatOffer.objects.select_related("game", "game__organizer", "seat", "by")
        .filter(pk=offer_id, game_id=game_id, to_user=request.user)
        .first()
    )
    if offer is None:
        raise Http404("There is no such offer.")
    return offer


@login_required
def seat_offer_page(request: HttpRequest, game_id: int, offer_id: int) -> HttpResponse:
    """The player offered a seat reads the offer (the game, the seat, who offers it;
    nothing of the seat's hand) and accepts or declines it."""
    offer = _offer_for(request, game_id, offer_id)
    game = offer.game
    standing = offer.status == SeatOffer.Status.PENDING and game.status in (
        Game.Status.ACTIVE, Game.Status.PAUSED
    )  # fmt: skip
    return render(
        request,
        "games/seat_offer.html",
        {
            "offer": offer,
            "game": game,
            "standing": standing,
            "prompt": selectors.current_prompt(game=game) if standing else None,
        },
    )


@login_required
def seat_offer_answer(request: HttpRequest, game_id: int, offer_id: int, answer: str) -> HttpResponse:
    """Accept or decline an offer of a seat (POST; anything else, or an offer that no
    longer stands: back to the offer's page, which says why)."""
    offer = _offer_for(request, game_id, offer_id)
    if answer not in ("accept", "decline"):
        raise Http404("Unknown answer.")
    if request.method != "POST":
        return redirect("games:offer", game_id=game_id, offer_id=offer_id)
    try:
        if answer == "accept":
            seat = handover.seat_offer_accept(offer=offer, by=request.user)
            messages.success(request, f"You play the seat {seat.name} from now on.")
            return redirect("games:detail", game_id=game_id)
        handover.seat_offer_decline(offer=offer, by=request.user)
        messages.success(request, "You declined the seat; the organizer was told.")
    except ApplicationError as exc:
        offer.refresh_from_db(fields=["status"])
        if answer == "accept" and offer.status == SeatOffer.Status.ACCEPTED:
            # The second click of a double click: the first one took the seat.
            messages.info(request, f"You play the seat {offer.seat.name} already.")
            return redirect("games:detail", game_id=game_id)
        messages.error(request, exc.message)
    return redirect("games:offer", game_id=game_id, offer_id=offer_id)
