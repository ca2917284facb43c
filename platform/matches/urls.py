"""URL routes of the matches app: pages under /matches/, the API under /api/matches/.

Included once from config/urls.py; the pages are namespace ``matches``, the API
``matches-api``.
"""

from django.urls import include, path

from matches import api, views

page_patterns = [
    path("", views.index, name="index"),
    path("new/", views.new, name="new"),
    path("<int:match_id>/", views.detail, name="detail"),
    path("<int:match_id>/replay/", views.replay, name="replay"),
    path("<int:match_id>/verify/", views.verify, name="verify"),
]

api_patterns = [
    path("", api.MatchListCreate.as_view(), name="list"),
    path("<int:match_id>/", api.MatchDetail.as_view(), name="detail"),
    path("<int:match_id>/replay/", api.MatchReplay.as_view(), name="replay"),
]

urlpatterns = [
    path("matches/", include((page_patterns, "matches"))),
    path("api/matches/", include((api_patterns, "matches-api"))),
]
