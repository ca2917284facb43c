"""Side effects after commit (``web.effects``): a broadcast is sent once its rows are
committed and never for a write that rolled back, and a channel layer that is down never
turns a recorded write into an error."""

from __future__ import annotations

import logging

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.test import override_settings

from web.models import Heartbeat
from web.services import SITE_GROUP, heartbeat_record

pytestmark = pytest.mark.django_db


def _listener() -> tuple[object, str]:
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(SITE_GROUP, channel)
    return layer, channel


def _received(layer, channel: str) -> dict | None:
    async def poll():
        import asyncio

        try:
            return await asyncio.wait_for(layer.receive(channel), timeout=1.0)
        except TimeoutError:
            return None

    return async_to_sync(poll)()


def test_a_beat_is_broadcast_once_committed(django_capture_on_commit_callbacks):
    layer, channel = _listener()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        heartbeat_record(worker="w1")
    assert len(callbacks) == 1  # the broadcast waits for the commit
    callbacks[0]()
    message = _received(layer, channel)
    assert message is not None and message["type"] == "site.heartbeat" and message["worker"] == "w1"


def test_a_write_that_rolls_back_broadcasts_nothing(django_capture_on_commit_callbacks):
    layer, channel = _listener()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(RuntimeError), transaction.atomic():
            heartbeat_record(worker="w2")
            raise RuntimeError("the request failed after the write")
    assert callbacks == [] and _received(layer, channel) is None
    assert not Heartbeat.objects.filter(worker="w2").exists()


def test_a_channel_layer_that_is_down_does_not_fail_a_recorded_beat(closed_port, caplog,
                                                                    django_capture_on_commit_callbacks):
    down = {"default": {"BACKEND": "channels_redis.core.RedisChannelLayer",
                        "CONFIG": {"hosts": [f"redis://127.0.0.1:{closed_port}/0"]}}}
    with override_settings(CHANNEL_LAYERS=down), caplog.at_level(logging.ERROR, logger="web.effects"):
        with django_capture_on_commit_callbacks(execute=True):
            beat = heartbeat_record(worker="w3")
    assert Heartbeat.objects.get(pk=beat.pk).worker == "w3"
    assert f"could not broadcast to group '{SITE_GROUP}'" in caplog.text
