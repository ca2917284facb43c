"""Shared helpers for the bot tests: the games to run on, small-budget bots, random walks."""

from __future__ import annotations

from engine import games
from engine.bots import make_bot
from engine.bots.evaluation import register_evaluator
from engine.core import Rng

from . import toy

register_evaluator(toy.GAME.name, toy.EVALUATOR)

#: Every game the bots are tested on: the toy game and both real games.
GAME_NAMES = ["lanterns", "tempofront", "conquest"]

#: Every registered bot at every level, with budgets small enough for tests.
BOT_SPECS = ["random", "greedy", "search:fast", "search:strong"]


def load_game(name: str):
    """The game called ``name``; the toy game is not in the engine's registry."""
    if name == toy.GAME.name:
        return toy.GAME
    return games[name]


def small_bot(spec: str):
    """The bot of ``spec`` with a test-sized budget (same code paths, fewer iterations)."""
    if spec.startswith("search"):
        return make_bot(spec, iterations=24)
    return make_bot(spec)


def configurations(game) -> list[int]:
    """Seat counts to test: the minimum and, for multi-player games, the maximum."""
    return sorted({game.min_seats, game.max_seats})


def decks_for(game, seats: int, offset: int = 0):
    starters = list(game.starter_decks().values())
    return [starters[(offset + i) % len(starters)] for i in range(seats)]


def random_walk(game, seats: int, seed: int, *, every: int = 1, limit: int = 400):
    """Yield clones of the states along a random playout (at most ``limit`` steps)."""
    rng = Rng(seed).fork("walk")
    state = game.new_match(decks_for(game, seats, seed), seed, None)
    step = 0
    while state.outcome is None and step < limit:
        if step % every == 0:
            yield state.clone()
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        step += 1
