"""Fixtures of the live tests: players, and a record of the tasks the live services
enqueue and the views they broadcast after commit."""

from __future__ import annotations

from dataclasses import dataclass, field

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


@dataclass
class Sent:
    """Tasks the services sent (name, args, queue) and the views they broadcast."""

    tasks: list[tuple[str, list, str]] = field(default_factory=list)
    messages: list[tuple[str, dict]] = field(default_factory=list)

    def bot_calls(self) -> list[list]:
        return [args for name, args, _ in self.tasks if name == "live.bot_act"]

    def for_group(self, group: str) -> list[dict]:
        return [m for g, m in self.messages if g == group]


@pytest.fixture
def sent(monkeypatch) -> Sent:
    """Record, instead of sending, what the live services send after commit."""
    from live import services

    record = Sent()

    def enqueue(task, args, *, countdown=None, queue="live", merge=None):
        record.tasks.append((task, list(args), queue))

    monkeypatch.setattr(services, "_enqueue", enqueue)
    monkeypatch.setattr(services, "broadcast", lambda messages: record.messages.extend(messages))
    return record
