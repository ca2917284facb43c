"""Endings of a live match that a tournament round asks for: who showed up (presence, set
by a seated player's socket or first move, never by a spectator), forfeits of seats that
did not show, a game stopped at the round's hard time limit (adjudicated by the game's
own end condition, else drawn), and the next game of a series offered on the finished
board. Real PostgreSQL; the socket tests go through the real ASGI server and Redis."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.test import Client
from live_helpers import make_deck
from test_live_sockets import open_socket, receive, receive_view

from engine.core import CONCEDE, Replay, Rng, verify_replay
from ladder.models import RatingChange
from live import broadcasts, creation, endings, engine_state, selectors
from live import moves as live_moves
from live.creation import SeatSpec
from live.errors import LiveError
from live.models import LiveMatch, LiveSeat
from matches.models import Match

pytestmark = pytest.mark.django_db(transaction=True)

BIG_CLOCK = 10**9


def humans(game: str, users: list[User], **kwargs) -> LiveMatch:
    specs = [SeatSpec(deck_version=make_deck(u, game, index=i % 2).latest_version, user=u)
             for i, u in enumerate(users)]
    return creation.live_create(seats=specs, initial_ms=BIG_CLOCK, **kwargs)


def fresh(live: LiveMatch) -> LiveMatch:
    return LiveMatch.objects.select_related("match").get(pk=live.pk)


def play(live: LiveMatch, users: list[User], moves: int, seed: int = 1, *, until=None) -> LiveMatch:
    """Random legal moves by the seats' own players, through ``live_act``."""
    rng = Rng(seed)
    for _ in range(moves):
        live = fresh(live)
        with engine_state.state_of(live) as state:
            if until is not None and until(state):
                return live
            assert state.outcome is None, "the match ended while being played: choose another seed"
            seat = state.to_act()[0]
            action = rng.choice(state.legal_actions(seat)).to_json()
        live_moves.live_act(match_id=live.match_id, user=users[seat], action_json=action)
    return fresh(live)


def connected(live: LiveMatch) -> dict[int, bool]:
    return {r.seat: r.connected_at is not None for r in LiveSeat.objects.filter(live=live)}


def replay_problems(live: LiveMatch) -> list[str]:
    return verify_replay(Replay.from_json(live.replay))


def pages_answer(client: Client, match_id: int) -> None:
    """The match page, the replay viewer, its last frame and the replay file all answer."""
    for path in (f"/matches/{match_id}/", f"/matches/{match_id}/replay/?game=1", f"/matches/{match_id}/verify/"):
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
    page = client.get(f"/api/matches/{match_id}/replay/?game=1&from=100000&count=1")
    assert page.status_code == 200, page.content
    download = client.get(f"/api/matches/{match_id}/replay/?game=1&download=1")
    assert download.status_code == 200, download.content
    assert not verify_replay(Replay.from_json(json.loads(download.content)))


# --------------------------------------------------------------------------- presence


def test_a_seated_players_socket_marks_them_present_and_a_spectators_marks_nobody(asgi_server, alice, bob, carol):
    live = humans("tempofront", [alice, bob])
    assert connected(live) == {0: False, 1: False}
    with open_socket(asgi_server, live.match_id, carol) as watcher, open_socket(asgi_server, live.match_id) as anon:
        assert receive_view(watcher)["seat"] is None and receive_view(anon)["seat"] is None
        assert connected(live) == {0: False, 1: False}
    with open_socket(asgi_server, live.match_id, alice) as a:
        view = receive_view(a)
        assert view["seat"] == 0
        assert connected(live) == {0: True, 1: False}
    first = LiveSeat.objects.get(live=live, seat=0).connected_at
    with open_socket(asgi_server, live.match_id, alice) as a:
        receive_view(a)
    # The first arrival is kept; a reconnect does not move it.
    assert LiveSeat.objects.get(live=live, seat=0).connected_at == first
    # What the seats and spectators are told: whether each seat is here, never when.
    players = selectors.opening_payload(match_id=live.match_id, seat=None)["players"]
    assert [p["present"] for p in players] == [True, False]
    assert all(set(p) >= {"present"} and not any("connected" in key for key in p) for p in players)


