"""A player who never opened their board is a no-show, whatever their clock says: when their
clock runs out before anyone forfeits them, the match ends by forfeit (unrated), not by a
loss on time (rated)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from live_helpers import make_deck

from engine.core import CONCEDE, Replay, verify_replay
from ladder.models import RatingChange
from live import creation, endings, engine_state, moves, selectors
from live.creation import SeatSpec
from live.models import LiveMatch, LiveSeat
from matches.models import Match

pytestmark = pytest.mark.django_db(transaction=True)


def humans(game: str, users: list[User], **kwargs) -> LiveMatch:
    specs = [SeatSpec(deck_version=make_deck(u, game, index=i % 2).latest_version, user=u)
             for i, u in enumerate(users)]
    return creation.live_create(seats=specs, initial_ms=5_000, increment_ms=0, **kwargs)


def fresh(live: LiveMatch) -> LiveMatch:
    return LiveMatch.objects.select_related("match").get(pk=live.pk)


def to_act(live: LiveMatch) -> list[int]:
    with engine_state.state_of(fresh(live)) as state:
        return list(state.to_act())


def test_an_absent_player_whose_clock_runs_out_forfeits_unrated(alice, bob, sent):
    live = humans("tempofront", [alice, bob])
    waiting = to_act(live)
    present = next(s for s in (0, 1) if s not in waiting) if len(waiting) == 1 else 1
    absent = 1 - present
    users = {0: alice, 1: bob}
    moves.live_seat_present(match_id=live.match_id, user=users[present])
    ran_out = endings.live_enforce_clock(match_id=live.match_id, now=live.created + timedelta(seconds=30))
    assert absent in ran_out
    live = fresh(live)
    assert live.status == LiveMatch.Status.DONE
    # A forfeit for not showing up, not a loss on time.
    assert live.log[-1][:2] == [absent, {"kind": CONCEDE, "reason": "no-show"}]
    assert live.outcome["forfeited"] == [absent] and "timed_out" not in live.outcome
    assert live.outcome["places"][present] == 1 and live.outcome["places"][absent] == 2
    assert verify_replay(Replay.from_json(live.replay)) == []
    match = Match.objects.get(pk=live.match_id)
    assert match.result["forfeited"] == [absent]
    assert not RatingChange.objects.filter(match_id=live.match_id).exists()
    rows = selectors.live_seats(live=live)
    assert selectors.ending_words(live, rows) == f"{users[absent].username} forfeited: did not show up"


def test_both_absent_when_a_clock_runs_out_both_forfeit(alice, bob, sent):
    live = humans("tempofront", [alice, bob])
    endings.live_enforce_clock(match_id=live.match_id, now=live.created + timedelta(seconds=30))
    live = fresh(live)
    assert sorted(live.outcome["forfeited"]) == [0, 1] and live.outcome["places"] == [2, 2]
    assert not RatingChange.objects.filter(match_id=live.match_id).exists()


def test_a_present_player_out_of_time_still_loses_on_time_and_is_rated(alice, bob, sent):
    live = humans("tempofront", [alice, bob])
    for user in (alice, bob):
        moves.live_seat_present(match_id=live.match_id, user=user)
    endings.live_enforce_clock(match_id=live.match_id, now=live.created + timedelta(seconds=30))
    live = fresh(live)
    assert live.log[-1][1] == {"kind": CONCEDE, "reason": "out of time"}
    assert "forfeited" not in live.outcome
    assert RatingChange.objects.filter(match_id=live.match_id).count() == 2
    assert LiveSeat.objects.filter(live=live, connected_at__isnull=True).count() == 0
