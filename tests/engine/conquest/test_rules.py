"""One test per phase step of shared/seeds/conquest-rules.txt ("Exact rule"), each from the
smallest position that shows it. Rulings of our own are cited as R-... (engine/conquest/site/rules.md).
"""

from __future__ import annotations

import pytest

from engine.conquest import GAME
from engine.conquest.positions import position
from engine.core import Action, IllegalAction, Rng

from .helpers import STOPPER, hand_names, kinds, pass_, place, play_randomly, public, respond, starters

# --------------------------------------------------------------------------- drawing and mulligan


def test_exact_rule_everyone_draws_7_to_open_the_battle():
    """"Everyone draws 7 to open the Battle.\""""
    for seats in (2, 3, 4):
        state = GAME.new_match(starters(seats), seed=5)
        for seat in range(seats):
            view = state.view(seat)
            assert len(view["hand"]) == 7
            assert view["players"][seat]["deck_count"] == 33
        assert len([e for e in state.opening_events if e.kind == "draw" and e.private_to is None]) == seats


def test_exact_rule_mulligan_shuffles_back_and_redraws_7_once():
    """"On the first Battle only, you may mulligan once - shuffle back and redraw 7.\""""
    state = GAME.new_match(starters(2), seed=11)
    assert state.phase == "mulligan"
    first = state.to_act()[0]
    assert state.active == first
    cards = sorted(state.players[first].deck + state.players[first].hand)
    events = state.apply(first, Action.of("mulligan"))
    assert len(hand_names(state, first)) == 7
    assert state.view(first)["players"][first]["deck_count"] == 33
    assert sorted(state.players[first].deck + state.players[first].hand) == cards  # shuffled back
    assert [e.text for e in events if e.private_to == first][0].startswith("You drew ")
    # once: the decision passes to the next player in turn order
    assert state.to_act() == (state.order[1],)
    state.apply(state.order[1], Action.of("keep"))
    assert state.phase == "celestial"


def test_exact_rule_mulligan_is_offered_in_the_first_battle_only():
    """"On the first Battle only\": no mulligan phase in Battles 2 and 3."""
    state = GAME.new_match(starters(3), seed=2)
    seen_battles = set()
    rng = Rng(7)
    while state.outcome is None:
        if state.phase == "mulligan":
            seen_battles.add(state.battle)
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert seen_battles == {1}


def test_exact_rule_no_draw_between_the_two_skirmishes():
    """"There is no draw between the two skirmishes.\""""
    state = position(hands={0: ["Vanguard Drone"]}, decks={0: ["Iron Legionnaire"]},
                     face_down={0: {1: "Recruit of the Line"}})
    assert state.phase == "placement" and state.skirmish == 1
    assert hand_names(state, 0) == ["Vanguard Drone"]
    assert state.view(0)["players"][0]["deck_count"] == 1


# --------------------------------------------------------------------------- Celestial phase


def test_exact_rule_celestial_phase_goes_in_turn_order_from_the_active_player():
    """"Going in turn order from the active player, each player may play their one Celestial, or pass.\""""
    state = position(seats=3, active=1, phase="celestial", celestials_played=[],
                     celestials={0: "The Quiet Sun", 1: "Star of the Rearguard", 2: "The Open Sky"})
    assert state.to_act() == (1,)
    pass_(state, 1)
    assert state.to_act() == (2,)
    state.apply(2, Action.of("play_celestial", card="the-open-sky"))
    assert state.to_act() == (0,)


def test_exact_rule_celestial_is_optional_and_cannot_be_responded_to():
    """"Optional - declining costs nothing, and a Celestial can't be responded to.\""""
    state = position(phase="celestial", celestials_played=[], hands={1: ["Hush", "Annihilate"]},
                     celestials={0: "The Hungering Moon", 1: "The Quiet Sun"},
                     face_up={1: {2: "Shieldbearer"}}, skirmish="rear")
    events = state.apply(0, Action.of("play_celestial", card="the-hungering-moon"))
    assert state.phase == "celestial" and state.to_act() == (1,)  # no response window opened
    assert "Seat 1's Shieldbearer at Location 2 is Plagued" in public(events)
    events = pass_(state, 1)
    assert not state.players[1].celestial_played  # passing kept it for a later Celestial phase
    assert state.phase == "placement"


