"""The home page, the site navigation, and the demo data command."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.urls import include, path

from web import views

SECTIONS = ["Cards", "Decks", "Matches", "Tournaments", "Ladder"]


def _cards_index(request):
    from django.http import HttpResponse

    return HttpResponse("the card pool")


# This module doubles as a URLconf in which only the Cards section exists.
urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("cards/", include(([path("", _cards_index, name="index")], "cards"))),
    path("", include("accounts.urls")),  # the header's log in / sign up links
]


@pytest.mark.django_db
def test_home_page_presents_both_games_and_every_section(client):
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    for text in ("TempoFront", "Conquest", "How it works", "/static/css/site.css"):
        assert text in html
    labels = [item["label"] for item in response.context["nav_sections"]]
    assert labels == SECTIONS


@pytest.mark.django_db
@override_settings(ROOT_URLCONF=__name__)
def test_a_section_is_a_link_once_its_app_names_its_index_and_soon_before(client):
    """A section links to ``<section>:index`` once an app defines that URL name; until
    then the navigation shows it as coming soon, without a dead link."""
    response = client.get("/")
    items = {item["label"]: item for item in response.context["nav_sections"]}
    html = response.content.decode()
    assert items["Cards"]["url"] == "/cards/"
    assert '<a href="/cards/">Cards</a>' in html
    assert items["Decks"]["url"] is None
    assert "Decks <small>soon</small>" in html


@pytest.mark.django_db
def test_home_page_reports_the_last_worker_heartbeat(client):
    from web.services import heartbeat_record

    assert "No worker heartbeat recorded yet" in client.get("/").content.decode()
    heartbeat_record(worker="celery@box-7")
    assert "celery@box-7" in client.get("/").content.decode()


@pytest.mark.django_db
@override_settings(DEBUG=True)
def test_load_demo_creates_the_demo_player_once(capsys):
    from django.contrib.auth import get_user_model

    call_command("load_demo")
    call_command("load_demo")
    users = get_user_model().objects.filter(username="demo")
    assert users.count() == 1
    assert users.get().check_password("demo")
    out = capsys.readouterr().out
    assert "created user 'demo'" in out and "already exists" in out


@pytest.mark.django_db
def test_load_demo_refuses_production_mode():
    with override_settings(DEBUG=False), pytest.raises(CommandError, match="DJANGO_DEBUG=0"):
        call_command("load_demo")


@pytest.mark.django_db
def test_unknown_address_shows_the_site_404_page(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "This page is not in the deck." in html
    assert 'href="/"' in html
