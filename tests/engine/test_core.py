"""The shared pieces of engine/core.py: random stream, actions, outcomes, decklists, replays."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine.core import (
    Action,
    DeckError,
    Decklist,
    IllegalAction,
    Outcome,
    Replay,
    Rng,
    parse_decklist,
    places_from_scores,
    resolve_card_names,
    seed_from,
)


def test_rng_is_reproducible_from_its_seed():
    a, b = Rng(7), Rng(7)
    assert [a.next64() for _ in range(5)] == [b.next64() for _ in range(5)]
    assert [Rng(8).randrange(100) for _ in range(3)] != [Rng(7).randrange(100) for _ in range(3)]


def test_rng_is_identical_across_processes():
    """Python's string hash is salted per process; the engine's stream must not be."""
    code = "from engine.core import Rng; r = Rng('tournament-12'); print([r.randrange(1000) for _ in range(4)])"
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout for _ in range(2)}
    assert len(outs) == 1
    r = Rng("tournament-12")
    assert outs.pop().strip() == str([r.randrange(1000) for _ in range(4)])


def test_rng_clone_json_and_fork():
    rng = Rng(3)
    rng.next64()
    copy = Rng.from_json(json.loads(json.dumps(rng.to_json())))
    assert copy == rng and copy.next64() == rng.clone().next64()
    fork = rng.fork("bot", 1)
    assert fork != rng and rng.fork("bot", 1) == fork and rng.fork("bot", 2) != fork


def test_rng_shuffle_is_a_permutation_and_roughly_uniform():
    counts = [0] * 4
    for seed in range(4000):
        items = [0, 1, 2, 3]
        Rng(seed).shuffle(items)
        assert sorted(items) == [0, 1, 2, 3]
        counts[items[0]] += 1
    assert all(850 < c < 1150 for c in counts), counts


def test_seed_from_is_stable():
    assert seed_from("a", 1) == seed_from("a", 1) != seed_from("a", 2)


def test_action_json_round_trip_and_text():
    action = Action.of("deploy", card="ashen-drake", front=1, row="vanguard")
    assert action.to_json() == {"kind": "deploy", "card": "ashen-drake", "front": 1, "row": "vanguard"}
    assert Action.from_json(action.to_json()) == action
    assert action["front"] == 1 and action.get("missing") is None
    assert str(action) == "deploy(card='ashen-drake', front=1, row='vanguard')"
    assert Action.of("place", cards=["a", None]).to_json() == {"kind": "place", "cards": ["a", None]}
    assert hash(Action.of("pass")) == hash(Action.of("pass"))


@pytest.mark.parametrize("bad", [[], "strike", {"front": 1}, {"kind": ""}, {"kind": "x", "y": {"z": 1}}])
def test_malformed_action_json_is_refused_with_a_reason(bad):
    with pytest.raises(IllegalAction, match="action"):
        Action.from_json(bad)


def test_outcome_places_ranking_and_winner():
    outcome = Outcome(places=places_from_scores([5, 9, 5]), scores=(5, 9, 5), reason="Conquest")
    assert outcome.places == (2, 1, 2)
    assert outcome.ranking == (1, 0, 2)
    assert outcome.winner == 1
    tie = Outcome(places=(1, 1), scores=(3, 3), reason="draw")
    assert tie.winner is None and tie.is_draw
    assert Outcome.from_json(outcome.to_json()) == outcome


def test_decklist_parses_counts_commander_comments_and_blank_lines():
    deck = parse_decklist("# aggro\nLeader: Vess\n\n2 Ashen Drake\n1x Ironclad Sentry  # tank\n1 Ashen Drake\n",
                          "Leader")
    assert deck.commander == "Vess"
    assert deck.counts() == {"Ashen Drake": 3, "Ironclad Sentry": 1}
    assert deck.size == 4
    assert parse_decklist(deck.to_text("Leader"), "Leader").counts() == deck.counts()


def test_decklist_reports_every_malformed_line_at_once():
    with pytest.raises(DeckError) as info:
        parse_decklist("Leader: A\nLeader: B\ntwo Drakes\n0 Ashen Drake\nLeader:\n", "Leader")
    problems = info.value.problems
    assert len(problems) == 4
    assert "line 2" in problems[0] and "second Leader" in problems[0]
    assert "line 3" in problems[1] and "'two Drakes'" in problems[1]
    assert "line 4" in problems[2] and "at least 1" in problems[2]
    assert "line 5" in problems[3]


def test_card_names_resolve_case_insensitively_with_suggestions():
    deck = Decklist(commander="vess", cards=(("ashen drake", 2), ("Ashen Drak", 1)))
    fixed, problems = resolve_card_names(deck, ["Ashen Drake", "Vess"], commander_label="Leader")
    assert fixed.commander == "Vess"
    assert fixed.counts() == {"Ashen Drake": 2, "Ashen Drak": 1}
    assert problems == ["unknown card 'Ashen Drak' (did you mean Ashen Drake?)"]


def test_replay_refuses_garbage():
    with pytest.raises(ValueError, match="not a replay"):
        Replay.from_json({"game": "tempofront"})


def test_a_deck_with_bad_lines_and_unknown_names_reports_both_at_once():
    from engine.core import Game

    class Tiny(Game):
        commander_label = "Leader"

        def card_names(self):
            return ["Ashen Drake", "Vess"]

        def validate_deck(self, decklist, params=None):
            return [] if decklist.size == 3 else [f"{decklist.size} cards; a deck has exactly 3"]

    with pytest.raises(DeckError) as info:
        Tiny().parse_deck("Leader: Vess\n2 Ashen Drak\nbanana\n")
    assert info.value.problems == [
        "line 3: 'banana' is not 'N Card Name' or 'Leader: Name'",
        "unknown card 'Ashen Drak' (did you mean Ashen Drake?)",
        "2 cards; a deck has exactly 3",
    ]