# --------------------------------------------------------------------------- Placement


def test_exact_rule_placement_is_simultaneous():
    """"Everyone places units face-down at the same time": every seat still placing is to act."""
    state = position(seats=3, phase="placement", hands={0: ["Vanguard Drone"], 1: ["Iron Legionnaire"],
                                                         2: ["Shieldbearer"]})
    assert state.to_act() == (0, 1, 2)
    place(state, 2, {3: "Shieldbearer"})
    assert state.to_act() == (0, 1)


def test_exact_rule_placement_is_hidden():
    """"...face-down at the same time, hidden" and RULINGS C5 (amended): before the lock the others
    see nothing of a placement; once it locks they see which Locations hold a card, never which."""
    state = position(phase="placement", hands={0: ["Vanguard Drone", "Iron Legionnaire", "Hush"],
                                               1: ["Shieldbearer", "Hush"]})
    place(state, 0, {2: "Vanguard Drone", 4: "Iron Legionnaire"})
    for seat in (1, None):
        assert all(u is None for loc in state.view(seat)["locations"] for u in loc["units"])
    place(state, 1, {1: "Shieldbearer"})
    assert state.phase == "response"  # Seat 0 may answer the Shieldbearer revealed at Location 1
    theirs = state.view(1)
    cells = [loc["units"][0] for loc in theirs["locations"][:4]]
    assert [c is not None for c in cells] == [False, True, False, True]
    assert all(c == {"owner": 0, "face_down": True} for c in cells if c)
    board = str(theirs["locations"])  # (decklists are open, R-Open-Decklists; the board is not)
    assert "Vanguard Drone" not in board and "Iron Legionnaire" not in board
    mine = state.view(0)
    assert mine["locations"][1]["units"][0]["name"] == "Vanguard Drone"


def test_exact_rule_placement_as_few_or_as_many_as_you_like_one_per_location():
    """"...as few or as many as you like, one per Location.\""""
    state = position(phase="placement", hands={0: ["Vanguard Drone"] * 3 + ["Iron Legionnaire"] * 2,
                                               1: ["Shieldbearer"]})
    place(state, 0, {1: "Vanguard Drone", 2: "Vanguard Drone", 3: "Iron Legionnaire", 4: "Vanguard Drone"})
    place(state, 1, {})  # none at all is a placement too
    assert [loc.slots[0] is not None for loc in state.locations[:4]] == [True] * 4
    assert hand_names(state, 0) == ["Iron Legionnaire"]
    assert all(loc.slots[1] is None for loc in state.locations)


def test_exact_rule_placement_locks_when_everyone_confirms():
    """"Placement locks when everyone confirms": nothing is revealed until the last seat submits."""
    state = position(phase="placement", hands={0: ["Vanguard Drone"], 1: ["Shieldbearer", "Hush"]})
    events = place(state, 0, {1: "Vanguard Drone"})
    assert not kinds(events, "reveal") and state.phase == "placement"
    with pytest.raises(IllegalAction, match="C5"):
        state.apply(0, Action.of("place", card="empty", location=1))
    events = place(state, 1, {1: "Shieldbearer"})
    assert "Placement locks: Deployment begins" in public(events)
    assert kinds(events, "reveal")


# --------------------------------------------------------------------------- Deployment


def test_exact_rule_reveal_in_location_order_active_player_first():
    """"Reveal one unit at a time in Location order (1 -> 4), active player first.\""""
    state = position(active=1, face_down={0: {1: "Vanguard Drone", 2: "Iron Legionnaire"},
                                          1: {1: "Shieldbearer", 3: "Recruit of the Line"}})
    reveals = [(e.data["location"], e.data["seat"]) for e in kinds(state.opening_events, "reveal")]
    assert reveals == [(1, 1), (1, 0), (2, 0), (3, 1)]


