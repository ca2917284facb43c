"""Root URL routes. Each app adds its own ``include(...)`` line here."""

from django.contrib import admin
from django.urls import include, path

from web import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("docs/<slug:name>.md", views.project_doc, name="project-doc"),
    path("admin/", admin.site.urls),
    path("", include("decks.urls")),  # accounts, players, cards, decks, and their API with schema and docs
    path("", include("matches.urls")),
    path("", include("ladder.urls")),  # /ladder/ and its API
    path("", include("live.urls")),
    path("", include("tournaments.urls")),
    path("", include("guide.urls")),  # rules, glossaries, status
    path("", include("meta.urls")),  # /meta/ and its API
    path("", include("lab.urls")),  # /lab/, a deck's /decks/<id>/lab/, and their API
]

# Styled pages for people, the API's error shape under /api/ (web/errors.py).
handler400 = "web.errors.bad_request"
handler403 = "web.errors.permission_denied"
handler404 = "web.errors.not_found"
handler500 = "web.errors.server_error"
