"""C11 Match the Twos: the tiebreak in the state ("inline"), outside it (``match_the_twos``,
``break_ties``) and the equality of the two ("deferred" + ``break_ties`` == "inline")."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.conquest import GAME, break_ties, match_the_twos, tiebreak_rng
from engine.conquest.pool import DECK_CARDS
from engine.conquest.positions import position
from engine.core import Decklist, Replay, Rng, verify_replay
from engine.runner import RandomBot, play_match

from .helpers import kinds

FOURS = ["Shieldbearer"] * 40  # every pair matches at CQ 4
TWOS = ["Vanguard Drone"] * 40  # every pair matches at CQ 2
ONES = ["Recruit of the Line"] * 40  # every pair matches at CQ 1
NEVER = ["Hush"] * 40  # Lightspeed cards print no CQ: never a match (R-Twos-1)


def _deck(cards: list[str]) -> Decklist:
    counts: dict[str, int] = {}
    for name in cards:
        counts[name] = counts.get(name, 0) + 1
    return Decklist(commander="The Quiet Sun", cards=tuple(counts.items()))


def test_C11_two_tied_players_the_one_who_matches_takes_the_higher_place():
    """C11: "If exactly one tied player matches, that player takes the higher place.\""""
    result = match_the_twos({0: NEVER, 1: TWOS}, Rng(1))
    assert result["order"] == [1, 0] and result["shared"] == []
    assert result["rounds"] == [{"round": 1, "winner": 1, "reveals": [
        {"seat": 0, "cards": ["Hush", "Hush"], "matched_cq": None},
        {"seat": 1, "cards": ["Vanguard Drone", "Vanguard Drone"], "matched_cq": 2}]}]


def test_C11_three_tied_players_highest_matched_cq_wins_and_the_rest_repeat():
    """C11: "if several match, the highest matched CQ wins among them and the rest repeat.\""""
    result = match_the_twos({0: TWOS, 1: NEVER, 2: FOURS}, Rng(2))
    assert result["order"] == [2, 0, 1]
    assert [r["winner"] for r in result["rounds"]] == [2, 0]
    assert [len(r["reveals"]) for r in result["rounds"]] == [3, 2]  # the winner leaves, the rest repeat


def test_C11_four_tied_players():
    """C11 with four tied players: every place decided by successive rounds."""
    result = match_the_twos({0: ONES, 1: FOURS, 2: NEVER, 3: TWOS}, Rng(3))
    assert result["order"] == [1, 3, 0, 2]
    assert [len(r["reveals"]) for r in result["rounds"]] == [4, 3, 2]


def test_R_twos_1_only_units_print_a_cq():
    """R-Twos-1: two Lightspeed cards, or two Fragments, share no printed CQ: no match."""
    result = match_the_twos({0: ["Black Energy Fragment"] * 2 + ["Hush"] * 2, 1: ["Vanguard Drone"] * 4}, Rng(1))
    assert result["rounds"][0]["reveals"][0]["matched_cq"] is None
    assert result["order"] == [1, 0]


def test_C11_none_match_reveal_again():
    """C11: "if none match, reveal again" - a real deck needs a few rounds, every one recorded."""
    deck = GAME.starter_decks()["Void Choir"]
    names = [n for n, k in deck.cards for _ in range(k)]
    result = match_the_twos({0: names, 1: names}, Rng(5))
    assert len(result["order"]) + len(result["shared"]) == 2
    for rnd in result["rounds"][:-1]:
        assert rnd["winner"] is None
    json.dumps(result)


def test_C11_the_tie_stands_when_the_piles_run_out():
    """C11: "When the piles run out, the tie stands (a shared place; in a two-player match, a draw).\""""
    result = match_the_twos({0: NEVER, 1: NEVER}, Rng(4))
    assert result["order"] == [] and result["shared"] == [0, 1]
    assert len(result["rounds"]) == 20  # 40 cards, two a round
    state = position(battle=3, phase="end_of_battle", conquest={0: 6, 1: 6}, deck_lists={0: NEVER, 1: NEVER})
    assert state.outcome.places == (1, 1)
    assert state.outcome.is_draw


def test_R_twos_equal_highest_matches_decide_nothing_that_round():
    """R-Twos-2: two players matching at the same highest CQ decide nothing; everyone reveals again.
    With both always matching at 4 the tie between them stands, and the third shares it."""
    result = match_the_twos({0: FOURS, 1: FOURS, 2: TWOS}, Rng(6))
    assert all(r["winner"] is None for r in result["rounds"])
    assert result["shared"] == [0, 1, 2]


