"""The metagame's figures from recorded results (docs/lab.md, "The metagame").

Real bot matches are played by the matches app's own task in this process, and the
figures the tick aggregates are checked against expectations computed here, by hand, from
the recorded rows: each match's places and each game's replay read through the engine's
``Game.card_usage``. Results recorded with chosen places pin the counting rules down
exactly: the multi-seat matchup rule, draws, unrated ladder matches, the periods and the
sources, running the tick twice.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.utils import timezone
from meta_helpers import make_deck, play, record

from decks.services import deck_update
from engine import games
from matches.models import Match, MatchGame
from meta.models import MetaEntry, MetaSeen
from meta.selectors import card_figures, matchup_matrix, meta_filter, pilot_figures, top_decks
from meta.services import meta_tick
from meta.tasks import tick

pytestmark = pytest.mark.django_db


def everything(game: str, period: str = "all", sources=()):
    return meta_filter(game=game, period=period, sources=list(sources))


def counted(report) -> dict[str, int]:
    return report.counted


def cell(matrix, row: int, column: int):
    ids = [d.deck_id for d in matrix.decks]
    return matrix.cells[ids.index(row)][ids.index(column)]


# --------------------------------------------------------------------------- real matches


def test_real_ladder_matches_give_the_hand_computed_matchups_pilots_and_card_figures(alice, bob, carol,
                                                                                    effects_recorded):
    """Four real TempoFront ladder matches (best of 3 and best of 1) of three decks, one of
    them played under two pilots: every figure equals the one computed here from the
    recorded places and the replays' card usage."""
    a = make_deck(alice, index=0, name="Alpha")
    b = make_deck(bob, index=1, name="Bravo")
    c = make_deck(carol, index=0, name="Charlie")
    matches = [play([a, b], best_of=3, seed=5), play([b, c], seed=6)]
    deck_update(deck=a, actor=alice, pilot="greedy")
    matches += [play([a, c], seed=7), play([b, a], seed=8)]

    assert counted(meta_tick()) == {"ladder": 4}
    f = everything("tempofront")

    # Decks and matchups: from each match's places (by entry).
    expected_decks: dict[int, Counter] = defaultdict(Counter)
    expected_cells: dict[tuple[int, int], Counter] = defaultdict(Counter)
    expected_pilots: dict[tuple[int, str], Counter] = defaultdict(Counter)
    for match in matches:
        seats = list(match.seats.order_by("seat").select_related("deck_version"))
        places = match.result["places"]
        for i, seat in enumerate(seats):
            word = "win" if places[i] == 1 and places.count(1) == 1 else "draw" if places[i] == 1 else "loss"
            expected_decks[seat.deck_version.deck_id][word] += 1
            expected_pilots[(seat.deck_version.deck_id, seat.pilot)][word] += 1
            for j, other in enumerate(seats):
                if j != i:
                    key = "win" if places[i] < places[j] else "draw" if places[i] == places[j] else "loss"
                    expected_cells[(seat.deck_version.deck_id, other.deck_version.deck_id)][key] += 1
    decks = top_decks(f)
    assert {d.deck_id: (d.wins, d.draws, d.losses) for d in decks} == {
        deck: (n["win"], n["draw"], n["loss"]) for deck, n in expected_decks.items()}
    assert [d.matches for d in decks] == sorted((sum(n.values()) for n in expected_decks.values()), reverse=True)
    matrix = matchup_matrix(f)
    for (row, column), n in expected_cells.items():
        got = cell(matrix, row, column)
        assert (got.wins, got.draws, got.losses, got.matches) == (n["win"], n["draw"], n["loss"], sum(n.values()))
    assert cell(matrix, a.pk, b.pk).matches == 2 and cell(matrix, c.pk, a.pk).matches == 1
    assert all(line[i] is None for i, line in enumerate(matrix.cells))  # a deck against itself

    # "Deck or pilot?": Alpha played under random, then greedy; the others under one pilot.
    pilots = pilot_figures(f)
    assert [d.deck.deck_id for d in pilots] == [a.pk]
    assert {p.pilot: (p.matches, p.wins, p.draws, p.losses) for p in pilots[0].pilots} == {
        pilot: (sum(n.values()), n["win"], n["draw"], n["loss"]) for (deck, pilot), n in expected_pilots.items()
        if deck == a.pk}
    assert {p.pilot for p in pilots[0].pilots} == {"random", "greedy"}

    # Cards: each entry-game of a deck that includes the card, from the replays.
    engine_game = games["tempofront"]
    ids = {card["name"]: card["id"] for card in engine_game.cards()}
    expected = defaultdict(Counter)
    game_count = 0
    for row in MatchGame.objects.filter(match__in=matches).select_related("match"):
        game_count += 1
        usage = engine_game.card_usage(row.load_replay())
        seats = {s.seat: s.deck_version for s in row.match.seats.all()}
        places = row.outcome["entry_places"]
        for engine_seat, entry in enumerate(row.seat_order):
            decklist = seats[entry].to_engine()
            won = places[entry] == 1 and places.count(1) == 1
            for card in {ids[decklist.commander], *(ids[name] for name, _ in decklist.cards)}:
                expected[card]["games"] += 1
                expected[card]["wins"] += won
                if card in usage[engine_seat].drawn_cards:
                    expected[card]["drawn"] += 1
                    expected[card]["drawn_wins"] += won
                if card in usage[engine_seat].played_cards:
                    expected[card]["played"] += 1
                    expected[card]["played_wins"] += won
    assert game_count >= 5  # the best of 3 took two or three games
    figures = {c.id: c for c in card_figures(f)}
    assert len(figures) == len(engine_game.cards())  # every card of the pool, played or not
    for card, n in expected.items():
        got = figures[card]
        assert (got.games, got.wins, got.drawn, got.drawn_wins, got.played, got.played_wins) == (
            n["games"], n["wins"], n["drawn"], n["drawn_wins"], n["played"], n["played_wins"]), card
    decks_of = {d.pk: d.latest_version.to_engine() for d in (a, b, c)}
    for card, figure in figures.items():
        holders = {pk for pk, dl in decks_of.items()
                   if card in {ids[dl.commander], *(ids[name] for name, _ in dl.cards)}}
        assert figure.decks == len(holders), card
    played = [c for c in figures.values() if c.played]
    assert played, "random pilots play cards"
    some = played[0]
    assert some.play_rate == some.played / some.games


