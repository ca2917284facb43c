"""Events played from open to finished inside the test process (matches run eagerly, the
event advanced by its service): every format reaches a winner with consistent records."""

from __future__ import annotations

import pytest
from django.test import Client
from tournament_helpers import fill, make_event, play_out

from matches.models import Match
from tournaments.models import Pairing, Round, Tournament
from tournaments.selectors import bracket_view, standings_rows, tournament_progress
from tournaments.services import tournament_start

pytestmark = pytest.mark.django_db


def test_swiss_of_eight_runs_to_a_winner(organiser, sent):
    event = make_event(organiser, format="swiss")
    fill(event, 8)
    tournament_start(tournament_id=event.pk, by=organiser)
    event.refresh_from_db()
    assert event.state == Tournament.State.RUNNING
    assert event.total_rounds == 3
    assert Round.objects.filter(tournament=event).count() == 1
    assert Pairing.objects.filter(round__tournament=event).count() == 4
    event = play_out(event)
    assert event.state == Tournament.State.FINISHED
    assert event.current_round == 3
    rows = standings_rows(tournament=event)
    assert rows[0]["entry"]["id"] == event.winner_id
    assert sum(r["wins"] for r in rows) + sum(r["draws"] for r in rows) // 2 == 12
    assert tournament_progress(tournament=event)["text"].startswith("Finished after 3 rounds")


def test_single_elimination_of_six_has_byes_and_a_champion(organiser, sent):
    event = make_event(organiser, format="single_elim", third_place=True)
    fill(event, 6)
    tournament_start(tournament_id=event.pk, by=organiser)
    event = play_out(event)
    assert event.state == Tournament.State.FINISHED
    layout = bracket_view(tournament=event)
    assert layout["champion"] == event.winner_id
    final = Pairing.objects.filter(round__tournament=event, key__in=["W3-1"]).get()
    assert final.result["places"][final.entries.index(event.winner_id)] == 1


def test_double_elimination_of_five(organiser, sent):
    event = make_event(organiser, format="double_elim")
    fill(event, 5)
    tournament_start(tournament_id=event.pk, by=organiser)
    event = play_out(event)
    assert event.state == Tournament.State.FINISHED
    assert bracket_view(tournament=event)["champion"] == event.winner_id


def test_round_robin_of_five_plays_every_pair_once(organiser, sent):
    event = make_event(organiser, format="round_robin", entry_limit=8)
    entries = fill(event, 5)
    tournament_start(tournament_id=event.pk, by=organiser)
    event = play_out(event)
    assert event.state == Tournament.State.FINISHED
    pairs = [tuple(sorted(p.entries)) for p in Pairing.objects.filter(round__tournament=event) if len(p.entries) == 2]
    assert len(pairs) == len(set(pairs)) == 10
    assert {e for pair in pairs for e in pair} == {e.pk for e in entries}


def test_swiss_with_top_cut(organiser, sent):
    event = make_event(organiser, format="swiss_cut", top_cut=4, rounds=3)
    fill(event, 10)
    tournament_start(tournament_id=event.pk, by=organiser)
    event = play_out(event)
    assert event.state == Tournament.State.FINISHED
    assert len(event.cut_entries) == 4
    assert event.winner_id in event.cut_entries
    stages = set(Round.objects.filter(tournament=event).values_list("stage", flat=True))
    assert stages == {"swiss", "top_cut"}


def test_conquest_pods_of_seven(organiser, sent):
    event = make_event(organiser, game="conquest", format="conquest_pods", players_per_game=4, rounds=2)
    fill(event, 7)
    tournament_start(tournament_id=event.pk, by=organiser)
    first = list(Pairing.objects.filter(round__tournament=event))
    assert sorted(len(p.entries) for p in first) == [3, 4]
    event = play_out(event)
    assert event.state == Tournament.State.FINISHED
    assert all(m.status == Match.Status.DONE for m in Match.objects.filter(kind="tournament"))
    rows = standings_rows(tournament=event)
    assert all(r["score"] >= 0 for r in rows)
    # The game's event score is served as `score`, named by the game (Conquest: "Conquest").
    stored = {}
    for pairing in Pairing.objects.filter(round__tournament=event):
        for entry, score in zip(pairing.entries, pairing.result["score"] or [0] * len(pairing.entries), strict=True):
            stored[entry] = stored.get(entry, 0) + score
    served = Client().get(f"/api/tournaments/{event.pk}/standings/").json()
    assert {r["entry"]["id"]: r["score"] for r in served} == stored and sum(stored.values()) > 0
    assert not any("conquest" in r for r in served)
    assert Client().get(f"/api/tournaments/{event.pk}/").json()["score_label"] == "Conquest"
    assert ">Conquest</th>" in Client().get(f"/tournaments/{event.pk}/").content.decode()


def test_round_one_seeds_by_ladder_rating_and_unrated_decks_by_the_tournament_seed(organiser, sent):
    """Issue 13, Swiss round 1 by seed: rated decks are seeded by their ladder rating (the
    conservative ordinal, highest first); decks without a rating follow in the shuffle the
    tournament seed makes, the same every time."""
    from ladder.models import Pool, Rating

    event = make_event(organiser, format="swiss")
    entries = fill(event, 6)
    for entry, ordinal in ((entries[4], 12.5), (entries[1], 20.0), (entries[3], 3.0)):
        Rating.objects.create(pool=Pool.BOTS, game=event.game, deck=entry.deck, ordinal=ordinal)
    tournament_start(tournament_id=event.pk, by=organiser)
    seeds = {e.pk: e.seed for e in event.entries.all()}
    assert [seeds[entries[1].pk], seeds[entries[4].pk], seeds[entries[3].pk]] == [1, 2, 3]
    assert sorted(seeds[e.pk] for e in (entries[0], entries[2], entries[5])) == [4, 5, 6]
