"""Fixtures of the tournaments tests: an organiser, and tasks recorded instead of sent."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest


@pytest.fixture
def organiser(db):
    from tournament_helpers import make_player

    return make_player("orga")


@dataclass
class Sent:
    calls: list[tuple[str, int]] = field(default_factory=list)

    def names(self) -> list[str]:
        return [name for name, _ in self.calls]


@pytest.fixture
def sent(monkeypatch) -> Sent:
    """Record, instead of sending, what the match and tournament services enqueue."""
    from matches import services as match_services
    from tournaments import services

    record = Sent()
    monkeypatch.setattr(services, "enqueue", lambda name, object_id: record.calls.append((name, object_id)))
    monkeypatch.setattr(match_services, "_enqueue",
                        lambda name, object_id, *, queue="matches": record.calls.append((name, object_id)))
    return record
