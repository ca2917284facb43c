"""Rate limits (issue 11): registration, tokens, log-in and writes are throttled.

Before, 100 wrong-password token requests in a row all got 401 (about a second of
password hashing each). The suite's own settings raise every rate out of its way
(config/settings_test.py); these tests put the production defaults
(``config.settings.DEFAULT_THROTTLE_RATES``) back and prove that they bite. Every test
uses its own client address and usernames, so that counts never leak between tests or
runs (the counts live in the cache: local memory, or Redis under ``REDIS_URL``).
"""

from __future__ import annotations

import itertools
import json
import uuid

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from config import settings as production_settings
from config.throttling import WriteThrottle

PRODUCTION = override_settings(THROTTLE_RATES=production_settings.DEFAULT_THROTTLE_RATES)
_addresses = itertools.count(1)


def fresh_address() -> str:
    """A client address no other test used (10.<run>.<n>)."""
    n = next(_addresses)
    return f"10.{uuid.uuid4().int % 250}.{n // 250}.{n % 250 + 1}"


def limit(scope: str) -> int:
    return int(production_settings.DEFAULT_THROTTLE_RATES[scope].split("/")[0])


def assert_throttled(response) -> None:
    assert response.status_code == 429, (response.status_code, response.content[:200])
    assert response["Content-Type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] == "throttled" and error["message"] and error["fields"] == {}
    assert int(response["Retry-After"]) >= 1


@pytest.fixture
def player(db) -> User:
    return User.objects.create_user(f"thr-{uuid.uuid4().hex[:8]}", password="right-password-123")


@PRODUCTION
def test_wrong_password_token_requests_are_throttled_per_username(player):
    """The issue's case: 100 wrong passwords in a row. Past the per-username rate the
    answer is 429 with Retry-After, even when every attempt comes from a new address."""
    answers = []
    for _ in range(limit("login_username") + 5):
        client = APIClient(REMOTE_ADDR=fresh_address())
        answers.append(client.post("/api/accounts/token/", {"username": player.username, "password": "wrong"},
                                   format="json"))
    assert [a.status_code for a in answers[: limit("login_username")]] == [401] * limit("login_username")
    for answer in answers[limit("login_username"):]:
        assert_throttled(answer)
    # Case does not help: the count is per username whatever its spelling.
    again = APIClient(REMOTE_ADDR=fresh_address()).post(
        "/api/accounts/token/", {"username": player.username.upper(), "password": "right-password-123"}, format="json"
    )
    assert_throttled(again)


@PRODUCTION
@pytest.mark.django_db
def test_token_requests_are_throttled_per_address_across_usernames():
    client = APIClient(REMOTE_ADDR=fresh_address())
    statuses = [
        client.post("/api/accounts/token/", {"username": f"nobody-{i}", "password": "x"}, format="json").status_code
        for i in range(limit("login"))
    ]
    assert statuses == [401] * limit("login")
    assert_throttled(client.post("/api/accounts/token/", {"username": "nobody-else", "password": "x"}, format="json"))


@PRODUCTION
@pytest.mark.django_db
def test_registration_is_throttled_per_address():
    client = APIClient(REMOTE_ADDR=fresh_address())
    for _ in range(limit("register")):
        response = client.post("/api/accounts/register/", {"username": f"reg{uuid.uuid4().hex[:10]}",
                                                           "password": "a-long-pass-phrase-1"}, format="json")
        assert response.status_code == 201, response.content
    response = client.post("/api/accounts/register/", {"username": "one-too-many", "password": "a-long-pass-phrase-1"},
                           format="json")
    assert_throttled(response)
    assert not User.objects.filter(username="one-too-many").exists()


@PRODUCTION
def test_api_writes_are_throttled_per_player_and_reads_are_not(player):
    # Row ids come back after a rolled-back test: forget what an earlier player of this id wrote.
    cache.delete_many([WriteThrottle().key_for(f"user-{pk}") for pk in (player.pk, player.pk + 1)])
    token, _ = Token.objects.get_or_create(user=player)
    client = APIClient(REMOTE_ADDR=fresh_address())
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    for _ in range(limit("write")):
        # An invalid deck: a cheap write that still counts.
        assert client.post("/api/decks/", {"game": "tempofront"}, format="json").status_code == 400
    assert_throttled(client.post("/api/decks/", {"game": "tempofront"}, format="json"))
    assert client.get("/api/decks/").status_code == 200
    # Another player is not affected.
    other = User.objects.create_user(f"thr-{uuid.uuid4().hex[:8]}", password="x-long-password-1")
    other_client = APIClient(REMOTE_ADDR=fresh_address())
    other_client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=other).key}")
    assert other_client.post("/api/decks/", {"game": "tempofront"}, format="json").status_code == 400


