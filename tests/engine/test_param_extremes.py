"""Issue 11, "Bounded inputs": every declared range keeps a match short. A match at each
parameter's minimum and maximum (one at a time), and at the worst combination measured,
ends within a stated number of actions and with a small state. The bounds and the
measurements behind them: engine/tempofront/site/rules.md and engine/conquest/site/rules.md,
"Rules parameters". Random bots play every seat (they take every response window)."""

from __future__ import annotations

import json

import pytest

from engine import games
from engine.core import Decklist
from engine.runner import RandomBot, play_match

#: The most actions a match may take, per game and seat count, at any single extreme.
ONE_AT_A_TIME = {("tempofront", 2): 1_000, ("conquest", 2): 800, ("conquest", 4): 2_500}
#: The worst combinations found, and the most actions a match may take there.
WORST = {
    "tempofront": ({"integrity": 60, "dominion_per_cycle": 0, "cycle_cap": 40, "timeline": 24, "deck_size": 60,
                    "strike_time": 1, "shift_time": 1, "prepare_time": 1, "shift_time_mobile": 0,
                    "max_reactions": 4, "draw_per_cycle": 5, "focus_start": 10, "focus_max": 15, "focus_growth": 3,
                    "opening_hand": 10, "max_copies": 10}, 2, 1_500),
    "conquest": ({"battles": 10, "draw_per_battle": 15, "forward_locations": 5, "rear_locations": 5,
                  "max_extra_locations": 4, "mulligans": 2, "mulligan_battles": 10, "responses_per_window": 2,
                  "deck_size": 100}, 4, 8_000),
}
#: The largest full state (JSON) a match may reach, in bytes.
STATE_BYTES = 200_000


def _decks(game, params: dict, seats: int, offset: int) -> list[Decklist]:
    """Legal decks for ``params``: the starter decks, grown or cut to ``deck_size`` from the pool."""
    full = game.check_params(params)
    size, copies = full["deck_size"], full["max_copies"]
    starters = list(game.starter_decks().values())
    pool = [c["name"] for c in game.cards() if c["type"] not in ("leader", "celestial")]
    decks = []
    for i in range(seats):
        base = starters[(offset + i) % len(starters)]
        names = [n for n, _ in base.cards] + [n for n in pool if n not in dict(base.cards)]
        counts: dict[str, int] = {}
        while sum(counts.values()) < size:
            for name in names:
                if sum(counts.values()) < size and counts.get(name, 0) < min(copies, dict(base.cards).get(name, 1)):
                    counts[name] = counts.get(name, 0) + 1
            if sum(counts.values()) < size:  # the starter counts are used up: top up to the copies allowed
                for name in names:
                    if sum(counts.values()) < size and counts.get(name, 0) < copies:
                        counts[name] = counts.get(name, 0) + 1
        decks.append(Decklist(commander=base.commander, cards=tuple(counts.items()), name=base.name))
    return decks


def _play(name: str, params: dict, seats: int, seed: int) -> tuple[int, int]:
    game = games[name]
    result = play_match(game, _decks(game, params, seats, seed), [RandomBot() for _ in range(seats)], seed=seed,
                        params=params)
    assert result.outcome is not None and result.outcome.reason != "action limit"
    state = game.new_match(result.replay.decks, seed, params)
    biggest = len(json.dumps(state.to_json()))
    for index, (seat, action) in enumerate(result.replay.actions):
        state.apply(seat, action)
        if index % 40 == 0:
            biggest = max(biggest, len(json.dumps(state.to_json())))
    return len(result.replay.actions), biggest


def _extremes(name: str):
    game = games[name]
    for spec in game.param_specs().values():
        if spec.choices is not None:
            continue
        for value in (spec.minimum, spec.maximum):
            params = {spec.name: value}
            if spec.name == "focus_start" and value > game.default_params()["focus_max"]:
                params["focus_max"] = value
            if spec.name == "focus_max" and value < game.default_params()["focus_start"]:
                params["focus_start"] = value
            yield params


CASES = [(name, seats) for name, seats in ONE_AT_A_TIME]


@pytest.mark.parametrize("name,seats", CASES, ids=[f"{n}-{s}p" for n, s in CASES])
def test_every_parameter_at_its_minimum_and_maximum_keeps_a_match_short(name, seats):
    for params in _extremes(name):
        for seed in (1,):
            actions, size = _play(name, params, seats, seed)
            assert actions <= ONE_AT_A_TIME[(name, seats)], (params, actions)
            assert size <= STATE_BYTES, (params, size)


@pytest.mark.parametrize("name", sorted(WORST))
def test_the_worst_combination_of_maxima_keeps_a_match_within_its_bound(name):
    params, seats, limit = WORST[name]
    for seed in (1, 2):
        actions, size = _play(name, params, seats, seed)
        assert actions <= limit, actions
        assert size <= STATE_BYTES, size
