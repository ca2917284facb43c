"""A seat that runs out of time in a Conquest match of three or more ranks last
(docs/live.md, "The clock"): in the live match's outcome, in the match's result, in its
game and replay, in what the seats are sent, and in the ladder ratings it moves."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from live_helpers import make_deck

from engine.core import Rng
from ladder import rating as model
from ladder.models import RatingChange
from live import broadcasts, creation, endings, engine_state
from live import moves as live_moves
from live.creation import SeatSpec
from live.models import LiveMatch, LiveSeat
from matches.models import Match

pytestmark = pytest.mark.django_db(transaction=True)

SEATS = 3
# A seed and a stream of choices under which the engine itself does not rank the
# timed-out seat last (checked below): the time-out rule is what must put it there.
SEED = 11
CHOICES_SEED = 1


def fresh(live: LiveMatch):
    live = LiveMatch.objects.select_related("match").get(pk=live.pk)
    with engine_state.state_of(live) as state:
        return live, state


def play_to_the_end_with_one_seat_timed_out(users) -> tuple[LiveMatch, int]:
    specs = [SeatSpec(deck_version=make_deck(u, "conquest", index=i % 2).latest_version, user=u)
             for i, u in enumerate(users)]
    live = creation.live_create(seats=specs, initial_ms=1_000, seed=SEED)
    for user in users:  # all came: a player who never did forfeits instead (test_live_no_show_clock.py)
        live_moves.live_seat_present(match_id=live.match_id, user=user)
    live, state = fresh(live)
    late = state.to_act()[0]
    later = timezone.now() + timedelta(seconds=2)
    assert endings.live_enforce_clock(match_id=live.match_id, now=later) == [late]
    rng = Rng(CHOICES_SEED)
    for _ in range(5000):
        live, state = fresh(live)
        if live.is_over:
            break
        seat = state.to_act()[0]
        if seat == late:
            assert live_moves.live_bot_move(match_id=live.match_id, seat=seat, index=len(live.log)) == "acted"
            continue
        LiveSeat.objects.filter(live=live).exclude(seat=late).update(remaining_ms=10**9)
        action = rng.choice(state.legal_actions(seat))
        live_moves.live_act(match_id=live.match_id, user=users[seat], action_json=action.to_json())
    assert live.is_over
    return live, late


def test_a_timed_out_seat_ranks_last_in_the_result_the_replay_and_the_ratings(alice, bob, carol, client, sent):
    users = [alice, bob, carol]
    live, late = play_to_the_end_with_one_seat_timed_out(users)
    engine_places = live.outcome["engine_places"]
    assert engine_places[late] < SEATS, "the engine ranked the late seat last already: choose another seed"
    final = live.outcome["places"]
    assert final[late] == SEATS and live.outcome["timed_out"] == [late]
    assert sorted(final) == list(range(1, SEATS + 1))

    # The match's result (what every other app reads) is the re-ranked one.
    match = Match.objects.get(pk=live.match_id)
    assert match.status == "done"
    assert match.result["places"] == final
    assert match.winner_seat == final.index(1)
    game = match.games.get(number=1)
    assert game.outcome["places"] == final and game.outcome["entry_places"] == final
    assert game.outcome["detail"]["timed_out"] == [late]

    # The replay still verifies (it keeps the engine's own outcome), and its page says
    # who placed where after the time-out rule.
    response = client.get(f"/api/matches/{match.pk}/replay/?game=1&count=1")
    assert response.status_code == 200, response.content
    page = response.json()
    assert page["outcome"]["places"] == final
    assert page["engine_outcome"]["places"] == engine_places

    # Every seat was told the re-ranked outcome.
    for seat in range(SEATS):
        last = sent.for_group(broadcasts.group_for_seat(live.match_id, seat))[-1]
        assert last["status"] == "done" and last["outcome"]["places"] == final

    # The ladder (humans pool) rated the re-ranked order: the late seat moved as a last place.
    changes = {c.entry: c for c in RatingChange.objects.filter(match_id=match.pk)}
    assert sorted(changes) == list(range(SEATS))
    assert changes[late].place == SEATS and changes[late].outcome == "L"
    fresh_skills = [model.Skill(model.MU, model.SIGMA)] * SEATS
    expected = model.rate(fresh_skills, final)
    for seat in range(SEATS):
        assert changes[seat].place == final[seat]
        assert changes[seat].mu == pytest.approx(expected[seat].mu)
        assert changes[seat].sigma == pytest.approx(expected[seat].sigma)
    as_engine_ranked = model.rate(fresh_skills, engine_places)
    assert changes[late].mu < as_engine_ranked[late].mu
    stored = User.objects.get(pk=users[late].pk).ratings.get(game="conquest", pool="humans")
    assert stored.mu == pytest.approx(expected[late].mu)
