"""The tournaments' API routes (under /api/; each also without its slash)."""


from games.api.urls import route
from tournaments import api

app_name = "tournaments_api"

urlpatterns = [
    *route("tournaments/", api.TournamentListView.as_view(), "list"),
    *route("tournaments/<slug:slug>/", api.TournamentDetailView.as_view(), "detail"),
    *route("ratings/", api.RatingPoolsView.as_view(), "ratings"),
    *route("ratings/<path:pool>/", api.RatingListView.as_view(), "rating_pool"),
]
