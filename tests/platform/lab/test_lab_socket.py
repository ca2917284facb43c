"""The lab run's socket, in this process with the in-memory layer: its owner receives
the run as it stands, then a ``lab.progress`` after each chunk is recorded, to ``done``;
another player and an anonymous visitor are closed (4404) as for a run that does not exist."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from asgiref.testing import ApplicationCommunicator
from django.test import Client
from lab_helpers import make_deck, play_in_process

from lab.services import lab_start
from web import effects

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


class Socket:
    def __init__(self, path: str, user=None):
        from config.asgi import application

        headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
        if user is not None:
            client = Client()
            client.force_login(user)
            headers.append((b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode()))
        scope = {"type": "websocket", "path": path, "query_string": b"", "subprotocols": [], "headers": headers}
        self.communicator = ApplicationCommunicator(application, scope)

    async def connect(self) -> dict:
        await self.communicator.send_input({"type": "websocket.connect"})
        return await self.communicator.receive_output(timeout=5)

    async def receive_json(self) -> dict:
        message = await self.communicator.receive_output(timeout=10)
        assert message["type"] == "websocket.send", message
        return json.loads(message["text"])

    async def close(self) -> None:
        await self.communicator.send_input({"type": "websocket.disconnect", "code": 1000})
        await self.communicator.wait(timeout=5)


def test_the_owner_hears_each_chunk_recorded_until_done(alice, in_memory_layer, settings):
    settings.LAB_CHUNK_MATCHES = 3
    deck = make_deck(alice)
    make_deck(alice, index=1, starter=True)
    with effects.recording(tasks=["lab.play_chunk"]):
        run = lab_start(owner=alice, deck=deck, n=7, field_kind="starters")
    socket = Socket(f"/ws/lab/{run.pk}/", alice)

    async def scenario():
        assert (await socket.connect())["type"] == "websocket.accept"
        events = [await socket.receive_json()]
        await sync_to_async(play_in_process)(run)
        while events[-1]["status"] != "done":
            events.append(await socket.receive_json())
        await socket.close()
        return events

    events = async_to_sync(scenario)()
    assert events[0] == {"type": "lab.progress", "run": run.pk, "status": "queued", "progress": 0, "wanted": 7}
    assert [e["progress"] for e in events if e["status"] == "running"][-2:] == [3, 6]
    assert events[-1]["progress"] == 7


@pytest.mark.parametrize("who", ["bob", None])
def test_anyone_else_is_closed_as_for_a_missing_run(alice, bob, in_memory_layer, who):
    deck = make_deck(alice)
    make_deck(alice, index=1, starter=True)
    with effects.recording(tasks=["lab.play_chunk"]):
        run = lab_start(owner=alice, deck=deck, n=2, field_kind="starters")
    socket = Socket(f"/ws/lab/{run.pk}/", bob if who else None)

    async def scenario():
        message = await socket.connect()
        await socket.close()
        return message

    message = async_to_sync(scenario)()
    assert message["type"] == "websocket.close" and message["code"] == 4404
