"""Tunable numbers of match playing, from Django settings (config/settings.py reads them
from the environment; README lists them).

Each is read when it is used, so a test can change it with pytest-django's ``settings``
fixture, and a worker started with ``MATCHES_LEASE_SECONDS=2`` in its environment plays
with that lease:

- ``MATCHES_LEASE_SECONDS`` (default 60): how long a worker's claim on a match holds
  without renewal. The worker renews it several times per lease while it plays; a
  worker that dies stops renewing, and the sweeper re-queues the match once it expires.
- ``MATCHES_RESEND_SECONDS`` (default 600): a match still queued this long after it was
  (re-)queued has its ``run_match`` message sent again by the sweeper, in case the first
  one was lost (a broker that was down at commit, a message dropped in transit).
- ``MATCHES_MAX_ATTEMPTS`` (default 3): how many times a match may be started before the
  sweeper gives up on it as failed.
- ``MATCHES_DECISION_SECONDS`` (default 30; 0 turns it off): the hard limit of one bot
  decision (``engine.runner.decide``): the decision is stopped there and the bot forfeits
  its game. The lease does not depend on it: a renewer thread keeps the lease of a healthy
  worker alive during a long setup or decision.
- ``MATCHES_MAX_OPEN_CHALLENGES`` (default 20): challenges one player may have queued or
  running at once; one more is refused (409, ``too_many_open_challenges``).
- ``MATCHES_STREAM_SECONDS`` (default 0.5; 0 turns it off): a running match's public board
  is sent to its page at most this often (``matches.streaming``), so that people watch a
  bot match move instead of a progress bar without the worker flooding the channel layer.
- ``MATCHES_SWEEP_SECONDS`` (default 30, read by config/celery.py for the beat schedule):
  how often beat runs the sweeper.
"""

from __future__ import annotations

from django.conf import settings

#: The Celery queue a match's ``run_match`` and ``run_tiebreak`` messages go to, by the
#: match's kind. Workers read queues in priority order (config/celery.py: ``QUEUES``), so
#: a flood of challenges cannot stall a running tournament, and ladder matches fill idle time.
QUEUE_BY_KIND = {
    "tournament": "tournaments",
    "challenge": "matches",
    "live": "matches",
    "ladder": "ladder",
}


def queue_for(kind: str) -> str:
    """The queue of a match of ``kind`` (``matches`` for an unknown kind)."""
    return QUEUE_BY_KIND.get(kind, "matches")


def _number(name: str, default: float | None) -> float | None:
    value = getattr(settings, name, None)
    return default if value is None else float(value)


def lease_seconds() -> float:
    return _number("MATCHES_LEASE_SECONDS", 60.0) or 60.0


def renew_every_seconds() -> float:
    """Renew the lease three times per lease period, so that one slow write cannot lose it."""
    return lease_seconds() / 3


def resend_seconds() -> float:
    return _number("MATCHES_RESEND_SECONDS", 600.0) or 600.0


def max_attempts() -> int:
    return max(1, int(_number("MATCHES_MAX_ATTEMPTS", 3.0) or 3))


def decision_seconds() -> float | None:
    """None (or 0) turns the budget off."""
    value = _number("MATCHES_DECISION_SECONDS", DEFAULT_DECISION_SECONDS)
    return value or None


#: A bot's budget for one decision. search:strong, the slowest bot, averages 0.17 s to
#: 0.5 s per decision depending on the game, 1.3 s with both cores busy
#: (bench/RESULTS.md); 30 s is over 20 times that, and still ends a hung bot's game soon.
DEFAULT_DECISION_SECONDS = 30.0


def max_open_challenges() -> int:
    """Challenges one player may have queued or running at once."""
    return max(1, int(_number("MATCHES_MAX_OPEN_CHALLENGES", 20.0) or 20))



def stream_seconds() -> float:
    """Seconds between two streamed board frames of a running match; 0 turns streaming off."""
    value = _number("MATCHES_STREAM_SECONDS", 0.5)
    return max(0.0, value or 0.0)
