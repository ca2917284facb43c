"""Rows the site keeps about itself."""

from __future__ import annotations

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
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


class IdempotencyKey(models.Model):
    """A create request a player made with an ``Idempotency-Key`` and the answer it got.

    Written in the transaction that creates the row the request asks for
    (``web.idempotency.create_once``), so it exists exactly when that row does; the same
    key sent again by the same player gets this stored answer instead of a second row.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=100)
    scope = models.CharField(max_length=60, help_text="What the request created, e.g. live.bot")
    fingerprint = models.CharField(max_length=64, help_text="sha256 of the scope and the request's data")
    status = models.PositiveSmallIntegerField(default=0, help_text="The HTTP status of the first answer")
    body = models.JSONField(null=True, blank=True, encoder=DjangoJSONEncoder, help_text="The first answer's body")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="idempotencykey_unique_per_user")]

    def __str__(self) -> str:
        return f"{self.scope} {self.key} by user {self.user_id}"
