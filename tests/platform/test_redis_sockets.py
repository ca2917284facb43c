"""Idle WebSockets stay up on a Redis-backed server (issue 11).

redis-py's default socket timeout (5 s) equalled channels_redis's blocking read (5 s), so
the server's read of an idle socket's channel failed with TimeoutError after about 5 s
and the socket died; pages fell back to polling. The settings now give the layer's
connections a read timeout well above the blocking read (config/settings.py). The socket
idles three times the old 5 s life: each of the layer's blocking reads comes back empty
meanwhile, and one of them timing out would have ended it.
"""

from __future__ import annotations

import json
import time

import pytest
from asgiref.sync import async_to_sync
from websockets.sync.client import connect

IDLE_SECONDS = 15


@pytest.mark.redis
def test_an_idle_site_socket_still_receives_a_broadcast_after_15_seconds(asgi_server):
    from channels.layers import get_channel_layer

    from web.services import SITE_GROUP

    with connect(asgi_server.ws_url("/ws/site/"), origin=asgi_server.origin, open_timeout=10) as socket:
        assert json.loads(socket.recv(timeout=20)) == {"type": "site.connected"}
        time.sleep(IDLE_SECONDS)  # nothing on the socket or in its group meanwhile
        event = {"type": "site.heartbeat", "worker": "idle-check", "beats": 1, "at": "now"}
        async_to_sync(get_channel_layer().group_send)(SITE_GROUP, event)
        received = json.loads(socket.recv(timeout=20))
    assert received["type"] == "site.heartbeat" and received["worker"] == "idle-check"
    assert "TimeoutError" not in asgi_server.log(tail=200_000)
