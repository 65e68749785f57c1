"""The tournaments' API routes (under /api/; each also without its slash)."""

from games.api.urls import route
from tournaments import api, api_player

app_name = "tournaments_api"

urlpatterns = [
    *route("tournaments/", api.TournamentListView.as_view(), "list"),
    *route("tournaments/<slug:slug>/", api.TournamentDetailView.as_view(), "detail"),
    *route("tournaments/<slug:slug>/register/", api_player.RegisterView.as_view(), "register"),
    *route("tournaments/<slug:slug>/withdraw/", api_player.WithdrawView.as_view(), "withdraw"),
    *route("tournaments/<slug:slug>/byes/", api_player.ByeRequestView.as_view(), "bye"),
    *route(
        "tournaments/<slug:slug>/byes/<id:number>/",
        api_player.ByeCancelView.as_view(),
        "bye_cancel",
    ),
    *route("ratings/", api.RatingPoolsView.as_view(), "ratings"),
    *route("ratings/<path:pool>/", api.RatingListView.as_view(), "rating_pool"),
]
