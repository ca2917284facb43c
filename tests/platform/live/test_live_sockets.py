"""Live matches over real WebSockets, through the real ASGI server (uvicorn) and, where a bot
or a clock is involved, a real Celery worker: bad frames of every kind get clear errors and
change nothing, a flood is cut off, two scripted players finish a match, a reload resumes,
a bot plays from the worker, and a clock runs out with nobody connected."""

from __future__ import annotations

import json
import time
from contextlib import ExitStack

import pytest
from django.contrib.auth.models import User
from django.test import Client
from live_helpers import make_deck
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from engine.core import Rng
from live import challenges, creation
from live import moves as live_moves
from live.consumers import RATE
from live.creation import SeatSpec
from live.models import LiveMatch
from matches.models import Match

TIMEOUT = 30.0


def session_cookie(user: User) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def open_socket(server, match_id: int, user: User | None = None):
    headers = {"Cookie": session_cookie(user)} if user is not None else {}
    return connect(server.ws_url(f"/ws/live/{match_id}/"), origin=server.origin, open_timeout=10,
                   additional_headers=headers)


def receive(socket, timeout: float = TIMEOUT, *, skip: tuple[str, ...] = ("presence",)) -> dict:
    """The next frame, passing over the kinds in ``skip`` (by default a seat's arrival,
    which may come at any time: another seat opening its board)."""
    deadline = time.monotonic() + timeout
    while True:
        frame = json.loads(socket.recv(timeout=max(0.05, deadline - time.monotonic())))
        if frame.get("type") not in skip:
            return frame


def receive_view(socket, timeout: float = TIMEOUT) -> dict:
    """The next view frame (an error frame fails the test with its message)."""
    deadline = time.monotonic() + timeout
    while True:
        frame = receive(socket, max(0.1, deadline - time.monotonic()))
        if frame["type"] == "view":
            return frame
        if frame["type"] == "error":
            raise AssertionError(f"error frame: {frame}")


def expect_error(socket, payload, code: str) -> dict:
    if isinstance(payload, bytes | str):
        socket.send(payload)
    else:
        socket.send(json.dumps(payload))
    frame = receive(socket)
    assert frame["type"] == "error", frame
    assert frame["code"] == code, frame
    assert frame["message"]
    return frame


@pytest.fixture
def players(db):
    alice = User.objects.create_user("alice", password="pw-alice-123")
    bob = User.objects.create_user("bob", password="pw-bob-123")
    carol = User.objects.create_user("carol", password="pw-carol-123")
    return alice, bob, carol


def tempofront_match(alice, bob, **kwargs) -> LiveMatch:
    a = make_deck(alice, "tempofront", index=0).latest_version
    b = make_deck(bob, "tempofront", index=1).latest_version
    return creation.live_create(seats=[SeatSpec(deck_version=a, user=alice), SeatSpec(deck_version=b, user=bob)],
                                **kwargs)


def stored_log(live: LiveMatch) -> list:
    return LiveMatch.objects.get(pk=live.pk).log


def test_bad_frames_get_clear_errors_and_change_nothing(asgi_server, players):
    alice, bob, carol = players
    live = tempofront_match(alice, bob)
    users = {0: alice, 1: bob}
    with open_socket(asgi_server, live.match_id, alice) as a, open_socket(asgi_server, live.match_id, bob) as b, \
            open_socket(asgi_server, live.match_id, carol) as watcher:
        views = {0: receive_view(a), 1: receive_view(b)}
        spectator = receive_view(watcher)
        assert spectator["seat"] is None and spectator["legal"] == []
        actor = views[0]["to_act"][0]
        waiter = 1 - actor
        sockets = {0: a, 1: b}
        mover, other = sockets[actor], sockets[waiter]
        assert views[actor]["legal"] and views[waiter]["legal"] == []
        expect_error(mover, b"\x00\x01binary", "binary_frame")
        expect_error(mover, "{not json", "malformed_json")
        expect_error(mover, "[1, 2]", "malformed_frame")
        expect_error(mover, {"type": "dance"}, "unknown_type")
        expect_error(mover, {"type": "act"}, "malformed_frame")
        expect_error(mover, {"type": "act", "action": "keep"}, "malformed_action")
        expect_error(mover, {"type": "act", "action": {"kind": "play", "card": "no-such-card"}}, "illegal_action")
        expect_error(mover, {"type": "act", "action": {"kind": "keep"}, "index": "zero"}, "bad_index")
        expect_error(mover, {"type": "act", "action": {"kind": "keep"}, "index": 99}, "stale")
        # Acting for the opponent: naming their seat, or acting while they are to act.
        expect_error(mover, {"type": "act", "action": {"kind": "keep"}, "seat": waiter}, "not_your_seat")
        expect_error(other, {"type": "act", "action": views[actor]["legal"][0]}, "not_your_turn")
        expect_error(watcher, {"type": "act", "action": views[actor]["legal"][0]}, "not_seated")
        expect_error(watcher, {"type": "resign"}, "not_seated")
        mover.send(json.dumps({"type": "ping"}))
        assert receive(mover) == {"type": "pong"}
        assert stored_log(live) == []
        assert users[actor]  # the seat that moves is the one the server chose, never the frame


