"""Rows the site keeps about itself."""

from __future__ import annotations

from django.db import models


class Heartbeat(models.Model):
    """The last run of a scheduled heartbeat task, as recorded by the worker that ran it.

    Beat schedules the task, the broker carries it, a worker runs it and writes this row:
    a recent ``last_beat_at`` shows all three are alive. ``/healthz`` and the home page
    report it.
    """

    name = models.CharField(max_length=50, unique=True)
    worker = models.CharField(max_length=255, help_text="Celery hostname of the worker that ran the last beat")
    beats = models.PositiveBigIntegerField(default=0, help_text="How many beats have been recorded")
    last_beat_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name}: {self.beats} beats, last {self.last_beat_at:%Y-%m-%d %H:%M:%S} by {self.worker}"
