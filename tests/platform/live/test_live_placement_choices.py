"""``engine_state.placement_choices`` lists the Locations of the seat's own placement only.

A seat that confirms its placement last, leaving every Location empty, ends the placement
at once; with nothing revealed the match may go straight on to the next Skirmish's
placement, where the same seat is to act again. The walk over the Locations went on into
that next placement and then asked for an "empty" pick where there was none: StopIteration
in ``live.bot_act`` (the bot's move was saved, but the views of the move never went out).
"""

from __future__ import annotations

import pytest

from engine import games
from engine.core import Rng
from live import engine_state


def _placing(state, seat: int) -> bool:
    return state.phase == "placement" and seat in state.to_act()


def _walk(seats: int, seed: int):
    """Every state of a random Conquest playout with ``seats`` seats."""
    game = games["conquest"]
    decks = list(game.starter_decks().values())
    state = game.new_match([decks[(seed + i) % len(decks)] for i in range(seats)], seed)
    rng = Rng(seed)
    while state.outcome is None:
        yield state
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))


def test_the_last_seat_to_confirm_an_empty_placement_gets_its_own_locations_only():
    # Seed 3, two seats: seat 0 has confirmed, seat 1 is to place at Locations 5, 6 and 7;
    # leaving all three empty starts the next Battle's placement at once.
    for state in _walk(2, 3):
        if _placing(state, 1) and state.submitted[0] and not state.picks[1] and len(state.place_locs[1]) == 3:
            break
    else:
        pytest.fail("the playout never reached the position")
    choices = engine_state.placement_choices(state, 1)
    numbers = [state.locations[i].number for i in state.place_locs[1]]
    assert [loc["location"] for loc in choices["locations"]] == numbers
    hand_units = {a.get("card") for a in state.legal_actions(1)} - {"empty"}
    assert set(choices["copies"]) == hand_units


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_every_placement_of_random_matches_lists_exactly_the_locations_left_to_fill(seats):
    checked = 0
    for seed in range(12):
        for state in _walk(seats, seed):
            for seat in range(seats):
                choices = engine_state.placement_choices(state, seat)
                if not _placing(state, seat):
                    assert choices is None
                    continue
                left = state.place_locs[seat][len(state.picks[seat]):]
                assert [loc["location"] for loc in choices["locations"]] == [state.locations[i].number for i in left]
                for card, copies in choices["copies"].items():
                    in_hand = sum(1 for c in state.players[seat].hand if state_card_id(c) == card)
                    assert 1 <= copies <= min(len(left), in_hand)
                checked += 1
    assert checked > 100


def state_card_id(index: int) -> str:
    from engine.conquest.pool import POOL

    return POOL[index].id
