"""Events run from open to finished by real Celery workers through the real broker (Redis
under CI), with random bots: a 64-entry Swiss of 6 rounds best of 3, a 16-entry double
elimination, a 16-player Conquest pod event. Each result is checked for consistency:
every entry's record adds up, every match has a replay, no avoidable rematch in the
Swiss, the grand final's winner is the event's winner, the standings follow the
documented tiebreak order.

The waits are generous on purpose: they only stop a run that hangs, and are no speed
target (the platform's speed is measured in bench/RESULTS.md, "Tournament platform")."""

from __future__ import annotations

import time
from collections import Counter

import pytest
from tournament_helpers import fill, make_event

from matches.models import Match, MatchGame
from tournaments.models import Pairing, Round, Tournament
from tournaments.selectors import standings_rows
from tournaments.services import tournament_start

pytestmark = pytest.mark.django_db(transaction=True)


def wait_finished(event: Tournament, *, timeout: float, logs=()) -> Tournament:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event.refresh_from_db()
        if event.state in (Tournament.State.FINISHED, Tournament.State.CANCELLED):
            return event
        time.sleep(0.5)
    tails = "\n".join(f"--- {p.name}\n{p.log(tail=4000) if hasattr(p, 'log_path') else ''}" for p in logs)
    pytest.fail(f"event {event.pk} still {event.state} in round {event.current_round} after {timeout:g} s\n{tails}")


def assert_consistent(event: Tournament) -> None:
    """Every table decided, every played match done with a replay of each game."""
    pairings = list(Pairing.objects.filter(round__tournament=event).select_related("round"))
    assert all(p.status == Pairing.Status.DONE for p in pairings)
    match_ids = [p.match_id for p in pairings if p.match_id]
    matches = Match.objects.filter(pk__in=match_ids)
    assert all(m.status == Match.Status.DONE and m.kind == "tournament" for m in matches)
    games = Counter(MatchGame.objects.filter(match_id__in=match_ids).exclude(replay=b"").values_list("match_id",
                                                                                                      flat=True))
    assert all(games[m.pk] == m.progress >= 1 for m in matches), "a match without a replay of each game"
    assert all(row.load_replay().actions for row in MatchGame.objects.filter(match_id__in=match_ids[:5]))


def assert_records_add_up(event: Tournament) -> list[dict]:
    rows = standings_rows(tournament=event)
    rounds = event.total_rounds
    for row in rows:
        played = row["wins"] + row["draws"] + row["losses"]
        assert played == row["matches"]
        assert row["matches"] <= rounds and row["byes"] <= row["wins"]
    # Standings follow the documented order: points, OMW, GW, OGW (then Conquest, head-to-head).
    keys = [(-r["points"], -round(r["omw"], 9), -round(r["gwp"], 9), -round(r["ogw"], 9)) for r in rows]
    assert keys == sorted(keys)
    assert rows[0]["entry"]["id"] == event.winner_id
    return rows


def test_a_64_entry_swiss_of_6_rounds_best_of_3_runs_to_the_end(celery_worker_process, organiser):
    event = make_event(organiser, format="swiss", rounds=6, best_of=3)
    fill(event, 64)
    tournament_start(tournament_id=event.pk, by=organiser)
    event = wait_finished(event, timeout=1800, logs=[celery_worker_process])
    assert event.state == Tournament.State.FINISHED, event.cancel_reason
    assert Round.objects.filter(tournament=event).count() == 6
    assert_consistent(event)
    rows = assert_records_add_up(event)
    assert all(r["matches"] == 6 for r in rows)
    pairs = [frozenset(p.entries) for p in Pairing.objects.filter(round__tournament=event) if len(p.entries) == 2]
    assert len(pairs) == 6 * 32 and len(set(pairs)) == len(pairs), "a rematch in a 64-player, 6-round Swiss"
    points = sorted((r["points"] for r in rows), reverse=True)
    assert points[0] <= 18 and sum(r["wins"] for r in rows) + sum(r["draws"] for r in rows) / 2 == 192


def test_a_16_entry_double_elimination_runs_to_the_end(celery_worker_process, organiser):
    event = make_event(organiser, format="double_elim", best_of=1)
    entries = fill(event, 16)
    tournament_start(tournament_id=event.pk, by=organiser)
    event = wait_finished(event, timeout=1200, logs=[celery_worker_process])
    assert event.state == Tournament.State.FINISHED
    assert_consistent(event)
    pairings = {p.key: p for p in Pairing.objects.filter(round__tournament=event)}
    final = pairings["GF-reset"] if "GF-reset" in pairings else pairings["GF"]
    winner = final.entries[final.result["places"].index(1)]
    assert winner == event.winner_id
    losses = Counter()
    for p in pairings.values():
        loser = p.entries[p.result["places"].index(2)]
        losses[loser] += 1
    assert losses[event.winner_id] <= 1
    assert all(losses[e.pk] == 2 for e in entries if e.pk != event.winner_id)


def test_a_16_player_conquest_pod_event_runs_to_the_end(celery_worker_process, organiser):
    event = make_event(organiser, game="conquest", format="conquest_pods", players_per_game=4, best_of=1)
    fill(event, 16)
    tournament_start(tournament_id=event.pk, by=organiser)
    event = wait_finished(event, timeout=1800, logs=[celery_worker_process])
    assert event.state == Tournament.State.FINISHED
    assert_consistent(event)
    rows = standings_rows(tournament=event)
    assert all(r["matches"] == event.total_rounds for r in rows)
    assert sum(r["points"] for r in rows) <= event.total_rounds * 4 * (3 + 2 + 1 + 0)
    assert rows[0]["entry"]["id"] == event.winner_id
    for rnd in Round.objects.filter(tournament=event):
        assert sorted(len(p.entries) for p in rnd.pairings.all()) == [4, 4, 4, 4]
