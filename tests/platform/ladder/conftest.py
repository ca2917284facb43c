"""Fixtures of the ladder tests: players."""

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


@pytest.fixture(autouse=True)
def fresh_leaderboards(settings):
    """Leaderboards read fresh in these tests (each test changes ratings and looks again);
    the cache of leaderboard pages is tested on its own, where it is turned back on."""
    settings.LADDER_CACHE_SECONDS = 0
