"""Routes of the metagame: pages under /meta/ (namespace ``meta``), the API under
/api/meta/ (namespace ``meta-api``). Included once from config/urls.py."""

from django.urls import include, path

from meta import api, views

page_patterns = [
    path("", views.meta_index, name="index"),
    path("<slug:game>/", views.meta_game, name="game"),
]

api_patterns = [
    path("<slug:game>/decks/", api.MetaDecksView.as_view(), name="decks"),
    path("<slug:game>/matchups/", api.MetaMatchupsView.as_view(), name="matchups"),
    path("<slug:game>/cards/", api.MetaCardsView.as_view(), name="cards"),
    path("<slug:game>/pilots/", api.MetaPilotsView.as_view(), name="pilots"),
]

urlpatterns = [
    path("meta/", include((page_patterns, "meta"))),
    path("api/meta/", include((api_patterns, "meta-api"))),
]
