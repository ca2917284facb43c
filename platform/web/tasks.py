"""Celery tasks of the site app."""

from __future__ import annotations

from celery import shared_task

from web.idempotency import idempotency_keys_prune
from web.services import heartbeat_record


@shared_task(name="web.heartbeat", bind=True)
def heartbeat(self) -> int:
    """Record that a worker ran this beat (scheduled every few seconds by beat).

    Safe to run twice: each run records one more beat. Returns the beat count.
    """
    return heartbeat_record(worker=self.request.hostname or "unknown").beats


@shared_task(name="web.prune_idempotency_keys")
def prune_idempotency_keys() -> int:
    """Delete the idempotency keys older than ``IDEMPOTENCY_KEY_HOURS`` (scheduled hourly by
    beat, on the ``periodic`` queue). Safe to run twice: a second run finds nothing more to
    delete. Returns how many keys were deleted."""
    return idempotency_keys_prune()
