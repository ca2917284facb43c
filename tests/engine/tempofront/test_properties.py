"""TempoFront property tests over thousands of seeded random playouts, and Hypothesis
tests of the damage pipeline and deck validation.

Random playouts pick uniformly among the listed actions with a seeded ``Rng``, over every
pairing of the starter decks. Together these tests take well under a minute.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import Action, Decklist, IllegalAction, Rng, verify_replay
from engine.runner import RandomBot, play_match
from engine.tempofront import GAME
from engine.tempofront.cards import CARDS
from engine.tempofront.positions import position, unit_at
from engine.tempofront.state import FRONTS, LEADER_POS, POS, ROWS

DECKS = list(GAME.starter_decks().values())
PAIRS = list(itertools.product(range(len(DECKS)), repeat=2))
HAND_KINDS = {"deploy", "tactic", "attach", "site", "reaction", "prepare"}  # "prepare": T18


def _match(seed: int):
    a, b = PAIRS[seed % len(PAIRS)]
    return GAME.new_match([DECKS[a], DECKS[b]], seed), (DECKS[a], DECKS[b])


def _walk(seed: int, every: int = 1):
    """Yield (step, state) along a random playout; the state is mutated afterwards."""
    state, _ = _match(seed)
    rng = Rng(seed).fork("property walk")
    step = 0
    while state.outcome is None:
        if step % every == 0:
            yield step, state
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        step += 1
        assert step < 3000, f"seed {seed}: a random playout did not end"
    yield step, state


def _cards_of(state, seat: int) -> Counter:
    """Every card a seat owns, wherever it is: nothing may appear or vanish."""
    p = state.players[seat]
    owned = Counter(p.hand + p.deck + p.discard + p.reserve + p.scouting)
    for side in state.board:
        for unit in side:
            if unit is None:
                continue
            if unit.owner == seat:
                owned[unit.card.id] += 1
            owned.update(cid for cid, owner in unit.attachments if owner == seat)
    owned.update(site[0] for site in state.sites if site is not None and site[1] == seat)
    # A card on the chain is counted until its resolution starts (it then is on the board
    # or in the discard pile, while its effects finish).
    owned.update(item.card for item in state.chain if item.seat == seat and item.kind in HAND_KINDS
                 and item.step < 0)
    return owned


def test_random_playouts_keep_counters_in_range_conserve_cards_and_end():
    """2,000 random playouts: Focus, Time and Integrity stay in range, no card appears or
    vanishes, every match ends, mostly by Dominion or Integrity, near 200 actions or fewer."""
    prm = GAME.new_match(DECKS[:2], 0).params
    reasons: Counter = Counter()
    lengths = []
    for seed in range(2000):
        state, decks = _match(seed)
        lists = [Counter({CARDS_BY_NAME[n]: c for n, c in d.cards}) for d in decks]
        rng = Rng(seed).fork("property walk")
        steps = 0
        while state.outcome is None:
            seat = state.to_act()[0]
            state.apply(seat, rng.choice(state.legal_actions(seat)))
            steps += 1
            for p in state.players:
                assert 0 <= p.focus <= p.max_focus <= prm.focus_max
                assert 0 <= p.time <= prm.timeline
                assert p.integrity <= prm.integrity
            if steps % 5 == 0:
                assert [_cards_of(state, s) for s in (0, 1)] == lists, f"seed {seed} step {steps}"
        assert [_cards_of(state, s) for s in (0, 1)] == lists
        reasons[state.outcome.reason] += 1
        lengths.append(steps)
    assert reasons["Cycle limit"] <= 20, reasons
    assert reasons["Dominion"] > 200 and reasons["Integrity"] > 200, reasons
    assert sum(lengths) / len(lengths) <= 210


CARDS_BY_NAME = {c.name: c.id for c in CARDS.values()}


def test_every_listed_action_applies_and_its_events_have_words():
    for seed in range(80):
        for _, state in _walk(seed, every=4):
            if state.outcome is not None:
                break
            seat = state.to_act()[0]
            actions = state.legal_actions(seat)
            assert actions and len(set(actions)) == len(actions)
            for action in actions:
                trial = state.clone()
                events = trial.apply(seat, action)
                assert all(e.text for e in events), action
                assert trial.outcome is not None or trial.to_act(), "a state with nobody to act"


def _bent(state, seat: int, rng: Rng) -> list[tuple[int, Action]]:
    """Actions close to legal ones: another seat's, bent parameters, unknown cards."""
    legal = state.legal_actions(seat)
    out = [(1 - seat, a) for a in legal[:4]]
    places = [p for side in POS for p in side] + list(LEADER_POS) + list(FRONTS)
    ids = sorted(CARDS)
    for action in legal:
        for i, (key, _value) in enumerate(action.params):
            params = list(action.params)
            if key in ("card",):
                params[i] = (key, ids[rng.randrange(len(ids))])
            elif key == "target":
                params[i] = (key, places[rng.randrange(len(places))])
            elif key in ("front", "to_front"):
                params[i] = (key, FRONTS[rng.randrange(3)])
            elif key in ("row", "to_row"):
                params[i] = (key, ROWS[rng.randrange(2)])
            out.append((seat, Action(action.kind, tuple(params))))
    for kind in ("strike", "shift", "deploy", "play", "react", "take", "keep", "leader", "prepare", "pass"):
        out.append((seat, Action.of(kind, card=ids[rng.randrange(len(ids))])))
        out.append((seat, Action.of(kind)))
    return out


