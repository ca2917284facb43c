"""URL routes of the deck lab: pages under /lab/ (and a deck's /decks/<id>/lab/), the API
under /api/lab/ (and /api/decks/<id>/lab/). Namespaces ``lab`` and ``lab-api``."""

from django.urls import include, path

from lab import api, views

page_patterns = [
    path("lab/", views.index, name="index"),
    path("lab/<int:run_id>/", views.detail, name="detail"),
    path("lab/<int:run_id>/cancel/", views.cancel, name="cancel"),
    path("lab/<int:run_id>/results.csv", views.results_csv, name="csv"),
    path("lab/<int:run_id>/matches/<int:number>/replay/", views.replay, name="replay"),
    path("decks/<int:deck_id>/lab/", views.new, name="new"),
]

api_patterns = [
    path("api/lab/", api.LabRunList.as_view(), name="list"),
    path("api/lab/<int:run_id>/", api.LabRunDetail.as_view(), name="detail"),
    path("api/lab/<int:run_id>/cancel/", api.LabRunCancel.as_view(), name="cancel"),
    path("api/lab/<int:run_id>/matches/", api.LabMatchList.as_view(), name="matches"),
    path("api/lab/<int:run_id>/matches/<int:number>/replay/", api.LabMatchReplay.as_view(), name="replay"),
    path("api/lab/<int:run_id>/csv/", api.LabCsv.as_view(), name="csv"),
    path("api/decks/<int:deck_id>/lab/", api.LabStart.as_view(), name="start"),
]

urlpatterns = [
    path("", include((page_patterns, "lab"))),
    path("", include((api_patterns, "lab-api"))),
]
