"""The Format contract: every stored format has one registered object that checks its
settings and plans its rounds, and a new format is one class and one ``register`` call.
The worked example, King of the hill, exists only in this file: it is registered here and
runs through an event's whole life with the services and pages of today, untouched."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from django.core.exceptions import ValidationError
from tournament_helpers import fill, make_deck, make_event, make_player, play_out

from tournaments import formats
from tournaments.errors import Conflict
from tournaments.formats import EventState, Format, Pairing, Step
from tournaments.formats.registry import dropped_ids, specs
from tournaments.models import Pairing as PairingRow
from tournaments.models import Round, Tournament
from tournaments.selectors import standings_rows, tournament_progress
from tournaments.services import tournament_enter, tournament_start


class KingOfTheHill(Format):
    """The two lowest seeds play first; each round the winner (the king) meets the next
    seed up, so the top seed plays only the last match. The last match's winner wins."""

    key = "king_of_the_hill"
    label = "King of the hill"

    def rounds_for(self, field_size, settings):
        return max(field_size - 1, 0)

    def next_pairings(self, state: EventState) -> Step:
        seeds = [p.id for p in state.players]
        results = state.knockout_results()
        king = seeds[-1]
        for number, challenger in enumerate(reversed(seeds[:-1]), start=1):
            result = results.get(f"K{number}")
            if result is None:
                # The "elimination" stage: a drawn match is replayed until somebody wins.
                table = Pairing(table=1, players=(king, challenger), key=f"K{number}")
                return Step(kind="pair", stage="elimination", pairings=specs([table], dropped_ids(state)))
            king = result.winner
        return Step(kind="finish", winner=king)

    def placings(self, state: EventState) -> dict[int, int]:
        results = state.knockout_results()
        last = len(state.players) - 1
        if last < 1 or f"K{last}" not in results:
            return {}
        places = {results[f"K{last}"].winner: 1}
        for number in range(last, 0, -1):
            result = results[f"K{number}"]
            places.update({p: last - number + 2 for p in result.players if p != result.winner})
        return places


@pytest.fixture
def king_of_the_hill():
    fmt = formats.register(KingOfTheHill())
    yield fmt
    formats.unregister(fmt.key)


def test_every_stored_format_has_a_registered_format_that_knows_its_traits():
    assert [f.key for f in formats.all_formats()] == list(Tournament.Format.values)
    for fmt in formats.all_formats():
        assert fmt.label == Tournament.Format(fmt.key).label
        stages = {getattr(fmt, "stage", "")} - {""}
        assert stages <= set(Round.Stage.values)
    traits = {f.key: (f.takes_late_entries, f.has_bracket, f.uses_tiebreaks) for f in formats.all_formats()}
    assert traits == {
        "swiss": (True, False, True), "swiss_cut": (True, True, True), "conquest_pods": (True, False, True),
        "single_elim": (False, True, False), "double_elim": (False, True, False), "round_robin": (False, False, True),
    }
    assert set(formats.GROUP_STAGES) | set(formats.KNOCKOUT_STAGES) == set(Round.Stage.values)


def test_rounds_for_a_field():
    def rounds(key, n, **settings):
        return formats.get_format(key).rounds_for(n, {"rounds": None, "players_per_game": 2, **settings})

    assert rounds("swiss", 8) == 3
    assert rounds("swiss", 8, rounds=5) == 5
    assert rounds("swiss_cut", 33) == 6
    assert rounds("round_robin", 6) == 5
    assert rounds("round_robin", 5) == 5
    assert rounds("conquest_pods", 16, players_per_game=4) == 3
    assert rounds("single_elim", 8) == 0


def test_a_format_names_each_bad_setting():
    clean, errors = formats.get_format("swiss").validate({"top_cut": 8, "third_place": True, "players_per_game": 3})
    assert errors == {
        "top_cut": ["only the swiss_cut format has a top cut"],
        "players_per_game": ["the swiss format plays one-on-one matches: players_per_game must be 2"],
        "third_place": ["a third-place match exists only in Single elimination and Swiss with a top cut events"],
    }
    clean, errors = formats.get_format("swiss_cut").validate({"top_cut": 8, "third_place": True,
                                                               "late_entry_rounds": 2})
    assert errors == {}
    assert clean == {"rounds": None, "top_cut": 8, "third_place": True, "players_per_game": 2,
                     "late_entry_rounds": 2}
    _, errors = formats.get_format("round_robin").validate({"entry_limit": 20, "late_entry_rounds": 1})
    assert errors == {
        "entry_limit": ["a round robin is for small fields: set an entry limit of at most 16"],
        "late_entry_rounds": ["late entry is only possible in Swiss, Swiss with a top cut and Pods events"],
    }
    _, errors = formats.get_format("conquest_pods").validate({"game": "tempofront", "players_per_game": 2})
    assert errors == {"format": ["pods need a game that seats 3 or more at a table; TempoFront seats at most 2"],
                      "players_per_game": ["pods seat 3 or 4 players per game, not 2"]}


def test_a_key_is_registered_once_and_an_unknown_key_is_named():
    with pytest.raises(ValueError, match="already registered"):
        formats.register(formats.Swiss())
    with pytest.raises(KeyError, match="no format 'ladder'"):
        formats.get_format("ladder")


@dataclass
class MemoryState:
    """An event held in memory: what ``tournaments.plan`` reads from the database."""

    players: list
    settings: dict
    seed: int = 0
    total_rounds: int = 0
    group_rounds_played: int = 0
    cut_entries: tuple = ()
    results: list = field(default_factory=list)
    knockout: dict = field(default_factory=dict)

    def group_results(self):
        return self.results

    def standings(self):
        return formats.standings(self.players, self.results, game="tempofront")

    def knockout_results(self):
        return self.knockout

    def paired_keys(self):
        return set(self.knockout)

    def tiebreak_started(self, key):
        return False


