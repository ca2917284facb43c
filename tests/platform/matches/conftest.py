"""Fixtures of the matches tests: two players. What the services send after commit is
recorded by the suite's ``effects_recorded`` fixture (tests/conftest.py)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User


@pytest.fixture
def alice(db) -> User:
    return User.objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def bob(db) -> User:
    return User.objects.create_user("bob", password="pw-bob-123")
