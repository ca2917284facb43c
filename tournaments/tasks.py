"""Celery tasks of the tournaments app (queue ``tournaments``; the tick goes to
``periodic``). Each takes an id, re-reads its rows, and is safe to run twice: the
services lock the tournament row and re-check everything."""

from __future__ import annotations

import logging

from celery import shared_task

from tournaments.services import tournament_advance, tournament_tick, tournament_tiebreak_resolve

logger = logging.getLogger(__name__)


@shared_task(name="tournaments.advance")
def advance(tournament_id: int) -> str:
    """Record finished matches of the event's round; pair the next round when it is done."""
    outcome = tournament_advance(tournament_id=tournament_id)
    logger.info("tournament %s: %s", tournament_id, outcome)
    return outcome


@shared_task(name="tournaments.run_tiebreak")
def run_tiebreak(tiebreak_id: int) -> str:
    """Break a tie that matters with Match the Twos (from the tournament seed)."""
    row = tournament_tiebreak_resolve(tiebreak_id=tiebreak_id)
    return "resolved" if row is not None else "nothing to do"


@shared_task(name="tournaments.tick")
def tick() -> dict[str, list[int]]:
    """Every minute: start events whose time has come, repair rounds left waiting."""
    report = tournament_tick()
    if any(report.values()):
        logger.info("tournaments tick: %s", report)
    return report