def test_C11_a_tie_for_a_lower_place_is_broken_too():
    """C10: "Every tie, for any place, is broken by Match the Twos" - here for 2nd and 3rd."""
    state = position(seats=4, battle=3, phase="end_of_battle", conquest={0: 9, 1: 3, 2: 3, 3: 1},
                     deck_lists={0: FOURS, 1: NEVER, 2: ONES, 3: TWOS})
    assert state.outcome.places == (1, 3, 2, 4)
    assert state.outcome.detail["tied_groups"] == [[1, 2]]
    texts = [e.text for e in kinds(state.opening_events, "tiebreak")]
    assert texts[0] == "Match the Twos between Seat 1, Seat 2"
    assert "Seat 2 reveals Recruit of the Line and Recruit of the Line (a match at CQ 1)" in texts[1]


def test_C11_and_R_twos_3_the_stream_comes_from_the_match_seed_alone():
    """C11: "deterministic from the seed"; R-Twos-3: the same seed and seats give the same piles,
    whatever the order of the card lists; another seed gives others."""
    deck = GAME.starter_decks()["Plague Engine"]
    names = [n for n, k in deck.cards for _ in range(k)]
    a = match_the_twos({0: names, 2: names}, tiebreak_rng(77, [0, 2]))
    b = match_the_twos({2: list(reversed(names)), 0: names}, tiebreak_rng(77, [2, 0]))
    c = match_the_twos({0: names, 2: names}, tiebreak_rng(78, [0, 2]))
    assert a == b
    assert a["rounds"][0]["reveals"] != c["rounds"][0]["reveals"] or a["rounds"] != c["rounds"]


def _tied_outcomes(seats: int, tiebreak: str, lists: dict[int, list[str]]):
    state = position(seats=seats, battle=3, phase="end_of_battle", conquest={s: 5 for s in range(seats)},
                     deck_lists=lists, params={"tiebreak": tiebreak}, seed=4242)
    return state.outcome


def test_C11_deferred_plus_break_ties_equals_inline():
    """C11: ``tiebreak = "deferred"`` leaves shared places and the tied groups; ``break_ties`` with the
    decks and the seed yields exactly the outcome "inline" reaches."""
    deck = GAME.starter_decks()
    pool = [deck[n] for n in deck]
    for seats in (2, 3, 4):
        lists = {s: [n for n, k in pool[s].cards for _ in range(k)] for s in range(seats)}
        inline = _tied_outcomes(seats, "inline", lists)
        deferred = _tied_outcomes(seats, "deferred", lists)
        assert deferred.places == (1,) * seats
        assert deferred.detail["tiebreak_pending"] is True
        assert deferred.detail["tied_groups"] == [list(range(seats))]
        final = break_ties(deferred, [pool[s] for s in range(seats)], 4242)
        assert final == inline
        assert break_ties(inline, [pool[s] for s in range(seats)], 4242) == inline


def test_C11_full_matches_inline_and_deferred_agree_and_replays_record_the_reveals():
    """C11 over real matches: every finished match, deferred then broken, equals the inline one; the
    replay's outcome carries every reveal and verifies."""
    decks = list(GAME.starter_decks().values())[:2]
    bots = [RandomBot(), RandomBot()]
    for seed in range(40):
        inline = play_match(GAME, decks, bots, seed=seed)
        deferred = play_match(GAME, decks, bots, seed=seed, params={"tiebreak": "deferred"})
        assert break_ties(deferred.outcome, decks, seed) == inline.outcome
        replay = Replay.loads(inline.replay.dumps())
        assert verify_replay(replay) == []
        assert replay.outcome.detail["match_the_twos"] == inline.outcome.detail["match_the_twos"]


@settings(max_examples=60, deadline=None)
@given(
    seats=st.integers(min_value=2, max_value=4),
    picks=st.lists(st.integers(min_value=0, max_value=len(DECK_CARDS) - 1), min_size=40 * 4, max_size=40 * 4),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_C11_property_every_tied_seat_gets_a_place_and_each_round_follows_the_rule(seats, picks, seed):
    """C11 as a property: the order and the shared seats are the tied seats; each round's winner is
    the one seat with the strictly highest matched CQ, or nobody."""
    lists = {s: [DECK_CARDS[i].name for i in picks[s * 40:(s + 1) * 40]] for s in range(seats)}
    result = match_the_twos(lists, Rng(seed))
    assert sorted(result["order"] + result["shared"]) == list(range(seats))
    assert len(result["shared"]) != 1
    for rnd in result["rounds"]:
        matched = [(r["matched_cq"], r["seat"]) for r in rnd["reveals"] if r["matched_cq"] is not None]
        best = max((m for m, _ in matched), default=None)
        tops = [s for m, s in matched if m == best]
        assert rnd["winner"] == (tops[0] if len(tops) == 1 else None)
    assert match_the_twos(lists, Rng(seed)) == result
