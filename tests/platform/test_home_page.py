"""The home page, the site navigation, and the demo data command."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.urls import include, path

from web import views

#: The sections in navigation order; Tournaments and Ladder appear once their apps name their index.
SECTIONS = ["Rules", "Cards", "Decks", "Matches", "Tournaments", "Ladder", "Meta"]


def _cards_index(request):
    from django.http import HttpResponse

    return HttpResponse("the card pool")


# This module doubles as a URLconf in which only the Cards section exists.
urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("cards/", include(([path("", _cards_index, name="index")], "cards"))),
    path("", include("accounts.urls")),  # the header's log in / sign up links
    path("", include("guide.urls")),  # the footer's rules and status links
]


@pytest.mark.django_db
def test_home_page_presents_both_games_and_invites_action(client):
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    for text in ("TempoFront", "Conquest", "How it works", "/static/css/site.css"):
        assert text in html
    # What a newcomer can do, each a working link.
    for label, url in (
        ("Learn to play", "/rules/"),
        ("Build a deck", "/decks/new/"),
        ("Challenge a deck", "/matches/new/"),
        ("Watch matches", "/matches/"),
    ):
        assert f'href="{url}">{label}</a>' in html
        assert client.get(url).status_code in (200, 302)  # 302: log in first
    assert 'href="/rules/tempofront/"' in html and 'href="/rules/conquest/"' in html
    labels = [item["label"] for item in response.context["nav_sections"]]
    assert labels == [s for s in SECTIONS if s in labels] and labels[:4] == SECTIONS[:4]
    assert "<small>soon</small>" not in html


@pytest.mark.django_db
@override_settings(ROOT_URLCONF=__name__)
def test_a_section_is_a_link_once_its_app_names_its_index_and_absent_before(client):
    """A section links to ``<section>:index`` once an app defines that URL name; until
    then the navigation leaves it out: no dead labels."""
    response = client.get("/status/")
    items = {item["label"]: item for item in response.context["nav_sections"]}
    html = response.content.decode()
    assert items["Cards"]["url"] == "/cards/"
    assert '<a href="/cards/">Cards</a>' in html
    assert "Decks" not in items and "Ladder" not in items
    nav = html[html.index('<nav class="site-nav"'):html.index("</nav>")]
    assert "Decks" not in nav and "soon" not in nav.casefold()


@pytest.mark.django_db
def test_home_page_invites_a_challenge_while_no_match_is_finished(client):
    html = client.get("/").content.decode()
    assert "No finished match yet." in html


@pytest.mark.django_db
def test_home_page_leaves_out_a_section_whose_app_fails(client, monkeypatch, caplog):
    """Tournaments and ladders show only when their apps answer; a failing or missing
    selector is logged and the rest of the page is served."""
    import web.views as web_views

    def broken(name):
        raise RuntimeError(f"{name} is broken")

    monkeypatch.setattr(web_views.apps, "is_installed", lambda name: True)
    monkeypatch.setattr(web_views, "import_module", broken)
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Upcoming tournaments" not in html and "Top of the ladders" not in html
    assert "How it works" in html
    assert "the ladder section failed and is left out" in caplog.text


@pytest.mark.django_db
def test_status_page_carries_the_worker_heartbeat_not_the_home_page(client):
    from web.services import heartbeat_record

    heartbeat_record(worker="celery@box-7")
    assert "celery@box-7" not in client.get("/").content.decode()
    assert "celery@box-7" in client.get("/status/").content.decode()


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