def test_illegal_actions_raise_naming_a_rule_and_change_nothing():
    checked = 0
    for seed in range(60):
        rng = Rng(seed).fork("bend")
        for _, state in _walk(seed, every=5):
            if state.outcome is not None:
                break
            seat = state.to_act()[0]
            legal = set(state.legal_actions(seat))
            before = json.dumps(state.to_json(), sort_keys=True)
            for who, action in _bent(state, seat, rng):
                if who == seat and action in legal:
                    continue
                with pytest.raises(IllegalAction) as info:
                    state.apply(who, action)
                assert info.value.rule, f"{action}: {info.value}"
                checked += 1
            assert json.dumps(state.to_json(), sort_keys=True) == before
    assert checked > 10_000


def _hidden_twin(state, seat: int):
    """The same state but for what ``seat`` cannot see: the opponent's hand and Reserve
    traded with deck cards, both decks reordered, another random stream."""
    twin = state.clone()
    foe = twin.players[1 - seat]
    hidden = foe.hand + foe.reserve + foe.deck
    hidden = hidden[len(hidden) // 2:] + hidden[:len(hidden) // 2]
    foe.hand = hidden[:len(foe.hand)]
    foe.reserve = hidden[len(foe.hand):len(foe.hand) + len(foe.reserve)]
    foe.deck = hidden[len(foe.hand) + len(foe.reserve):]
    twin.players[seat].deck.reverse()
    twin.rng = Rng(987654321)
    return twin


def test_views_hide_the_opponents_hand_deck_order_and_reserve():
    differing = 0
    for seed in range(60):
        for _, state in _walk(seed, every=6):
            for seat in (0, 1):
                view = state.view(seat)
                assert [c["id"] for c in view["hand"]] == state.players[seat].hand
                assert [c["id"] for c in view["reserve"]] == state.players[seat].reserve
                twin = _hidden_twin(state, seat)
                differing += twin.to_json() != state.to_json()
                assert twin.view(seat) == view
                assert twin.view(None) == state.view(None)
                text = json.dumps(view)
                assert "deck\":" not in text and "rng" not in text
                if state.outcome is None and seat in state.to_act():
                    assert twin.legal_actions(seat) == state.legal_actions(seat)
            assert "hand" not in state.view(None)
    assert differing > 500


def test_clone_and_json_round_trips_are_equal_and_independent():
    for seed in range(60):
        for _, state in _walk(seed, every=5):
            copy = state.clone()
            rebuilt = GAME.state_from_json(json.loads(json.dumps(state.to_json())))
            assert copy == state and rebuilt == state
            if state.outcome is None:
                seat = state.to_act()[0]
                assert rebuilt.legal_actions(seat) == state.legal_actions(seat)
                before = state.to_json()
                copy.apply(seat, copy.legal_actions(seat)[-1])
                assert state.to_json() == before


def test_replays_reproduce_every_state_and_the_outcome():
    bots = [RandomBot(), RandomBot()]
    for seed in range(100):
        a, b = PAIRS[seed % len(PAIRS)]
        result = play_match(GAME, [DECKS[a], DECKS[b]], bots, seed=seed, record_digests=True)
        assert verify_replay(result.replay) == [], seed


def test_determinize_keeps_the_view_and_depends_only_on_view_and_rng():
    for seed in range(40):
        for _, state in _walk(seed, every=9):
            for seat in (0, 1):
                sample = state.determinize(seat, Rng(seed))
                assert sample.view(seat) == state.view(seat)
                twin = _hidden_twin(state, seat)
                assert twin.determinize(seat, Rng(seed)) == sample


# --------------------------------------------------------------------------- Hypothesis


@settings(max_examples=300, deadline=None)
@given(amount=st.integers(1, 9), exposed=st.integers(0, 3), barrier=st.booleans(), protected=st.integers(0, 4),
       armor=st.integers(0, 3), silenced=st.booleans())
def test_T8_pipeline_matches_the_rule_for_any_statuses(amount, exposed, barrier, protected, armor, silenced):
    """T8 as a formula: Exposed adds and goes; Barrier prevents all and goes (Protected
    stays); Protected reduces and goes; Armor reduces unless Silenced; never below 0."""
    mods = [f"exposed {exposed}", f"protected {protected}", "barrier" if barrier else "no barrier"]
    mods += ["attached Runed Plate"] * armor  # Armor 1 each
    if silenced:
        mods.append("silenced")
    state = position({}, {"left vanguard": ", ".join(["Border Sentinel", *mods])})
    unit = unit_at(state, "1 left vanguard")
    marked = state.hurt_unit(unit, amount, "Test hit", [])
    total = amount + exposed
    if barrier and not silenced:
        expected = 0
        assert unit.protected == protected
    else:
        expected = max(0, total - protected - (0 if silenced else armor))
        assert unit.protected == 0
    assert marked == expected and unit.damage == expected and unit.exposed == 0
    assert not unit.barrier


@settings(max_examples=200, deadline=None)
@given(counts=st.lists(st.integers(1, 4), min_size=0, max_size=20), leader=st.booleans())
def test_T1_validation_finds_every_copy_and_size_problem(counts, leader):
    names = [c.name for c in CARDS.values() if c.type != "leader"]
    cards = tuple((names[i], n) for i, n in enumerate(counts))
    deck = Decklist(commander="Lyss of the Veil" if leader else None, cards=cards)
    problems = GAME.validate_deck(deck)
    expected = [f"{n} copies of {name}; at most 2 allowed" for name, n in cards if n > 2]
    assert [p for p in problems if "copies" in p] == expected
    size = sum(counts)
    assert (f"{size} card{'s' if size != 1 else ''}; a deck has exactly 30" in problems) == (size != 30)
    assert any(p.startswith("no Leader") for p in problems) == (not leader)