def test_a_four_seat_conquest_match_fills_every_pair_of_its_entries(alice, bob, carol, dave, effects_recorded):
    """Matchup rule for 3-4 entries: each ordered pair of entries of different decks is a
    cell; the row deck wins when it placed ahead, draws when they placed equal. Places
    [1, 2, 2, 4]: A beats B, C, D; B and C draw; both beat D."""
    a, b, c, d = (make_deck(p, "conquest", index=i, name=n) for i, (p, n) in
                  enumerate([(alice, "A"), (bob, "B"), (carol, "C"), (dave, "D")]))
    record([a, b, c, d], [1, 2, 2, 4])
    meta_tick()
    matrix = matchup_matrix(everything("conquest"))
    assert [(x.wins, x.draws, x.losses) for x in matrix.cells[[m.deck_id for m in matrix.decks].index(a.pk)]
            if x is not None] == [(1, 0, 0)] * 3
    assert (cell(matrix, b.pk, c.pk).draws, cell(matrix, c.pk, b.pk).draws) == (1, 1)
    assert (cell(matrix, b.pk, d.pk).wins, cell(matrix, d.pk, c.pk).losses, cell(matrix, d.pk, a.pk).losses) == (
        1, 1, 1)
    by_deck = {x.deck_id: (x.wins, x.draws, x.losses) for x in top_decks(everything("conquest"))}
    # A match result: a win only alone in first place.
    assert by_deck == {a.pk: (1, 0, 0), b.pk: (0, 0, 1), c.pk: (0, 0, 1), d.pk: (0, 0, 1)}


def test_a_real_three_seat_conquest_match_counts_its_cards_for_every_entry(alice, bob, carol, effects_recorded):
    a, b, c = (make_deck(p, "conquest", index=i) for i, p in enumerate((alice, bob, carol)))
    match = play([a, b, c], seed=3)
    meta_tick()
    f = everything("conquest")
    games_played = MatchGame.objects.filter(match=match).count()
    commanders = [c for c in card_figures(f) if c.is_commander and c.games]
    # Each deck's commander: one entry-game per game of the match.
    assert sorted(x.games for x in commanders) == [games_played] * len({d.latest_version.commander for d in (a, b, c)})
    assert len(matchup_matrix(f).decks) == 3


# --------------------------------------------------------------------------- what is counted


def test_unrated_and_forfeited_matches_are_not_counted(alice, bob, effects_recorded):
    """Ladder: only rated matches (a forfeit is not rated; the same deck twice is not
    rated). Tournament: a match decided by a no-show played nothing."""
    a, b = make_deck(alice, name="A"), make_deck(bob, index=1, name="B")
    record([a, b], [2, 1], forfeited=[0])
    record([a, a], [1, 2])
    record([a, b], [1, 2], kind=Match.Kind.TOURNAMENT, forfeited=[1])
    record([a, b], [1, 2], kind=Match.Kind.CHALLENGE)
    record([a, b], [1, 2])
    assert counted(meta_tick()) == {"ladder": 1}
    assert [(d.name, d.matches, d.wins) for d in top_decks(everything("tempofront"))] == [("A", 1, 1), ("B", 1, 0)]


def test_the_tick_counts_each_result_once_however_often_it_runs(alice, bob, effects_recorded):
    a, b = make_deck(alice, name="A"), make_deck(bob, index=1, name="B")
    record([a, b], [1, 2])
    report = tick.apply().get()
    assert report == {"counted": {"ladder": 1}, "deferred": {}}
    assert counted(meta_tick()) == {}
    record([a, b], [1, 1])
    record([b, a], [1, 2])
    call_command("meta_tick", stdout=open("/dev/null", "w"))  # noqa: SIM115
    meta_tick()
    assert MetaSeen.objects.count() == 3
    (x,) = [c for c in [cell(matchup_matrix(everything("tempofront")), a.pk, b.pk)]]
    assert (x.wins, x.draws, x.losses) == (1, 1, 1)


