"""Ties that matter are broken by Match the Twos between the registered decklists, run as
a task from the tournament seed, recorded with every reveal and shown on the standings
page (docs/tournaments.md, "Tiebreaks that matter")."""

from __future__ import annotations

import pytest
from django.db import transaction
from django.test import Client
from tournament_helpers import fill, make_event

from matches.models import Match
from tournaments.models import Pairing, Tiebreak, Tournament
from tournaments.services import tournament_advance, tournament_start, tournament_tiebreak_resolve
from tournaments.tiebreaks import run_match_the_twos

pytestmark = pytest.mark.django_db


def draw_every_match(event: Tournament) -> None:
    from matches.services import _finish

    for pairing in Pairing.objects.filter(round__tournament=event, status="playing"):
        with transaction.atomic():
            _finish(Match.objects.select_for_update().get(pk=pairing.match_id))  # no games: a draw


@pytest.mark.parametrize("game", ["tempofront", "conquest"])
def test_a_tie_for_first_place_waits_for_match_the_twos_and_records_every_reveal(organiser, sent, game,
                                                                                 django_capture_on_commit_callbacks):
    event = make_event(organiser, game=game, format="swiss", rounds=1)
    entries = fill(event, 2)
    tournament_start(tournament_id=event.pk, by=organiser)
    draw_every_match(event)
    with django_capture_on_commit_callbacks(execute=True):
        outcome = tournament_advance(tournament_id=event.pk)
    assert outcome.startswith("tiebreak 'first'")
    tiebreak = Tiebreak.objects.get(tournament=event)
    assert sorted(tiebreak.entries) == sorted(e.pk for e in entries)
    assert ("tournaments.run_tiebreak", tiebreak.pk) in sent.calls
    event.refresh_from_db()
    assert event.state == "running" and event.winner is None

    tournament_tiebreak_resolve(tiebreak_id=tiebreak.pk)
    tiebreak.refresh_from_db()
    event.refresh_from_db()
    record = tiebreak.record
    assert tiebreak.status == "done" and record["rounds"]
    assert all(len(r["reveals"]) >= 1 and all(len(x["cards"]) == 2 for x in r["reveals"]) for r in record["rounds"])
    assert event.state == "finished"
    if record["order"]:
        assert event.winner_id == record["order"][0]
    # The same tiebreak again, from the same seed, gives the same reveals.
    decks = {e.pk: e.deck_version.to_engine() for e in entries}
    from engine.core import seed_from

    assert run_match_the_twos(game=game, decks=decks, seed=seed_from(event.seed, "tiebreak", "first")) == record
    html = Client().get(f"/tournaments/{event.pk}/").content.decode()
    assert "Match the Twos tiebreaks" in html and record["rounds"][0]["reveals"][0]["cards"][0] in html
    assert tournament_tiebreak_resolve(tiebreak_id=tiebreak.pk) is None  # decided: left alone
