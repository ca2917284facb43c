"""The embedded channel layer (``live.layers.SQLiteBusChannelLayer``, `make run`'s default):
a group message from another process reaches the sockets that were in the group when it
was sent, as with Redis pub/sub, and not a socket that joined while the message waited
for the next poll of the file (a board opening just after a move would otherwise get that
move's view after its opening view, and a stale final view took the "next game" link off
a finished board)."""

from __future__ import annotations

import asyncio

import pytest

from live.layers import SQLiteBusChannelLayer


async def nothing_for(layer, channel: str, seconds: float) -> bool:
    try:
        message = await asyncio.wait_for(layer.receive(channel), seconds)
    except TimeoutError:
        return True
    raise AssertionError(f"unexpected message {message}")


def test_a_group_message_from_another_process_reaches_only_the_members_it_was_sent_to(tmp_path):
    async def run() -> None:
        path = tmp_path / "channels.sqlite3"
        worker = SQLiteBusChannelLayer(path=path)  # another process: the worker that moves
        web = SQLiteBusChannelLayer(path=path, poll_interval=0.4)  # the web process with the sockets
        early = await web.new_channel()
        await web.group_add("match.1", early)
        # The web process's poller starts with its first receive and reads from the file's end.
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(web.receive(early), 0.6)

        await worker.group_send("match.1", {"type": "live.views", "index": 1})
        assert (await asyncio.wait_for(web.receive(early), 3))["index"] == 1

        # Index 2 is written; a board joins before the web process's next poll reads it.
        await worker.group_send("match.1", {"type": "live.views", "index": 2})
        late = await web.new_channel()
        await web.group_add("match.1", late)
        assert (await asyncio.wait_for(web.receive(early), 3))["index"] == 2
        assert await nothing_for(web, late, 1.0)

        # Sent after it joined: both get it.
        await worker.group_send("match.1", {"type": "live.views", "index": 3})
        assert (await asyncio.wait_for(web.receive(early), 3))["index"] == 3
        assert (await asyncio.wait_for(web.receive(late), 3))["index"] == 3

    asyncio.run(run())
