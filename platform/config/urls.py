"""Root URL routes. Each app adds its own ``include(...)`` line here."""

from django.contrib import admin
from django.urls import include, path

from web import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("", include("decks.urls")),  # accounts, players, cards, decks, and their API with schema and docs
    path("", include("matches.urls")),
    path("", include("ladder.urls")),  # /ladder/ and its API
    path("", include("live.urls")),
    path("", include("tournaments.urls")),
]

handler404 = "config.api.not_found"
