"""Every socket that reads JSON refuses a frame nested too deep before decoding it, with an
error frame, and stays open (a frame of brackets once raised RecursionError and dropped the
socket with 1006); every socket has the one frame bound (web.sockets.MAX_FRAME_CHARS). A
concession's reason is the server's to write: a client's is refused. Real ASGI server."""

from __future__ import annotations

import json
from datetime import timedelta

from django.utils import timezone
from test_live_notify import notify_socket
from test_live_sockets import expect_error, open_socket, receive, receive_view, stored_log, tempofront_match
from websockets.sync.client import connect

from config.api import MAX_JSON_DEPTH
from live.models import LiveMatch
from web.sockets import MAX_FRAME_CHARS


def nested(depth: int) -> str:
    """A ping frame whose extra field nests ``depth - 1`` arrays: ``depth`` levels in all."""
    return json.dumps({"type": "ping", "extra": json.loads("[" * (depth - 1) + "]" * (depth - 1))})


BRACKETS = "[" * MAX_FRAME_CHARS


def no_traceback_since(server, marker_count: int) -> None:
    log = server.log(tail=2_000_000)
    assert "RecursionError" not in log[marker_count:]
    assert "Traceback" not in log[marker_count:]


def log_size(server) -> int:
    return len(server.log(tail=2_000_000))


def test_the_live_socket_refuses_too_deep_frames_and_stays_open(asgi_server, alice, bob):
    live = tempofront_match(alice, bob)
    before = log_size(asgi_server)
    with open_socket(asgi_server, live.match_id, alice) as a:
        receive_view(a)
        assert MAX_JSON_DEPTH == 20
        a.send(nested(MAX_JSON_DEPTH))
        assert receive(a) == {"type": "pong"}
        expect_error(a, nested(MAX_JSON_DEPTH + 1), "too_deep")
        frame = expect_error(a, BRACKETS, "too_deep")
        assert "20 levels" in frame["message"]
        expect_error(a, {"type": "act", "action": json.loads("[" * 25 + "]" * 25)}, "too_deep")
        expect_error(a, "x" * (MAX_FRAME_CHARS + 1), "frame_too_large")
        # Still the same socket, still answering.
        a.send(json.dumps({"type": "ping"}))
        assert receive(a) == {"type": "pong"}
    assert stored_log(live) == []
    no_traceback_since(asgi_server, before)


def test_the_notify_socket_refuses_too_deep_frames_and_stays_open(asgi_server, alice):
    before = log_size(asgi_server)
    with notify_socket(asgi_server, alice) as a:
        assert receive(a)["type"] == "notify.matches"
        expect_error(a, nested(MAX_JSON_DEPTH + 1), "too_deep")
        expect_error(a, BRACKETS, "too_deep")
        a.send(json.dumps({"type": "ping"}))
        assert receive(a) == {"type": "pong"}
    no_traceback_since(asgi_server, before)


def test_the_tournament_socket_refuses_bad_frames_and_stays_open(asgi_server, alice):
    from tournaments.services import tournament_create

    event = tournament_create(organiser=alice, game="tempofront", name="Socket guards", format="swiss",
                              best_of=1, starts_at=timezone.now() + timedelta(hours=1))
    before = log_size(asgi_server)
    with connect(asgi_server.ws_url(f"/ws/tournaments/{event.pk}/"), origin=asgi_server.origin,
                 open_timeout=10) as socket:
        assert json.loads(socket.recv(timeout=20))["type"] == "tournament.update"
        for frame, code in ((BRACKETS, "too_deep"), (nested(MAX_JSON_DEPTH + 1), "too_deep"),
                            ("not json", "invalid_json"), ("x" * (MAX_FRAME_CHARS + 1), "frame_too_large")):
            socket.send(frame)
            answer = json.loads(socket.recv(timeout=20))
            assert answer["type"] == "error" and answer["code"] == code and answer["message"], answer
    no_traceback_since(asgi_server, before)


def test_every_socket_has_the_one_frame_bound(asgi_server):
    """16 KiB, as docs/security.md and docs/live.md say, on the live sockets and the others."""
    from live import consumers

    assert MAX_FRAME_CHARS == consumers.MAX_FRAME == 16 * 1024
    with connect(asgi_server.ws_url("/ws/site/"), origin=asgi_server.origin, open_timeout=10) as socket:
        assert json.loads(socket.recv(timeout=20)) == {"type": "site.connected"}
        socket.send("[" + " " * (16 * 1024 - 2) + "]")
        socket.send("x" * (16 * 1024 + 1))
        while True:
            answer = json.loads(socket.recv(timeout=20))
            if answer["type"] == "error":
                break
        assert answer["code"] == "frame_too_large" and str(MAX_FRAME_CHARS) in answer["message"]


def test_a_player_cannot_write_the_reason_of_their_concession(asgi_server, alice, bob, carol):
    live = tempofront_match(alice, bob)
    with open_socket(asgi_server, live.match_id, alice) as a, open_socket(asgi_server, live.match_id, bob) as b, \
            open_socket(asgi_server, live.match_id, carol) as watcher:
        receive_view(a), receive_view(b), receive_view(watcher)
        frame = expect_error(a, {"type": "act", "action": {"kind": "concede", "reason": "out of time"}},
                             "malformed_action")
        assert "reason" in frame["message"]
        expect_error(a, {"type": "act", "action": {"kind": "concede", "note": "x"}}, "malformed_action")
        assert stored_log(live) == []
        assert LiveMatch.objects.get(pk=live.pk).status == LiveMatch.Status.ACTIVE
        # A plain concession is a resignation, whatever the client would have called it.
        a.send(json.dumps({"type": "act", "action": {"kind": "concede"}}))
        final = receive_view(b)
        assert final["status"] == "done"
        assert final["outcome"]["detail"]["reason"] == "resigned"
        assert receive_view(watcher)["outcome"]["detail"]["reason"] == "resigned"
    stored = LiveMatch.objects.get(pk=live.pk)
    assert stored.log[-1][:2] == [0, {"kind": "concede", "reason": "resigned"}]
    assert "timed_out" not in stored.outcome
