"""The site header offers log in and sign up to visitors, and profile and log out to players."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

pytestmark = pytest.mark.django_db


def test_a_visitor_sees_log_in_and_sign_up(client):
    html = client.get("/").content.decode()
    assert 'href="/accounts/login/?next=/"' in html
    assert 'href="/accounts/signup/"' in html
    assert "Log out" not in html


def test_a_player_sees_their_profile_and_can_log_out(client):
    get_user_model().objects.create_user("mira", password="a long passphrase")
    client.login(username="mira", password="a long passphrase")
    html = client.get("/cards/").content.decode()
    assert 'href="/players/mira/"' in html
    assert 'action="/accounts/logout/"' in html
    client.post("/accounts/logout/")
    assert "Log out" not in client.get("/").content.decode()
