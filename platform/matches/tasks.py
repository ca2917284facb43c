"""Celery tasks of the matches app (queue ``matches``): play a match, break a tie, sweep.

They stay thin: ``run_match`` claims the match and hands it to the play loop
(:mod:`matches.play`); the others call one service each.

Tasks take ids and re-read their rows; each is safe to run twice, because the broker may
deliver a message twice (``acks_late`` with ``reject_on_worker_lost``) and the sweeper
re-enqueues matches whose worker died. The services do the writes and the locking.
"""

from __future__ import annotations

import logging
import os
import traceback
from typing import Any

from celery import shared_task

from matches.play import LeaseKeeper, play_until_decided
from matches.services import LeaseLost, match_claim, match_fail, match_sweep_expired, match_tiebreak_resolve

logger = logging.getLogger(__name__)


def _worker_id(task: Any) -> str:
    """Who holds a lease: the worker's hostname, its process and the task's id."""
    host = getattr(task.request, "hostname", None) or "local"
    return f"{host}/{os.getpid()}/{task.request.id or 'eager'}"


@shared_task(name="matches.run_match", bind=True)
def run_match(self, match_id: int) -> str:
    """Play match ``match_id`` to its end (or to a tie that waits for ``run_tiebreak``).

    Returns at once, playing nothing, when the match is done or failed or another worker
    holds its lease. While it plays, a :class:`LeaseKeeper` thread renews the lease. Goes
    on from the first game not yet recorded, so a match taken over from a dead worker is
    not replayed from the start. An error raised while playing (an engine or data problem,
    which a retry would meet again) fails the match with the traceback's last line in
    ``error``.
    """
    worker = _worker_id(self)
    match = match_claim(match_id=match_id, worker=worker)
    if match is None:
        logger.info("match %s: not claimed by %s (done, failed or held by another worker)", match_id, worker)
        return "skipped"
    try:
        with LeaseKeeper(match_id, worker) as keeper:
            outcome = play_until_decided(match, worker, keeper)
    except LeaseLost as exc:
        logger.warning("match %s: %s; stopping without writing", match_id, exc)
        return "lease lost"
    except Exception as exc:
        logger.exception("match %s failed", match_id)
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        match_fail(match_id=match_id, worker=worker, error=f"playing the match raised {detail}")
        return "failed"
    logger.info("match %s: %s", match_id, outcome)
    return outcome


@shared_task(name="matches.run_tiebreak")
def run_tiebreak(game_id: int) -> str:
    """Break game ``game_id``'s tie with Match the Twos, then move its match on.

    A tie already broken is left alone, so a second delivery changes nothing.
    """
    row = match_tiebreak_resolve(game_id=game_id)
    return "resolved" if row is not None else "nothing to do"


@shared_task(name="matches.sweep")
def sweep() -> dict[str, list[int]]:
    """Re-queue matches whose worker's lease expired, fail those out of attempts, and
    resend ``run_match`` for matches left queued too long."""
    report = match_sweep_expired()
    if report.requeued or report.failed or report.resent:
        logger.warning("sweeper: re-queued %s, failed %s, resent %s", report.requeued, report.failed, report.resent)
    return report.to_json()
