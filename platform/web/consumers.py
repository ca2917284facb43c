"""WebSocket consumers of the site app."""

from __future__ import annotations

from web.services import SITE_GROUP
from web.sockets import AsyncSafeJsonWebsocketConsumer


class SiteConsumer(AsyncSafeJsonWebsocketConsumer):
    """``/ws/site/``: site-wide events, such as each worker heartbeat, pushed to every page.

    The socket has joined the group by the time it receives ``{"type": "site.connected"}``,
    so every broadcast after that message reaches it.
    """

    groups = [SITE_GROUP]

    async def connect(self) -> None:
        await self.accept()
        await self.send_json({"type": "site.connected"})

    async def receive_json(self, content, **kwargs) -> None:
        """The socket only listens; any JSON a client sends is ignored (a bad frame gets an error frame)."""

    async def site_heartbeat(self, event: dict) -> None:
        await self.send_json(event)
