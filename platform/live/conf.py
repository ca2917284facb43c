"""Tunable numbers of live play, read from Django settings when used (so tests can change them).

- ``LIVE_CLOCKS``: per queue (a game's name, or ``"<game>:<seats>"`` for another seat count), a dict
  ``{"initial_seconds": 600, "increment_seconds": 5}``; a missing queue falls back to the
  game's entry, then to the default of 10 minutes plus 5 seconds an action.
- ``LIVE_SPECTATOR_DELAY`` (seconds, default 0): how far spectators lag behind the players.
- ``LIVE_CHALLENGE_SECONDS`` (default 120): how long a challenge waits for an answer.
- ``LIVE_WINDOW_BASE`` / ``LIVE_WINDOW_PER_SECOND`` / ``LIVE_WINDOW_MAX`` (defaults 3, 0.2, 50):
  the rating window of matchmaking, widening the longer a player waits.
- ``LIVE_TICK_SECONDS`` (default 5, read by config/celery.py): how often beat runs ``live.tick``.
- ``LIVE_BOT_DECISION_SECONDS`` (default 10; 0 turns it off): the hard limit of one live bot
  decision (``engine.runner.decide``); a decision stopped there is replaced by a random
  legal move, so a live worker's thread is never held longer (docs/live.md).
"""

from __future__ import annotations

from django.conf import settings

DEFAULT_INITIAL_SECONDS = 600.0
DEFAULT_INCREMENT_SECONDS = 5.0


def clock_for(game: str, seats: int) -> tuple[int, int]:
    """(initial ms, increment ms) of the queue ``game`` with ``seats`` seats."""
    table = getattr(settings, "LIVE_CLOCKS", None) or {}
    entry = table.get(f"{game}:{seats}") or table.get(game) or {}
    initial = float(entry.get("initial_seconds", DEFAULT_INITIAL_SECONDS))
    increment = float(entry.get("increment_seconds", DEFAULT_INCREMENT_SECONDS))
    return int(initial * 1000), int(increment * 1000)


def _number(name: str, default: float) -> float:
    value = getattr(settings, name, None)
    return default if value is None else float(value)


def spectator_delay() -> int:
    return int(_number("LIVE_SPECTATOR_DELAY", 0))


def challenge_seconds() -> float:
    return _number("LIVE_CHALLENGE_SECONDS", 120.0)


def rating_window(waited_seconds: float) -> float:
    """How far apart two ratings may be for players who waited this long."""
    base = _number("LIVE_WINDOW_BASE", 3.0)
    per_second = _number("LIVE_WINDOW_PER_SECOND", 0.2)
    cap = _number("LIVE_WINDOW_MAX", 50.0)
    return min(cap, base + per_second * max(0.0, waited_seconds))


#: A live bot's hard limit per decision. search:strong, the slowest level, averages 0.5 s
#: per decision in the slower of the two games (1.3 s with both cores busy); a person waits
#: on every one.
DEFAULT_BOT_DECISION_SECONDS = 10.0


def bot_decision_seconds() -> float | None:
    """The hard limit of one live bot decision, in seconds; None when turned off (0)."""
    return _number("LIVE_BOT_DECISION_SECONDS", DEFAULT_BOT_DECISION_SECONDS) or None
