"""Tunable numbers of the deck lab, from Django settings (each read when used, so a test
can change it with the ``settings`` fixture and a worker reads its own environment):

- ``LAB_DEFAULT_MATCHES`` (200) and ``LAB_MAX_MATCHES`` (2,000): the matches of a run by
  default and at most.
- ``LAB_MAX_FIELD`` (16): the most decks a field holds; ``LAB_DEFAULT_TOP`` (8): how many
  of the bot ladder's top decks a ladder field takes by default.
- ``LAB_CHUNK_MATCHES`` (0: by pilot, ``CHUNK_BY_PILOT``): the matches one task plays and
  writes together. Larger chunks cost less per match; smaller ones show progress sooner
  and lose less to a worker that dies.
- ``LAB_LEASE_SECONDS`` (60): how long a worker's claim on a chunk holds without renewal;
  ``LAB_MAX_ATTEMPTS`` (3): how many times a chunk may be started before the run fails;
  ``LAB_RESEND_SECONDS`` (600): a chunk still queued this long has its task sent again.
- ``LAB_SWEEP_SECONDS`` (30, read by config/celery.py): how often beat runs ``lab.sweep``.

A setting missing from Django's settings is read from the environment, so a worker
started with ``LAB_LEASE_SECONDS=2`` plays with that lease.
"""

from __future__ import annotations

import os

from django.conf import settings

#: The pilots a lab offers: the platform's bots cheap enough for hundreds of matches.
PILOTS = ("random", "greedy", "search:fast")

#: Matches per chunk by the slower of the two pilots: a chunk is a few seconds of work
#: (random: about 3 ms a match, greedy about 100 ms, search:fast a second or more).
CHUNK_BY_PILOT = {"random": 50, "greedy": 5, "search:fast": 1}

#: A run's chunks: a 2,000-match run of the slowest pilot is 2,000 tasks at most.
MAX_CHUNKS = 2000


def _setting(name: str):
    value = getattr(settings, name, None)
    return os.environ.get(name) if value is None else value


def _int(name: str, default: int) -> int:
    value = _setting(name)
    return default if value in (None, "") else int(value)


def default_matches() -> int:
    return max(1, min(_int("LAB_DEFAULT_MATCHES", 200), max_matches()))


def max_matches() -> int:
    return max(1, _int("LAB_MAX_MATCHES", 2000))


def max_field() -> int:
    return max(1, _int("LAB_MAX_FIELD", 16))


def default_top() -> int:
    return max(1, min(_int("LAB_DEFAULT_TOP", 8), max_field()))


def chunk_matches(pilot: str, opponent_pilot: str) -> int:
    fixed = _int("LAB_CHUNK_MATCHES", 0)
    if fixed > 0:
        return fixed
    return min(CHUNK_BY_PILOT.get(pilot, 1), CHUNK_BY_PILOT.get(opponent_pilot, 1))


def lease_seconds() -> float:
    return float(_setting("LAB_LEASE_SECONDS") or 60.0)


def renew_every_seconds() -> float:
    return lease_seconds() / 3


def max_attempts() -> int:
    return max(1, _int("LAB_MAX_ATTEMPTS", 3))


def resend_seconds() -> float:
    return float(_setting("LAB_RESEND_SECONDS") or 600.0)
