"""One test per ruling of shared/RULINGS.md (C1-C10) and per ruling of our own (R-..., in
engine/conquest/site/rules.md), each from the smallest position that shows it. C11 (Match the Twos)
is in test_match_the_twos.py.
"""

from __future__ import annotations

import pytest

from engine.conquest import GAME
from engine.conquest.positions import position
from engine.core import Action, DeckError, Decklist, IllegalAction, Rng

from .helpers import STOPPER, hand_names, kinds, pass_, place, play_randomly, public, respond, starters

# --------------------------------------------------------------------------- C1 Setup


def test_C1_a_deck_is_one_celestial_plus_exactly_40_cards_at_most_3_copies():
    """C1: every problem of a decklist at once, in words."""
    bad = Decklist(commander=None, cards=(("Hush", 4), ("The Quiet Sun", 1), ("Not A Card", 2),
                                          ("Vanguard Drone", 3)))
    problems = GAME.validate_deck(bad)
    assert "no Celestial: a deck names exactly one (a line 'Celestial: Name')" in problems
    assert "4 copies of Hush; at most 3 allowed" in problems
    assert "The Quiet Sun is a Celestial: it goes on the 'Celestial:' line, not among the cards" in problems
    assert "unknown card 'Not A Card'" in problems
    assert "10 cards; a deck has exactly 40 (plus its Celestial)" in problems
    wrong_commander = Decklist(commander="Hush", cards=GAME.starter_decks()["Void Choir"].cards)
    assert GAME.validate_deck(wrong_commander) == ["Hush is not a Celestial (it is a lightspeed card)"]


def test_C1_parse_deck_reports_every_problem_and_new_match_refuses_illegal_decks():
    """C1: parse_deck raises DeckError with every problem; new_match names the seat."""
    with pytest.raises(DeckError) as info:
        GAME.parse_deck("Celestial: The Quiet Sun\n4 Hush\n1 Vanguard Dron\n")
    assert "4 copies of Hush; at most 3 allowed" in info.value.problems
    unknown = [p for p in info.value.problems if "Vanguard Dron'" in p]
    assert unknown == ["unknown card 'Vanguard Dron' (did you mean Vanguard Drone?)"]  # said once
    bad = Decklist(commander="The Quiet Sun", cards=(("Hush", 4),))
    with pytest.raises(DeckError) as info:
        GAME.new_match([GAME.starter_decks()["Void Choir"], bad], seed=1)
    assert "seat 1 (deck): 4 copies of Hush; at most 3 allowed" in info.value.problems


def test_C1_two_to_four_players():
    """C1: 2 to 4 players."""
    for seats in (2, 3, 4):
        assert GAME.new_match(starters(seats), seed=1).num_seats == seats
    for seats in (1, 5):
        with pytest.raises(ValueError, match="2 to 4 players"):
            GAME.new_match(starters(seats), seed=1)


def test_C1_the_celestial_waits_outside_the_deck():
    """C1: the Celestial is in its own zone, never drawn."""
    state = GAME.new_match(starters(2), seed=4)
    for player in state.players:
        assert all(c != player.celestial for c in player.deck + player.hand)
        assert len(player.deck) + len(player.hand) == 40


# --------------------------------------------------------------------------- C2 Battles


def test_C2_the_seed_picks_the_active_player_of_battle_1():
    """C2: the seed picks the active player of Battle 1 (every seat can be picked)."""
    firsts = {GAME.new_match(starters(3), seed=s).active for s in range(40)}
    assert firsts == {0, 1, 2}
    assert GAME.new_match(starters(3), seed=9).active == GAME.new_match(starters(3), seed=9).active


def test_C2_the_active_player_rotates_each_battle_and_turn_order_runs_by_seat():
    """C2: the role passes to the next seat each Battle; turn order runs by seat from the active player."""
    state = GAME.new_match(starters(4), seed=12)
    first = state.active
    rng = Rng(12)
    seen = {}
    while state.outcome is None:
        seen[state.battle] = (state.active, state.order)
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    for battle, (active, order) in seen.items():
        assert active == (first + battle - 1) % 4
        assert order == tuple((active + i) % 4 for i in range(4))


def test_C2_three_battles_by_default():
    """C2: 3 Battles by default."""
    starter = GAME.starter_decks()
    state = GAME.new_match([starter["Fragment Archive"], starter["Void Choir"]], seed=8)
    play_randomly(state, Rng(8))
    assert state.outcome.detail["battles"] == 3


# --------------------------------------------------------------------------- C3 Drawing


