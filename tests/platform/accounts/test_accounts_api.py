"""Accounts API: register, token, and token auth on the other endpoints."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

REGISTER = "/api/accounts/register/"
TOKEN = "/api/accounts/token/"
ME = "/api/accounts/me/"
GOOD_PASSWORD = "long-enough-passphrase-42"


def error_of(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code and error["message"]
    return error


@pytest.fixture
def api() -> APIClient:
    return APIClient()


def test_register_returns_201_with_the_user_and_a_working_token(api):
    response = api.post(REGISTER, {"username": "carol", "password": GOOD_PASSWORD}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["user"]["username"] == "carol"
    assert body["user"]["url"] == "/players/carol/"
    assert body["token"] == Token.objects.get(user__username="carol").key
    api.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    assert api.get(ME).json()["username"] == "carol"
    assert User.objects.get(username="carol").check_password(GOOD_PASSWORD)


def test_register_refuses_a_taken_name_whatever_its_case(api):
    User.objects.create_user("Carol", password=GOOD_PASSWORD)
    error = error_of(api.post(REGISTER, {"username": "carol", "password": GOOD_PASSWORD}, format="json"), 400,
                     "validation_error")
    assert error["fields"] == {"username": ["the username 'carol' is taken"]}


def test_register_reports_username_and_password_problems_together(api):
    error = error_of(api.post(REGISTER, {"username": "bad name!", "password": "123"}, format="json"), 400,
                     "validation_error")
    assert set(error["fields"]) == {"username", "password"}
    assert any("too short" in m for m in error["fields"]["password"])
    assert User.objects.count() == 0


def test_register_missing_fields(api):
    error = error_of(api.post(REGISTER, {}, format="json"), 400, "validation_error")
    assert set(error["fields"]) == {"username", "password"}


def test_register_wrong_content_type(api):
    response = api.post(REGISTER, data="username=x", content_type="text/csv")
    error_of(response, 415, "unsupported_media_type")


def test_register_ignores_a_stale_token_header(api):
    api.credentials(HTTP_AUTHORIZATION="Token stale")
    response = api.post(REGISTER, {"username": "dave", "password": GOOD_PASSWORD}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["user"]["username"] == "dave"
    assert User.objects.get(username="dave").check_password(GOOD_PASSWORD)
    assert body["token"] == Token.objects.get(user__username="dave").key != "stale"


def test_token_for_good_credentials_is_stable(api):
    User.objects.create_user("erin", password=GOOD_PASSWORD)
    first = api.post(TOKEN, {"username": "erin", "password": GOOD_PASSWORD}, format="json")
    assert first.status_code == 200 and set(first.json()) == {"token"}
    second = api.post(TOKEN, {"username": "erin", "password": GOOD_PASSWORD}, format="json")
    assert first.json()["token"] == second.json()["token"]


def test_token_for_wrong_password_is_401(api):
    User.objects.create_user("erin", password=GOOD_PASSWORD)
    response = api.post(TOKEN, {"username": "erin", "password": "wrong"}, format="json")
    error_of(response, 401, "authentication_failed")
    assert response["WWW-Authenticate"].startswith("Token")


def test_token_missing_fields(api):
    error = error_of(api.post(TOKEN, {"username": "erin"}, format="json"), 400, "validation_error")
    assert set(error["fields"]) == {"password"}


def test_token_of_an_inactive_user_is_refused(api):
    User.objects.create_user("frank", password=GOOD_PASSWORD, is_active=False)
    error_of(api.post(TOKEN, {"username": "frank", "password": GOOD_PASSWORD}, format="json"), 401,
             "authentication_failed")


def test_me_needs_authentication(api):
    error_of(api.get(ME), 401, "not_authenticated")


@pytest.mark.parametrize("path", ["/api/decks/", "/api/cards/?game=conquest", ME])
def test_a_token_works_on_every_endpoint_and_a_bad_one_is_401(api, path):
    user = User.objects.create_user("gina", password=GOOD_PASSWORD)
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    assert api.get(path).status_code == 200
    api.credentials(HTTP_AUTHORIZATION="Token 0000000000000000000000000000000000000000")
    error_of(api.get(path), 401, "authentication_failed")
