"""Match pages (list, challenge form, match, replay viewer) and the live status socket."""

from __future__ import annotations

import json
import re

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from asgiref.testing import ApplicationCommunicator
from match_helpers import make_deck, version

from matches.models import Match
from matches.services import match_broadcast, match_challenge
from matches.tasks import run_match
from web import effects


@pytest.fixture
def in_memory_layer(settings):
    """These tests speak ASGI to the consumer inside this process: the in-memory layer
    carries the broadcasts, whatever REDIS_URL says (the Redis layer between real
    processes is tested in tests/platform/test_redis_sockets.py)."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


class Socket:
    """A WebSocket client speaking ASGI directly to the site's application, in this process."""

    def __init__(self, path: str):
        from config.asgi import application

        scope = {"type": "websocket", "path": path, "query_string": b"", "subprotocols": [],
                 "headers": [(b"origin", b"http://localhost"), (b"host", b"localhost")]}
        self.communicator = ApplicationCommunicator(application, scope)

    async def connect(self) -> dict:
        await self.communicator.send_input({"type": "websocket.connect"})
        return await self.communicator.receive_output(timeout=5)

    async def receive_json(self) -> dict:
        message = await self.communicator.receive_output(timeout=5)
        assert message["type"] == "websocket.send", message
        return json.loads(message["text"])

    async def close(self) -> None:
        await self.communicator.send_input({"type": "websocket.disconnect", "code": 1000})
        await self.communicator.wait(timeout=5)


@pytest.mark.django_db
def test_match_list_shows_matches_and_filters(client, alice, bob, effects_recorded):
    mine, theirs = make_deck(alice, "conquest", name="Alice Storm"), make_deck(bob, "conquest", name="Bob Wall")
    match_challenge(created_by=alice, deck_versions=[version(mine), version(theirs)], best_of=3)
    page = client.get("/matches/").content.decode()
    assert "Alice Storm" in page and "Bob Wall" in page and "Queued" in page
    assert "Bob Wall" not in client.get("/matches/?game=tempofront").content.decode()
    filtered = client.get("/matches/?status=nonsense")
    assert filtered.status_code == 200 and "status must be one of" in filtered.content.decode()


@pytest.mark.django_db
def test_challenge_form_needs_a_login(client):
    response = client.get("/matches/new/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


@pytest.mark.django_db
def test_challenge_form_preselects_the_deck_and_creates_the_match(client, alice, bob, effects_recorded,
                                                                 django_capture_on_commit_callbacks):
    mine, theirs = make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)
    client.force_login(alice)
    form = client.get(f"/matches/new/?deck={theirs.pk}")
    assert form.context["form"].initial["opponent"] == theirs.pk
    assert client.get(f"/matches/new/?deck={mine.pk}").context["form"].initial["deck"] == mine.pk
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/matches/new/", {"deck": mine.pk, "opponent": theirs.pk, "best_of": 3})
    match = Match.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/matches/{match.pk}/"
    assert match.best_of == 3 and [s.deck_version for s in match.seats.all()] == [version(mine), version(theirs)]
    assert effects_recorded.tasks == [("matches.run_match", [match.pk], "matches", None)]


@pytest.mark.django_db
def test_challenge_form_shows_the_services_messages(client, alice, bob, effects_recorded):
    mine, theirs = make_deck(alice, "conquest"), make_deck(bob, "tempofront")
    client.force_login(alice)
    response = client.post("/matches/new/", {"deck": mine.pk, "opponent": theirs.pk, "best_of": 1})
    assert response.status_code == 200 and "same game" in response.content.decode()
    assert Match.objects.count() == 0