def test_C3_an_empty_deck_is_refilled_by_shuffling_the_discard_pile():
    """C3: an empty deck is refilled by shuffling the discard pile."""
    state = position(hands={1: [STOPPER]}, face_down={0: {1: "Data Thief"}},
                     discards={0: ["Shieldbearer", "Iron Legionnaire"]})
    events = pass_(state, 1)
    assert "Seat 0 shuffles their discard pile into a new deck" in public(events)
    assert len(hand_names(state, 0)) == 1
    assert state.view(0)["players"][0]["deck_count"] == 1
    assert state.view(0)["players"][0]["discard"] == []


def test_C3_nothing_is_drawn_when_deck_and_discard_are_empty():
    """C3: if both are empty, nothing is drawn."""
    state = position(hands={1: [STOPPER]}, face_down={0: {1: "Data Thief"}})
    events = pass_(state, 1)
    assert "Seat 0 drew 0 cards (of 1: deck and discard pile are empty)" in public(events)
    assert hand_names(state, 0) == []


def test_C3_there_is_no_hand_limit():
    """C3: there is no hand limit: a hand of 20 keeps all 20 after the Battle's draw."""
    state = position(phase="end_of_battle", hands={0: ["Hush"] * 13}, decks={0: ["Vanguard Drone"] * 7})
    assert len(hand_names(state, 0)) == 20


# --------------------------------------------------------------------------- C4 Celestial


def test_C4_a_celestial_is_played_once_per_match_and_stays_with_its_ongoing_effect():
    """C4: once per match, in any Celestial phase; it resolves at once and its Ongoing effect stays."""
    state = position(phase="celestial", celestials={0: "The Quiet Sun"}, celestials_played=[1],
                     hands={0: ["Vanguard Drone"]})
    state.apply(0, Action.of("play_celestial", card="the-quiet-sun"))
    assert state.players[0].celestial_played
    place(state, 0, {1: "Vanguard Drone"})
    # Rear Skirmish: the spent Celestial is not offered again (Seat 0 is skipped)
    assert state.phase != "celestial"
    assert state.players[0].conquest == 3  # Vanguard Drone 2 + 1 from The Quiet Sun
    assert state.battle == 2
    assert state.view(None)["players"][0]["celestial_played"]


def test_C4_a_celestial_can_wait_for_a_later_celestial_phase():
    """C4: "in any Celestial phase": passing keeps the Celestial for later, even a later Battle."""
    state = position(phase="celestial", celestials={0: "The Open Sky"}, celestials_played=[1],
                     skirmish="rear", hands={0: [STOPPER]}, decks={0: ["Vanguard Drone"] * 8})
    pass_(state, 0)
    place(state, 0, {})
    assert state.battle == 2 and state.phase == "celestial" and state.to_act() == (0,)
    events = state.apply(0, Action.of("play_celestial", card="the-open-sky"))
    assert "Extra Location 8 is created" in public(events)


# --------------------------------------------------------------------------- C5 Placement


def test_C5_only_units_can_be_placed():
    """C5: only units can be placed (not Lightspeed cards, not Fragments)."""
    state = position(phase="placement", hands={0: ["Hush", "Black Energy Fragment", "Vanguard Drone"]})
    cards = {a["card"] for a in state.legal_actions(0)}
    assert cards == {"empty", "vanguard-drone"}
    for card in ("hush", "black-energy-fragment"):
        before = state.to_json()
        with pytest.raises(IllegalAction, match="only units can be placed"):
            state.apply(0, Action.of("place", card=card, location=1))
        assert state.to_json() == before


def test_C5_one_action_per_card_id_and_copies_are_counted():
    """C5: two copies in hand give one action; a card is not placed more often than held."""
    state = position(phase="placement", hands={0: ["Vanguard Drone", "Vanguard Drone", "Shieldbearer"]})
    assert [a["card"] for a in state.legal_actions(0)] == ["empty", "shieldbearer", "vanguard-drone"]
    state.apply(0, Action.of("place", card="vanguard-drone", location=1))
    state.apply(0, Action.of("place", card="vanguard-drone", location=2))
    assert [a["card"] for a in state.legal_actions(0)] == ["empty", "shieldbearer"]
    with pytest.raises(IllegalAction, match="no Vanguard Drone left"):
        state.apply(0, Action.of("place", card="vanguard-drone", location=3))


