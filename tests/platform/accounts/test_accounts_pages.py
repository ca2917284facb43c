"""Account pages: sign up, log in, log out, and the profile page."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from decks.services import deck_register
from engine import games

pytestmark = pytest.mark.django_db

PASSWORD = "long-enough-passphrase-42"


def test_signup_logs_in_and_lands_on_the_new_profile(client):
    page = client.get("/accounts/signup/")
    assert page.status_code == 200 and b'name="password2"' in page.content
    response = client.post(
        "/accounts/signup/", {"username": "hana", "password1": PASSWORD, "password2": PASSWORD}, follow=True
    )
    assert response.redirect_chain[-1][0] == "/players/hana/"
    assert response.context["user"].username == "hana"
    assert "Welcome, hana!" in response.content.decode()


def test_signup_follows_next(client):
    response = client.post(
        "/accounts/signup/", {"username": "hana", "password1": PASSWORD, "password2": PASSWORD, "next": "/decks/new/"}
    )
    assert response["Location"] == "/decks/new/"


def test_signup_refuses_an_offsite_next(client):
    response = client.post(
        "/accounts/signup/",
        {"username": "hana", "password1": PASSWORD, "password2": PASSWORD, "next": "https://evil.example/"},
    )
    assert response["Location"] == "/players/hana/"


def test_signup_shows_every_problem(client):
    User.objects.create_user("Hana", password=PASSWORD)
    response = client.post("/accounts/signup/", {"username": "hana", "password1": "abc", "password2": "abd"})
    html = response.content.decode()
    assert response.status_code == 200
    assert "already exists" in html or "is taken" in html
    assert "didn’t match" in html or "didn't match" in html
    assert User.objects.count() == 1


def test_signup_refuses_a_name_taken_in_another_case(client):
    User.objects.create_user("Hana", password=PASSWORD)
    response = client.post("/accounts/signup/", {"username": "HANA", "password1": PASSWORD, "password2": PASSWORD})
    assert "A user with that username already exists." in response.content.decode()
    assert User.objects.count() == 1


def test_login_and_logout(client):
    User.objects.create_user("ivan", password=PASSWORD)
    assert client.get("/accounts/login/").status_code == 200
    bad = client.post("/accounts/login/", {"username": "ivan", "password": "nope"})
    assert bad.status_code == 200 and "correct username and password" in bad.content.decode()
    response = client.post("/accounts/login/", {"username": "ivan", "password": PASSWORD})
    assert response["Location"] == "/players/ivan/"
    assert "Log out?" in client.get("/accounts/logout/").content.decode()
    response = client.post("/accounts/logout/")
    assert response.status_code == 302 and response["Location"] == "/"
    assert client.get("/decks/new/").status_code == 302


def test_login_follows_next(client):
    User.objects.create_user("ivan", password=PASSWORD)
    response = client.post("/accounts/login/?next=/decks/new/", {"username": "ivan", "password": PASSWORD,
                                                                  "next": "/decks/new/"})
    assert response["Location"] == "/decks/new/"


def test_profile_lists_the_players_decks(client):
    jo = User.objects.create_user("jo", password=PASSWORD)
    engine_game = games["conquest"]
    text = next(iter(engine_game.starter_decks().values())).to_text(engine_game.commander_label)
    deck = deck_register(owner=jo, game="conquest", name="Jo's Nebula", decklist=text, pilot="greedy")
    html = client.get("/players/jo/").content.decode()
    assert "Jo&#x27;s Nebula" in html and f'href="/decks/{deck.pk}/"' in html
    assert "API access" not in html  # only on one's own profile
    client.force_login(jo)
    own = client.get("/players/jo/").content.decode()
    assert "API access" in own and "Register a deck" in own


def test_profile_of_nobody_is_404(client):
    response = client.get("/players/nobody/")
    assert response.status_code == 404 and "This page is not in the deck." in response.content.decode()


def test_own_profile_redirect_and_api_token(client):
    kim = User.objects.create_user("kim", password=PASSWORD)
    client.force_login(kim)
    assert client.get("/accounts/profile/")["Location"] == "/players/kim/"
    response = client.post("/accounts/token/")
    from rest_framework.authtoken.models import Token

    assert Token.objects.get(user=kim).key in response.content.decode()
