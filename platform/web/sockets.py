"""Base consumers for the site's JSON WebSockets: a bad frame gets an error frame.

Channels' JSON consumers decode every text frame with ``json.loads`` and raise on a
binary frame or on text that is not JSON, which closes the socket with an error in the
server log. These bases answer such a frame with
``{"type": "error", "code": ..., "message": ...}`` instead and keep the socket open;
JSON nested deeper than the API accepts (config.api.MAX_JSON_DEPTH) is refused the same
way, before it is decoded.
"""

from __future__ import annotations

from typing import Any

from channels.generic.websocket import AsyncJsonWebsocketConsumer, JsonWebsocketConsumer

from config.api import JSONTooDeep, json_loads_bounded

#: Longest text frame decoded, in characters: the sockets take small commands at most (a
#: live move is well under 1 KiB). The one bound of every socket, the live ones included.
MAX_FRAME_CHARS = 16 * 1024


def error_frame(code: str, message: str) -> dict[str, str]:
    """The one error shape of the sockets."""
    return {"type": "error", "code": code, "message": message}


def decode_frame(text_data: str | None, bytes_data: bytes | None) -> tuple[Any, dict[str, str] | None]:
    """``(content, None)`` for a JSON text frame, ``(None, error frame)`` for anything else."""
    if text_data is None:
        return None, error_frame("binary_frame", "This socket takes JSON text frames; a binary frame was sent.")
    if len(text_data) > MAX_FRAME_CHARS:
        return None, error_frame(
            "frame_too_large", f"The frame has {len(text_data)} characters; at most {MAX_FRAME_CHARS} are read."
        )
    try:
        return json_loads_bounded(text_data), None
    except JSONTooDeep as exc:
        return None, error_frame("too_deep", str(exc))
    except ValueError as exc:
        return None, error_frame("invalid_json", f"The frame is not valid JSON: {exc}.")


class SafeJsonWebsocketConsumer(JsonWebsocketConsumer):
    """``JsonWebsocketConsumer`` that answers a bad frame with an error frame."""

    def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        content, error = decode_frame(text_data, bytes_data)
        if error is not None:
            self.send_json(error)
            return
        self.receive_json(content, **kwargs)


class AsyncSafeJsonWebsocketConsumer(AsyncJsonWebsocketConsumer):
    """``AsyncJsonWebsocketConsumer`` that answers a bad frame with an error frame."""

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        content, error = decode_frame(text_data, bytes_data)
        if error is not None:
            await self.send_json(error)
            return
        await self.receive_json(content, **kwargs)
