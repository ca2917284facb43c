"""The live socket of a lab run's page: ``ws/lab/<id>/`` (owner and staff only).

It joins the run's group (``lab.<id>``) and passes on each ``lab.progress`` event the
services send on commit (status and matches recorded); the page then reads the figures
from ``GET /api/lab/<id>/``. Without a socket the page polls that endpoint instead.
"""

from __future__ import annotations

from asgiref.sync import async_to_sync

from lab.models import LabRun
from lab.permissions import can_view_lab
from lab.services import group_name
from web.sockets import SafeJsonWebsocketConsumer


class LabRunConsumer(SafeJsonWebsocketConsumer):
    """Pushes a run's progress to its page; clients only listen."""

    def connect(self) -> None:
        run_id = int(self.scope["url_route"]["kwargs"]["run_id"])
        run = LabRun.objects.filter(pk=run_id).first()
        if run is None or not can_view_lab(self.scope.get("user"), run):
            self.close(code=4404)
            return
        self.group = group_name(run_id)
        self.groups = [self.group]
        async_to_sync(self.channel_layer.group_add)(self.group, self.channel_name)
        self.accept()
        self.send_json({"type": "lab.progress", "run": run.pk, "status": run.status, "progress": run.progress,
                        "wanted": run.matches_wanted})

    def receive_json(self, content, **kwargs) -> None:
        """The socket only listens."""

    def lab_progress(self, event: dict) -> None:
        self.send_json(event)
