"""The event page's socket (``ws/tournaments/<id>/``) hears every change live: the ASGI
server pushes the ``tournament.update`` events the worker broadcasts over Redis, up to the
event's end. An unknown event's socket is refused."""

from __future__ import annotations

import json

import pytest
from tournament_helpers import fill, make_event

from tournaments.models import Tournament
from tournaments.services import tournament_start


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_the_tournament_socket_hears_the_worker_live_over_redis(asgi_server, celery_worker_process, organiser):
    from websockets.sync.client import connect

    event = make_event(organiser, rounds=2)
    fill(event, 4)
    seen = []
    with connect(asgi_server.ws_url(f"/ws/tournaments/{event.pk}/"), origin=asgi_server.origin,
                 open_timeout=10) as socket:
        first = json.loads(socket.recv(timeout=20))
        assert first["type"] == "tournament.update" and first["state"] == "open"
        tournament_start(tournament_id=event.pk, by=organiser)
        while True:
            update = json.loads(socket.recv(timeout=120))
            seen.append(update)
            if update["state"] == "finished":
                break
    assert {u["round"] for u in seen} >= {1, 2}
    assert any("matches done" in u["progress"]["text"] for u in seen)
    assert Tournament.objects.get(pk=event.pk).state == "finished"
    assert seen[-1]["progress"]["text"] == "Finished after 2 rounds"


@pytest.mark.django_db(transaction=True)
def test_an_unknown_events_socket_is_refused(asgi_server):
    """The consumer closes before accepting, which the server answers as an HTTP 403 to the
    handshake: the socket is refused, not opened and then dropped (nor a server error)."""
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    with pytest.raises(InvalidStatus) as refused:
        with connect(asgi_server.ws_url("/ws/tournaments/999999/"), origin=asgi_server.origin, open_timeout=10):
            pass
    assert refused.value.response.status_code == 403
