"""The live socket of an event page: ``ws/tournaments/<id>/``.

Joins the event's group (``tournament.<id>``) and first sends where the event stands;
after that every committed change (a match finished, a round paired, the event finished)
arrives as ``tournament.update`` with the state and the progress line, and the page
re-reads its live section. With the in-memory channel layer (no ``REDIS_URL``) a worker's
broadcasts cannot reach the web process, so the page polls instead.
"""

from __future__ import annotations

from asgiref.sync import async_to_sync

from tournaments.models import Tournament
from tournaments.permissions import can_view_tournament
from tournaments.selectors import tournament_progress
from tournaments.services import group_name
from web.sockets import SafeJsonWebsocketConsumer


class TournamentConsumer(SafeJsonWebsocketConsumer):
    """Pushes one event's progress to the browser; clients only listen."""

    def connect(self) -> None:
        tournament_id = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        tournament = Tournament.objects.filter(pk=tournament_id).first()
        if tournament is None or not can_view_tournament(self.scope.get("user"), tournament):
            self.close(code=4404)
            return
        self.group = group_name(tournament_id)
        self.groups = [self.group]
        async_to_sync(self.channel_layer.group_add)(self.group, self.channel_name)
        self.accept()
        self.send_json({"type": "tournament.update", "tournament": tournament_id, "state": tournament.state,
                        "round": tournament.current_round, "progress": tournament_progress(tournament=tournament)})

    def receive_json(self, content, **kwargs) -> None:
        """The socket only listens (a frame too long, too deep or not JSON gets an error frame)."""

    def tournament_update(self, event: dict) -> None:
        self.send_json(event)
