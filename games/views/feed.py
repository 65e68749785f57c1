"""A game's Atom feed (``/games/ID/feed.atom``): each resolved prompt's public events, for
a feed reader following a league game from outside (Django's syndication framework). The
feed is what a visitor may see: a private game's feed is a 404 to anyone not signed in to
it (feed readers never are), and no seat's own events or order text is ever in it."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.syndication.views import Feed
from django.http import HttpRequest, HttpResponse
from django.template.defaultfilters import linebreaksbr
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from fivex_site.links import public_url, site_path
from games import selectors_review
from games.models import Game
from games.presentation import ruleset_name
from games.rate_limits import client_address, over_rate
from games.selectors import OVER
from games.templatetags.games_extras import result_words
from games.views.common import load_visible_game

# Entries in a feed: the latest prompts (readers keep what they fetched before).
FEED_ENTRIES = 30
# What XML 1.0 cannot carry (Django's feed refuses it: a 500), which an organizer's text
# may hold (a reason for ending a game, pasted with a vertical tab): a space there.
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text(text: str) -> str:
    return _NOT_XML.sub(" ", text)


class GameFeed(Feed):
    feed_type = Atom1Feed

    def __call__(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        # Built from the log at each request, for anyone: ``API_FEED_RATE`` per client,
        # counted with the tournaments' feeds.
        refused = over_rate(request, scope="feed", ident=client_address(request),
                            what="this feed")  # fmt: skip
        return refused or super().__call__(request, *args, **kwargs)

    def get_object(self, request: HttpRequest, game_id: int) -> Game:  # noqa: D102
        return load_visible_game(request, game_id)

    def title(self, game: Game) -> str:  # noqa: D102
        return _xml_text(f"{game.title} — {ruleset_name(game.ruleset)} on FiveX")

    def subtitle(self, game: Game) -> str:  # noqa: D102
        return _xml_text(f"What happened at each decision of {game.title}, as anyone watching sees it.")

    def link(self, game: Game) -> str:  # noqa: D102
        return reverse("games:detail", args=[game.pk])

    def items(self, game: Game) -> list[dict[str, Any]]:  # noqa: D102
        entries = selectors_review.feed_entries(game=game, limit=FEED_ENTRIES)
        for entry in entries:
            entry["link"] = reverse("games:review_step", args=[game.pk, entry["number"]])
        if game.status in OVER and game.started_at and game.finished_at:
            entries.insert(0, {
                "number": None,
                "heading": "Game over",
                "resolved_at": game.finished_at,
                "events": [f"Result: {result_words(game)}."]
                + ([game.end_reason] if game.end_reason else []),
                "link": reverse("games:review_end", args=[game.pk]),
            })  # fmt: skip
        return entries

    def item_title(self, item: dict[str, Any]) -> str:  # noqa: D102
        return _xml_text(item["heading"])

    def item_description(self, item: dict[str, Any]) -> str:  # noqa: D102
        # Atom's summary is HTML (type="html"): the words escaped, so that none is ever
        # read as markup, one event a line.
        text = "\n".join(_xml_text(e) for e in item["events"])
        return linebreaksbr(text or "Nothing anyone could see.", autoescape=True)

    def item_link(self, item: dict[str, Any]) -> str:  # noqa: D102
        return item["link"]

    def item_guid(self, item: dict[str, Any]) -> str:  # noqa: D102
        # Atom's id is an absolute IRI (RFC 4287), what readers tell entries apart by: the
        # entry's page at the site's public address (Django keeps a guid as given).
        return public_url(site_path(item["link"]))

    def item_pubdate(self, item: dict[str, Any]) -> Any:  # noqa: D102
        return item["resolved_at"]

    def item_updateddate(self, item: dict[str, Any]) -> Any:  # noqa: D102
        return item["resolved_at"]