def test_C5_amended_a_confirmed_placement_shows_nothing_until_the_lock_then_face_down_markers():
    """RULINGS C5 (amended): until every seat has confirmed, the others see only that a seat has
    confirmed; once placement locks, face-down markers show to everyone, the cards to the owner only."""
    state = position(phase="placement", hands={0: ["Shieldbearer", "Hush"], 1: ["Vanguard Drone", "Hush"]})
    events = place(state, 0, {3: "Shieldbearer"})
    public_data = [e.data for e in events if e.private_to is None]
    assert public_data == [{"seat": 0}]  # "Seat 0 has confirmed its placement", no Location
    for seat in (1, None):
        view = state.view(seat)
        assert view["players"][0]["placement"] == "submitted"
        assert all(u is None for loc in view["locations"] for u in loc["units"])
        assert "placing" not in view or view["placing"]["picks"] == []
    assert state.view(1)["players"][0]["hand_count"] == 2
    assert state.view(0)["placing"]["confirmed"] is True
    place(state, 1, {1: "Vanguard Drone"})
    assert state.phase == "response"  # Seat 0 may answer the Vanguard Drone revealed at Location 1
    for seat in (1, None):
        assert state.view(seat)["locations"][2]["units"][0] == {"owner": 0, "face_down": True}
    assert state.view(0)["locations"][2]["units"][0]["id"] == "shieldbearer"


def test_R_placement_steps_one_location_at_a_time_submitted_with_the_last():
    """R-Placement-Steps: a placement is built Location by Location ("empty" or a unit id) and
    submitted when the last Location is chosen; cards leave the hand when placement locks
    (RULINGS C5, amended)."""
    state = position(phase="placement", hands={0: ["Shieldbearer", "Vanguard Drone"], 1: ["Hush"]})
    assert {a["location"] for a in state.legal_actions(0)} == {1}
    events = state.apply(0, Action.of("place", card="shieldbearer", location=1))
    assert [e.private_to for e in events] == [0]  # only the placing seat hears of its choice
    assert state.view(1)["players"][0]["hand_count"] == 2
    with pytest.raises(IllegalAction, match="the next Location to fill is 2"):
        state.apply(0, Action.of("place", card="vanguard-drone", location=3))
    for number in (2, 3, 4):
        state.apply(0, Action.of("place", card="empty", location=number))
    assert state.view(1)["players"][0]["hand_count"] == 2  # confirmed, not locked: nothing shows
    place(state, 1, {})
    assert state.view(1)["players"][0]["hand_count"] == 1


def test_R_placement_view_an_unfinished_placement_shows_nothing_to_the_others():
    """R-Placement-View: while a seat is choosing, the others see only that it is still placing."""
    state = position(phase="placement", hands={0: ["Shieldbearer"], 1: ["Vanguard Drone"]})
    state.apply(0, Action.of("place", card="shieldbearer", location=1))
    theirs = state.view(1)
    assert theirs["players"][0]["placement"] == "placing"
    assert theirs["placing"]["picks"] == []  # Seat 1's own placement, not Seat 0's
    assert all(u is None for loc in theirs["locations"] for u in loc["units"])
    assert state.view(0)["placing"]["picks"] == [{"id": "shieldbearer", "name": "Shieldbearer"}]


def test_R_placement_skip_a_seat_with_an_empty_hand_is_not_asked():
    """R-Placement-Skip: a seat with no card in hand (a public count) has nothing to place."""
    state = position(phase="placement", hands={0: ["Hush"], 1: []})
    assert state.to_act() == (0,)
    assert [a["card"] for a in state.legal_actions(0)] == ["empty"]  # a Lightspeed-only hand still decides


# --------------------------------------------------------------------------- C6 Responses


def test_C6_each_opponent_in_turn_order_may_play_at_most_one_lightspeed_card():
    """C6: each opponent of the revealing player, in turn order, one Lightspeed card at most."""
    state = position(seats=4, active=2, hands={0: ["Hush"], 1: ["Hush"], 2: ["Hush"], 3: ["Hush"]},
                     face_down={3: {1: "Shieldbearer"}})
    asked = []
    while state.phase == "response":
        seat = state.to_act()[0]
        asked.append(seat)
        assert len([a for a in state.legal_actions(seat) if a.kind == "respond"]) == 1
        pass_(state, seat)
    assert asked == [2, 0, 1]  # turn order from the active player (2), without the revealer (3)


