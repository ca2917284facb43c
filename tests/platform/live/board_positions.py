"""Live matches brought to a chosen position for the board's browser tests: two people,
alice (seat 0) and bob (seat 1), whose moves are played through ``live_act`` from a
seeded random choice among the legal ones, until a condition on the engine state holds
or the match is over. No worker is needed: nobody waits for a bot."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.test import Client
from live_helpers import make_deck


@dataclass
class Position:
    match_id: int
    cookies: list[str]  # the session cookie of each seat's player


def script(live, rng_seed: int, stop: Callable | None = None, *, avoid: tuple[str, ...] = ("concede",)) -> list:
    """The (seat, action JSON) moves of a seeded random game of ``live``'s match from its
    opening, until ``stop(state)`` holds after a move or the game is over."""
    from live import engine_state

    state, _ = engine_state.opening(live)
    rng = random.Random(rng_seed)
    moves = []
    while state.outcome is None:
        seat = state.to_act()[0]
        legal = [a for a in state.legal_actions(seat) if a.kind not in avoid] or list(state.legal_actions(seat))
        action = rng.choice(legal)
        state.apply(seat, action)
        moves.append((seat, action.to_json()))
        if stop is not None and stop(state):
            break
    return moves


def game_length(game: str, *, seed: int, rng_seed: int) -> int:
    """How many moves the scripted game of a ``two_people`` match with these seeds lasts."""
    from engine import games
    from matches.play import game_seed

    engine_game = games[game]
    state = engine_game.new_match(list(engine_game.starter_decks().values())[:2], game_seed(seed, 1))
    rng = random.Random(rng_seed)
    moves = 0
    while state.outcome is None:
        seat = state.to_act()[0]
        state.apply(seat, rng.choice([a for a in state.legal_actions(seat) if a.kind != "concede"]))
        moves += 1
    return moves


def two_people(game: str, *, seed: int, rng_seed: int, stop: Callable | None = None) -> Position:
    """A live ``game`` match of alice and bob played up to ``stop`` (or its end)."""
    from live import creation
    from live import moves as live_moves
    from live.creation import SeatSpec
    from live.models import LiveMatch

    users = [User.objects.get_or_create(username=name)[0] for name in ("alice", "bob")]
    decks = [make_deck(user, game, index=i).latest_version for i, user in enumerate(users)]
    seats = [SeatSpec(deck_version=deck, user=user) for deck, user in zip(decks, users, strict=True)]
    live = creation.live_create(seats=seats, seed=seed)
    for seat, action in script(LiveMatch.objects.get(pk=live.pk), rng_seed, stop):
        live_moves.live_act(match_id=live.match_id, user=users[seat], action_json=action)
    cookies = []
    for user in users:
        client = Client()
        client.force_login(user)
        cookies.append(client.cookies["sessionid"].value)
    return Position(live.match_id, cookies)
