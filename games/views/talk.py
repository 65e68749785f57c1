"""A game's table talk page: its messages, and the form its players write in."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_safe

from games.errors import ApplicationError
from games.presentation import local_time
from games.selectors_talk import (
    author_label,
    message_at,
    removed_between,
    removed_words,
    talk_after,
    talk_page,
)
from games.services import talk as talk_services
from games.views.common import load_visible_game, post_action


def _before(request: HttpRequest, name: str = "before") -> int | None:
    value = request.GET.get(name, "")
    return int(value) if value.isascii() and value.isdigit() and len(value) < 19 else None


@require_http_methods(["GET", "HEAD", "POST"])
def game_talk(request: HttpRequest, game_id: int) -> HttpResponse:
    """GET: the table's messages (the newest 100; older ones by ``?before=ID``). POST: a
    player's message (a form sent twice stores it once)."""
    game = load_visible_game(request, game_id)
    user = request.user if request.user.is_authenticated else None
    draft, error, status = "", "", 200
    if request.method == "POST":
        if user is None:
            return redirect(f"{reverse('account_login')}?next={request.path}")
        draft = request.POST.get("text", "")
        try:
            # The page's key with the text's digest: a form sent twice writes once, and
            # the same page sent again with an edited text (Back, edit, Send) writes that.
            key = request.POST.get("key", "")[:40]
            digest = hashlib.sha256(draft.encode("utf-8", "surrogatepass")).hexdigest()[:16]
            talk_services.message_post(
                game=game, user=user, text=draft, client_key=f"web:{key}:{digest}" if key else ""
            )
        except ApplicationError as exc:
            error, status = exc.message, 400
        else:
            return redirect(f"{request.path}#talk-form")
    before = _before(request)
    rows, older = talk_page(game=game, before=before)
    if rows and before is None:  # the newest messages, shown: read, on every device
        talk_services.talk_read_mark(user=user, game=game, last_id=rows[-1].pk)
    shown = [
        {
            "message": m,
            "removed": removed_words(m, game),
            "label": author_label(m),
            "can_remove": m.removed_at is None
            and talk_services.may_remove(message=m, game=game, user=user),
        }
        for m in rows
    ]  # fmt: skip
    return render(request, "games/game_talk.html", {
        "game": game,
        "shown": shown,
        # The newest message shown (the page asks talk.json for those after it).
        "last_id": rows[-1].pk if rows else 0,
        "live": before is None,  # an older page is not added to
        "poll_seconds": settings.TALK_POLL_SECONDS,
        "older": rows[0].pk if older and rows else None,
        "refusal": talk_services.talk_refusal(game=game, user=user),
        "draft": draft if error else "",
        "error": error,
        "key": secrets.token_urlsafe(16),
        "max_chars": talk_services.TALK_MAX_CHARS,
    }, status=status)  # fmt: skip


@login_required
@post_action
def message_remove(request: HttpRequest, game_id: int, message_id: int) -> HttpResponse:
    """Its author, the organizer or staff removes a message from the table."""
    game = load_visible_game(request, game_id)
    message = message_at(game=game, message_id=message_id)
    if message is None:
        raise Http404("No such message at this table.")
    talk_services.message_remove(message=message, by=request.user)
    messages.success(request, "The message was removed.")
    return redirect("games:talk", game_id=game.pk)


@require_safe
def game_talk_json(request: HttpRequest, game_id: int) -> JsonResponse:
    """The messages after ``?after=ID`` (oldest first, at most 100), for the talk page's
    script to add without a reload: each with its author's label, its moment as the page
    writes it, and its text (or who removed it); with ``?from=ID``, the messages removed
    among those from ID on. Whoever may see the game may ask."""
    game = load_visible_game(request, game_id)
    after = _before(request, "after") or 0
    rows = talk_after(game=game, after=after)
    if rows:  # the page adds them as they come: read
        talk_services.talk_read_mark(user=request.user, game=game, last_id=rows[-1].pk)
    # ``?from=ID``: the oldest message the page shows; the removed ones among those it
    # shows (up to ``after``) come too, for the page to grey them out.
    first = _before(request, "from") or 0
    gone = removed_between(game=game, first=first, last=after) if first else []
    response = JsonResponse({"messages": [
        {
            "id": m.pk, "label": author_label(m), "when": local_time(m.created_at),
            "at": m.created_at.isoformat(), "removed": removed_words(m, game) or None,
            "text": None if m.removed_at else m.text,
        }
        for m in rows
    ], "removed": [{"id": m.pk, "removed": removed_words(m, game)} for m in gone]})  # fmt: skip
    response["Cache-Control"] = "no-store"
    return response