def test_exact_rule_no_unit_at_a_location_you_pass():
    """"No unit at a Location? You pass.": an empty slot opens no window and asks nobody."""
    state = position(hands={0: ["Hush"], 1: ["Hush"]}, face_down={1: {2: "Vanguard Drone"}})
    assert state.phase == "response"
    assert state.view(None)["window"]["revealed"] == {"seat": 1, "location": 2, "id": "vanguard-drone",
                                                      "name": "Vanguard Drone"}
    assert state.to_act() == (0,)


def test_exact_rule_finish_a_location_before_moving_on_and_never_go_back():
    """"Finish a Location before moving on - and never go back": a Location's window closes
    before the next Location is revealed, and a unit moved back to Location 1 is not revisited."""
    state = position(hands={1: ["Hush", "Hush"]},
                     face_down={0: {1: "Vanguard Drone", 2: "Drop Trooper"}, 1: {1: "Recruit of the Line"}})
    assert state.view(None)["window"]["revealed"]["location"] == 1
    events = pass_(state, 1)
    assert [e.data["location"] for e in kinds(events, "reveal")] == [1, 2]
    events = pass_(state, 1)
    # Drop Trooper's On Reveal moved it to the Rear; deployment never returns to Location 1 or 2
    assert any(e.kind == "move" for e in events)
    assert not kinds(events, "reveal")


def test_exact_rule_flipping_deploys_the_unit_but_its_ability_is_pending():
    """"Flipping a card face up deploys it - but its ability is pending. It doesn't fire yet.\""""
    state = position(hands={1: ["Hush"]}, face_down={0: {1: "Data Thief"}}, decks={0: ["Shieldbearer"]})
    assert state.phase == "response"
    assert state.view(None)["locations"][0]["units"][0]["name"] == "Data Thief"  # deployed, face up
    assert state.view(0)["hand"] == []  # the draw has not happened
    assert state.view(None)["window"]["pending"] == "Draw 1 card."
    pass_(state, 1)
    assert hand_names(state, 0) == ["Shieldbearer"]


def test_exact_rule_response_window_opponents_answer_one_each():
    """"A response window opens: opponents may answer at Lightspeed - one each - until everyone passes.\""""
    state = position(seats=3, hands={0: ["Hush"], 1: ["Hush", "Sabotage"], 2: ["Sabotage"]},
                     face_down={0: {1: "Shieldbearer"}})
    assert state.to_act() == (1,)  # never the revealing player
    assert Action.of("respond", card="hush") not in state.legal_actions(0)
    respond(state, 1, "Hush")
    assert state.to_act() == (2,)  # Seat 1 answered once and is not asked again
    pass_(state, 2)
    assert state.phase != "response"
    assert hand_names(state, 1) == ["Sabotage"]


def test_exact_rule_responses_resolve_newest_first():
    """"Responses resolve newest-first": Sabotage (played last) makes Shieldbearer CQ 2 before
    Severance (played first) checks for CQ 3 or less."""
    state = position(seats=3, hands={1: ["Severance"], 2: ["Sabotage"]}, face_down={0: {1: "Shieldbearer"}})
    respond(state, 1, "Severance")
    events = respond(state, 2, "Sabotage")
    resolved = [e.text for e in kinds(events, "resolve")]
    assert resolved == ["Seat 2's Sabotage resolves", "Seat 1's Severance resolves"]
    assert "Seat 0's Shieldbearer at Location 1 is destroyed" in public(events)
    assert state.locations[0].slots[0] is None


def test_exact_rule_state_check_mute_cancels_the_pending_ability():
    """"If a response ... muted it first, the ability is gone.\""""
    state = position(hands={1: ["Hush", STOPPER]}, face_down={0: {1: "Data Thief"}}, decks={0: ["Shieldbearer"]})
    events = respond(state, 1, "Hush")
    assert "Data Thief's On Reveal is gone: the unit is muted" in public(events)
    assert hand_names(state, 0) == []
    assert state.locations[0].slots[0].muted


