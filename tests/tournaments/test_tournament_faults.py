"""Faults with real workers: a worker killed mid-round, a lost advance message repaired by
beat's tick, two workers finishing the last two matches of a round at the same moment.
Each time the round advances exactly once and the event finishes."""

from __future__ import annotations

import os
import signal
import time
import uuid

import pytest
from tournament_helpers import fill, make_event

from config.celery import app as celery_app
from matches.models import Match
from matches.services import RUN_MATCH
from tournaments.models import Pairing, Round, Tournament
from tournaments.services import tournament_start

pytestmark = pytest.mark.django_db(transaction=True)


def wait_for(predicate, *, timeout: float, what: str, logs=()):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    tails = "\n".join(f"--- {p.name}\n{p.log()[-3000:]}" for p in logs)
    pytest.fail(f"no {what} within {timeout:g} s\n{tails}")


def finished(event: Tournament):
    event.refresh_from_db()
    return event if event.state == Tournament.State.FINISHED else None


def start_without_sending(event: Tournament, organiser, monkeypatch) -> list[int]:
    """Start the event with the match messages held back; return its round-1 match ids."""
    from web import effects

    with effects.recording():
        tournament_start(tournament_id=event.pk, by=organiser)
    return list(Pairing.objects.filter(round__tournament=event).exclude(match=None).values_list("match_id",
                                                                                               flat=True))


def assert_rounds_paired_once(event: Tournament, rounds: int, tables: int) -> None:
    assert Round.objects.filter(tournament=event).count() == rounds
    for rnd in Round.objects.filter(tournament=event):
        assert rnd.pairings.count() == tables
    assert Match.objects.filter(tournament_pairings__round__tournament=event).count() == rounds * tables


def test_a_worker_killed_mid_round_is_replaced_and_the_event_finishes(celery_worker_process, spawn, organiser,
                                                                     monkeypatch):
    queue = f"tournament-kill-{uuid.uuid4().hex[:6]}"
    doomed = spawn("doomed-worker", queues=queue, MATCHES_LEASE_SECONDS="2")
    event = make_event(organiser, rounds=1, best_of=3)
    fill(event, 2)
    from decks.models import Deck

    Deck.objects.filter(tournament_entries__tournament=event).update(pilot="search:fast")
    from decks.models import DeckVersion

    DeckVersion.objects.filter(tournament_entries__tournament=event).update(pilot="search:fast")
    [match_id] = start_without_sending(event, organiser, monkeypatch)
    celery_app.send_task(RUN_MATCH, args=[match_id], queue=queue)
    wait_for(lambda: Match.objects.filter(pk=match_id, status="running",
                                          lease_owner__startswith=doomed.hostname).exists(),
             timeout=60, what="the doomed worker playing the match", logs=[doomed])
    os.kill(doomed.process.pid, signal.SIGKILL)
    doomed.process.wait(timeout=10)
    assert Match.objects.get(pk=match_id).status == Match.Status.RUNNING
    beat = spawn.beat(MATCHES_SWEEP_SECONDS="1", TOURNAMENTS_TICK_SECONDS="1")
    event = wait_for(lambda: finished(event), timeout=300, what="the event finishing",
                     logs=[doomed, beat, celery_worker_process])
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.DONE and match.attempts == 2
    assert_rounds_paired_once(event, 1, 1)
    assert event.winner_id is not None


def test_a_lost_advance_message_is_repaired_by_the_tick(celery_worker_process, spawn, organiser, sent):
    from matches.tasks import run_match

    event = make_event(organiser, rounds=2)
    fill(event, 4)
    tournament_start(tournament_id=event.pk, by=organiser)
    for pairing in Pairing.objects.filter(round__tournament=event):
        run_match.apply(args=[pairing.match_id])  # played here; the advance messages are lost
    assert "tournaments.advance" in sent.names()
    event.refresh_from_db()
    assert event.current_round == 1 and Round.objects.filter(tournament=event).count() == 1
    beat = spawn.beat(TOURNAMENTS_TICK_SECONDS="1")
    event = wait_for(lambda: finished(event), timeout=180, what="the tick repairing the round",
                     logs=[beat, celery_worker_process])
    assert_rounds_paired_once(event, 2, 2)
    assert "Sending due task tournaments-tick (tournaments.tick)" in beat.log()


def test_two_workers_finishing_the_last_two_matches_at_once_advance_the_round_once(celery_worker_process, spawn,
                                                                                  organiser, monkeypatch):
    first = spawn("worker-one", queues=f"one-{uuid.uuid4().hex[:6]},tournaments")
    second = spawn("worker-two", queues=f"two-{uuid.uuid4().hex[:6]},tournaments")
    queue_one = first.process.args[first.process.args.index("--queues") + 1].split(",")[0]
    queue_two = second.process.args[second.process.args.index("--queues") + 1].split(",")[0]
    event = make_event(organiser, rounds=3)
    fill(event, 4)
    match_a, match_b = start_without_sending(event, organiser, monkeypatch)
    celery_app.send_task(RUN_MATCH, args=[match_a], queue=queue_one)
    celery_app.send_task(RUN_MATCH, args=[match_b], queue=queue_two)
    event = wait_for(lambda: finished(event), timeout=240, what="the event finishing",
                     logs=[first, second, celery_worker_process])
    assert_rounds_paired_once(event, 3, 2)
    # Round 1's two matches were finished by the two workers, each then asking to advance.
    assert f"match {match_a}: done" in first.log() and f"match {match_b}: done" in second.log()
