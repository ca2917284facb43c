"""Fixtures of the matches tests: two players, and a record of the tasks that services
enqueue after commit."""

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


@dataclass
class Enqueued:
    """Tasks sent by the services, as (task name, id) pairs, in order, and their queues."""

    calls: list[tuple[str, int]] = field(default_factory=list)
    queues: list[str] = field(default_factory=list)

    def names(self) -> list[str]:
        return [name for name, _ in self.calls]

    def clear(self) -> None:
        self.calls.clear()
        self.queues.clear()


@pytest.fixture
def enqueued(monkeypatch) -> Enqueued:
    """Record, instead of sending, the tasks the services enqueue on commit."""
    from matches import services

    record = Enqueued()

    def record_call(name: str, object_id: int, *, queue: str = "matches") -> None:
        record.calls.append((name, object_id))
        record.queues.append(queue)

    monkeypatch.setattr(services, "_enqueue", record_call)
    return record
