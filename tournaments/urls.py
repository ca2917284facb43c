"""URL routes of the tournaments app: pages under /tournaments/, the API under
/api/tournaments/. Included once from config/urls.py; namespaces ``tournaments`` and
``tournaments-api``."""

from django.urls import include, path

from tournaments import api, views

page_patterns = [
    path("", views.index, name="index"),
    path("new/", views.new, name="new"),
    path("<int:tournament_id>/", views.detail, name="detail"),
    path("<int:tournament_id>/live/", views.live, name="live"),
    path("<int:tournament_id>/parts/", views.parts, name="parts"),
    path("<int:tournament_id>/rounds/<int:number>/", views.round_detail, name="round"),
    path("<int:tournament_id>/edit/", views.edit, name="edit"),
    path("<int:tournament_id>/action/", views.action, name="action"),
]

api_patterns = [
    path("", api.TournamentListCreate.as_view(), name="list"),
    path("<int:tournament_id>/", api.TournamentDetail.as_view(), name="detail"),
    path("<int:tournament_id>/entries/", api.TournamentEntries.as_view(), name="entries"),
    path("<int:tournament_id>/standings/", api.TournamentStandings.as_view(), name="standings"),
    path("<int:tournament_id>/rounds/<int:number>/", api.TournamentRound.as_view(), name="round"),
    path("<int:tournament_id>/start/", api.TournamentStart.as_view(), name="start"),
    path("<int:tournament_id>/check-in/", api.TournamentCheckIn.as_view(), name="check-in"),
    path("<int:tournament_id>/my-match/", api.TournamentMyMatch.as_view(), name="my-match"),
]

urlpatterns = [
    path("tournaments/", include((page_patterns, "tournaments"))),
    path("api/tournaments/", include((api_patterns, "tournaments-api"))),
]
