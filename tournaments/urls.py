from django.urls import path

from tournaments import panel, views
from tournaments.feed import TournamentFeed

app_name = "tournaments"

urlpatterns = [
    path("", views.tournament_list, name="list"),
    path("new/", views.tournament_create, name="create"),
    path("<slug:slug>/", views.tournament_detail, name="detail"),
    path("<slug:slug>/feed.atom", TournamentFeed(), name="feed"),
    path("<slug:slug>/standings.csv", views.standings_csv, name="standings_csv"),
    path("<slug:slug>/register/", views.register, name="register"),
    path("<slug:slug>/withdraw/", views.withdraw, name="withdraw"),
    path("<slug:slug>/bye/", views.request_bye, name="bye"),
    path("<slug:slug>/bye/cancel/", views.cancel_bye, name="bye_cancel"),
    path("<slug:slug>/rounds/<id:number>/", views.round_detail, name="round"),
    path("<slug:slug>/players/<id:registration_id>/", views.player_detail, name="player"),
    path("<slug:slug>/manage/", panel.manage, name="manage"),
    path("<slug:slug>/manage/<str:action>/", panel.manage_action, name="manage_action"),
]