def test_a_result_finished_just_before_the_watermark_is_still_counted(alice, bob, effects_recorded):
    """A match whose finish time is older than the last one counted (it committed later)
    is read again within the tick's overlap."""
    a, b = make_deck(alice, name="A"), make_deck(bob, index=1, name="B")
    record([a, b], [1, 2])
    meta_tick()
    record([a, b], [2, 1], finished=timezone.now() - timedelta(minutes=2))
    meta_tick()
    assert top_decks(everything("tempofront"))[0].matches == 2


def test_periods_and_sources_filter_the_figures(alice, bob, effects_recorded):
    a, b = make_deck(alice, name="A"), make_deck(bob, index=1, name="B")
    now = timezone.now()
    record([a, b], [1, 2], finished=now)
    record([a, b], [1, 2], finished=now - timedelta(days=6))
    record([a, b], [2, 1], finished=now - timedelta(days=10))
    record([a, b], [1, 1], finished=now - timedelta(days=45))
    record([a, b], [2, 1], kind=Match.Kind.TOURNAMENT, finished=now - timedelta(days=1))
    meta_tick()

    def a_line(period, sources=()):
        (row,) = [d for d in top_decks(everything("tempofront", period, sources)) if d.deck_id == a.pk]
        return row.matches, row.wins, row.draws, row.losses

    assert a_line("7") == (3, 2, 0, 1)  # today and 6 days ago, the tournament match yesterday
    assert a_line("30") == (4, 2, 0, 2)
    assert a_line("all") == (5, 2, 1, 2)
    assert a_line("all", ["ladder"]) == (4, 2, 1, 1)
    assert a_line("7", ["tournament"]) == (1, 0, 0, 1)
    assert a_line("7", ["ladder,tournament"]) == a_line("7")
    assert top_decks(everything("tempofront", "7", ["lab"])) == []
    assert meta_filter(game="tempofront", period=None, sources=[]).period == "7"


def test_bad_periods_and_sources_are_refused_by_name():
    with pytest.raises(ValidationError) as error:
        meta_filter(game="tempofront", period="week", sources=["ladder", "casual"])
    assert set(error.value.message_dict) == {"period", "source"}
    assert "casual" in error.value.message_dict["source"][0]


def test_entries_are_keyed_by_day_source_version_and_pilot(alice, bob, effects_recorded):
    a, b = make_deck(alice, name="A"), make_deck(bob, index=1, name="B")
    for _ in range(3):
        record([a, b], [1, 2])
    meta_tick()
    assert MetaEntry.objects.count() == 2
    assert sorted(MetaEntry.objects.values_list("matches", "wins", "losses")) == [(3, 0, 3), (3, 3, 0)]


def test_beat_runs_the_tick_on_the_periodic_queue():
    from config.celery import META_TICK_SECONDS
    from config.celery import app as celery_app

    entry = celery_app.conf.beat_schedule["meta-tick"]
    assert entry["task"] == "meta.tick" and entry["schedule"] == META_TICK_SECONDS
    route = celery_app.amqp.router.route({}, "meta.tick")
    assert route["queue"].name == "periodic"


def test_a_live_match_of_an_event_counts_as_a_tournament_match_and_a_casual_live_match_does_not(
        alice, bob, effects_recorded):
    from django.contrib.auth.models import User

    from tournaments.services import tournament_create, tournament_enter, tournament_start

    organiser = User.objects.create_user("orga", password="pw-orga-123")
    a, b = make_deck(alice, name="A"), make_deck(bob, index=1, name="B")
    event = tournament_create(organiser=organiser, game="tempofront", name="Live cup",
                              starts_at=timezone.now() + timedelta(minutes=30), format="swiss", best_of=1,
                              entrants="people", check_in_minutes=0)
    tournament_enter(tournament_id=event.pk, player=alice, deck_id=a.pk)
    tournament_enter(tournament_id=event.pk, player=bob, deck_id=b.pk)
    tournament_start(tournament_id=event.pk, by=organiser)
    live = Match.objects.get(tournament_pairings__round__tournament=event)
    assert live.kind == Match.Kind.LIVE
    # Its end as the live app records it: done, with the places by entry.
    Match.objects.filter(pk=live.pk).update(status=Match.Status.DONE, finished=timezone.now(),
                                            result={"places": [2, 1], "wins": [0, 1], "draws": 0, "games": 1})
    record([a, b], [1, 2], kind=Match.Kind.LIVE)  # a live match outside any event
    assert counted(meta_tick()) == {"tournament": 1}
    winner = live.seats.get(seat=1).deck_version.deck.name  # entry 1 placed first
    loser = ({"A", "B"} - {winner}).pop()
    assert {d.name: d.wins for d in top_decks(everything("tempofront"))} == {winner: 1, loser: 0}