def test_exact_rule_state_check_destroy_fires_when_destroyed_and_cancels_the_ability():
    """"If a response destroyed ... it first, the ability is gone"; C7: When Destroyed fires."""
    state = position(hands={1: ["Annihilate", STOPPER]}, face_down={0: {1: "Ember Martyr", 2: "Vanguard Drone"}})
    events = respond(state, 1, "Annihilate")
    texts = public(events)
    assert texts.index("Seat 0's Ember Martyr at Location 1 is destroyed") < texts.index(
        "Seat 0 gains 1 Conquest")
    assert "Ember Martyr's On Reveal is gone: the unit is destroyed" in texts
    assert state.players[0].conquest == 1
    assert "ember-martyr" in [c["id"] for c in state.view(None)["players"][0]["discard"]]


def test_exact_rule_state_check_resolves_the_ability_when_the_unit_is_still_here_and_not_muted():
    """"State check: if the unit is still here and not muted, its pending ability resolves"; a
    response that only lowers its CQ does not stop it."""
    state = position(hands={1: ["Sabotage", STOPPER]}, face_down={0: {2: "Ember Martyr"}},
                     face_up={0: {1: "Vanguard Drone"}})
    events = respond(state, 1, "Sabotage")
    texts = public(events)
    assert "Seat 0's Ember Martyr at Location 2, On Reveal: Your other units in the Forward Skirmish get +1 CQ." \
        in texts
    assert state.cq_of(state.locations[0].slots[0]) == 3
    assert state.cq_of(state.locations[1].slots[0]) == 0


def test_R_still_here_a_moved_unit_loses_its_pending_ability():
    """R-Still-Here: "if the unit is still here": a response that moves it away cancels the ability."""
    state = position(hands={1: ["Displacement", STOPPER]}, face_down={0: {1: "Data Thief"}},
                     decks={0: ["Shieldbearer"]})
    events = respond(state, 1, "Displacement")
    assert "Data Thief's On Reveal is gone: the unit is no longer there" in public(events)
    assert state.locations[-1].kind == "extra" and state.locations[-1].slots[0] is not None
    assert hand_names(state, 0) == []


# --------------------------------------------------------------------------- the Rear Skirmish


def test_exact_rule_rear_skirmish_runs_the_same_three_phases_from_the_cards_left_in_hand():
    """"The same three phases - Celestial -> Placement -> Deployment (reveal 5 -> 7) - played from
    the cards left in your hand.\""""
    state = position(phase="placement", hands={0: ["Vanguard Drone", "Iron Legionnaire"], 1: []},
                     celestials_played=[1], celestials={0: "The Quiet Sun"})
    events = place(state, 0, {1: "Vanguard Drone"})
    assert "The Rear Skirmish begins: Celestial phase" in public(events)
    assert state.phase == "celestial" and state.skirmish == 1
    pass_(state, 0)
    assert state.phase == "placement"
    assert [a["location"] for a in state.legal_actions(0)] == [5, 5]
    events = place(state, 0, {6: "Iron Legionnaire"})
    assert [e.data["location"] for e in kinds(events, "reveal")] == [6]


def test_exact_rule_forward_units_stay_and_the_rear_skirmish_sees_them():
    """"Your Forward Skirmish units stay on the board, and the two skirmishes can affect each other":
    a Rear unit's On Reveal destroys a Forward unit."""
    state = position(skirmish="rear", battle=3, face_up={1: {2: "Vanguard Drone", 3: "Iron Legionnaire"}},
                     face_down={0: {5: "Siege Breaker"}})
    texts = public(state.opening_events)
    assert "Seat 1's Vanguard Drone at Location 2 is destroyed" in texts
    assert "Seat 1 adds 3 CQ to their Conquest Pool (now 3)" in texts


def test_exact_rule_forward_units_affect_the_rear_skirmish():
    """A Forward unit's Ongoing ability raises the CQ of units in the Rear Skirmish."""
    state = position(phase="end_of_battle", face_up={0: {1: "Banner of the Eighth Host", 5: "Vanguard Drone"}})
    assert state.players[0].conquest == 2 + (2 + 1)