def test_C6_the_window_closes_when_every_opponent_has_passed_or_responded():
    """C6: the window closes after each opponent's one decision; then the state check runs."""
    state = position(seats=3, hands={1: ["Hush", STOPPER], 2: [STOPPER]}, face_down={0: {1: "Data Thief"}},
                     decks={0: ["Shieldbearer"]})
    respond(state, 1, "Hush")
    events = pass_(state, 2)
    assert "Data Thief's On Reveal is gone: the unit is muted" in public(events)
    assert state.phase == "placement"


def test_R_responders_an_opponent_with_no_card_in_hand_is_not_asked():
    """R-Responders: every opponent holding a card is asked (whatever it holds: hands are hidden);
    an opponent with an empty hand (a public count) is skipped."""
    state = position(seats=3, hands={1: [STOPPER]}, face_down={0: {1: "Vanguard Drone"}})
    assert state.to_act() == (1,)
    assert state.legal_actions(1) == [Action.of("pass")]


def test_C6_a_lightspeed_card_cannot_be_played_outside_a_response_window():
    """C6: Lightspeed cards are played only in a response window."""
    state = position(phase="celestial", celestials_played=[], hands={0: ["Hush"]})
    with pytest.raises(IllegalAction, match="C4"):
        state.apply(0, Action.of("respond", card="hush"))


# --------------------------------------------------------------------------- C7 Units


def test_C7_a_muted_unit_loses_ongoing_end_of_battle_and_when_destroyed_abilities():
    """C7: Muted loses all abilities: no Ongoing, no At the End of Battle, no When Destroyed."""
    state = position(phase="end_of_battle", battle=3,
                     face_up={0: {1: {"name": "Dread Banner", "muted": True},
                                  2: {"name": "Pale Executioner", "muted": True},
                                  3: {"name": "Sky Lantern", "muted": True}},
                              1: {1: "Vanguard Drone", 2: "Recruit of the Line"}})
    assert not kinds(state.opening_events, "ability")
    assert state.players[1].conquest == 2 + 1  # Dread Banner's -1 is gone, Recruit survives
    muted = position(hands={1: ["Annihilate", STOPPER]}, face_down={0: {1: "Vanguard Drone"}},
                     face_up={0: {2: {"name": "Volatile Reactor", "muted": True}}, 1: {2: "Shieldbearer"}})
    muted.locations[1].slots[0].muted = True
    respond(muted, 1, "Annihilate")
    assert muted.locations[1].slots[1] is not None  # Volatile Reactor would have destroyed it


def test_R_muted_cq_a_muted_unit_keeps_its_cq():
    """R-Muted-CQ: muting removes abilities, not CQ: a muted unit still scores its CQ."""
    state = position(phase="end_of_battle", face_up={0: {1: {"name": "Shieldbearer", "muted": True}}})
    assert state.players[0].conquest == 4


def test_C7_and_R_cq_plagued_counts_minus_one_at_scoring_only():
    """C7: Plagued counts -1 CQ at scoring whatever its printed CQ; R-CQ: its current CQ is unchanged
    for effects that read CQ."""
    state = position(hands={1: ["Contagion Burst", STOPPER]}, face_down={0: {1: "Shieldbearer"}})
    respond(state, 1, "Contagion Burst")
    unit = state.locations[0].slots[0]
    assert unit.plagued and state.cq_of(unit) == 4
    cell = state.view(None)["locations"][0]["units"][0]
    assert cell["plagued"] and cell["cq"] == 4 and cell["counts"] == -1


def test_C7_destroyed_goes_to_the_discard_pile_and_when_destroyed_fires():
    """C7: destroyed: to the discard pile; When Destroyed fires."""
    state = position(hands={1: ["Annihilate", STOPPER]}, face_down={0: {1: "Last Stand Veteran"}})
    events = respond(state, 1, "Annihilate")
    assert "Seat 0 gains 2 Conquest" in public(events)
    assert [c["name"] for c in state.view(None)["players"][0]["discard"]] == ["Last Stand Veteran"]


def test_C7_being_cleared_at_the_end_of_a_battle_is_not_destruction():
    """C7: clearing fires no When Destroyed (Volatile Reactor destroys nothing, Veteran gains nothing)."""
    state = position(phase="end_of_battle", battle=3,
                     face_up={0: {1: "Volatile Reactor", 2: "Last Stand Veteran"}, 1: {1: "Shieldbearer"}})
    assert not kinds(state.opening_events, "destroy")
    assert state.outcome.scores == (5, 4)


# --------------------------------------------------------------------------- C8 Fragments


