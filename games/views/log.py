"""A game's record: the audit log page (a page of entries at a time, orders as
commitments until the rules reveal them) and the export download of a game that is over
(seed and orders included)."""

from __future__ import annotations

import json

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_safe

from games import selectors_log
from games.errors import ApplicationError
from games.log_text import log_details, log_summary
from games.views.common import load_visible_game, public_log

# Log entries a page of the log page shows.
LOG_PAGE = 200


@require_safe
def game_log(request: HttpRequest, game_id: int) -> HttpResponse:
    """The public audit log: entries in order, orders as commitments until revealed."""
    game = load_visible_game(request, game_id)
    user = request.user if request.user.is_authenticated else None
    total = selectors_log.log_length(game=game)
    pages = max(1, -(-total // LOG_PAGE))
    # The newest page unless another is asked for (a long game's log is thousands of
    # entries: the whole of it was 2 MB of HTML and a second of CPU).
    raw = request.GET.get("page", "")
    wanted = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 9 else 0
    page = wanted if 1 <= wanted <= pages else pages
    entries = [
        {**e, "summary": log_summary(
            ruleset=game.ruleset, kind=e["kind"], payload=e["payload"],
            # who made the game, for its first entry (read only on the page that has it)
            organizer=game.organizer.username if e["kind"] == "game_created" else "",
        ), "payload": log_details(kind=e["kind"], payload=e["payload"])}
        for e in public_log(game=game, for_user=user, after=(page - 1) * LOG_PAGE, limit=LOG_PAGE)
    ]  # fmt: skip
    context = {
        "game": game,
        "entries": entries,
        "page": page,
        "pages": pages,
        "page_numbers": range(1, pages + 1) if pages > 1 else (),
        "total": total,
        "first_seq": (page - 1) * LOG_PAGE + 1,
        "last_seq": min(page * LOG_PAGE, total),
    }
    return render(request, "games/game_log.html", context)


@require_safe
def game_export(request: HttpRequest, game_id: int) -> HttpResponse:
    """The finished game's full record as a JSON download (seed and orders included)."""
    game = load_visible_game(request, game_id)
    try:
        data = selectors_log.game_export(game=game)
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return redirect("games:detail", game_id=game.pk)
    response = HttpResponse(
        json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False),
        content_type="application/json; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="fivex-game-{game.pk}.json"'
    return response