# --------------------------------------------------------------------------- End of Battle


def test_exact_rule_fragments_upload_before_end_of_battle_abilities():
    """"Any Black Energy Fragments held in hand go up to the Upload Zone. 'At the End of Battle'
    abilities resolve" - in that order: Archive Warden counts the Fragments just uploaded."""
    state = position(phase="end_of_battle", battle=3,
                     hands={0: ["Black Energy Fragment", "Shard of the Null Star", "Hush"]},
                     face_up={0: {1: "Archive Warden"}})
    texts = public(state.opening_events)
    upload = next(i for i, t in enumerate(texts) if "uploads" in t)
    ability = next(i for i, t in enumerate(texts) if "At the End of Battle" in t)
    assert upload < ability
    assert state.players[0].conquest == 2 + 2  # 2 CQ, plus 1 Conquest per uploaded Fragment
    assert hand_names(state, 0) == ["Hush"]


def test_exact_rule_end_of_battle_abilities_resolve_lowest_location_first():
    """"'At the End of Battle' abilities resolve, lowest Location first" (C9: Extra Locations after 7,
    turn order within a Location)."""
    state = position(phase="end_of_battle", active=1, extra_locations=1,
                     face_up={0: {1: "Sky Lantern", 3: "Sky Lantern", 8: "Sky Lantern"},
                              1: {1: "Sky Lantern", 6: "Sky Lantern"}},
                     decks={0: ["Vanguard Drone"] * 10, 1: ["Vanguard Drone"] * 10})
    order = [(e.data["location"], e.data["seat"]) for e in kinds(state.opening_events, "ability")]
    assert order == [(1, 1), (1, 0), (3, 0), (6, 1), (8, 0)]


def test_exact_rule_total_cq_of_face_up_units_across_locations_1_to_7_and_extra_locations():
    """"Count the Total CQ of all your face-up units across the Battle Zone - Locations 1-7 and the
    Extra Locations - and add it to your Conquest Pool.\""""
    state = position(phase="end_of_battle", extra_locations=2, conquest={0: 10},
                     face_up={0: {1: "Vanguard Drone", 7: "Shieldbearer", 9: "Iron Legionnaire"},
                              1: {4: "Recruit of the Line"}})
    assert state.players[0].conquest == 10 + 2 + 4 + 3
    assert state.players[1].conquest == 1


def test_exact_rule_plagued_unit_counts_minus_one_whatever_its_printed_cq():
    """"A Plagued unit counts as -1, whatever its printed CQ.\""""
    state = position(phase="end_of_battle", face_up={0: {1: {"name": "Bulwark Titan", "plagued": True},
                                                         2: {"name": "Vanguard Drone", "cq_bonus": 3}},
                                                     1: {1: {"name": "Recruit of the Line", "plagued": True}}})
    assert state.players[0].conquest == -1 + 5
    assert state.players[1].conquest == -1


def test_exact_rule_clearing_the_battle_zone_is_not_destruction():
    """"Every unit in the battle zone ... goes to its owner's discard pile ... This isn't destruction
    - no 'when destroyed' abilities fire.\""""
    state = position(phase="end_of_battle", battle=3, extra_locations=1,
                     face_up={0: {1: "Last Stand Veteran", 8: "Void Sower"}, 1: {2: "Volatile Reactor"}})
    assert not kinds(state.opening_events, "destroy")
    assert state.players[0].conquest == 3 + 2  # no +2 from Last Stand Veteran
    assert sorted(c["name"] for c in state.view(None)["players"][0]["discard"]) == ["Last Stand Veteran",
                                                                                   "Void Sower"]
    assert all(loc.kind != "extra" for loc in state.locations)  # no Extra Location from Void Sower
    assert all(s is None for loc in state.locations for s in loc.slots)