def test_C8_fragments_in_hand_go_to_the_upload_zone_where_card_text_counts_them():
    """C8: at the end of each Battle Fragments in hand upload; Fragment Scholar counts them."""
    state = position(phase="end_of_battle", hands={0: ["Whispering Fragment", "Dormant Core", "Hush"]},
                     uploads={0: ["Black Energy Fragment"]}, face_up={0: {1: "Fragment Scholar"}}, battle=3)
    assert state.players[0].conquest == 1 + 3
    assert sorted(c["name"] for c in state.view(None)["players"][0]["uploads"]) == [
        "Black Energy Fragment", "Dormant Core", "Whispering Fragment"]
    assert hand_names(state, 0) == ["Hush"]


# --------------------------------------------------------------------------- C9 End of Battle order


def test_C9_end_of_battle_order_upload_abilities_score_clear():
    """C9: Fragments upload; then At the End of Battle abilities; then Total CQ is added; then clearing."""
    state = position(phase="end_of_battle", battle=3, hands={0: ["Black Energy Fragment"]},
                     face_up={0: {1: "Archive Warden", 2: "Harvest Engine", 5: "Vanguard Drone"}})
    order = [e.kind for e in state.opening_events if e.kind in ("upload", "ability", "score", "clear")]
    assert order == ["upload", "ability", "ability", "score", "score", "clear"]
    # Harvest Engine's End of Battle +1 counts in the same Battle's total
    assert state.players[0].conquest == 1 + (2 + 2 + 3)


def test_C9_a_total_may_be_negative():
    """C9: a total may be negative."""
    state = position(phase="end_of_battle", battle=3, conquest={0: 1},
                     face_up={0: {1: {"name": "Shieldbearer", "plagued": True},
                                  2: {"name": "Vanguard Drone", "plagued": True}}})
    assert state.players[0].conquest == 1 - 2


def test_R_end_of_battle_snapshot_a_unit_destroyed_earlier_does_not_fire():
    """R-EoB-Snapshot: a unit destroyed by an earlier End of Battle ability does not fire its own."""
    state = position(phase="end_of_battle", battle=3,
                     face_up={0: {1: "Pale Executioner"}, 1: {1: "Pestilent Swarm"}})
    abilities = [e.text for e in kinds(state.opening_events, "ability")]
    assert len(abilities) == 1 and "Pale Executioner" in abilities[0]


# --------------------------------------------------------------------------- C10 Result


def test_C10_players_rank_by_conquest_pool():
    """C10: after the last Battle, players rank by Conquest Pool."""
    state = position(seats=3, battle=3, phase="end_of_battle", conquest={0: 2, 1: 8, 2: 5})
    assert state.outcome.places == (3, 1, 2)
    assert state.outcome.scores == (2, 8, 5)
    assert state.to_act() == ()


def test_R_concession_the_others_rank_by_current_conquest():
    """R-Concession: the conceding seat is last; the others rank by their current Conquest."""
    state = position(seats=4, phase="placement", conquest={0: 3, 1: 9, 2: 3, 3: 1},
                     hands={s: [STOPPER] for s in range(4)})
    events = state.apply(1, Action.of("concede", reason="left the table"))
    assert state.outcome.places == (1, 4, 1, 3)
    assert state.outcome.reason == "concession"
    assert state.outcome.detail["reason"] == "left the table"
    assert public(events) == ["Seat 1 concedes: left the table"]
    with pytest.raises(IllegalAction):
        state.apply(0, Action.of("concede", reason="again"))


# --------------------------------------------------------------------------- rulings of our own


def test_R_targets_ties_for_strongest_go_to_the_lowest_location_then_turn_order():
    """R-Targets: abilities choose no targets; "the strongest enemy unit" on a tie is the one at the
    lowest Location, then the earliest in turn order."""
    state = position(seats=3, skirmish="rear", face_up={1: {3: "Shieldbearer"}, 2: {2: "Shieldbearer"}},
                     face_down={0: {5: "Rot Herald"}})
    plagued = [e.text for e in kinds(state.opening_events, "plague")]
    assert plagued == ["Seat 2's Shieldbearer at Location 2 is Plagued"]


def test_R_extra_locations_join_the_rear_skirmish_and_close_at_the_end_of_the_battle():
    """R-Extra: an Extra Location made before the Rear Placement is placed into and revealed after 7;
    it is numbered after the last Location and closes at the end of the Battle."""
    state = position(hands={0: ["Vanguard Drone", STOPPER]}, face_down={0: {1: "Cartographer"}})
    assert [loc.number for loc in state.locations] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert [a["location"] for a in state.legal_actions(0)][:1] == [5]
    events = place(state, 0, {8: "Vanguard Drone", 5: STOPPER})
    assert [e.data["location"] for e in kinds(events, "reveal")] == [5, 8]
    assert all(loc.kind != "extra" for loc in state.locations)  # the next Battle has begun


