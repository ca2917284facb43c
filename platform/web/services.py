"""Writes of the site app (services), and the broadcasts that follow them on commit."""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from web import effects
from web.models import Heartbeat

logger = logging.getLogger(__name__)

#: The Heartbeat row that the beat-scheduled task keeps current.
SITE_HEARTBEAT = "site"
#: The channel-layer group every visitor's site socket joins.
SITE_GROUP = "site"


def heartbeat_record(*, worker: str, name: str = SITE_HEARTBEAT) -> Heartbeat:
    """Record one beat by ``worker`` and, once committed, broadcast it to ``SITE_GROUP``.

    Locks the Heartbeat row (``select_for_update``) so that beats recorded by several
    workers at once all count. Returns the row as committed.
    """
    now = timezone.now()
    with transaction.atomic():
        beat, created = Heartbeat.objects.select_for_update().get_or_create(
            name=name, defaults={"worker": worker, "beats": 1, "last_beat_at": now}
        )
        if not created:
            Heartbeat.objects.filter(pk=beat.pk).update(worker=worker, beats=F("beats") + 1, last_beat_at=now)
            beat.refresh_from_db()
        event = {
            "type": "site.heartbeat",
            "worker": beat.worker,
            "beats": beat.beats,
            "at": beat.last_beat_at.isoformat(),
        }
        # After commit, to every open site socket; a channel layer that is down must not
        # turn a recorded beat into a failed (and retried) task (``web.effects``).
        effects.broadcast_on_commit(SITE_GROUP, event)
    return beat
