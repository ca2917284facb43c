"""A socket that stops reading cannot make its web process hold messages without end.

The Redis pub/sub channel layer queues each socket's messages in the web process until
its consumer takes them; a consumer stalled on a client that does not read would let that
queue grow for as long as the socket stays open. ``live.redis_layer.BoundedPubSubChannelLayer``
keeps the newest ``capacity`` messages of each channel (a live board that sees a gap in
the views asks for the whole view again)."""

from __future__ import annotations

import asyncio
import os
import uuid

import pytest
from django.conf import settings

from live import redis_layer as layers


def test_a_full_queue_drops_its_oldest_message_and_keeps_the_newest():
    async def fill() -> list[int]:
        queue = layers.LatestQueue(3)
        before = layers.dropped()
        for number in range(7):
            queue.put_nowait(number)
        assert queue.qsize() == 3 and layers.dropped() - before == 4
        return [queue.get_nowait() for _ in range(3)]

    assert asyncio.run(fill()) == [4, 5, 6]


@pytest.mark.parametrize("capacity", [0, -1, "100", True, 2.5])
def test_a_capacity_that_is_not_a_positive_integer_is_refused(capacity):
    with pytest.raises(ValueError, match="capacity must be a positive integer"):
        layers.BoundedPubSubChannelLayer(hosts=["redis://127.0.0.1:6379/0"], capacity=capacity)


@pytest.mark.redis
def test_the_site_uses_the_bounded_layer_on_redis():
    from channels.layers import get_channel_layer

    assert settings.CHANNEL_LAYERS["default"]["BACKEND"] == "live.redis_layer.BoundedPubSubChannelLayer"
    layer = get_channel_layer()
    assert isinstance(layer, layers.BoundedPubSubChannelLayer) and layer.capacity == layers.CAPACITY


@pytest.mark.redis
def test_a_channel_nobody_reads_holds_only_its_newest_messages_through_redis():
    async def run() -> tuple[list[int], int]:
        layer = layers.BoundedPubSubChannelLayer(hosts=[os.environ["REDIS_URL"]], capacity=5,
                                                 prefix=f"bound-{uuid.uuid4().hex[:8]}")
        try:
            channel = await layer.new_channel()
            group = f"table-{uuid.uuid4().hex[:8]}"
            await layer.group_add(group, channel)
            for number in range(12):  # sent to the channel and to its group, as views and notices are
                if number % 2:
                    await layer.group_send(group, {"type": "test.message", "number": number})
                else:
                    await layer.send(channel, {"type": "test.message", "number": number})
            queue = layer._get_layer().channels[channel]
            for _ in range(200):  # Redis pushes them to the process's reader task
                if queue.qsize() == 5 and queue._queue[-1] is not None and _number(layer, queue._queue[-1]) == 11:
                    break
                await asyncio.sleep(0.02)
            held = queue.qsize()
            received = [(await asyncio.wait_for(layer.receive(channel), 2))["number"] for _ in range(5)]
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(layer.receive(channel), 0.5)
            return received, held
        finally:
            await layer.flush()

    received, held = asyncio.run(run())
    assert held == 5
    assert received == [7, 8, 9, 10, 11]


def _number(layer, raw: bytes) -> int:
    return layer.deserialize(raw)["number"]
