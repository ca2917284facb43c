"""Match services and tasks run in this process: challenge validation, claim and lease,
best-of-N with alternating seats, exactly-once writes, the sweeper and the tiebreak."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone
from match_helpers import make_deck, version

from engine.core import verify_replay
from matches.models import Match, MatchGame
from matches.play import play_game
from matches.services import (
    RUN_MATCH,
    RUN_TIEBREAK,
    LeaseLost,
    match_challenge,
    match_claim,
    match_record_game,
    match_renew_lease,
    match_sweep_expired,
    match_tiebreak_resolve,
)
from matches.tasks import run_match, run_tiebreak, sweep

#: Conquest with one Battle and no cards drawn: nobody places a unit, both pools stay at 0,
#: so every game ends tied and goes to Match the Twos.
TIED_CONQUEST = {"battles": 1, "draw_per_battle": 0}


def challenge(decks, *, best_of=1, params=None, seed=7, by=None):
    return match_challenge(created_by=by or decks[0].owner, deck_versions=[version(d) for d in decks],
                           best_of=best_of, params=params, seed=seed)


# --------------------------------------------------------------------------- challenge validation


@pytest.mark.django_db
def test_challenge_creates_a_queued_match_with_each_decks_version_and_pilot(alice, bob, effects_recorded,
                                                                           django_capture_on_commit_callbacks):
    mine, theirs = make_deck(alice, "conquest", pilot="greedy"), make_deck(bob, "conquest", index=1)
    with django_capture_on_commit_callbacks(execute=True):
        match = challenge([mine, theirs], best_of=3)
    assert match.status == Match.Status.QUEUED
    assert match.best_of == 3 and match.game == "conquest" and match.created_by == alice
    seats = list(match.seats.order_by("seat"))
    assert [s.deck_version for s in seats] == [version(mine), version(theirs)]
    assert [s.pilot for s in seats] == ["greedy", "random"]
    assert effects_recorded.tasks == [(RUN_MATCH, [match.pk], "matches", None)]


@pytest.mark.django_db
def test_challenge_is_not_enqueued_before_commit(alice, bob, effects_recorded, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest")])
    assert effects_recorded.tasks == []
    assert len(callbacks) == 1


@pytest.mark.django_db
def test_challenge_of_mixed_games_names_every_deck(alice, bob, effects_recorded):
    with pytest.raises(ValidationError) as info:
        challenge([make_deck(alice, "conquest"), make_deck(bob, "tempofront")])
    (message,) = info.value.message_dict["decks"]
    assert "same game" in message and "(Conquest)" in message and "(TempoFront)" in message
    assert Match.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize(("game", "count", "expected"), [
    ("tempofront", 1, "TempoFront is played by 2 decks, not 1"),
    ("tempofront", 3, "TempoFront is played by 2 decks, not 3"),
    ("conquest", 1, "Conquest is played by 2 to 4 decks, not 1"),
    ("conquest", 5, "Conquest is played by 2 to 4 decks, not 5"),
])
def test_challenge_needs_a_seat_count_the_game_allows(alice, effects_recorded, game, count, expected):
    decks = [make_deck(alice, game, name=f"deck {i}") for i in range(count)]
    with pytest.raises(ValidationError) as info:
        challenge(decks)
    assert info.value.message_dict["decks"] == [expected]


@pytest.mark.django_db
def test_conquest_challenge_of_four_decks_is_accepted(alice, bob, effects_recorded):
    decks = [make_deck(alice, "conquest", index=i, name=f"deck {i}") for i in range(4)]
    assert challenge(decks).seats.count() == 4


@pytest.mark.django_db
@pytest.mark.parametrize("best_of", [0, 2, 4, 7, True])
def test_best_of_must_be_1_3_or_5(alice, bob, effects_recorded, best_of):
    with pytest.raises(ValidationError) as info:
        challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest")], best_of=best_of)
    assert info.value.message_dict == {"best_of": [f"best_of must be 1, 3 or 5, not {best_of!r}"]}


@pytest.mark.django_db
def test_params_are_checked_by_the_engine_and_tiebreak_is_reserved(alice, bob, effects_recorded):
    decks = [make_deck(alice, "conquest"), make_deck(bob, "conquest")]
    with pytest.raises(ValidationError) as info:
        challenge(decks, params={"battles": 99})
    assert "battles" in info.value.message_dict["params"][0]
    with pytest.raises(ValidationError) as info:
        challenge(decks, params={"tiebreak": "inline"})
    assert info.value.message_dict["params"] == ["'tiebreak' is set by the platform and cannot be chosen"]


@pytest.mark.django_db
def test_an_archived_deck_cannot_play(alice, bob, effects_recorded):
    mine, theirs = make_deck(alice, "conquest"), make_deck(bob, "conquest")
    theirs.archived = True
    theirs.save()
    with pytest.raises(ValidationError) as info:
        challenge([mine, theirs])
    assert any("deleted" in m for m in info.value.message_dict["decks"])


# --------------------------------------------------------------------------- claim and lease


@pytest.mark.django_db
def test_claim_takes_a_queued_match_once_and_a_live_lease_keeps_others_out(alice, bob, effects_recorded):
    match = challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest")])
    claimed = match_claim(match_id=match.pk, worker="w1")
    assert claimed.status == Match.Status.RUNNING and claimed.lease_owner == "w1" and claimed.attempts == 1
    assert claimed.lease_expires > timezone.now()
    assert match_claim(match_id=match.pk, worker="w2") is None


@pytest.mark.django_db
def test_an_expired_lease_may_be_reclaimed_as_a_new_attempt(alice, bob, effects_recorded):
    match = challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest")])
    match_claim(match_id=match.pk, worker="w1")
    Match.objects.filter(pk=match.pk).update(lease_expires=timezone.now() - timedelta(seconds=1))
    claimed = match_claim(match_id=match.pk, worker="w2")
    assert claimed.lease_owner == "w2" and claimed.attempts == 2
    with pytest.raises(LeaseLost):
        match_renew_lease(match_id=match.pk, worker="w1")


@pytest.mark.django_db
@pytest.mark.parametrize("status", [Match.Status.DONE, Match.Status.FAILED])
def test_a_finished_match_is_never_claimed(alice, bob, effects_recorded, status):
    match = challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest")])
    Match.objects.filter(pk=match.pk).update(status=status)
    assert match_claim(match_id=match.pk, worker="w1") is None
    assert match_claim(match_id=987654, worker="w1") is None


@pytest.mark.django_db
def test_a_worker_that_lost_its_lease_writes_nothing(alice, bob, effects_recorded):
    match = challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest")])
    claimed = match_claim(match_id=match.pk, worker="w1")
    played = play_game(claimed, 1, worker="w1")
    Match.objects.filter(pk=match.pk).update(lease_owner="w2")
    with pytest.raises(LeaseLost):
        match_record_game(match_id=match.pk, worker="w1", game=played)
    assert MatchGame.objects.count() == 0


# --------------------------------------------------------------------------- playing


@pytest.mark.django_db(transaction=True)
def test_run_match_plays_best_of_three_with_alternating_seats_and_verified_replays(alice, bob, effects_recorded):
    match = challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)], best_of=3, seed=11)
    assert run_match.apply(args=[match.pk]).get().startswith("done")
    match.refresh_from_db()
    assert match.status == Match.Status.DONE and match.lease_owner == "" and match.finished
    games = list(match.games.order_by("number"))
    assert 2 <= len(games) <= 3 and match.progress == len(games)
    assert [g.seat_order for g in games] == [[0, 1], [1, 0], [0, 1]][: len(games)]
    wins = [0, 0]
    for game in games:
        replay = game.load_replay()
        assert verify_replay(replay) == []
        assert replay.params["tiebreak"] == "deferred"
        assert [d.name for d in replay.decks] == [["alice conquest 0", "bob conquest 1"][e] for e in game.seat_order]
        assert len(bytes(game.replay)) < len(replay.dumps()) / 3  # compressed
        if game.winner_entry is not None:
            wins[game.winner_entry] += 1
    assert match.result["wins"] == wins
    assert match.winner_seat == (wins.index(max(wins)) if wins.count(max(wins)) == 1 else None)


@pytest.mark.django_db(transaction=True)
def test_the_same_match_played_twice_is_dealt_the_same_games(alice, bob, effects_recorded):
    decks = [make_deck(alice, "tempofront"), make_deck(bob, "tempofront", index=1)]
    first = challenge(decks, seed=5)
    second = challenge(decks, seed=5)
    run_match.apply(args=[first.pk])
    run_match.apply(args=[second.pk])
    one, two = (MatchGame.objects.get(match=m) for m in (first, second))
    assert one.load_replay().to_json() == two.load_replay().to_json()


@pytest.mark.django_db(transaction=True)
def test_run_match_delivered_twice_plays_once(alice, bob, effects_recorded):
    match = challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest")])
    assert run_match.apply(args=[match.pk]).get() != "skipped"
    finished = Match.objects.get(pk=match.pk).finished
    assert run_match.apply(args=[match.pk]).get() == "skipped"
    match.refresh_from_db()
    assert match.attempts == 1 and match.finished == finished and match.games.count() == 1


@pytest.mark.django_db(transaction=True)
def test_an_engine_error_fails_the_match_with_the_reason(alice, bob, effects_recorded, monkeypatch):
    from matches import play

    match = challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest")])

    def broken(*args, **kwargs):
        raise RuntimeError("engine exploded")

    monkeypatch.setattr(play, "play_match", broken)
    assert run_match.apply(args=[match.pk]).get() == "failed"
    match.refresh_from_db()
    assert match.status == Match.Status.FAILED
    assert match.error == "playing the match raised RuntimeError: engine exploded"


# --------------------------------------------------------------------------- sweeper


@pytest.mark.django_db(transaction=True)
def test_sweeper_requeues_an_expired_lease_and_the_next_worker_goes_on(alice, bob, effects_recorded):
    match = challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest")], best_of=3)
    claimed = match_claim(match_id=match.pk, worker="dead-worker")
    match_record_game(match_id=match.pk, worker="dead-worker", game=play_game(claimed, 1, worker="dead-worker"))
    effects_recorded.tasks.clear()
    assert match_sweep_expired().requeued == []  # the lease still holds
    later = timezone.now() + timedelta(minutes=5)
    assert match_sweep_expired(now=later).requeued == [match.pk]
    assert effects_recorded.tasks == [(RUN_MATCH, [match.pk], "matches", None)]
    match.refresh_from_db()
    assert match.status == Match.Status.QUEUED and match.lease_owner == "" and match.progress == 1
    run_match.apply(args=[match.pk])
    match.refresh_from_db()
    assert match.status == Match.Status.DONE and match.attempts == 2
    assert list(match.games.values_list("number", flat=True)) == list(range(1, match.progress + 1))


@pytest.mark.django_db(transaction=True)
def test_sweeper_gives_up_after_max_attempts_with_a_clear_error(alice, bob, effects_recorded, settings):
    settings.MATCHES_MAX_ATTEMPTS = 2
    match = challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest")])
    reports = []
    for attempt in (1, 2):
        match_claim(match_id=match.pk, worker=f"worker-{attempt}")
        Match.objects.filter(pk=match.pk).update(lease_expires=timezone.now() - timedelta(seconds=1))
        reports.append(sweep.apply().get())
    assert reports == [{"requeued": [match.pk], "failed": [], "resent": []},
                       {"requeued": [], "failed": [match.pk], "resent": []}]
    match.refresh_from_db()
    assert match.status == Match.Status.FAILED
    assert match.error.startswith("gave up after 2 attempts: the worker playing the match stopped renewing its lease")
    assert "worker-2" in match.error


@pytest.mark.django_db(transaction=True)
def test_sweeper_resends_run_match_for_a_match_left_queued(alice, bob, effects_recorded, settings):
    """A queued match whose message was lost (say, the broker was down at commit) is sent
    again once MATCHES_RESEND_SECONDS have passed, and again after as many more."""
    settings.MATCHES_RESEND_SECONDS = 600
    match = challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest")])
    effects_recorded.tasks.clear()
    assert match_sweep_expired(now=timezone.now() + timedelta(seconds=590)).resent == []
    later = timezone.now() + timedelta(seconds=610)
    assert match_sweep_expired(now=later).resent == [match.pk]
    assert match_sweep_expired(now=later + timedelta(seconds=60)).resent == []
    assert effects_recorded.tasks == [(RUN_MATCH, [match.pk], "matches", None)]
    match.refresh_from_db()
    assert match.status == Match.Status.QUEUED and match.attempts == 0


# --------------------------------------------------------------------------- tiebreak


@pytest.mark.django_db(transaction=True)
def test_a_tied_conquest_game_waits_for_run_tiebreak_which_completes_the_match(alice, bob, effects_recorded):
    match = challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)], params=TIED_CONQUEST)
    effects_recorded.tasks.clear()
    assert "tiebreak" in run_match.apply(args=[match.pk]).get()
    match.refresh_from_db()
    game = match.games.get()
    assert match.status == Match.Status.RUNNING and match.lease_owner == f"tiebreak:{game.pk}"
    assert game.tiebreak == MatchGame.Tiebreak.PENDING and game.outcome["detail"]["tiebreak_pending"] is True
    assert effects_recorded.tasks == [(RUN_TIEBREAK, [game.pk], "matches", None)]
    assert run_match.apply(args=[match.pk]).get() == "skipped"  # the tiebreak holds the match

    assert run_tiebreak.apply(args=[game.pk]).get() == "resolved"
    match.refresh_from_db()
    game.refresh_from_db()
    assert match.status == Match.Status.DONE
    assert game.tiebreak == MatchGame.Tiebreak.DONE
    records = game.outcome["detail"]["match_the_twos"]
    assert records and records[0]["seats"] == [0, 1] and records[0]["rounds"]
    assert game.load_replay().meta["match_the_twos"] == records
    assert verify_replay(game.load_replay()) == []
    assert match.winner_seat == game.winner_entry
    assert run_tiebreak.apply(args=[game.pk]).get() == "nothing to do"


@pytest.mark.django_db(transaction=True)
def test_after_a_tiebreak_in_a_best_of_three_run_match_plays_the_next_game(alice, bob, effects_recorded):
    match = challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)], best_of=3,
                      params=TIED_CONQUEST)
    run_match.apply(args=[match.pk])
    game = match.games.get()
    effects_recorded.tasks.clear()
    match_tiebreak_resolve(game_id=game.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.lease_owner == "" and match.attempts == 1
    assert match.lease_expires > timezone.now()  # unclaimed for a lease period, the sweeper steps in
    assert effects_recorded.tasks == [(RUN_MATCH, [match.pk], "matches", None)]
    run_match.apply(args=[match.pk])  # plays game 2, which ties again
    match.refresh_from_db()
    assert match.progress == 2 and match.attempts == 1
    assert match.games.get(number=2).seat_order == [1, 0]


@pytest.mark.django_db(transaction=True)
def test_a_match_handed_back_after_a_tiebreak_but_never_taken_is_requeued(alice, bob, effects_recorded):
    match = challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)], best_of=3,
                      params=TIED_CONQUEST)
    run_match.apply(args=[match.pk])
    match_tiebreak_resolve(game_id=match.games.get().pk)
    effects_recorded.tasks.clear()  # the run_match sent with the hand-back is lost
    assert match_sweep_expired(now=timezone.now() + timedelta(hours=1)).requeued == [match.pk]
    assert effects_recorded.tasks == [(RUN_MATCH, [match.pk], "matches", None)]


@pytest.mark.django_db(transaction=True)
def test_a_lost_tiebreak_task_is_recovered_by_the_sweeper(alice, bob, effects_recorded):
    match = challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)], params=TIED_CONQUEST)
    run_match.apply(args=[match.pk])
    game = match.games.get()
    effects_recorded.tasks.clear()
    assert match_sweep_expired(now=timezone.now() + timedelta(hours=1)).requeued == [match.pk]
    run_match.apply(args=[match.pk])
    assert effects_recorded.tasks == [(RUN_MATCH, [match.pk], "matches", None),
                                      (RUN_TIEBREAK, [game.pk], "matches", None)]
    run_tiebreak.apply(args=[game.pk])
    assert Match.objects.get(pk=match.pk).status == Match.Status.DONE


@pytest.mark.django_db
@pytest.mark.parametrize(("kind", "queue"), [("challenge", "matches"), ("tournament", "tournaments"),
                                             ("ladder", "ladder")])
def test_a_match_is_sent_to_the_queue_of_its_kind(alice, bob, effects_recorded, django_capture_on_commit_callbacks,
                                                  kind, queue):
    """Tournament matches wait in a queue workers serve before challenges, ladder matches after."""
    decks = [version(make_deck(alice, "tempofront")), version(make_deck(bob, "tempofront", index=1))]
    with django_capture_on_commit_callbacks(execute=True):
        match = match_challenge(created_by=alice, deck_versions=decks, best_of=1, kind=kind)
    assert match.kind == kind
    assert effects_recorded.tasks == [("matches.run_match", [match.pk], queue, None)]