def test_a_flood_of_frames_is_rate_limited_then_closed_and_changes_nothing(asgi_server, players):
    alice, bob, _ = players
    live = tempofront_match(alice, bob)
    with open_socket(asgi_server, live.match_id, alice) as a:
        receive_view(a)
        limited = 0
        closed_code = None
        try:
            for _ in range(400):
                a.send(json.dumps({"type": "act", "action": {"kind": "no-such-action"}}))
            while True:
                frame = receive(a, timeout=10)
                if frame.get("code") == "rate_limited":
                    limited += 1
        except ConnectionClosed as closed:
            closed_code = closed.rcvd.code if closed.rcvd else None
    assert limited >= 1
    assert closed_code == 4429
    assert stored_log(live) == []


_last_act: dict[int, float] = {}


def send_act(socket, action: dict, index: int) -> None:
    """Send an ``act`` frame as a person would: never ten a second. The server refuses a
    socket faster than ``consumers.RATE`` frames a second, so scripted players keep under it."""
    wait = _last_act.get(id(socket), 0.0) + 1.05 / RATE - time.monotonic()
    if wait > 0:
        time.sleep(wait)
    _last_act[id(socket)] = time.monotonic()
    socket.send(json.dumps({"type": "act", "action": action, "index": index}))


def play_over_sockets(sockets: dict, rng: Rng, *, reload_at: int | None = None, server=None, users=None,
                      match_id=None, stack: ExitStack | None = None) -> dict:
    """Two scripted clients play random legal actions to the end; returns the final views."""
    views = {seat: receive_view(s) for seat, s in sockets.items()}
    moves = 0
    while views[0]["status"] != "done":
        actor = views[0]["to_act"][0]
        action = rng.choice(views[actor]["legal"])
        send_act(sockets[actor], action, views[actor]["index"])
        for seat, socket in sockets.items():
            views[seat] = receive_view(socket)
        moves += 1
        if reload_at is not None and moves == reload_at:
            # A reload: the page's socket closes and a new one opens; the same view comes back.
            before = views[0]
            sockets[0].close()
            sockets[0] = stack.enter_context(open_socket(server, match_id, users[0]))
            views[0] = receive_view(sockets[0])
            assert views[0]["view"] == before["view"]
            assert views[0]["legal"] == before["legal"]
            assert views[0]["index"] == before["index"]
            assert len(views[0]["events"]) >= moves
        assert moves < 3000
    return views


def test_two_players_finish_a_tempofront_match_over_sockets_and_it_is_stored_as_a_replay(asgi_server, players):
    from engine.core import Replay, verify_replay

    alice, bob, carol = players
    live = tempofront_match(alice, bob)
    users = {0: alice, 1: bob}
    with ExitStack() as stack:
        sockets = {seat: stack.enter_context(open_socket(asgi_server, live.match_id, user))
                   for seat, user in users.items()}
        views = play_over_sockets(sockets, Rng(21), reload_at=10, server=asgi_server, users=users,
                                  match_id=live.match_id, stack=stack)
        assert views[0]["outcome"] == views[1]["outcome"] is not None
        # Acting after the end is refused.
        expect_error(sockets[0], {"type": "act", "action": {"kind": "pass"}}, "finished")
    live = LiveMatch.objects.get(pk=live.pk)
    assert live.status == "done"
    replay = Replay.from_json(live.replay)
    assert verify_replay(replay) == []
    assert Match.objects.get(pk=live.match_id).status == "done"


def test_a_spectator_socket_never_receives_a_card_in_a_hand(asgi_server, players):
    alice, bob, carol = players
    live = tempofront_match(alice, bob)
    users = {0: alice, 1: bob}
    rng = Rng(4)
    with ExitStack() as stack:
        sockets = {seat: stack.enter_context(open_socket(asgi_server, live.match_id, user))
                   for seat, user in users.items()}
        watcher = stack.enter_context(open_socket(asgi_server, live.match_id, carol))
        seen_by_spectator: list[str] = [watcher.recv(timeout=TIMEOUT)]
        views = {seat: receive_view(s) for seat, s in sockets.items()}
        hands: set[str] = set()
        for _ in range(40):
            if views[0]["status"] == "done":
                break
            for seat in (0, 1):
                hands |= {card["name"] for card in views[seat]["view"].get("hand", [])}
            actor = views[0]["to_act"][0]
            action = rng.choice(views[actor]["legal"])
            send_act(sockets[actor], action, views[actor]["index"])
            for seat, socket in sockets.items():
                views[seat] = receive_view(socket)
            seen_by_spectator.append(watcher.recv(timeout=TIMEOUT))
        public_text = "".join(seen_by_spectator)
        last_public = json.loads(seen_by_spectator[-1])["view"]
        still_hidden = {card["name"] for seat in (0, 1) for card in views[seat]["view"].get("hand", [])}
        assert hands and still_hidden
        for name in still_hidden:
            if name in json.dumps(last_public):
                continue  # another copy of the card is on the board or in a discard pile
            assert name not in public_text, f"{name} is in a hand yet reached a spectator"
        assert all("hand" not in json.loads(frame)["view"] for frame in seen_by_spectator)


