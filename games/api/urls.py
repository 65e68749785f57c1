"""API routes (included under /api/ by fivex_site.urls).

Every route also answers without its trailing slash: a client that POSTs to
``/api/games/7/orders`` gets its order stored, not a redirect that drops the body (or,
with DEBUG on, Django's APPEND_SLASH error). The schema lists the slashed form only
(``games.api.schema.slashed_only``)."""

from django.urls import path

from games.api import (
    away_views,
    calendar_views,
    game_views,
    handover_views,
    invitation_views,
    log_views,
    organizer_views,
    review_views,
    seat_views,
    settings_views,
    talk_views,
    webhook_views,
)

app_name = "games_api"


def route(pattern: str, view, name: str) -> list:
    """``pattern`` (ending in a slash) by its name, and the same without the slash."""
    return [path(pattern, view, name=name), path(pattern.removesuffix("/"), view)]


urlpatterns = [
    *route("ping/", game_views.PingView.as_view(), "ping"),
    *route("rulesets/", game_views.RulesetListView.as_view(), "rulesets"),
    *route("games/", game_views.GameListCreateView.as_view(), "games"),
    *route("games/open/", game_views.OpenGamesView.as_view(), "open_games"),
    *route("games/<id:game_id>/", game_views.GameDetailView.as_view(), "game"),
    *route("games/<id:game_id>/join/", seat_views.GameJoinView.as_view(), "join"),
    *route("games/<id:game_id>/start/", seat_views.GameStartView.as_view(), "start"),
    *route("games/<id:game_id>/leave/", seat_views.GameLeaveView.as_view(), "leave"),
    *route("games/<id:game_id>/rematch/", seat_views.GameRematchView.as_view(), "rematch"),
    *route("games/<id:game_id>/talk/", talk_views.GameTalkView.as_view(), "talk"),
    *route(
        "games/<id:game_id>/invitations/",
        invitation_views.GameInvitationsView.as_view(),
        "invitations",
    ),
    *route(
        "games/<id:game_id>/invitations/<str:name>/",
        invitation_views.GameInvitationView.as_view(),
        "invitation",
    ),
    *route(
        "games/<id:game_id>/invitation/decline/",
        invitation_views.InvitationDeclineView.as_view(),
        "invitation_decline",
    ),
    *route("games/<id:game_id>/resign/", seat_views.SeatResignView.as_view(), "resign"),
    *route("games/<id:game_id>/orders/", seat_views.OrderSubmitView.as_view(), "orders"),
    *route("games/<id:game_id>/log/", log_views.GameLogView.as_view(), "log"),
    *route("games/<id:game_id>/export/", log_views.GameExportView.as_view(), "export"),
    *route(
        "games/<id:game_id>/review/<id:number>/",
        review_views.GameReviewStepView.as_view(),
        "review_step",
    ),
    # The organizer's tools (the game's organizer and staff).
    *route("games/<id:game_id>/organizer/", organizer_views.OrganizerToolsView.as_view(), "organizer"),
    *route("games/<id:game_id>/extend/", organizer_views.DeadlineExtendView.as_view(), "extend"),
    *route("games/<id:game_id>/remind/", organizer_views.RemindView.as_view(), "remind"),
    *route("games/<id:game_id>/pause/", organizer_views.PauseView.as_view(), "pause"),
    *route("games/<id:game_id>/resume/", organizer_views.ResumeView.as_view(), "resume"),
    *route("games/<id:game_id>/end/", organizer_views.GameEndView.as_view(), "end"),
    *route("games/<id:game_id>/privacy/", organizer_views.PrivacyView.as_view(), "privacy"),
    *route("games/<id:game_id>/table-talk/", organizer_views.TalkSwitchView.as_view(), "table_talk"),
    *route(
        "games/<id:game_id>/seats/<int:position>/offer/",
        handover_views.SeatOfferView.as_view(),
        "seat_offer",
    ),
    *route(
        "games/<id:game_id>/seats/<int:position>/replace/",
        handover_views.SeatReplaceView.as_view(),
        "seat_replace",
    ),
    *route(
        "games/<id:game_id>/offers/<id:offer_id>/withdraw/",
        handover_views.OfferWithdrawView.as_view(),
        "offer_withdraw",
    ),
    # The player offered a seat.
    *route("offers/", handover_views.MyOffersView.as_view(), "offers"),
    *route("offers/<id:offer_id>/", handover_views.MyOfferView.as_view(), "offer"),
    *route("offers/<id:offer_id>/accept/", handover_views.OfferAcceptView.as_view(), "offer_accept"),
    *route("offers/<id:offer_id>/decline/", handover_views.OfferDeclineView.as_view(), "offer_decline"),
    # Until when the player is away (games that wait for them move their deadlines).
    *route("away/", away_views.AwayView.as_view(), "away"),
    *route("settings/", settings_views.SettingsView.as_view(), "settings"),
    # The secret address of the player's calendar feed of deadlines.
    *route("calendar/", calendar_views.CalendarView.as_view(), "calendar"),
    # The player's "your turn" webhook.
    *route("webhook/", webhook_views.WebhookView.as_view(), "webhook"),
    *route("webhook/ping/", webhook_views.WebhookPingView.as_view(), "webhook_ping"),
]
