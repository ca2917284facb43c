"""Fixtures of the live tests: players, and a record of the tasks the live services
enqueue and the views they broadcast after commit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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


class _Seen(list):
    """What a recording holds, seen one way; clearing it clears the recording."""

    def __init__(self, items, source: list):
        super().__init__(items)
        self._source = source

    def clear(self) -> None:
        super().clear()
        self._source.clear()


@dataclass
class Sent:
    """Tasks the services sent (name, args, queue) and the views they broadcast, each view
    as (seat or public group, view), from a recording of ``web.effects``."""

    record: Any

    @property
    def tasks(self) -> list[tuple[str, list, str]]:
        return _Seen([(name, list(args), queue) for name, args, queue, _ in self.record.tasks], self.record.tasks)

    @property
    def messages(self) -> list[tuple[str, dict]]:
        # A move's one message to the match's group carries the view of every seat and of
        # spectators, keyed by their own group.
        return _Seen([(group, view) for _, message in self.record.sends if message.get("type") == "live.views"
                      for group, view in message["views"].items()], self.record.sends)

    def bot_calls(self) -> list[list]:
        return [args for name, args, _ in self.tasks if name == "live.bot_act"]

    def for_group(self, group: str) -> list[dict]:
        return [m for g, m in self.messages if g == group]


@pytest.fixture
def sent(effects_recorded) -> Sent:
    """Record, instead of sending, what the live services send after commit."""
    return Sent(effects_recorded)
