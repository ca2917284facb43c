"""Routes of the guide (namespace ``guide``): ``/rules/``, ``/rules/<game>/``,
``/rules/<game>/glossary/``, ``/rules/glossary.json`` and ``/status/``."""

from django.urls import path

from guide import views

app_name = "guide"

urlpatterns = [
    path("rules/", views.rules_index, name="index"),
    path("rules/glossary.json", views.glossary_json, name="glossary-json"),
    path("rules/<slug:game>/", views.rules, name="rules"),
    path("rules/<slug:game>/glossary/", views.glossary_page, name="glossary"),
    path("status/", views.status, name="status"),
]
