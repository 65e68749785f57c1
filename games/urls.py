"""URLs of the game pages (included at the site root)."""

from django.urls import path

from games import webhooks_views
from games.views import account, actions, lobby, log, pages, review, talk
from games.views.feed import GameFeed

app_name = "games"

urlpatterns = [
    path("games/", lobby.game_list, name="list"),
    path("games/new/", lobby.game_create, name="create"),
    path("games/rules/<slug:ruleset>/", lobby.game_rules, name="rules"),
    path("games/<id:game_id>/", pages.game_detail, name="detail"),
    path("games/<id:game_id>/status.json", pages.game_status, name="status"),
    path("games/<id:game_id>/log/", log.game_log, name="log"),
    path("games/<id:game_id>/export.json", log.game_export, name="export"),
    path("games/<id:game_id>/review/", review.game_review, name="review"),
    path("games/<id:game_id>/feed.atom", GameFeed(), name="feed"),
    path("games/<id:game_id>/review/end/", review.game_review_end, name="review_end"),
    path("games/<id:game_id>/review/<id:number>/", review.game_review_step, name="review_step"),
    path("games/<id:game_id>/join/", actions.game_join, name="join"),
    path("games/<id:game_id>/invite/<str:token>/", actions.game_invite, name="invite"),
    path("games/<id:game_id>/leave/", actions.game_leave, name="leave"),
    path("games/<id:game_id>/invite-players/", actions.players_invite, name="invite_players"),
    path("games/<id:game_id>/invite-link/", actions.invite_link_renew, name="invite_link_renew"),
    path(
        "games/<id:game_id>/invitations/withdraw/",
        actions.invitation_withdraw,
        name="invitation_withdraw",
    ),
    path(
        "games/<id:game_id>/invitation/decline/",
        actions.invitation_decline,
        name="invitation_decline",
    ),
    path("games/<id:game_id>/rematch/", actions.game_rematch, name="rematch"),
    path("games/<id:game_id>/talk/", talk.game_talk, name="talk"),
    path("games/<id:game_id>/talk.json", talk.game_talk_json, name="talk_json"),
    path(
        "games/<id:game_id>/talk/<id:message_id>/remove/", talk.message_remove, name="talk_remove"
    ),
    path("games/<id:game_id>/start/", actions.game_start, name="start"),
    path("games/<id:game_id>/order/", actions.order_submit, name="order"),
    path("games/<id:game_id>/resign/", actions.seat_resign, name="resign"),
    path("games/<id:game_id>/mail-token/", actions.mail_token_rotate, name="mail_token"),
    path("games/<id:game_id>/mail-when/", actions.mail_when, name="mail_when"),
    path(
        "games/<id:game_id>/organizer/<slug:action>/",
        actions.organizer_action,
        name="organizer",
    ),
    path(
        "games/<id:game_id>/offers/<id:offer_id>/", actions.seat_offer_page, name="offer"
    ),
    path(
        "games/<id:game_id>/offers/<id:offer_id>/<slug:answer>/",
        actions.seat_offer_answer,
        name="offer_answer",
    ),
    path("account/api-tokens/", account.api_tokens, name="api_tokens"),
    path("account/webhook/", webhooks_views.webhook_action, name="webhook"),
    path("account/settings/", account.player_settings, name="player_settings"),
    path("account/calendar/", account.calendar, name="calendar"),
    path("calendar/<str:token>.ics", account.calendar_feed, name="calendar_feed"),
]
