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


def test_a_batch_holds_its_sends_and_tasks_until_it_ends_then_sends_them_all(monkeypatch):
    """``effects.batched``: what a round of a live event announces goes out when the block
    ends: every group send (through the real channel layer), then every task, through one
    broker connection; a nested block joins the outer one."""
    import asyncio
    import threading

    from config.celery import app
    from web import effects

    sent: list[tuple[str, list, dict]] = []
    monkeypatch.setattr(app, "send_task", lambda name, args, **options: sent.append((name, args, options)))
    inside, release = threading.Event(), threading.Event()

    def batch() -> None:
        with effects.batched():
            with effects.batched():
                assert effects.group_send(SITE_GROUP, {"type": "site.heartbeat", "worker": "a"})
            assert effects.group_send(SITE_GROUP, lambda: {"type": "site.heartbeat", "worker": "b"})
            assert effects.send_task("t.one", args=[1], queue="q")
            assert effects.send_task("t.two", args=[2], queue="q", countdown=3.0)
            inside.set()
            release.wait(10)

    async def scenario() -> list[str]:
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add(SITE_GROUP, channel)
        running = asyncio.get_running_loop().run_in_executor(None, batch)
        assert await asyncio.to_thread(inside.wait, 10)
        # Inside the block nothing has gone out, not even what the inner block sent.
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(layer.receive(channel), 1.0)
        assert sent == []
        release.set()
        await running
        return [(await asyncio.wait_for(layer.receive(channel), 5.0))["worker"] for _ in range(2)]

    assert async_to_sync(scenario)() == ["a", "b"]  # one group's messages keep their order
    assert [(name, args, options["countdown"]) for name, args, options in sent] == [
        ("t.one", [1], None), ("t.two", [2], 3.0)]
    producers = {id(options["producer"]) for _, _, options in sent}
    assert len(producers) == 1  # one broker connection for the batch


def test_a_batch_that_raises_still_sends_what_was_gathered(monkeypatch):
    from web import effects

    layer, channel = _listener()
    with pytest.raises(RuntimeError), effects.batched():
        effects.group_send(SITE_GROUP, {"type": "site.heartbeat", "worker": "c"})
        raise RuntimeError("the step failed after an earlier transaction committed")
    message = _received(layer, channel)
    assert message is not None and message["worker"] == "c"
    # Outside a batch, a send goes at once again.
    effects.group_send(SITE_GROUP, {"type": "site.heartbeat", "worker": "d"})
    assert _received(layer, channel)["worker"] == "d"