def test_exact_rule_celestials_and_uploads_stay_and_the_hand_carries_over():
    """"Celestials and uploaded cards stay (they're outside the battle zone), and your hand carries over.\""""
    state = position(phase="end_of_battle", celestials={0: "The Quiet Sun"}, celestials_played=[0, 1],
                     uploads={0: ["Dormant Core"]}, hands={0: ["Hush"]}, decks={0: ["Vanguard Drone"] * 7},
                     face_up={0: {1: "Vanguard Drone"}})
    assert state.battle == 2
    assert state.players[0].celestial_played
    assert [c["name"] for c in state.view(0)["players"][0]["uploads"]] == ["Dormant Core"]
    assert hand_names(state, 0).count("Hush") == 1 and len(hand_names(state, 0)) == 8


def test_exact_rule_then_the_next_battle_begins():
    """"Then the next Battle begins": the active player rotates and everyone draws 7."""
    state = position(seats=3, active=2, phase="end_of_battle",
                     decks={s: ["Vanguard Drone"] * 10 for s in range(3)})
    assert state.battle == 2 and state.active == 0 and state.order == (0, 1, 2)
    assert all(len(p.hand) == 7 for p in state.players)


# --------------------------------------------------------------------------- the result


def test_exact_rule_most_conquest_wins():
    """"No target score - it's a race for the most Conquest.\""""
    state = position(seats=4, battle=3, phase="end_of_battle", conquest={0: 5, 1: 9, 2: 7, 3: 1})
    assert state.outcome.places == (3, 1, 2, 4)
    assert state.outcome.winner == 1 and state.outcome.reason == "Conquest"


def test_exact_rule_a_tie_is_broken_by_match_the_twos():
    """"A tie is broken by Match the Twos": the outcome records every reveal."""
    lists = {0: ["Shieldbearer"] * 40, 1: ["Vanguard Drone"] * 40}
    state = position(battle=3, phase="end_of_battle", conquest={0: 4, 1: 4}, deck_lists=lists)
    assert state.outcome.places == (1, 2)
    rounds = state.outcome.detail["match_the_twos"][0]["rounds"]
    assert rounds[0]["reveals"][0] == {"seat": 0, "cards": ["Shieldbearer", "Shieldbearer"], "matched_cq": 4}


# --------------------------------------------------------------------------- every number is a default


def test_exact_rule_a_card_that_adds_a_battle_makes_the_match_last_four():
    """"Every number here is a default. A card's text can change it - even the number of Battles.\""""
    state = position(battle=3, face_down={0: {1: "Chronicler of Battles"}},
                     decks={0: ["Vanguard Drone"] * 20, 1: ["Vanguard Drone"] * 20})
    assert state.params.battles == 4
    assert state.battle == 4 and state.outcome is None
    play_randomly(state, Rng(1))
    assert state.outcome.detail["battles"] == 4


def test_exact_rule_a_celestial_that_adds_a_battle_makes_a_full_match_last_four():
    """A whole match from the start: Crown of the Long Night played in Battle 1 gives four Battles."""
    starter = GAME.starter_decks()
    decks = [starter["Fragment Archive"], starter["Void Choir"]]  # no other card adds a Battle
    decks[0] = GAME.parse_deck(decks[0].to_text("Celestial").replace(decks[0].commander, "Crown of the Long Night"))
    state = GAME.new_match(decks, seed=3)
    rng = Rng(3)
    battles = set()
    while state.outcome is None:
        battles.add(state.battle)
        seat = state.to_act()[0]
        actions = state.legal_actions(seat)
        crown = Action.of("play_celestial", card="crown-of-the-long-night")
        state.apply(seat, crown if crown in actions else rng.choice(actions))
    assert battles == {1, 2, 3, 4}
    assert state.outcome.detail["battles"] == 4


def test_exact_rule_a_card_that_draws_8():
    """Quartermaster: "each player draws 1 more card at the start of each Battle" - a draw of 8."""
    state = position(face_down={0: {1: "Quartermaster"}},
                     decks={0: ["Vanguard Drone"] * 20, 1: ["Vanguard Drone"] * 20})
    assert state.params.draw_per_battle == 8
    assert state.battle == 2
    assert [len(p.hand) for p in state.players] == [8, 8]
