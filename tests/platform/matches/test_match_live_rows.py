"""Live matches as the matches app holds them: created running with no worker's lease (the
sweeper and claims leave them alone, no task is sent), with the same secret seed and
public commitment as a challenge, and finished by recording the one game people played."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone
from match_helpers import make_deck, version

from engine import games
from engine.bots import make_bot
from engine.runner import play_match
from matches import fairness, signals
from matches.models import Match
from matches.services import (
    match_claim,
    match_create_live,
    match_record_live_game,
    match_sweep_expired,
)

pytestmark = pytest.mark.django_db


def live(alice, bob, **kwargs) -> Match:
    decks = [version(make_deck(alice, "tempofront")), version(make_deck(bob, "tempofront", index=1))]
    return match_create_live(created_by=alice, deck_versions=decks, pilots=["human", "greedy"], **kwargs)


def test_a_live_match_is_running_with_no_lease_expiry_and_no_task(alice, bob, effects_recorded,
                                                                  django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        match = live(alice, bob, seed=42)
    assert match.kind == Match.Kind.LIVE and match.status == Match.Status.RUNNING and match.best_of == 1
    assert match.lease_owner == "live" and match.lease_expires is None and match.started is not None
    assert [s.pilot for s in match.seats.order_by("seat")] == ["human", "greedy"]
    assert fairness.commitment_holds(seed=42, salt=match.seed_salt, commitment=match.seed_commitment)
    assert effects_recorded.tasks == []
    later = timezone.now() + timedelta(days=1)
    assert match_sweep_expired(now=later).to_json() == {"requeued": [], "failed": [], "resent": []}
    assert match_claim(match_id=match.pk, worker="w1") is None
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.lease_owner == "live" and match.attempts == 0


def test_a_live_match_is_validated_like_a_challenge(alice, bob, effects_recorded):
    decks = [version(make_deck(alice, "tempofront")), version(make_deck(bob, "tempofront", index=1))]
    with pytest.raises(ValidationError) as error:
        match_create_live(created_by=alice, deck_versions=decks, pilots=["human"])
    assert "pilots" in error.value.message_dict
    with pytest.raises(ValidationError) as error:
        match_create_live(created_by=alice, deck_versions=decks, pilots=["human", "human"],
                          params={"opening_hand": 99})
    assert "opening_hand" in error.value.message_dict["params"][0]
    assert Match.objects.count() == 0


def test_recording_the_live_game_finishes_the_match_once(alice, bob, effects_recorded):
    match = live(alice, bob, seed=42)
    finished = []
    signals.match_finished.connect(lambda sender, match, **kw: finished.append(match.pk), weak=False,
                                   dispatch_uid="live-test")
    try:
        game = games["tempofront"]
        decks = [s.deck_version.to_engine() for s in match.seats.order_by("seat")]
        played = play_match(game, decks, [make_bot("random"), make_bot("random")], seed=7)
        done = match_record_live_game(match_id=match.pk, replay=played.replay, seat_order=[0, 1])
        again = match_record_live_game(match_id=match.pk, replay=played.replay, seat_order=[0, 1])
    finally:
        signals.match_finished.disconnect(dispatch_uid="live-test")
    assert done.status == again.status == Match.Status.DONE and done.lease_owner == ""
    assert finished == [match.pk]
    row = done.games.get()
    assert row.number == 1 and row.actions == len(played.replay.actions)
    assert row.outcome["entry_places"] == list(played.outcome.places)
    assert done.result["wins"] == [int(row.winner_entry == e) for e in (0, 1)]


def test_only_a_running_live_match_takes_a_live_game(alice, bob, effects_recorded):
    decks = [version(make_deck(alice, "tempofront")), version(make_deck(bob, "tempofront", index=1))]
    from matches.services import match_challenge

    challenge = match_challenge(created_by=alice, deck_versions=decks, best_of=1)
    played = play_match(games["tempofront"], [d.to_engine() for d in decks], [make_bot("random")] * 2, seed=3)
    with pytest.raises(ValueError, match="not a running live match"):
        match_record_live_game(match_id=challenge.pk, replay=played.replay, seat_order=[0, 1])
    assert not challenge.games.exists()
