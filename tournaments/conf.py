"""Tunable numbers of the tournaments app, read from Django settings when used.

- ``TOURNAMENTS_TICK_SECONDS`` (default 60, read by config/celery.py): how often beat runs
  ``tournaments.tick``, which starts events whose start time has come and repairs rounds
  a lost message left waiting.
- ``TOURNAMENTS_STUCK_SECONDS`` (default 120): a running round whose matches are all
  finished this long ago without the round advancing is advanced by the tick.
"""

from __future__ import annotations

from django.conf import settings

#: The queue of the tournament tasks (advance, tiebreak): served after ``periodic`` and
#: before every challenge, like the tournament matches themselves.
QUEUE = "tournaments"
ADVANCE = "tournaments.advance"
TIEBREAK = "tournaments.run_tiebreak"


def stuck_seconds() -> float:
    value = getattr(settings, "TOURNAMENTS_STUCK_SECONDS", None)
    return 120.0 if value is None else float(value)