def _lower_seed_wins(state, table, number):
    seed = {p.id: p.seed for p in state.players}
    a, b = table.entries
    winner = a if seed[a] < seed[b] else b
    return formats.Result(round=number, players=(a, b), places=(1, 2) if winner == a else (2, 1),
                          game_wins=(1, 0) if winner == a else (0, 1), games=1, match_key=table.key)


def test_a_swiss_with_a_top_cut_plans_every_step_from_the_results_alone():
    fmt = formats.get_format("swiss_cut")
    settings = {"rounds": None, "top_cut": 4, "third_place": True, "players_per_game": 2, "late_entry_rounds": 0}
    state = MemoryState(players=[formats.Player(id=100 + i, seed=i) for i in range(1, 9)], settings=settings)
    state.total_rounds = fmt.rounds_for(8, settings)
    assert state.total_rounds == 3
    for number in range(1, 4):
        step = fmt.next_pairings(state)
        assert (step.kind, step.stage, len(step.pairings), step.cut) == ("pair", "swiss", 4, None)
        state.results += [_lower_seed_wins(state, table, number) for table in step.pairings]
        state.group_rounds_played = number
    step = fmt.next_pairings(state)
    # Seed 1 went 3-0 and seeds 2 to 4 2-1: they are the cut, seeded by the standings.
    assert (step.kind, step.stage) == ("pair", "top_cut")
    assert step.cut == [101, 102, 103, 104]
    assert [(t.key, t.entries) for t in step.pairings] == [("W1-1", (101, 104)), ("W1-2", (102, 103))]
    state.cut_entries = tuple(step.cut)
    for number in (4, 5):
        state.knockout.update({t.key: _lower_seed_wins(state, t, number) for t in step.pairings})
        step = fmt.next_pairings(state)
        if number == 4:
            assert sorted(t.key for t in step.pairings) == ["3rd", "W2-1"]
    assert (step.kind, step.winner) == ("finish", 101)
    assert fmt.placings(state) == {101: 1, 102: 2, 103: 3, 104: 4}


@pytest.mark.django_db
def test_an_unknown_format_is_refused_with_the_registered_ones_named(organiser):
    with pytest.raises(ValidationError) as caught:
        make_event(organiser, format="king_of_the_hill")
    assert caught.value.message_dict["format"] == [
        "format must be one of swiss, single_elim, double_elim, round_robin, swiss_cut, conquest_pods, "
        "not 'king_of_the_hill'"]


@pytest.mark.django_db
def test_a_format_registered_in_one_module_runs_an_event_to_its_end(organiser, sent, king_of_the_hill, client):
    with pytest.raises(ValidationError) as caught:
        make_event(organiser, format="king_of_the_hill", top_cut=4, late_entry_rounds=1)
    assert set(caught.value.message_dict) == {"top_cut", "late_entry_rounds"}

    event = make_event(organiser, format="king_of_the_hill")
    fill(event, 4)
    tournament_start(tournament_id=event.pk, by=organiser)
    event.refresh_from_db()
    assert event.state == Tournament.State.RUNNING
    assert event.total_rounds == 3
    seeds = [e.pk for e in sorted(event.entries.all(), key=lambda e: e.seed)]
    first = PairingRow.objects.get(round__tournament=event)
    assert set(first.entries) == {seeds[2], seeds[3]}  # the two lowest seeds start
    assert tournament_progress(tournament=event)["text"].startswith("Round 1 (Elimination)")

    # It takes no late entries: the format said so, the service asked it.
    late = make_player("latecomer")
    deck = make_deck(late, event.game)
    with pytest.raises(Conflict, match="takes no late entries"):
        tournament_enter(tournament_id=event.pk, player=late, deck_id=deck.pk)

    event = play_out(event)
    assert event.state == Tournament.State.FINISHED
    rounds = list(Round.objects.filter(tournament=event).order_by("number"))
    assert [r.pairings.count() for r in rounds] == [1, 1, 1]
    final = rounds[-1].pairings.get()
    assert seeds[0] in final.entries  # the top seed plays only the last match
    assert all(seeds[0] not in r.pairings.get().entries for r in rounds[:-1])
    final_winner = next(e for e, place in zip(final.entries, final.result["places"], strict=True) if place == 1)
    assert event.winner_id == final_winner

    rows = standings_rows(tournament=event)
    assert [row["place"] for row in rows] == [1, 2, 3, 4]
    assert rows[0]["entry"]["id"] == event.winner_id

    client.force_login(organiser)
    page = client.get(event.get_absolute_url())
    assert page.status_code == 200
    winner = event.entries.get(pk=event.winner_id).player.username
    assert f"Winner: <strong>{winner}</strong>" in page.content.decode()


@pytest.mark.django_db
def test_a_registered_format_is_offered_by_the_api_and_the_model_with_no_migration(organiser, king_of_the_hill):
    """The API and the model take their format choices from the registry when used, so the
    test-only format is accepted over the API and valid on the model without any edit."""
    from datetime import timedelta

    from django.utils import timezone
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(organiser)
    response = client.post("/api/tournaments/", {
        "game": "tempofront", "name": "Hill", "format": "king_of_the_hill", "best_of": 1,
        "starts_at": (timezone.now() + timedelta(hours=2)).isoformat()}, format="json")
    assert response.status_code == 201, response.content
    event = Tournament.objects.get(pk=response.json()["id"])
    assert event.format == "king_of_the_hill"
    event.full_clean()
    assert event.get_format_display() == "King of the hill"