@PRODUCTION
def test_the_login_form_is_throttled_with_the_styled_429_page(client, player):
    client.defaults["REMOTE_ADDR"] = fresh_address()
    for _ in range(limit("login_username")):
        response = client.post("/accounts/login/", {"username": player.username, "password": "wrong"})
        assert response.status_code == 200  # the form again, with its error
    response = client.post("/accounts/login/", {"username": player.username, "password": "right-password-123"})
    assert response.status_code == 429
    assert int(response["Retry-After"]) >= 1
    page = response.content.decode()
    assert "Too many attempts in a row." in page and 'class="site-header"' in page
    assert "_auth_user_id" not in client.session


@PRODUCTION
@pytest.mark.django_db
def test_the_signup_form_is_throttled_with_the_styled_429_page(client):
    client.defaults["REMOTE_ADDR"] = fresh_address()
    for _ in range(limit("register")):
        response = client.post("/accounts/signup/", {"username": "", "password1": "x", "password2": "y"})
        assert response.status_code == 200
    response = client.post("/accounts/signup/", {"username": "late", "password1": "a-long-pass-phrase-1",
                                                 "password2": "a-long-pass-phrase-1"})
    assert response.status_code == 429 and int(response["Retry-After"]) >= 1
    assert "Too many attempts" in response.content.decode()
    assert not User.objects.filter(username="late").exists()


@pytest.mark.django_db
def test_the_suite_itself_is_not_throttled():
    """The test settings keep the suite's many requests from one address unthrottled."""
    client = APIClient(REMOTE_ADDR=fresh_address())
    statuses = {
        client.post("/api/accounts/token/", {"username": "nobody", "password": "x"}, format="json").status_code
        for _ in range(limit("login_username") + 3)
    }
    assert statuses == {401}


def test_rates_are_settings_with_sensible_defaults():
    assert set(production_settings.DEFAULT_THROTTLE_RATES) == {"register", "login", "login_username", "write"}
    for scope, rate in production_settings.DEFAULT_THROTTLE_RATES.items():
        number, period = rate.split("/")
        assert int(number) >= 5 and period in ("min", "hour"), scope


# --------------------------------------------------------------------------- Redis


@pytest.mark.redis
@PRODUCTION
def test_throttle_counts_live_in_redis_under_redis_url(player):
    """Under ``REDIS_URL`` the counts are in Redis, shared by every web process."""
    import redis
    from django.conf import settings

    assert settings.CACHES["default"]["BACKEND"].endswith("RedisCache")
    for _ in range(limit("login_username")):
        APIClient(REMOTE_ADDR=fresh_address()).post(
            "/api/accounts/token/", {"username": player.username, "password": "wrong"}, format="json"
        )
    assert_throttled(APIClient(REMOTE_ADDR=fresh_address()).post(
        "/api/accounts/token/", {"username": player.username, "password": "wrong"}, format="json"
    ))
    server = redis.Redis.from_url(settings.REDIS_URL)
    keys = list(server.scan_iter(match=f"{settings.CACHES['default']['KEY_PREFIX']}*throttle_login_username_*"))
    assert keys, "no throttle count in Redis"
    assert cache.get(keys[0].decode().split(":", 2)[-1]) is not None


@PRODUCTION
def test_the_token_answers_are_not_stored_by_caches(player):
    response = APIClient(REMOTE_ADDR=fresh_address()).post(
        "/api/accounts/token/", {"username": player.username, "password": "right-password-123"}, format="json"
    )
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    registered = APIClient(REMOTE_ADDR=fresh_address()).post(
        "/api/accounts/register/", {"username": f"ns{uuid.uuid4().hex[:8]}", "password": "a-long-pass-phrase-1"},
        format="json",
    )
    assert registered.status_code == 201 and "no-store" in registered["Cache-Control"]
    assert json.loads(registered.content)["token"]


def test_the_login_signup_and_token_pages_are_not_stored_by_caches(client, player):
    for url in ("/accounts/login/", "/accounts/signup/"):
        response = client.get(url)
        assert response.status_code == 200 and "no-store" in response["Cache-Control"], url
    client.force_login(player)
    response = client.post("/accounts/token/")
    assert response.status_code == 200
    assert Token.objects.get(user=player).key in response.content.decode()
    assert "no-store" in response["Cache-Control"]