def test_the_others_at_the_table_hear_at_once_that_a_player_has_come(asgi_server, alice, bob, carol):
    live = humans("tempofront", [alice, bob])
    with open_socket(asgi_server, live.match_id, alice) as a, open_socket(asgi_server, live.match_id, carol) as watcher:
        assert [p["present"] for p in receive_view(a)["players"]] == [True, False]
        receive_view(watcher)
        with open_socket(asgi_server, live.match_id, bob) as b:
            assert [p["present"] for p in receive_view(b)["players"]] == [True, True]
            # Alice and the spectator are told without waiting for a move; Bob is not told of himself.
            assert receive(a, skip=()) == {"type": "presence", "seat": 1, "present": True}
            assert receive(watcher, skip=()) == {"type": "presence", "seat": 1, "present": True}
            b.send(json.dumps({"type": "ping"}))
            assert receive(b, skip=()) == {"type": "pong"}
        # Only the first arrival is news: Bob coming back sends nothing.
        with open_socket(asgi_server, live.match_id, bob) as again:
            receive_view(again)
            with pytest.raises(TimeoutError):
                receive(a, timeout=1.0, skip=())


def test_spectators_hear_of_an_arrival_as_late_as_they_see_the_moves(asgi_server, alice, bob, carol):
    live = humans("tempofront", [alice, bob], spectator_delay=2)
    with open_socket(asgi_server, live.match_id, alice) as a, open_socket(asgi_server, live.match_id, carol) as watcher:
        receive_view(a)
        receive_view(watcher)
        with open_socket(asgi_server, live.match_id, bob) as b:
            receive_view(b)
            assert receive(a, skip=()) == {"type": "presence", "seat": 1, "present": True}
            with pytest.raises(TimeoutError):
                receive(watcher, timeout=1.0, skip=())
            assert receive(watcher, timeout=5.0, skip=()) == {"type": "presence", "seat": 1, "present": True}


def test_a_move_proves_presence_and_the_service_sets_only_the_players_own_seats(alice, bob, carol, sent):
    live = humans("tempofront", [alice, bob])
    with engine_state.state_of(fresh(live)) as state:
        seat = state.to_act()[0]
        action = state.legal_actions(seat)[0].to_json()
    users = [alice, bob]
    live_moves.live_act(match_id=live.match_id, user=users[seat], action_json=action)
    assert connected(live) == {seat: True, 1 - seat: False}
    # The view sent after the move already says so.
    last = sent.for_group(broadcasts.group_public(live.match_id))[-1]
    assert [p["present"] for p in last["players"]] == [s == seat for s in range(2)]

    other = users[1 - seat]
    assert live_moves.live_seat_present(match_id=live.match_id, user=carol) is False
    assert connected(live) == {seat: True, 1 - seat: False}
    assert live_moves.live_seat_present(match_id=live.match_id, user=other) is True
    assert live_moves.live_seat_present(match_id=live.match_id, user=other) is False
    assert connected(live) == {0: True, 1: True}


def test_a_bot_seat_is_always_present(alice, bob, sent):
    mine = make_deck(alice, "tempofront", index=0).latest_version
    theirs = make_deck(bob, "tempofront", index=1, starter=True).latest_version
    live = creation.live_create(seats=[SeatSpec(deck_version=mine, user=alice),
                                       SeatSpec(deck_version=theirs, bot="random")])
    players = selectors.opening_payload(match_id=live.match_id, seat=0)["players"]
    assert [p["present"] for p in players] == [False, True]


# --------------------------------------------------------------------------- forfeits


def test_a_seat_that_did_not_show_forfeits_and_the_board_says_so(alice, bob, client, sent):
    live = humans("tempofront", [alice, bob])
    done = endings.live_forfeit(match_id=live.match_id, seats=[1])
    assert done is not None and done.is_over
    live = fresh(live)
    assert live.outcome["places"] == [1, 2]
    assert live.outcome["forfeited"] == [1] and live.outcome["detail"]["forfeited"] == [1]
    # The concession is in the log, so the replay verifies.
    assert live.log[-1][:2] == [1, {"kind": CONCEDE, "reason": "no-show"}]
    assert replay_problems(live) == []

    match = Match.objects.get(pk=live.match_id)
    assert match.status == "done" and match.winner_seat == 0
    game = match.games.get(number=1)
    assert game.outcome["places"] == [1, 2] and game.outcome["detail"]["forfeited"] == [1]

    # Both seats and the spectators were sent the end, in words.
    for group in (broadcasts.group_for_seat(live.match_id, 0), broadcasts.group_for_seat(live.match_id, 1),
                  broadcasts.group_public(live.match_id)):
        last = sent.for_group(group)[-1]
        assert last["status"] == "done" and last["outcome"]["forfeited"] == [1]
        assert last["result"]["ending"] == "bob forfeited: did not show up"
    for seat in (0, 1, None):
        payload = selectors.opening_payload(match_id=live.match_id, seat=seat)
        assert payload["result"]["ending"] == "bob forfeited: did not show up"
    pages_answer(client, live.match_id)

    # The match says it was decided by forfeit, and is not rated: nothing was played.
    assert match.result["forfeited"] == [1]
    assert not RatingChange.objects.filter(match_id=live.match_id).exists()
    page = client.get(f"/matches/{live.match_id}/").content.decode()
    # A live match names the person who did not come, not their deck.
    assert "Decided by forfeit (bob did not show up): not rated." in page

    # A match already over is left as it is.
    assert endings.live_forfeit(match_id=live.match_id, seats=[0]) is None
    assert fresh(live).outcome == live.outcome and len(fresh(live).log) == len(live.log)
    assert endings.live_forfeit(match_id=999_999, seats=[0]) is None


