"""Routes of the ladder: pages under /ladder/ (namespace ``ladder``), the API under /api/
(namespace ``ladder-api``). Included once from config/urls.py."""

from django.urls import include, path

from ladder import api, views

page_patterns = [
    path("", views.ladder_index, name="index"),
    path("activity/", views.ladder_activity_page, name="activity"),
    path("<slug:game>/", views.ladder_board, name="board"),
]

api_patterns = [
    path("ladders/<slug:game>/", api.LeaderboardView.as_view(), name="leaderboard"),
    path("decks/<int:deck_id>/rating-history/", api.DeckRatingHistoryView.as_view(), name="deck-rating-history"),
    path("players/<str:username>/rating-history/", api.PlayerRatingHistoryView.as_view(),
         name="player-rating-history"),
]

urlpatterns = [
    path("ladder/", include((page_patterns, "ladder"))),
    path("api/", include((api_patterns, "ladder-api"))),
]
