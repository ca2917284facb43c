"""The live status socket of a match: ``ws/matches/<id>/``.

The socket joins the match's group (``match.<id>``) and first receives the match as it
stands (``match.update``); after that every change the worker commits arrives as another
``match.update`` (the same JSON as ``GET /api/matches/<id>/``), ``match.progress``
events tell how many actions the current game has reached, and ``match.board`` frames carry
the running game's public board (``matches.streaming``). The worker sends them through
the channel layer after each commit; with the in-memory layer (no ``REDIS_URL``) they
cannot cross processes, so the page polls the API instead.
"""

from __future__ import annotations

from asgiref.sync import async_to_sync

from matches.models import Match
from matches.permissions import can_view_match
from matches.selectors import match_get
from matches.serializers import MatchDetailSerializer
from matches.services import group_name, json_ready
from web.sockets import SafeJsonWebsocketConsumer


class MatchConsumer(SafeJsonWebsocketConsumer):
    """Pushes one match's status to the browser; clients only listen."""

    def connect(self) -> None:
        match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        try:
            match = match_get(match_id=match_id)
        except Match.DoesNotExist:
            self.close(code=4404)
            return
        if not can_view_match(self.scope.get("user"), match):
            self.close(code=4403)
            return
        self.group = group_name(match_id)
        self.groups = [self.group]
        async_to_sync(self.channel_layer.group_add)(self.group, self.channel_name)
        self.accept()
        self.send_json({"type": "match.update", "match": json_ready(MatchDetailSerializer(match).data)})

    def receive_json(self, content, **kwargs) -> None:
        """The socket only listens; anything a client sends is ignored."""

    def match_update(self, event: dict) -> None:
        self.send_json(event)

    def match_progress(self, event: dict) -> None:
        self.send_json(event)

    def match_board(self, event: dict) -> None:
        self.send_json(event)
