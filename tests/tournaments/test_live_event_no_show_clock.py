"""A live event whose clock is shorter than its no-show time: a player who never opens their
board still forfeits by absence (counted towards a drop, the match unrated), though their
clock ran out first."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from tournament_helpers import make_deck, make_event, make_player

from ladder.models import RatingChange
from live import engine_state
from live.endings import live_enforce_clocks
from live.models import LiveMatch
from live.moves import live_seat_present
from tournaments.models import Entry, Pairing
from tournaments.services import tournament_advance, tournament_enter, tournament_start


@pytest.fixture(autouse=True)
def quiet(effects_recorded):
    return effects_recorded


@pytest.mark.django_db
def test_an_absent_player_whose_clock_runs_out_before_the_no_show_time_forfeits(organiser):
    event = make_event(organiser, entrants="people", check_in_minutes=0, rounds=2, clock_initial=10,
                       clock_increment=0, no_show_minutes=5, starts_at=timezone.now() + timedelta(minutes=30))
    entries = []
    for i in range(2):
        player = make_player(f"clock{event.pk}x{i}")
        entries.append(tournament_enter(tournament_id=event.pk, player=player,
                                        deck_id=make_deck(player, event.game, index=i).pk))
    tournament_start(tournament_id=event.pk, now=event.starts_at)
    event.refresh_from_db()
    pairing = event.round_set.get(number=1).pairings.get()
    # Only one of the two opens the board (not the one to act first); the absent player's
    # clock runs out long before the no-show time.
    live = LiveMatch.objects.select_related("match").get(match_id=pairing.match_id)
    with engine_state.state_of(live) as state:
        first = state.to_act()[0]
    seat_entries = pairing.seat_entries or pairing.entries
    here = Entry.objects.get(pk=seat_entries[1 - first])
    away = Entry.objects.get(pk=seat_entries[first])
    live_seat_present(match_id=pairing.match_id, user=here.player)
    live_enforce_clocks(now=live.created + timedelta(seconds=60))
    live.refresh_from_db()
    assert live.status == LiveMatch.Status.DONE
    assert live.outcome["forfeited"] == [first] and live.log[-1][1]["reason"] == "no-show"
    tournament_advance(tournament_id=event.pk, now=event.starts_at + timedelta(minutes=1))
    pairing = Pairing.objects.get(pk=pairing.pk)
    assert pairing.status == Pairing.Status.DONE and pairing.result["forfeit"] == [away.pk]
    assert Entry.objects.get(pk=away.pk).absences == 1
    assert Entry.objects.get(pk=here.pk).absences == 0
    assert not RatingChange.objects.filter(match_id=pairing.match_id).exists()
