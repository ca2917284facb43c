"""Celery tasks of the site app."""

from __future__ import annotations

from celery import shared_task

from web.services import heartbeat_record


@shared_task(name="web.heartbeat", bind=True)
def heartbeat(self) -> int:
    """Record that a worker ran this beat (scheduled every few seconds by beat).

    Safe to run twice: each run records one more beat. Returns the beat count.
    """
    return heartbeat_record(worker=self.request.hostname or "unknown").beats
