"""Checks of the services the site depends on, reported by ``GET /healthz``.

Each check returns ``"ok"`` or ``"error: <what went wrong>"`` and gives up within a few
seconds, so that a service that is down makes the endpoint answer 503 quickly instead
of hanging.
"""

from __future__ import annotations

import asyncio
import os
import uuid

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.utils import timezone
from kombu import Connection

from config.celery import HEARTBEAT_SECONDS
from web.models import Heartbeat
from web.services import SITE_HEARTBEAT

OK = "ok"
TIMEOUT_SECONDS = 3.0


def _error(exc: BaseException) -> str:
    first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"error: {type(exc).__name__}: {first_line}".rstrip(": ")


def check_database() -> str:
    """One round trip to the default database."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        return _error(exc)
    return OK


def check_broker() -> str:
    """The Celery broker of the settings accepts a connection (or, for the filesystem
    transport, its folders exist and are writable)."""
    url: str = settings.CELERY_BROKER_URL
    options: dict = getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {}) or {}
    try:
        if url.startswith("filesystem:"):
            for key in ("data_folder_in", "data_folder_out"):
                folder = options.get(key)
                if not folder or not os.access(folder, os.W_OK):
                    return f"error: broker folder {folder!r} ({key}) is missing or not writable"
            return OK
        with Connection(url, transport_options=options, connect_timeout=TIMEOUT_SECONDS) as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=TIMEOUT_SECONDS)
    except Exception as exc:
        return _error(exc)
    return OK


async def check_channel_layer() -> str:
    """A message sent on the default channel layer comes back."""
    try:
        layer = get_channel_layer()
        if layer is None:
            return "error: no channel layer configured"
        # The default "specific." prefix matters: the Redis layer reads every channel of a
        # process from one shared key, and a channel under another prefix would wait
        # behind the sockets' receive loop forever.
        channel = await layer.new_channel()
        token = uuid.uuid4().hex
        await asyncio.wait_for(layer.send(channel, {"type": "health.ping", "token": token}), TIMEOUT_SECONDS)
        message = await asyncio.wait_for(layer.receive(channel), TIMEOUT_SECONDS)
        if message.get("token") != token:
            return "error: the channel layer returned another message"
    except TimeoutError:
        return f"error: no answer within {TIMEOUT_SECONDS:g} s"
    except Exception as exc:
        return _error(exc)
    return OK


def check_cache() -> str:
    """A value written to the default cache reads back."""
    key = f"healthz:{uuid.uuid4().hex}"
    try:
        cache.set(key, "ok", timeout=10)
        if cache.get(key) != "ok":
            return "error: the cache did not return the value just written"
        cache.delete(key)
    except Exception as exc:
        return _error(exc)
    return OK


def heartbeat_status() -> dict:
    """When a worker last ran the beat-scheduled heartbeat.

    ``state`` is ``ok`` within three heartbeat periods, ``stale`` after that and ``never``
    before the first beat. Informational: a stopped beat does not make the site unhealthy.
    """
    try:
        beat = Heartbeat.objects.filter(name=SITE_HEARTBEAT).first()
    except Exception as exc:
        return {"state": _error(exc)}
    if beat is None:
        return {"state": "never", "every_seconds": HEARTBEAT_SECONDS}
    age = (timezone.now() - beat.last_beat_at).total_seconds()
    return {
        "state": OK if age <= 3 * HEARTBEAT_SECONDS else "stale",
        "every_seconds": HEARTBEAT_SECONDS,
        "last_beat_at": beat.last_beat_at.isoformat(),
        "age_seconds": round(age, 1),
        "worker": beat.worker,
        "beats": beat.beats,
    }


async def service_report() -> tuple[dict, bool]:
    """Run every check at once; return the report and whether every service is ok."""
    database, broker, channel_layer, cache_state = await asyncio.gather(
        sync_to_async(check_database)(),
        sync_to_async(check_broker, thread_sensitive=False)(),
        check_channel_layer(),
        sync_to_async(check_cache, thread_sensitive=False)(),
    )
    services = {"database": database, "broker": broker, "channel_layer": channel_layer, "cache": cache_state}
    healthy = all(state == OK for state in services.values())
    heartbeat = await sync_to_async(heartbeat_status)() if database == OK else {"state": "unknown"}
    return {"status": OK if healthy else "degraded", **services, "heartbeat": heartbeat}, healthy
