"""Fixtures of the metagame tests: players."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User


@pytest.fixture
def alice(db) -> User:
    return User.objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def bob(db) -> User:
    return User.objects.create_user("bob", password="pw-bob-123")


@pytest.fixture
def carol(db) -> User:
    return User.objects.create_user("carol", password="pw-carol-123")


@pytest.fixture
def dave(db) -> User:
    return User.objects.create_user("dave", password="pw-dave-123")