def test_R_extra_locations_are_capped_by_a_rules_parameter():
    """R-Extra: a Battle holds at most ``max_extra_locations`` (3) Extra Locations."""
    state = position(phase="celestial", celestials_played=[1], celestials={0: "The Open Sky"},
                     extra_locations=2, hands={0: [STOPPER]})
    events = state.apply(0, Action.of("play_celestial", card="the-open-sky"))
    assert sum(loc.kind == "extra" for loc in state.locations) == 3
    assert any("No Extra Location is created" in t for t in public(events))


def test_R_move_goes_to_the_first_free_location_of_its_kind():
    """R-Move: a moved unit goes to the first Location of the named kind where its owner has no unit;
    a Rear Location it fills is not offered in the Rear Placement."""
    state = position(face_down={0: {1: "Drop Trooper"}}, face_up={0: {5: "Vanguard Drone"}},
                     hands={0: [STOPPER]})
    assert "Seat 0's Drop Trooper moves from Location 1 to Location 6" in public(state.opening_events)
    assert state.phase == "placement"
    assert [state.locations[i].number for i in state.place_locs[0]] == [7]


def test_R_mulligan_redraws_as_many_cards_as_were_shuffled_back():
    """R-Mulligan: each player in turn order keeps or mulligans; a mulligan redraws the same count."""
    state = GAME.new_match(starters(4), seed=21)
    for seat in state.order:
        assert state.to_act() == (seat,)
        state.apply(seat, Action.of("mulligan" if seat % 2 else "keep"))
        assert len(state.players[seat].hand) == 7
    assert state.phase == "celestial"


def test_R_params_match_params_override_defaults_and_bad_ones_are_named():
    """R-Params: a match can be created with other numbers; unknown or ill-typed params raise."""
    state = GAME.new_match(starters(2), seed=1, params={"draw_per_battle": 5, "battles": 2, "mulligans": 0})
    assert all(len(p.hand) == 5 for p in state.players) and state.phase == "celestial"
    for bad, word in (({"battles": "three"}, "battles"), ({"draw_per_battle": -1}, "draw_per_battle"),
                      ({"tiebreak": "coin"}, "tiebreak"), ({"no_such_rule": 1}, "no_such_rule")):
        with pytest.raises(ValueError, match=word):
            GAME.new_match(starters(2), seed=1, params=bad)
    assert GAME.default_params()["battles"] == 3


def test_R_params_a_forward_skirmish_of_five_locations():
    """R-Params: Locations per Skirmish are parameters: Forward 1-5, Rear 6-8."""
    state = position(phase="placement", params={"forward_locations": 5}, hands={0: ["Vanguard Drone"]})
    assert [state.locations[i].number for i in state.place_locs[0]] == [1, 2, 3, 4, 5]
    place(state, 0, {})
    assert [state.locations[i].number for i in state.place_locs[0]] == [6, 7, 8]


def test_R_discard_at_random_is_public():
    """R-Discard: "discard at random" picks with the match's random stream and shows the card."""
    state = position(hands={1: ["Hush", "Sabotage"]}, face_down={0: {1: "Null Siphon"}})
    events = pass_(state, 1)
    discards = kinds(events, "discard")
    assert len(discards) == 1 and discards[0].private_to is None
    assert len(state.players[1].hand) == 1


def test_R_open_decklists_every_seat_sees_every_decklist_but_not_where_the_cards_are():
    """R-Open-Decklists: views list every seat's 40-card list; hands and decks stay hidden."""
    state = GAME.new_match(starters(3), seed=6)
    for seat in (0, 1, 2, None):
        view = state.view(seat)
        for entry in view["players"]:
            assert sum(n for _, n in entry["decklist"]) == 40
            assert "hand" not in entry and entry["hand_count"] == 7


def test_R_celestial_skip_a_spent_celestial_is_not_asked_for():
    """R-Celestial-Skip: in a Celestial phase only seats whose Celestial is unspent are asked."""
    state = position(seats=3, phase="celestial", celestials_played=[0, 2],
                     celestials={1: "The Quiet Sun"}, hands={s: [STOPPER] for s in range(3)})
    assert state.to_act() == (1,)
    pass_(state, 1)
    assert state.phase == "placement"
