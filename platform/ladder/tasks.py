"""Celery tasks of the ladder. ``ladder.tick`` is scheduled by beat (config/celery.py,
``LADDER_TICK_SECONDS``) and goes to the ``periodic`` queue; the matches it creates go to
the ``ladder`` queue, served after tournaments and challenges."""

from __future__ import annotations

import logging

from celery import shared_task

from ladder.services import ladder_tick

logger = logging.getLogger(__name__)


@shared_task(name="ladder.tick")
def tick() -> dict:
    """Pair idle ladder decks into ladder matches, up to the in-flight cap. Safe to run
    twice: ticks lock one row and recount what is in flight."""
    report = ladder_tick()
    if report.created or report.skipped:
        logger.info("ladder tick: %s in flight before, created %s, skipped %s", report.in_flight, report.created,
                    report.skipped)
    return report.to_json()
