"""The Redis channel layer, with a bound on what each socket's channel may hold.

channels_redis's pub/sub layer (``RedisPubSubChannelLayer``) pushes every message for a
socket's channel into an in-memory queue of the web process, and the socket's consumer
takes them one at a time. A client that stops reading its socket stalls its consumer in
``send`` (the transport's buffer is full), and that queue then grows for as long as the
socket stays open: every view of a busy match, every notice. channels_redis's list-based
layer refused messages past a capacity; the pub/sub layer has none.

``BoundedPubSubChannelLayer`` keeps at most ``capacity`` messages per channel (setting
``CHANNEL_LAYERS["default"]["CONFIG"]["capacity"]``, default :data:`CAPACITY`). When a
channel is full the **oldest** message is dropped, not the new one: a live board that
finds a gap in the views' indexes asks for the whole view again (``{"type": "view"}``), so
the newest position is the one worth keeping. Drops are logged (the first, then every
hundredth of the process).
"""

from __future__ import annotations

import asyncio
import logging

from channels_redis.pubsub import RedisPubSubChannelLayer, RedisPubSubLoopLayer
from channels_redis.utils import _wrap_close

logger = logging.getLogger(__name__)

#: Messages a channel (one socket) may hold before its oldest are dropped. A socket that
#: reads keeps a handful at most; a round start sends each board a few.
CAPACITY = 200

_dropped = 0


class LatestQueue(asyncio.Queue):
    """A queue of at most ``maxsize`` items that keeps the newest: a put while full drops
    the oldest item instead of raising ``QueueFull``."""

    def put_nowait(self, item) -> None:
        global _dropped
        if self.maxsize > 0 and self.full():
            self.get_nowait()
            _dropped += 1
            if _dropped == 1 or _dropped % 100 == 0:
                logger.warning("channel layer: a socket's channel is full (%d messages): its oldest message was "
                               "dropped (%d in this process so far); the client is not reading its socket",
                               self.maxsize, _dropped)
        super().put_nowait(item)


def dropped() -> int:
    """Messages this process has dropped from full channels so far."""
    return _dropped


class BoundedPubSubLoopLayer(RedisPubSubLoopLayer):
    """channels_redis's per-event-loop pub/sub layer, with a :class:`LatestQueue` per channel."""

    def __init__(self, *args, capacity: int = CAPACITY, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.capacity = capacity

    async def _subscribe_to_channel(self, channel):
        self.channels[channel] = LatestQueue(self.capacity)
        await self._get_shard(channel).subscribe(channel)


class BoundedPubSubChannelLayer(RedisPubSubChannelLayer):
    """The pub/sub channel layer with at most ``capacity`` messages held per channel."""

    def __init__(self, *args, capacity: int = CAPACITY, **kwargs) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise ValueError(f"the channel layer's capacity must be a positive integer, not {capacity!r}")
        super().__init__(*args, **kwargs)
        self.capacity = capacity

    def _get_layer(self):
        loop = asyncio.get_running_loop()
        layer = self._layers.get(loop)
        if layer is None:
            layer = BoundedPubSubLoopLayer(*self._args, capacity=self.capacity, **self._kwargs, channel_layer=self)
            self._layers[loop] = layer
            _wrap_close(self, loop)
        return layer