def test_both_seats_forfeiting_both_lose(alice, bob, client, sent):
    live = humans("conquest", [alice, bob])
    endings.live_forfeit(match_id=live.match_id, seats=[0, 1])
    live = fresh(live)
    assert live.outcome["places"] == [2, 2]
    assert live.outcome["forfeited"] == [0, 1]
    assert replay_problems(live) == []
    match = Match.objects.get(pk=live.match_id)
    assert match.status == "done" and match.winner_seat is None
    assert match.games.get(number=1).outcome["entry_places"] == [2, 2]
    assert (selectors.opening_payload(match_id=live.match_id, seat=0)["result"]["ending"]
            == "alice and bob forfeited: did not show up")
    # Neither won, and it is no draw: the match says both forfeited, and nobody's rating moves.
    assert match.result["forfeited"] == [0, 1]
    assert not RatingChange.objects.filter(match_id=live.match_id).exists()
    page = client.get(f"/matches/{live.match_id}/").content.decode()
    assert "No one wins the match." in page and "The match is a draw." not in page
    assert "did not show up): not rated." in page
    api = client.get(f"/api/matches/{live.match_id}/").json()
    assert api["winner"] is None and api["result"]["forfeited"] == [0, 1]
    assert api["games"][0]["winner"] is None and api["games"][0]["forfeited"] == [0, 1]


def test_a_game_played_to_its_end_is_rated_where_a_forfeit_is_not(alice, bob, sent):
    played = humans("tempofront", [alice, bob])
    live_moves.live_resign(match_id=played.match_id, user=alice)
    assert "forfeited" not in Match.objects.get(pk=played.match_id).result
    assert RatingChange.objects.filter(match_id=played.match_id).count() == 2
    no_show = humans("tempofront", [alice, bob])
    endings.live_forfeit(match_id=no_show.match_id, seats=[0])
    assert Match.objects.get(pk=no_show.match_id).winner_seat == 1
    assert not RatingChange.objects.filter(match_id=no_show.match_id).exists()


def test_forfeits_in_a_match_of_four_share_the_last_place(alice, bob, carol, sent):
    dave = User.objects.create_user("dave", password="pw-dave-123")
    live = humans("conquest", [alice, bob, carol, dave])
    endings.live_forfeit(match_id=live.match_id, seats=[3, 1])
    live = fresh(live)
    # Nobody has scored: the two who came share first, the two who did not share the last place.
    assert live.outcome["places"] == [1, 4, 1, 4]
    assert live.outcome["forfeited"] == [3, 1]
    assert live.log[-1][0] == 3
    assert replay_problems(live) == []


def test_a_forfeit_naming_a_seat_the_match_does_not_have_changes_nothing(alice, bob, sent):
    live = humans("tempofront", [alice, bob])
    for seats, fragment in (([2], "no seat 2"), ([], "at least one seat"), (["1"], "no seat '1'"),
                            ([True], "no seat True")):
        with pytest.raises(ValidationError) as caught:
            endings.live_forfeit(match_id=live.match_id, seats=seats)
        assert fragment in " ".join(caught.value.message_dict["seats"])
    live = fresh(live)
    assert live.status == "active" and live.log == []
    assert Match.objects.get(pk=live.match_id).status == "running"


# --------------------------------------------------------------------------- adjudication


def test_a_tempofront_game_stopped_at_the_time_limit_is_a_draw(alice, bob, client, sent):
    live = humans("tempofront", [alice, bob])
    live = play(live, [alice, bob], 12)
    played = len(live.log)
    done = endings.live_adjudicate(match_id=live.match_id)
    assert done is not None
    live = fresh(live)
    assert live.status == "done" and len(live.log) == played
    assert live.outcome["places"] == [1, 1]
    assert live.outcome["reason"] == "adjudicated"
    assert live.outcome["detail"] == {"adjudicated": "round time limit"}
    # The replay is the game as played, unfinished, and still verifies.
    assert live.replay["outcome"] is None
    assert replay_problems(live) == []
    assert all(r.running_since is None for r in LiveSeat.objects.filter(live=live))

    match = Match.objects.get(pk=live.match_id)
    assert match.status == "done" and match.winner_seat is None
    game = match.games.get(number=1)
    assert game.outcome["reason"] == "adjudicated" and game.outcome["entry_places"] == [1, 1]
    for group in (broadcasts.group_for_seat(live.match_id, 0), broadcasts.group_public(live.match_id)):
        last = sent.for_group(group)[-1]
        assert last["status"] == "done" and last["result"]["ending"] == "Drawn at the round's time limit"
    pages_answer(client, live.match_id)
    assert endings.live_adjudicate(match_id=live.match_id) is None


