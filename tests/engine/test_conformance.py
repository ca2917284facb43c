"""The same conformance battery for every game of the engine registry.

Random playouts over many seeds check the contract of engine/core.py: matches end, every
listed action applies, illegal actions raise and change nothing, clones and JSON round
trips are equal, replays reproduce, views and bots' determinized states never carry
what a seat cannot see.
"""

from __future__ import annotations

import json

import pytest

from engine import games
from engine.core import CONCEDE, Action, IllegalAction, Replay, Rng, verify_replay
from engine.runner import RandomBot, play_match

PLAYOUTS = 300
SAMPLED_GAMES = 12


def _configs():
    for name in games:
        try:
            game = games[name]
        except ImportError:
            continue
        for seats in range(game.min_seats, game.max_seats + 1):
            yield pytest.param(name, seats, id=f"{name}-{seats}p")


CONFIGS = list(_configs())


def _decks(game, seats, offset=0):
    starters = list(game.starter_decks().values())
    return [starters[(offset + i) % len(starters)] for i in range(seats)]


def _snapshot(state):
    return json.dumps(state.to_json(), sort_keys=True)


def _walk(game, seats, seed, every=1):
    """Yield states along a random playout (the state object is mutated afterwards)."""
    rng = Rng(seed).fork("walk")
    state = game.new_match(_decks(game, seats, seed), seed, None)
    step = 0
    while state.outcome is None:
        if step % every == 0:
            yield state
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        step += 1
        assert step < 20_000, "a random playout did not end"
    yield state


@pytest.mark.parametrize("name,seats", CONFIGS)
def test_random_playouts_terminate_and_replays_reproduce(name, seats):
    game = games[name]
    bots = [RandomBot() for _ in range(seats)]
    reasons = set()
    for seed in range(PLAYOUTS):
        result = play_match(game, _decks(game, seats, seed), bots, seed=seed, record_digests=seed % 10 == 0)
        assert result.outcome is not None
        assert not result.errors
        assert sorted(result.outcome.places)[0] == 1
        reasons.add(result.outcome.reason)
        replay = Replay.loads(result.replay.dumps())
        if seed % 10 == 0:
            assert verify_replay(replay) == [], f"seed {seed}"
    assert reasons, "no outcome reason recorded"


@pytest.mark.parametrize("name,seats", CONFIGS)
def test_same_seed_same_match(name, seats):
    game = games[name]
    bots = [RandomBot() for _ in range(seats)]
    a = play_match(game, _decks(game, seats), bots, seed=42)
    b = play_match(game, _decks(game, seats), bots, seed=42)
    assert a.replay.to_json() == b.replay.to_json()


