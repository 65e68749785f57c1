"""API routes (included under /api/ by fivex_site.urls)."""

from django.urls import path

from games.api import views

app_name = "games_api"

urlpatterns = [
    path("ping/", views.PingView.as_view(), name="ping"),
    path("games/", views.GameListCreateView.as_view(), name="games"),
    path("games/open/", views.OpenGamesView.as_view(), name="open_games"),
    path("games/<id:game_id>/", views.GameDetailView.as_view(), name="game"),
    path("games/<id:game_id>/join/", views.GameJoinView.as_view(), name="join"),
    path("games/<id:game_id>/start/", views.GameStartView.as_view(), name="start"),
    path("games/<id:game_id>/leave/", views.GameLeaveView.as_view(), name="leave"),
    path("games/<id:game_id>/resign/", views.SeatResignView.as_view(), name="resign"),
    path("games/<id:game_id>/orders/", views.OrderSubmitView.as_view(), name="orders"),
    path("games/<id:game_id>/log/", views.GameLogView.as_view(), name="log"),
    path("games/<id:game_id>/export/", views.GameExportView.as_view(), name="export"),
]
