"""Names and tunable numbers of the tournaments app.

- ``TOURNAMENTS_TICK_SECONDS`` (default 60, read by config/celery.py): how often beat runs
  ``tournaments.tick``, which starts events whose start time has come and repairs rounds
  a lost message left waiting.
"""

from __future__ import annotations

#: The queue of the tournament tasks (advance, tiebreak): served after ``periodic`` and
#: before every challenge, like the tournament matches themselves.
QUEUE = "tournaments"
ADVANCE = "tournaments.advance"
TIEBREAK = "tournaments.run_tiebreak"