def test_an_unknown_match_closes_the_socket(asgi_server, players):
    with open_socket(asgi_server, 999999, players[0]) as socket:
        frame = receive(socket)
        assert (frame["type"], frame["code"]) == ("error", "not_found")
        with pytest.raises(ConnectionClosed) as closed:
            socket.recv(timeout=10)
    assert closed.value.rcvd.code == 4404


def test_a_player_plays_conquest_against_a_bot_moving_on_the_worker(asgi_server, celery_worker_process, players):
    """The bot's decisions run on the worker; its moves reach the player's socket through
    the channel layer (the embedded SQLite bus, or Redis)."""
    alice, _, _ = players
    site = User.objects.create_user("site", password="pw-site-123")
    make_deck(site, "conquest", index=1, starter=True)
    deck = make_deck(alice, "conquest", index=0)
    live = challenges.live_play_bot(user=alice, deck_version=deck.latest_version, bot="random")
    rng = Rng(8)
    bot_moves = 0
    with open_socket(asgi_server, live.match_id, alice) as socket:
        view = receive_view(socket)
        deadline = time.monotonic() + 240
        waiting_for_mine = False
        mine_at = -1
        while view["status"] != "done":
            assert time.monotonic() < deadline, "the match did not end"
            if view["legal"] and not waiting_for_mine:
                action = rng.choice(view["legal"])
                send_act(socket, action, view["index"])
                waiting_for_mine, mine_at = True, view["index"]
            # In simultaneous placement the bot's move may arrive before mine is applied, and
            # the view of my move (sent by the web process) after the bot's next one (sent by
            # the worker): a late view is not drawn, but it still says my move was applied.
            try:
                while True:
                    newer = receive_view(socket, timeout=60)
                    if newer["acting"] == 0 and newer["index"] > mine_at:
                        waiting_for_mine = False
                    if newer["index"] > view["index"]:
                        view = newer
                        bot_moves += view["acting"] == 1
                        break
                    if not waiting_for_mine:
                        break
            except TimeoutError:
                stored = LiveMatch.objects.get(pk=live.pk)
                pytest.fail(f"no view for 60 s; last view to_act {view['to_act']} index {view['index']}, "
                            f"stored log {len(stored.log)} {stored.log[-3:]}\n{celery_worker_process.log()}")
    assert bot_moves > 0
    live = LiveMatch.objects.get(pk=live.pk)
    assert live.status == "done"
    assert any(entry[0] == 1 for entry in live.log)


def test_a_clock_running_out_with_nobody_connected_ends_the_match_on_the_worker(celery_worker_process, players):
    alice, bob, _ = players
    live = tempofront_match(alice, bob, initial_ms=1500)
    for user in (alice, bob):  # both came and left (one who never came would forfeit as a no-show)
        live_moves.live_seat_present(match_id=live.match_id, user=user)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        live.refresh_from_db()
        if live.status == "done":
            break
        time.sleep(0.5)
    assert live.status == "done", f"the clock was not enforced:\n{celery_worker_process.log()}"
    assert live.log[-1][1] == {"kind": "concede", "reason": "out of time"}
    assert live.outcome["reason"] == "concession"


@pytest.mark.redis
def test_two_players_on_two_web_processes_play_one_match_through_redis(asgi_server, players, service_env, tmp_path):
    """The log is the state and Redis carries the views: a second ASGI server on another
    port shares nothing in memory with the first, yet each player sees the other's moves."""
    import socket as sockets_module
    import subprocess
    import sys
    import urllib.error
    import urllib.request
    from dataclasses import replace

    with sockets_module.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = open(tmp_path / "second-server.log", "wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1", "--port", str(port),
         "--lifespan", "off", "--log-level", "warning"],
        env=service_env(), stdout=log, stderr=subprocess.STDOUT)
    second = replace(asgi_server, port=port)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, (tmp_path / "second-server.log").read_text()
            try:
                urllib.request.urlopen(second.url("/healthz"), timeout=5)
                break
            except urllib.error.HTTPError:
                break
            except OSError:
                assert time.monotonic() < deadline, "the second server did not start"
                time.sleep(0.3)
        alice, bob, _ = players
        live = tempofront_match(alice, bob)
        with ExitStack() as stack:
            sockets = {0: stack.enter_context(open_socket(asgi_server, live.match_id, alice)),
                       1: stack.enter_context(open_socket(second, live.match_id, bob))}
            views = play_over_sockets(sockets, Rng(33))
        assert views[0]["outcome"] == views[1]["outcome"] is not None
        assert LiveMatch.objects.get(pk=live.pk).status == "done"
    finally:
        process.terminate()
        process.wait(timeout=15)
        log.close()
