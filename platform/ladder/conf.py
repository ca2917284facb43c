"""Tunable numbers of the ladder, from Django settings (config/settings.py reads them from
the environment; README lists them). Each is read when used, so tests can change them.

- ``LADDER_PROVISIONAL_GAMES`` (default 10): a rating is provisional until it has this
  many rated matches; pages say so.
- ``LADDER_MAX_IN_FLIGHT`` (default 4): ladder matches queued or running at once; the
  tick creates no more, so tournaments and challenges keep the workers.
- ``LADDER_BEST_OF`` (default 1): games per ladder match.
- ``LADDER_TICK_SECONDS`` (default 10, read by config/celery.py): how often beat runs
  ``ladder.tick``.
- ``LADDER_CACHE_SECONDS`` (default 5): a leaderboard page (the HTML page's table and the
  API's rows) is the same for every visitor, so it is kept this long in the shared cache,
  keyed by game, pool, page and search: leaderboards are updated every few seconds, not
  on every result. 0 turns the cache off.
"""

from __future__ import annotations

from django.conf import settings


def provisional_games() -> int:
    return int(getattr(settings, "LADDER_PROVISIONAL_GAMES", 10))


def max_in_flight() -> int:
    return max(0, int(getattr(settings, "LADDER_MAX_IN_FLIGHT", 4)))


def best_of() -> int:
    value = int(getattr(settings, "LADDER_BEST_OF", 1))
    return value if value in (1, 3, 5) else 1


def cache_seconds() -> int:
    return max(0, int(getattr(settings, "LADDER_CACHE_SECONDS", 5)))
