"""A tournament's Atom feed (``/tournaments/SLUG/feed.atom``): rounds started and
finished, results and standings, for a feed reader following a league from outside
(Django's syndication framework, as a game's feed). A draft is a 404 (feed readers are
not signed in); nothing in it is not on the tournament's public pages."""

from __future__ import annotations

from typing import Any

from django.contrib.syndication.views import Feed
from django.http import HttpRequest, HttpResponse
from django.template.defaultfilters import linebreaksbr
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from fivex_site.links import public_url, site_path
from games.presentation import ruleset_name
from games.rate_limits import client_address, over_rate
from tournaments import selectors_feed
from tournaments.models import Tournament

# Entries in a feed: the latest (readers keep what they fetched before).
FEED_ENTRIES = 30


class TournamentFeed(Feed):
    feed_type = Atom1Feed

    def __call__(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        # Built from the log at each request, for anyone: ``API_FEED_RATE`` per client.
        refused = over_rate(request, scope="feed", ident=client_address(request),
                            what="this feed")  # fmt: skip
        return refused or super().__call__(request, *args, **kwargs)

    def get_object(self, request: HttpRequest, slug: str) -> Tournament:  # noqa: D102
        from tournaments.views import _visible_tournament

        return _visible_tournament(request, slug)

    def title(self, tournament: Tournament) -> str:  # noqa: D102
        return f"{tournament.name} — {ruleset_name(tournament.ruleset)} tournament on FiveX"

    def subtitle(self, tournament: Tournament) -> str:  # noqa: D102
        return f"Rounds, results and standings of {tournament.name}."

    def link(self, tournament: Tournament) -> str:  # noqa: D102
        return reverse("tournaments:detail", args=[tournament.slug])

    def items(self, tournament: Tournament) -> list[dict[str, Any]]:  # noqa: D102
        return selectors_feed.feed_entries(tournament=tournament, limit=FEED_ENTRIES)

    def item_title(self, item: dict[str, Any]) -> str:  # noqa: D102
        return item["heading"]

    def item_description(self, item: dict[str, Any]) -> str:  # noqa: D102
        # Atom's summary is HTML: the words escaped (a player's name is never markup).
        return linebreaksbr("\n".join(item["lines"]), autoescape=True)

    def item_link(self, item: dict[str, Any]) -> str:  # noqa: D102
        return item["link"]

    def item_guid(self, item: dict[str, Any]) -> str:  # noqa: D102
        # Atom's id is an absolute IRI (RFC 4287), what readers tell entries apart by: the
        # entry's page at the site's public address (Django keeps a guid as given).
        return public_url(site_path(item["link"]))

    def item_pubdate(self, item: dict[str, Any]) -> Any:  # noqa: D102
        return item["at"]

    def item_updateddate(self, item: dict[str, Any]) -> Any:  # noqa: D102
        return item["at"]