def test_a_conquest_game_stopped_at_the_time_limit_goes_to_the_most_conquest(alice, bob, client, sent):
    live = humans("conquest", [alice, bob], seed=5)

    def pools_differ(state) -> bool:
        return state.players[0].conquest != state.players[1].conquest

    live = play(live, [alice, bob], 2000, seed=3, until=pools_differ)
    with engine_state.state_of(live) as state:
        pools = [p.conquest for p in state.players]
    assert pools[0] != pools[1], "nobody scored: choose another seed"
    leader = 0 if pools[0] > pools[1] else 1
    endings.live_adjudicate(match_id=live.match_id, reason="round 2 time limit")
    live = fresh(live)
    places = [1 if s == leader else 2 for s in range(2)]
    assert live.outcome["places"] == places
    assert live.outcome["scores"] == pools
    assert live.outcome["detail"] == {"adjudicated": "round 2 time limit"}
    assert replay_problems(live) == []
    match = Match.objects.get(pk=live.match_id)
    assert match.winner_seat == leader
    names = ["alice", "bob"]
    words = (f"Decided at the round's time limit: {names[leader]} 1st ({pools[leader]} Conquest), "
             f"{names[1 - leader]} 2nd ({pools[1 - leader]} Conquest)")
    for seat in (0, 1, None):
        assert selectors.opening_payload(match_id=live.match_id, seat=seat)["result"]["ending"] == words
    pages_answer(client, live.match_id)


# --------------------------------------------------------------------------- next game


def test_linking_the_next_game_sends_it_to_both_seats_and_spectators(asgi_server, alice, bob, carol):
    live = humans("tempofront", [alice, bob])
    live_moves.live_resign(match_id=live.match_id, user=bob)
    following = humans("tempofront", [alice, bob])
    with open_socket(asgi_server, live.match_id, alice) as a, open_socket(asgi_server, live.match_id, bob) as b, \
            open_socket(asgi_server, live.match_id, carol) as watcher:
        openings = [receive_view(a), receive_view(b), receive_view(watcher)]
        assert all(v["status"] == "done" and "next_url" not in v and "next_url" not in v["result"] for v in openings)
        endings.live_link_next(match_id=live.match_id, next_match_id=following.match_id)
        url = f"/live/{following.match_id}/"
        for socket, opening in zip((a, b, watcher), openings, strict=True):
            again = receive_view(socket)
            assert again["index"] == opening["index"] and again["status"] == "done"
            assert again["next_url"] == url and again["result"]["next_url"] == url
            # Each socket still gets its own seat's view.
            assert again["seat"] == opening["seat"]
        # Linking the same game again changes nothing and sends nothing.
        endings.live_link_next(match_id=live.match_id, next_match_id=following.match_id)
        with pytest.raises(TimeoutError):
            a.recv(timeout=1.5)
    assert fresh(live).next_match_id == following.match_id
    assert selectors.opening_payload(match_id=live.match_id, seat=1)["next_url"] == url


def test_a_next_game_linked_during_play_shows_once_the_match_ends_and_bad_links_are_refused(alice, bob, sent):
    live = humans("tempofront", [alice, bob])
    following = humans("tempofront", [alice, bob])
    other = humans("tempofront", [alice, bob])
    with pytest.raises(LiveError) as caught:
        endings.live_link_next(match_id=live.match_id, next_match_id=999_999)
    assert caught.value.code == "not_found" and "999999" in caught.value.message
    with pytest.raises(ValidationError):
        endings.live_link_next(match_id=live.match_id, next_match_id=live.match_id)
    with pytest.raises(LiveError):
        endings.live_link_next(match_id=999_999, next_match_id=following.match_id)
    sent.messages.clear()
    endings.live_link_next(match_id=live.match_id, next_match_id=following.match_id)
    assert sent.messages == []  # nothing to offer while the match is being played
    assert "next_url" not in selectors.opening_payload(match_id=live.match_id, seat=0)
    with pytest.raises(LiveError) as caught:
        endings.live_link_next(match_id=live.match_id, next_match_id=other.match_id)
    assert caught.value.code == "already_linked"
    live_moves.live_resign(match_id=live.match_id, user=alice)
    last = sent.for_group(broadcasts.group_for_seat(live.match_id, 0))[-1]
    assert last["status"] == "done" and last["next_url"] == f"/live/{following.match_id}/"
