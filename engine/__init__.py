"""The rules engine of TempoFront and Conquest, and their bots. Pure Python.

``engine.games["tempofront"]`` and ``engine.games["conquest"]`` are the two games;
:func:`engine.runner.play_match` plays bots against each other. Nothing here may import
Django, Celery or Channels: the platform depends on the engine, never the reverse.
"""

from engine.core import (
    Action,
    CardUsage,
    DeckError,
    Decklist,
    Event,
    Game,
    GameRegistry,
    IllegalAction,
    Outcome,
    Replay,
    Rng,
    State,
    verify_replay,
)

games = GameRegistry({"tempofront": "engine.tempofront", "conquest": "engine.conquest"})

__all__ = [
    "Action",
    "CardUsage",
    "DeckError",
    "Decklist",
    "Event",
    "Game",
    "IllegalAction",
    "Outcome",
    "Replay",
    "Rng",
    "State",
    "games",
    "verify_replay",
]
