"""The deck lab as a metagame source: a real lab run played in this process (claim, play,
record, as its worker does), counted by the tick from the lab's own rows, with the usage
the lab recorded; filtered in and out by ``source``."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest
from meta_helpers import make_deck

from engine import games
from meta.selectors import card_figures, matchup_matrix, meta_filter, top_decks
from meta.services import meta_tick

pytestmark = pytest.mark.django_db

lab_models = pytest.importorskip("lab.models")


def test_a_lab_run_is_counted_from_its_recorded_games(alice, bob, effects_recorded):
    from lab.play import play_chunk
    from lab.services import lab_claim_chunk, lab_record_chunk, lab_start

    deck = make_deck(alice, index=0, name="Lab Deck")
    rival = make_deck(bob, index=1, name="Field Deck")
    run = lab_start(owner=alice, deck=deck, n=6, field_kind="decks", field_decks=[rival.pk], pilot="random")
    for chunk_id in run.chunks.order_by("first").values_list("pk", flat=True):
        chunk = lab_claim_chunk(chunk_id=chunk_id, worker="w")
        lab_record_chunk(chunk_id=chunk_id, worker="w", played=play_chunk(chunk, worker="w"))
    rows = list(lab_models.LabMatch.objects.filter(run=run))
    assert len(rows) == 6

    assert meta_tick().counted == {"lab": 6}
    outcomes = Counter(r.outcome for r in rows)
    lab_only = meta_filter(game="tempofront", period="all", sources=["lab"])
    by_name = {d.name: (d.matches, d.wins, d.draws, d.losses) for d in top_decks(lab_only)}
    assert by_name == {"Lab Deck": (6, outcomes["win"], outcomes["draw"], outcomes["loss"]),
                       "Field Deck": (6, outcomes["loss"], outcomes["draw"], outcomes["win"])}
    matrix = matchup_matrix(lab_only)
    row = matrix.cells[[d.name for d in matrix.decks].index("Lab Deck")]
    (cell,) = [c for c in row if c is not None]
    assert (cell.wins, cell.draws, cell.losses) == (outcomes["win"], outcomes["draw"], outcomes["loss"])

    # Cards: the lab's usage (card names, each once a game), by hand.
    ids = {c["name"]: c["id"] for c in games["tempofront"].cards()}
    expected = defaultdict(Counter)
    for r in rows:
        for side, version, won in (("deck", r.deck_version, r.outcome == "win"),
                                   ("opponent", r.opponent_version, r.outcome == "loss")):
            decklist = version.to_engine()
            for card in {ids[decklist.commander], *(ids[n] for n, _ in decklist.cards)}:
                expected[card]["games"] += 1
                expected[card]["wins"] += won
                expected[card]["played"] += ids_of(r.usage[side]["played"], ids).count(card)
                expected[card]["drawn"] += ids_of(r.usage[side]["drawn"], ids).count(card)
    figures = {c.id: c for c in card_figures(lab_only)}
    for card, n in expected.items():
        got = figures[card]
        assert (got.games, got.wins, got.played, got.drawn) == (n["games"], n["wins"], n["played"], n["drawn"]), card
    assert sum(n["played"] for n in expected.values()) > 0

    # Filtered out: the ladder alone has nothing.
    assert top_decks(meta_filter(game="tempofront", period="all", sources=["ladder"])) == []
    assert meta_tick().counted == {}


def ids_of(names, ids) -> list[str]:
    return [ids[n] for n in names]
