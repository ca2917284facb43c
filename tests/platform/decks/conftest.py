"""Fixtures of the decks tests: two players and their token-authenticated API clients."""

from __future__ import annotations

import pytest
from deck_helpers import token_client
from django.contrib.auth.models import User
from rest_framework.test import APIClient


@pytest.fixture
def alice(db) -> User:
    return User.objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def bob(db) -> User:
    return User.objects.create_user("bob", password="pw-bob-123")


@pytest.fixture
def alice_api(alice) -> APIClient:
    return token_client(alice)


@pytest.fixture
def bob_api(bob) -> APIClient:
    return token_client(bob)


@pytest.fixture
def anon_api() -> APIClient:
    return APIClient()