@pytest.mark.parametrize("name,seats", CONFIGS)
def test_tampered_replay_is_detected(name, seats):
    game = games[name]
    result = play_match(game, _decks(game, seats), [RandomBot()] * seats, seed=3, record_digests=True)
    replay = Replay.loads(result.replay.dumps())
    replay.digests[len(replay.digests) // 2] = "000000000000"
    assert verify_replay(replay)
    replay = Replay.loads(result.replay.dumps())
    replay.seed += 1
    assert verify_replay(replay)


@pytest.mark.parametrize("name,seats", CONFIGS)
def test_every_listed_action_applies_and_round_trips(name, seats):
    game = games[name]
    for seed in range(SAMPLED_GAMES):
        for state in _walk(game, seats, seed, every=3):
            for seat in state.to_act():
                actions = state.legal_actions(seat)
                assert actions, "a seat to act has no legal action"
                assert len(set(actions)) == len(actions), "duplicate legal actions"
                for action in actions:
                    assert Action.from_json(json.loads(json.dumps(action.to_json()))) == action
                    trial = state.clone()
                    events = trial.apply(seat, action)
                    assert all(e.text for e in events), f"an event without words after {action}"


@pytest.mark.parametrize("name,seats", CONFIGS)
def test_illegal_actions_raise_and_change_nothing(name, seats):
    game = games[name]
    bogus = [
        Action.of("no-such-action"),
        Action.of("pass", extra="field"),
    ]
    for seed in range(SAMPLED_GAMES):
        for state in _walk(game, seats, seed, every=4):
            if state.outcome is not None:
                break
            before = _snapshot(state)
            acting = state.to_act()
            waiting = [s for s in range(state.num_seats) if s not in acting]
            candidates = [(s, a) for s in acting for a in bogus]
            # Another seat's legal actions are not legal for a seat that must wait.
            for seat in waiting:
                for other in acting:
                    candidates += [(seat, a) for a in state.legal_actions(other)[:5]]
            # A legal action with a parameter bent out of range.
            for seat in acting:
                for action in state.legal_actions(seat)[:5]:
                    for i, (key, value) in enumerate(action.params):
                        if isinstance(value, int) and not isinstance(value, bool):
                            params = list(action.params)
                            params[i] = (key, value + 97)
                            candidates.append((seat, Action(action.kind, tuple(params))))
                        elif isinstance(value, str):
                            params = list(action.params)
                            params[i] = (key, value + "-nonexistent")
                            candidates.append((seat, Action(action.kind, tuple(params))))
            for seat, action in candidates:
                if action in state.legal_actions(seat):
                    continue
                with pytest.raises(IllegalAction) as info:
                    state.apply(seat, action)
                assert str(info.value), "an IllegalAction must say why"
                assert _snapshot(state) == before, f"{action} by seat {seat} changed the state"
            with pytest.raises(IllegalAction):
                state.apply(state.num_seats + 3, state.legal_actions(acting[0])[0])
            assert _snapshot(state) == before


@pytest.mark.parametrize("name,seats", CONFIGS)
def test_clone_and_json_round_trip(name, seats):
    game = games[name]
    for seed in range(SAMPLED_GAMES):
        for state in _walk(game, seats, seed, every=5):
            copy = state.clone()
            assert copy == state
            assert _snapshot(copy) == _snapshot(state)
            rebuilt = game.state_from_json(json.loads(json.dumps(state.to_json())))
            assert rebuilt == state
            assert _snapshot(rebuilt) == _snapshot(state)
            if state.outcome is None:
                seat = state.to_act()[0]
                action = state.legal_actions(seat)[0]
                before = _snapshot(state)
                copy.apply(seat, action)
                assert _snapshot(state) == before, "a clone shares mutable parts with its original"
                assert rebuilt.legal_actions(seat) == state.legal_actions(seat)


@pytest.mark.parametrize("name,seats", CONFIGS)
def test_views_hide_what_a_seat_cannot_see(name, seats):
    """Resampling everything a seat cannot see changes neither its view nor the spectator's.

    If a view carried an opponent's hand, deck order or a face-down card, resampling
    those would show in the view.
    """
    game = games[name]
    changed = 0
    checked = 0
    for seed in range(SAMPLED_GAMES):
        for state in _walk(game, seats, seed, every=4):
            public = state.view(None)
            json.dumps(public)
            for seat in range(state.num_seats):
                mine = state.view(seat)
                json.dumps(mine)
                for k in range(2):
                    other = state.determinize(seat, Rng(seed * 1000 + k))
                    checked += 1
                    if _snapshot(other) != _snapshot(state):
                        changed += 1
                    assert other.view(seat) == mine, f"seat {seat}'s view depends on hidden information"
                    assert other.view(None) == public, "the spectator view depends on hidden information"
                    if state.outcome is None:
                        assert other.legal_actions(seat) == state.legal_actions(seat)
    assert changed > checked // 2, "determinize barely resamples anything: is hidden information kept?"


@pytest.mark.parametrize("name,seats", CONFIGS)
def test_determinize_is_a_function_of_view_and_rng(name, seats):
    game = games[name]
    for seed in range(SAMPLED_GAMES):
        for state in _walk(game, seats, seed, every=6):
            for seat in range(state.num_seats):
                sample = state.determinize(seat, Rng(seed))
                elsewhere = state.determinize(seat, Rng(seed + 1)).determinize(seat, Rng(seed))
                assert _snapshot(sample) == _snapshot(elsewhere), (
                    f"seat {seat}: two states with the same view gave different samples"
                )


@pytest.mark.parametrize("name,seats", CONFIGS)
def test_concede_ends_the_match_with_that_seat_last(name, seats):
    game = games[name]
    for seed in range(5):
        state = game.new_match(_decks(game, seats), seed, None)
        rng = Rng(seed)
        for _ in range(rng.randrange(30)):
            if state.outcome is not None:
                break
            seat = state.to_act()[0]
            state.apply(seat, rng.choice(state.legal_actions(seat)))
        if state.outcome is not None:
            continue
        quitter = seats - 1
        state.apply(quitter, Action.of(CONCEDE, reason="had to leave"))
        outcome = state.outcome
        assert outcome is not None
        assert outcome.places[quitter] == max(outcome.places)
        assert outcome.places[quitter] > 1
        assert state.to_act() == ()


@pytest.mark.parametrize("name,seats", CONFIGS)
def test_unknown_params_are_refused(name, seats):
    game = games[name]
    with pytest.raises(ValueError, match="no_such_rule"):
        game.new_match(_decks(game, seats), 1, {"no_such_rule": 3})


@pytest.mark.parametrize("name", [n for n in games])
def test_starter_decks_are_legal_and_parse_from_text(name):
    game = games[name]
    decks = game.starter_decks()
    assert len(decks) >= 4
    for deck_name, deck in decks.items():
        assert game.validate_deck(deck) == [], deck_name
        again = game.parse_deck(deck.to_text(game.commander_label), name=deck_name)
        assert again.counts() == deck.counts()
        assert again.commander == deck.commander


@pytest.mark.parametrize("name", [n for n in games])
def test_card_pool_is_described_for_the_website(name):
    game = games[name]
    cards = game.cards()
    assert len(cards) >= 60
    ids = [c["id"] for c in cards]
    assert len(set(ids)) == len(ids)
    for card in cards:
        assert card["name"] and card["type"] and isinstance(card.get("text", ""), str)
    json.dumps(cards)
