"""Routes of the players, decks and cards part of the site, and of its API.

Included once from config/urls.py. Namespaces: ``accounts`` (sign up, log in and out,
``/players/<name>/``), ``cards`` (``/cards/``), ``decks`` (``/decks/``) and ``api``
(``/api/accounts/``, ``/api/cards/``, ``/api/decks/``, the OpenAPI schema at
``/api/schema/`` and its docs at ``/api/docs/`` and ``/api/redoc/``).
"""

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from accounts import api as accounts_api
from decks import api as decks_api
from decks import views
from decks.cards import api as cards_api

deck_patterns = [
    path("", views.deck_index, name="index"),
    path("new/", views.deck_new, name="new"),
    path("<int:deck_id>/", views.deck_detail, name="detail"),
    path("<int:deck_id>/edit/", views.deck_edit, name="edit"),
    path("<int:deck_id>/delete/", views.deck_delete, name="delete"),
]

api_patterns = [
    path("accounts/register/", accounts_api.RegisterView.as_view(), name="register"),
    path("accounts/token/", accounts_api.TokenView.as_view(), name="token"),
    path("accounts/me/", accounts_api.MeView.as_view(), name="me"),
    path("bots/", accounts_api.BotsView.as_view(), name="bots"),
    path("bots/<str:bot_id>/", accounts_api.BotDetailView.as_view(), name="bot"),
    path("bots/<str:bot_id>/tokens/", accounts_api.BotTokensView.as_view(), name="bot-tokens"),
    path("bots/<str:bot_id>/tokens/<str:token_id>/", accounts_api.BotTokenView.as_view(), name="bot-token"),
    path("cards/", cards_api.CardListView.as_view(), name="card-list"),
    path("cards/<slug:game>/<slug:card_id>/", cards_api.CardDetailView.as_view(), name="card-detail"),
    path("decks/", decks_api.DeckListView.as_view(), name="deck-list"),
    path("decks/<int:deck_id>/", decks_api.DeckDetailView.as_view(), name="deck-detail"),
    path("decks/<int:deck_id>/versions/", decks_api.DeckVersionListView.as_view(), name="deck-versions"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api:schema"), name="redoc"),
]

urlpatterns = [
    path("", include("accounts.urls")),
    path("cards/", include("decks.cards.urls")),
    path("decks/", include((deck_patterns, "decks"))),
    path("api/", include((api_patterns, "api"))),
]
