"""Shared fixtures of the end-to-end tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def unsent_match(transactional_db):
    """Build a queued best-of-3 TempoFront match of two starter decks whose ``run_match`` has
    not been sent yet: ``unsent_match(username=, password=, pilot=, seed=, deck_name=)``
    returns its id; the test sends the task when it is ready to watch."""
    from django.contrib.auth.models import User

    from decks.services import deck_register
    from engine import games
    from matches import services
    from web import effects

    def build(*, username: str, password: str, pilot: str, seed: int, deck_name: str = "Deck") -> int:
        owner = User.objects.create_user(username, password=password)
        game = games["tempofront"]
        versions = []
        for index, deck in enumerate(list(game.starter_decks().values())[:2]):
            registered = deck_register(owner=owner, game="tempofront", name=f"{deck_name} {index}",
                                       decklist=deck.to_text(game.commander_label), pilot=pilot)
            versions.append(registered.latest_version)
        with effects.recording(tasks=[services.RUN_MATCH]) as held:
            match = services.match_challenge(created_by=owner, deck_versions=versions, best_of=3, seed=seed)
        assert held.tasks_named(services.RUN_MATCH) == [[match.pk]]
        return match.pk

    return build
