"""Celery task of the metagame: ``meta.tick``, scheduled by beat (config/celery.py,
``META_TICK_SECONDS``) on the ``periodic`` queue, folds newly recorded results into the
aggregates (``meta.services.meta_tick``)."""

from __future__ import annotations

import logging

from celery import shared_task

from meta.services import meta_tick

logger = logging.getLogger(__name__)


@shared_task(name="meta.tick")
def tick() -> dict:
    """Count the results recorded since the last tick. Safe to run twice: each source's
    batch is written under its watermark row's lock, and a result is counted once."""
    report = meta_tick()
    if any(report.counted.values()) or any(report.deferred.values()):
        logger.info("meta tick: counted %s, deferred %s", report.counted, report.deferred)
    return report.to_json()
