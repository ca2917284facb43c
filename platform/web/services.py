"""Writes of the site app (services), and the broadcasts that follow them on commit."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.db.models import F
from django.utils import timezone

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
        transaction.on_commit(lambda: site_broadcast(event))
    return beat


def site_broadcast(event: dict) -> None:
    """Send ``event`` to every open site socket; a failure is logged, never raised.

    Called after commit: the row is already written, so a channel layer that is down must
    not turn a recorded beat into a failed (and retried) task.
    """
    try:
        async_to_sync(get_channel_layer().group_send)(SITE_GROUP, event)
    except Exception:
        logger.exception("could not broadcast %s to group %r", event.get("type"), SITE_GROUP)
