""""Your match is ready" on every page: the notify socket (/ws/notify/) through the real ASGI
server and channel layer, the service that announces a match after commit, and the banner
the pages render from the matches waiting for the player."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.test import Client
from live_helpers import make_deck
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from live import challenges, creation, matchmaking, moves
from live.creation import SeatSpec
from live.errors import LiveError
from live.models import LiveMatch
from live.notify import live_notify_many, live_notify_seats, matches_waiting, user_group
from web import effects

TIMEOUT = 20.0
QUIET = 1.5


def session_cookie(user: User) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def notify_socket(server, user: User | None = None):
    headers = {"Cookie": session_cookie(user)} if user is not None else {}
    return connect(server.ws_url("/ws/notify/"), origin=server.origin, open_timeout=10, additional_headers=headers)


def receive(socket, timeout: float = TIMEOUT) -> dict:
    return json.loads(socket.recv(timeout=timeout))


def nothing_comes(socket, seconds: float = QUIET) -> bool:
    try:
        frame = socket.recv(timeout=seconds)
    except TimeoutError:
        return True
    raise AssertionError(f"unexpected frame: {frame}")


@pytest.fixture
def players(db):
    return tuple(User.objects.create_user(name, password=f"pw-{name}-123") for name in ("alice", "bob", "carol"))


def human_match(first: User, second: User) -> LiveMatch:
    a = make_deck(first, "tempofront", index=0).latest_version
    b = make_deck(second, "tempofront", index=1).latest_version
    return creation.live_create(seats=[SeatSpec(deck_version=a, user=first), SeatSpec(deck_version=b, user=second)])


def test_user_group_is_one_per_user():
    assert user_group(7) == "user.7"
    assert user_group(7) != user_group(8)


# --------------------------------------------------------------------------- sockets


def test_seated_players_are_told_after_commit_and_nobody_else(asgi_server, players):
    alice, bob, carol = players
    with notify_socket(asgi_server, alice) as a, notify_socket(asgi_server, bob) as b, \
            notify_socket(asgi_server, carol) as c:
        for socket in (a, b, c):
            assert receive(socket) == {"type": "notify.matches", "matches": []}
        with transaction.atomic():
            live = human_match(alice, bob)
            live_notify_seats(match_id=live.match_id, title="Spring Swiss, round 2")
            # Not before the match is committed: a page could not open its board yet.
            assert nothing_comes(a, 1.0)
        told_alice = receive(a)
        told_bob = receive(b)
        assert told_alice == {"type": "notify.match", "match": {
            "id": live.match_id, "url": f"/live/{live.match_id}/", "title": "Spring Swiss, round 2",
            "opponents": ["bob"], "game": "TempoFront"}}
        assert told_bob["match"]["opponents"] == ["alice"]
        assert told_bob["match"]["title"] == "Spring Swiss, round 2"
        assert nothing_comes(c)


def test_a_rolled_back_match_is_never_announced(asgi_server, players):
    alice, bob, _ = players
    with notify_socket(asgi_server, alice) as a:
        receive(a)
        with pytest.raises(RuntimeError), transaction.atomic():
            live = human_match(alice, bob)
            live_notify_seats(match_id=live.match_id)
            raise RuntimeError("the round could not be paired")
        assert nothing_comes(a)
        assert not LiveMatch.objects.exists()


def test_on_connect_the_matches_waiting_are_listed_newest_first(asgi_server, players):
    alice, bob, carol = players
    first = human_match(alice, bob)
    second = human_match(carol, alice)
    with notify_socket(asgi_server, alice) as a, notify_socket(asgi_server, bob) as b:
        listed = receive(a)
        assert listed["type"] == "notify.matches"
        assert [m["id"] for m in listed["matches"]] == [second.match_id, first.match_id]
        assert listed["matches"][0] == {"id": second.match_id, "url": f"/live/{second.match_id}/",
                                        "title": "Live match", "opponents": ["carol"], "game": "TempoFront"}
        assert [m["id"] for m in receive(b)["matches"]] == [first.match_id]


def test_a_titled_match_keeps_its_title_on_reconnect_on_every_page_and_on_its_board(asgi_server, players):
    """A live event's table is created with its title ("Cup, round 3"): a notify socket
    that (re)connects lists it by that title, and so do the banner and the board, not
    "Live match"."""
    alice, bob, _ = players
    a = make_deck(alice, "tempofront", index=0).latest_version
    b = make_deck(bob, "tempofront", index=1).latest_version
    live = creation.live_create(seats=[SeatSpec(deck_version=a, user=alice), SeatSpec(deck_version=b, user=bob)],
                                title="  Cup,\n round 3 ")
    assert LiveMatch.objects.get(pk=live.pk).title == "Cup, round 3"
    with notify_socket(asgi_server, alice) as socket:
        assert [m["title"] for m in receive(socket)["matches"]] == ["Cup, round 3"]
        # Announced without a title of its own, the match is announced by its stored one.
        live_notify_seats(match_id=live.match_id)
        assert receive(socket)["match"]["title"] == "Cup, round 3"
    assert matches_waiting(user=alice)[0]["title"] == "Cup, round 3"
    assert "Your match is ready: <strong>Cup, round 3</strong> vs alice" in page_of(bob, "/decks/")
    board = page_of(bob, f"/live/{live.match_id}/")
    assert f'Cup, round 3 <span class="muted">· #{live.match_id}</span></h1>' in board
    assert f"<title>Cup, round 3 (live match #{live.match_id})" in board


@pytest.mark.parametrize("title", ["x" * 121, 42, None])
def test_a_match_title_that_cannot_be_shown_is_refused_and_nothing_is_written(players, title):
    alice, bob, _ = players
    a = make_deck(alice, "tempofront", index=0).latest_version
    b = make_deck(bob, "tempofront", index=1).latest_version
    with pytest.raises(ValidationError) as refused:
        creation.live_create(seats=[SeatSpec(deck_version=a, user=alice), SeatSpec(deck_version=b, user=bob)],
                             title=title)
    assert "title" in refused.value.message_dict
    assert not LiveMatch.objects.exists()


def test_a_round_of_matches_is_announced_together_after_commit(asgi_server, players):
    """What a live event's round does (``live_notify_many`` inside ``effects.batched``):
    every match of the round is announced to its players, none before the batch ends."""
    alice, bob, carol = players
    with notify_socket(asgi_server, alice) as a, notify_socket(asgi_server, bob) as b, \
            notify_socket(asgi_server, carol) as c:
        for socket in (a, b, c):
            receive(socket)
        with effects.batched():
            with transaction.atomic():
                first = human_match(alice, bob)
                second = human_match(carol, alice)
                live_notify_many([(first.match_id, "Cup, round 1", None), (second.match_id, "Cup, round 1", None)])
            # Committed, but the batch holds its sends until it ends.
            assert nothing_comes(a, 1.0)
        told = sorted((receive(a)["match"]["id"], receive(a)["match"]["id"]))
        assert told == sorted((first.match_id, second.match_id))
        assert receive(b)["match"] == {"id": first.match_id, "url": f"/live/{first.match_id}/",
                                       "title": "Cup, round 1", "opponents": ["alice"], "game": "TempoFront"}
        assert receive(c)["match"]["opponents"] == ["alice"]
        assert nothing_comes(b)


def test_a_refused_announcement_in_a_list_sends_none_of_it(players):
    alice, bob, _ = players
    live = human_match(alice, bob)
    with pytest.raises(LiveError) as refused:
        live_notify_many([(live.match_id, "Cup", None), (live.match_id + 1000, "Cup", None)])
    assert refused.value.code == "not_found"


def test_matchmaking_and_an_accepted_challenge_tell_the_players_on_any_page(asgi_server, players):
    """Players matched by the queue, and a challenger whose challenge is accepted, hear of
    their match on whatever page they are (not only on /live/)."""
    alice, bob, carol = players
    decks = {u.pk: make_deck(u, "tempofront", index=i).latest_version for i, u in enumerate(players)}
    with notify_socket(asgi_server, alice) as a, notify_socket(asgi_server, bob) as b, \
            notify_socket(asgi_server, carol) as c:
        for socket in (a, b, c):
            receive(socket)
        matchmaking.live_queue_join(user=alice, deck_version=decks[alice.pk])
        matchmaking.live_queue_join(user=bob, deck_version=decks[bob.pk])
        matched = LiveMatch.objects.get(seats__user=alice)
        for socket, opponent in ((a, "bob"), (b, "alice")):
            match = receive(socket)["match"]
            assert match["id"] == matched.match_id and match["opponents"] == [opponent]
            assert match["title"] == "Matchmaking: your live match is ready"
        challenge = challenges.live_challenge(challenger=carol, challenged_username="bob",
                                              deck_version=decks[carol.pk])
        assert nothing_comes(c, 1.0)  # a challenge alone starts nothing
        answered = challenges.live_challenge_answer(challenge_id=challenge.pk, user=bob, accept=True,
                                                    deck_version=decks[bob.pk])
        match = receive(c)["match"]
        assert match["id"] == answered.match_id and match["title"] == "bob accepted your challenge"
        assert match["opponents"] == ["bob"]


def test_anonymous_sockets_are_told_to_sign_in_and_closed(asgi_server, db):
    with notify_socket(asgi_server) as socket:
        frame = receive(socket)
        assert frame["type"] == "error" and frame["code"] == "not_signed_in" and frame["message"]
        with pytest.raises(ConnectionClosed) as closed:
            socket.recv(timeout=TIMEOUT)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401


def expect_error(socket, payload, code: str) -> None:
    socket.send(payload if isinstance(payload, bytes | str) else json.dumps(payload))
    frame = receive(socket)
    assert frame["type"] == "error" and frame["code"] == code and frame["message"], frame


def test_bad_frames_get_errors_and_change_nothing(asgi_server, players):
    alice, bob, _ = players
    live = human_match(alice, bob)
    with notify_socket(asgi_server, alice) as a:
        assert [m["id"] for m in receive(a)["matches"]] == [live.match_id]
        expect_error(a, b"\x00binary", "binary_frame")
        expect_error(a, "{not json", "malformed_json")
        expect_error(a, "[1]", "malformed_frame")
        expect_error(a, {"type": "notify.match", "match": {"id": 1, "url": "https://elsewhere.example/"}},
                     "unknown_type")
        expect_error(a, {"type": "act", "action": {"kind": "keep"}}, "unknown_type")
        expect_error(a, "x" * (64 * 1024), "frame_too_large")
        a.send(json.dumps({"type": "ping"}))
        assert receive(a) == {"type": "pong"}
        # Still the same socket: it is told of the next match as before, and nothing was played.
        live_notify_seats(match_id=live.match_id, title="Rematch")
        assert receive(a)["match"]["title"] == "Rematch"
    assert LiveMatch.objects.get(pk=live.pk).log == []


def test_a_flood_of_frames_is_rate_limited_then_closed(asgi_server, players):
    alice, _, _ = players
    with notify_socket(asgi_server, alice) as a:
        receive(a)
        limited = 0
        code = None
        try:
            for _ in range(400):
                a.send(json.dumps({"type": "ping"}))
        except ConnectionClosed:
            pass  # closed for the flood while still sending: what came before is read below
        try:
            while True:
                if receive(a, timeout=10).get("code") == "rate_limited":
                    limited += 1
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
    assert limited >= 1
    assert code == 4429


# --------------------------------------------------------------------------- the service


def test_bad_input_to_the_service_is_refused_and_sends_nothing(asgi_server, players):
    alice, bob, _ = players
    live = human_match(alice, bob)
    with notify_socket(asgi_server, alice) as a:
        receive(a)
        for url in ("//elsewhere.example/x", "https://elsewhere.example/", "javascript:alert(1)", "/live/ 1/"):
            with pytest.raises(ValidationError) as refused:
                live_notify_seats(match_id=live.match_id, url=url)
            assert "url" in refused.value.message_dict
        with pytest.raises(ValidationError) as refused:
            live_notify_seats(match_id=live.match_id, title="x" * 500)
        assert "title" in refused.value.message_dict
        with pytest.raises(LiveError) as missing:
            live_notify_seats(match_id=live.match_id + 1000)
        assert missing.value.code == "not_found"
        moves.live_resign(match_id=live.match_id, user=alice)
        with pytest.raises(LiveError) as over:
            live_notify_seats(match_id=live.match_id)
        assert over.value.code == "finished"
        assert nothing_comes(a)


# --------------------------------------------------------------------------- the page


def page_of(user: User | None, path: str = "/", cookies: dict | None = None) -> str:
    client = Client()
    if user is not None:
        client.force_login(user)
    for name, value in (cookies or {}).items():
        client.cookies[name] = value
    response = client.get(path)
    assert response.status_code == 200
    return response.content.decode()


def test_every_page_shows_the_banner_of_a_waiting_match_but_not_on_its_own_board(players):
    alice, bob, carol = players
    live = human_match(alice, bob)
    board = f"/live/{live.match_id}/"
    home = page_of(alice)
    assert "data-live-ready" in home and 'data-ws-path="/ws/notify/"' in home
    assert "Your match is ready: <strong>Live match</strong> vs bob" in home
    assert f'href="{board}">Open board</a>' in home
    assert "Your match is ready" in page_of(alice, "/live/")
    assert "Your match is ready" in page_of(bob, "/decks/")
    # On its own board the banner is there (to announce other matches) but empty.
    on_board = page_of(alice, board)
    assert "data-live-ready" in on_board and "Your match is ready" not in on_board
    # A player with no seat, and a visitor, see nothing; the visitor gets no socket at all.
    assert "Your match is ready" not in page_of(carol)
    anonymous = page_of(None)
    assert "data-live-ready" not in anonymous and "notify.js" not in anonymous
    # Dismissed on an earlier page: the next one does not show it again.
    assert "Your match is ready" not in page_of(alice, cookies={"live_ready_dismissed": f"3.{live.match_id}"})
    # Over: no longer waiting.
    moves.live_resign(match_id=live.match_id, user=bob)
    assert "Your match is ready" not in page_of(alice)


def test_matches_waiting_is_one_query_newest_first_at_most_five_not_finished(players, django_assert_num_queries):
    alice, bob, carol = players
    lives = [human_match(alice, bob) for _ in range(3)]
    mine = make_deck(alice, "tempofront", index=0).latest_version
    theirs = make_deck(carol, "tempofront", index=1).latest_version
    with_bot = creation.live_create(seats=[SeatSpec(deck_version=mine, user=alice),
                                           SeatSpec(deck_version=theirs, bot="greedy")])
    with django_assert_num_queries(1):
        waiting = matches_waiting(user=alice)
    assert [m["id"] for m in waiting] == [with_bot.match_id, *[live.match_id for live in reversed(lives)]]
    assert waiting[0]["opponents"] == ["bot greedy"]
    moves.live_resign(match_id=lives[0].match_id, user=bob)
    assert lives[0].match_id not in [m["id"] for m in matches_waiting(user=alice)]
    for _ in range(4):
        human_match(alice, carol)
    assert len(matches_waiting(user=alice)) == 5
