"""WebSockets through the real ASGI server: the site socket, its Origin check, and a
broadcast from a Celery worker process reaching a browser's socket over Redis."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect


def receive_json(socket, timeout: float = 20.0) -> dict:
    return json.loads(socket.recv(timeout=timeout))


def test_site_socket_connects_through_the_asgi_server(asgi_server):
    with connect(asgi_server.ws_url("/ws/site/"), origin=asgi_server.origin, open_timeout=10) as socket:
        assert receive_json(socket) == {"type": "site.connected"}


def test_site_socket_refuses_a_page_from_another_site(asgi_server):
    """A page on another origin must not open a socket carrying the visitor's cookies."""
    with pytest.raises(InvalidStatus) as refused:
        with connect(asgi_server.ws_url("/ws/site/"), origin="https://evil.example", open_timeout=10):
            pass
    assert refused.value.response.status_code == 403


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_socket_receives_the_broadcast_a_worker_sends_over_the_redis_channel_layer(asgi_server, celery_worker_process):
    """Three processes: this test enqueues a heartbeat; the worker records it and sends a
    group broadcast through Redis; the ASGI server pushes it down the open socket."""
    from web.tasks import heartbeat

    with connect(asgi_server.ws_url("/ws/site/"), origin=asgi_server.origin, open_timeout=10) as socket:
        assert receive_json(socket) == {"type": "site.connected"}  # The socket is in the group now.
        heartbeat.delay()
        try:
            event = receive_json(socket, timeout=30)
        except TimeoutError:
            pytest.fail(f"no broadcast within 30 s\n--- worker\n{celery_worker_process.log(tail=6000)}"
                        f"\n--- server\n{asgi_server.log(tail=3000)}")
    assert event["type"] == "site.heartbeat"
    assert event["worker"] == celery_worker_process.hostname
    assert event["beats"] == 1


@pytest.mark.redis
def test_healthz_channel_layer_check_answers_while_sockets_are_open(asgi_server):
    """The server's health check shares the Redis layer with open sockets' receive loops
    and must still get its own message back while they wait."""
    with connect(asgi_server.ws_url("/ws/site/"), origin=asgi_server.origin, open_timeout=10) as socket:
        assert receive_json(socket) == {"type": "site.connected"}
        try:
            with urllib.request.urlopen(asgi_server.url("/healthz"), timeout=15) as response:
                status, report = response.status, json.load(response)
        except urllib.error.HTTPError as error:
            status, report = error.code, json.load(error)
    assert (status, report["channel_layer"]) == (200, "ok")