@pytest.mark.django_db
def test_match_page_and_replay_page_of_a_played_match(client, alice, bob, effects_recorded):
    mine, theirs = make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)
    # A fixed seed whose game is decided (a random one can tie and wait for its tiebreak).
    match = match_challenge(created_by=alice, deck_versions=[version(mine), version(theirs)], best_of=1, seed=3)
    run_match.apply(args=[match.pk])
    page = client.get(f"/matches/{match.pk}/")
    html = page.content.decode()
    assert page.status_code == 200 and "Watch replay" in html and f'/matches/{match.pk}/replay/?game=1' in html
    initial = json.loads(html.split('id="match-initial" type="application/json">')[1].split("</script>")[0])
    assert initial["status"] == "done" and len(initial["games"]) == 1
    # A decided match shows a full progress bar and offers its replay up front.
    assert 'style="width: 100%"' in html
    offer = re.search(r'<p class="match-replay" data-match-replay( hidden)?>\s*<a[^>]*href="([^"]*)"', html)
    assert offer is not None and offer.group(1) is None and offer.group(2) == f"/matches/{match.pk}/replay/?game=1"
    viewer = client.get(f"/matches/{match.pk}/replay/?game=1&action=5").content.decode()
    assert f'data-api-url="/api/matches/{match.pk}/replay/"' in viewer and "matches/replay.js" in viewer
    assert client.get("/matches/987654/").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_socket_sends_the_match_then_every_broadcast(alice, bob, in_memory_layer):
    """The consumer in this process with the in-memory layer: first the match as it is,
    then each ``match.update`` a service broadcasts after commit. The match's task is
    recorded, not sent (the test plays it here); its broadcasts go."""
    mine, theirs = make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)

    async def scenario(match):
        socket = Socket(f"/ws/matches/{match.pk}/")
        assert (await socket.connect())["type"] == "websocket.accept"
        first = await socket.receive_json()
        assert first["type"] == "match.update" and first["match"]["status"] == "queued"
        await sync_to_async(run_match.apply)(args=[match.pk])
        events = []
        while True:
            event = await socket.receive_json()
            events.append(event)
            if event["type"] == "match.update" and event["match"]["status"] == "done":
                break
        await socket.close()
        return events

    with effects.recording(sends=False) as held:
        # A fixed seed whose game is decided (a random one can tie and wait for its tiebreak).
        match = match_challenge(created_by=alice, deck_versions=[version(mine), version(theirs)], best_of=1, seed=3)
        events = async_to_sync(scenario)(match)
    assert held.tasks == [("matches.run_match", [match.pk], "matches", None)]
    assert events[0]["match"]["status"] == "running"
    assert events[-1]["match"]["winner"] == Match.objects.get(pk=match.pk).winner_seat
    assert len(events[-1]["match"]["games"]) == 1


@pytest.mark.django_db(transaction=True)
def test_socket_of_an_unknown_match_is_closed(db, in_memory_layer):
    async def scenario():
        socket = Socket("/ws/matches/999999/")
        message = await socket.connect()
        await socket.close()
        return message

    message = async_to_sync(scenario)()
    assert message["type"] == "websocket.close" and message["code"] == 4404


def test_broadcast_of_a_deleted_match_is_silent(alice, bob, in_memory_layer, caplog):
    """A broadcast for a match that is gone sends nothing to its group and logs no error;
    the same call for a match that exists reaches its group, sent after the first, so the
    first message on the channel shows that nothing came before it."""
    import logging

    from channels.layers import get_channel_layer

    from matches.services import group_name

    match = match_challenge(created_by=alice, deck_versions=[version(make_deck(alice, "conquest")),
                                                             version(make_deck(bob, "conquest", index=1))], best_of=1)
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    for match_id in (123456, match.pk):
        async_to_sync(layer.group_add)(group_name(match_id), channel)
    with caplog.at_level(logging.ERROR, logger="web.effects"):
        match_broadcast(match_id=123456)
        match_broadcast(match_id=match.pk)
    first = async_to_sync(layer.receive)(channel)
    assert first["type"] == "match.update" and first["match"]["id"] == match.pk
    assert not [r for r in caplog.records if "could not build" in r.getMessage()], caplog.text
