"""Anything public about a running match follows its spectator delay: the live lobby, the
"live now" API, a spectator's opening view (board, clocks, arrivals) and a live event's
tables tell the match as it stood ``spectator_delay`` seconds ago, never in real time."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from live_helpers import make_deck

from engine.core import Rng
from live import creation, engine_state, selectors
from live import moves as live_moves
from live.creation import SeatSpec
from live.models import LiveMatch, LiveSeat

pytestmark = pytest.mark.django_db(transaction=True)

DELAY = 20


def delayed_match(alice: User, bob: User) -> LiveMatch:
    specs = [SeatSpec(deck_version=make_deck(u, "tempofront", index=i).latest_version, user=u)
             for i, u in enumerate((alice, bob))]
    return creation.live_create(seats=specs, initial_ms=600_000, increment_ms=5_000, spectator_delay=DELAY)


def play(live: LiveMatch, users: dict[int, User], moves: int) -> list[int]:
    """``moves`` random legal moves; returns who was to act before each."""
    rng, acted = Rng(3), []
    for _ in range(moves):
        live = LiveMatch.objects.select_related("match").get(pk=live.pk)
        with engine_state.state_of(live) as state:
            seat = state.to_act()[0]
            action = rng.choice(state.legal_actions(seat)).to_json()
        acted.append(seat)
        live_moves.live_act(match_id=live.match_id, user=users[seat], action_json=action)
    return acted


def backdate(live: LiveMatch, *, public: int, seconds: float = 60) -> LiveMatch:
    """Move the match's start and its first ``public`` actions ``seconds`` into the past (the
    later ones stay just played): spectators have seen exactly ``public`` actions."""
    live = LiveMatch.objects.get(pk=live.pk)
    shift = int(seconds * 1000)
    log = [[seat, action, at - shift if index < public else at] for index, (seat, action, at) in enumerate(live.log)]
    LiveMatch.objects.filter(pk=live.pk).update(log=log, created=live.created - timedelta(seconds=seconds))
    return LiveMatch.objects.select_related("match").get(pk=live.pk)


def test_the_live_now_api_and_lobby_count_only_the_actions_spectators_have_seen(alice, bob, client, sent):
    live = delayed_match(alice, bob)
    play(live, {0: alice, 1: bob}, 3)
    live = backdate(live, public=1)
    assert len(live.log) == 3
    LiveSeat.objects.filter(live=live, seat=0).update(connected_at=timezone.now() - timedelta(seconds=60))
    LiveSeat.objects.filter(live=live, seat=1).update(connected_at=timezone.now())

    listed = next(m for m in client.get("/api/live/now/").json()["results"] if m["match"] == live.match_id)
    assert listed["actions"] == 1
    # bob arrived within the delay: spectators have not seen him come yet.
    assert [p["present"] for p in listed["players"]] == [True, False]
    page = client.get("/live/").content.decode()
    assert f"#{live.match_id}" in page and "1 actions" in page and "3 actions" not in page

    # A match without delay is told as it stands.
    LiveMatch.objects.filter(pk=live.pk).update(spectator_delay=0)
    listed = next(m for m in client.get("/api/live/now/").json()["results"] if m["match"] == live.match_id)
    assert listed["actions"] == 3 and [p["present"] for p in listed["players"]] == [True, True]


def test_a_spectators_opening_view_and_the_public_clocks_are_those_of_the_delayed_moment(alice, bob, sent):
    live = delayed_match(alice, bob)
    acted = play(live, {0: alice, 1: bob}, 3)
    live = backdate(live, public=2)
    rows = selectors.live_seats(live=live)
    now = timezone.now()
    spectator = selectors.opening_payload(match_id=live.match_id, seat=None, now=now)
    assert spectator["index"] == 2
    with engine_state.state_of(live) as state:
        current_to_act = list(state.to_act())
    # Whose clock runs is whose turn it was then (the seat that made the third move).
    running = [c["seat"] for c in spectator["clocks"] if c["running"]]
    assert running == spectator["to_act"] == [acted[2]]
    assert selectors.public_clocks(live, rows, now) == spectator["clocks"]
    # The real clocks have moved on: the third move stopped that seat's clock.
    real = selectors.clocks_json(rows, now)
    assert [c["seat"] for c in real if c["running"]] == current_to_act
    assert next(c for c in real if c["seat"] == acted[2])["running"] is (acted[2] in current_to_act)
    mover_then = next(c for c in spectator["clocks"] if c["seat"] == acted[2])
    mover_now = next(c for c in real if c["seat"] == acted[2])
    assert mover_then["remaining_ms"] != mover_now["remaining_ms"]
    # The players themselves see the position as it stands.
    assert selectors.opening_payload(match_id=live.match_id, seat=0, now=now)["index"] == 3
    assert next(c for c in selectors.opening_payload(match_id=live.match_id, seat=0, now=now)["clocks"]
                if c["seat"] == acted[2]) == mover_now


def test_public_clocks_without_a_move_since_run_from_the_delayed_moment(alice, bob, sent):
    live = delayed_match(alice, bob)
    play(live, {0: alice, 1: bob}, 1)
    live = backdate(live, public=1, seconds=120)
    # Move the running clock's start back as well, as if it had run for two minutes.
    row = next(r for r in selectors.live_seats(live=live) if r.running_since is not None)
    LiveSeat.objects.filter(pk=row.pk).update(running_since=row.running_since - timedelta(seconds=120))
    rows = selectors.live_seats(live=live)
    now = timezone.now()
    public = selectors.public_clocks(live, rows, now)
    real = selectors.clocks_json(rows, now)
    for then, current in zip(public, real, strict=True):
        assert then["running"] == current["running"]
        # The public clock shows DELAY seconds more for the seat whose time runs.
        expected = current["remaining_ms"] + (DELAY * 1000 if current["running"] else 0)
        assert abs(then["remaining_ms"] - expected) <= 50
