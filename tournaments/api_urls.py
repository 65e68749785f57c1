"""The tournaments' API routes (under /api/; each also without its slash)."""

from games.api.urls import route
from tournaments import api, api_organizer, api_player

app_name = "tournaments_api"

urlpatterns = [
    *route("tournaments/", api_organizer.TournamentsView.as_view(), "list"),
    *route("tournaments/<slug:slug>/", api.TournamentDetailView.as_view(), "detail"),
    *route("tournaments/<slug:slug>/organizer/", api_organizer.OrganizerStateView.as_view(), "organizer"),
    *route("tournaments/<slug:slug>/open/", api_organizer.OpenView.as_view(), "open"),
    *route("tournaments/<slug:slug>/close/", api_organizer.CloseView.as_view(), "close"),
    *route("tournaments/<slug:slug>/rename/", api_organizer.RenameView.as_view(), "rename"),
    *route("tournaments/<slug:slug>/delete/", api_organizer.DeleteView.as_view(), "delete"),
    *route(
        "tournaments/<slug:slug>/registrations/",
        api_organizer.RegistrationAddView.as_view(),
        "registration_add",
    ),
    *route(
        "tournaments/<slug:slug>/registrations/<str:player>/withdraw/",
        api_organizer.RegistrationWithdrawView.as_view(),
        "registration_withdraw",
    ),
    *route("tournaments/<slug:slug>/rounds/", api_organizer.RoundPairView.as_view(), "round_pair"),
    *route(
        "tournaments/<slug:slug>/rounds/by-hand/",
        api_organizer.RoundByHandView.as_view(),
        "round_by_hand",
    ),
    *route(
        "tournaments/<slug:slug>/rounds/<id:number>/repair/",
        api_organizer.RoundRepairView.as_view(),
        "round_repair",
    ),
    *route(
        "tournaments/<slug:slug>/rounds/<id:number>/start/",
        api_organizer.RoundStartView.as_view(),
        "round_start",
    ),
    *route(
        "tournaments/<slug:slug>/rounds/<id:number>/remind/",
        api_organizer.RoundRemindView.as_view(),
        "round_remind",
    ),
    *route(
        "tournaments/<slug:slug>/rounds/<id:number>/extend/",
        api_organizer.RoundExtendView.as_view(),
        "round_extend",
    ),
    *route(
        "tournaments/<slug:slug>/rounds/<id:number>/tables/<id:table>/result/",
        api_organizer.ResultView.as_view(),
        "result",
    ),
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
