"""The rulings of engine/tempofront/site/rules.md (R1-R24), where the rules text and RULINGS.md
are silent. Each test names the ruling it pins."""

from __future__ import annotations

from engine.core import Action
from engine.tempofront import effects
from engine.tempofront.cards import BY_NAME, Effect
from engine.tempofront.state import Ctx, Unit

from .helpers import act, end_cycle, kinds, play, position, settle, unit_at

RECRUITS = ["Militia Recruit"] * 16


def test_R1_window_opens_on_public_counters_only():
    """R1: a response window opens unless the other player's public counters rule out
    every Reaction; it may offer only 'pass', so it never reveals the hand."""
    no_cards = position({"hand": ["Cinder Imp"]}, {})
    act(no_cards, 0, "deploy", card="cinder-imp", front="left", row="vanguard")
    assert no_cards.phase == "main", "no card in hand or Reserve: no window"

    bluff = position({"hand": ["Cinder Imp"]}, {"hand": ["Militia Recruit"]})
    act(bluff, 0, "deploy", card="cinder-imp", front="left", row="vanguard")
    assert bluff.phase == "response" and bluff.legal_actions(1) == [Action.of("pass")]

    full_timeline = position({"hand": ["Cinder Imp"]}, {"hand": ["Riposte"]}, time=(0, 12))
    act(full_timeline, 0, "deploy", card="cinder-imp", front="left", row="vanguard")
    assert full_timeline.phase == "main", "at 12 Time no Reaction fits"


def test_R2_pass_opens_no_window():
    """R2 (with RULINGS T18): Pass is not a main action and opens no response window."""
    state = position({"hand": ["Hush", "Cinder Imp"]}, {"hand": ["Countermand"]}, time=(0, 5))
    act(state, 0, "pass")
    assert state.phase == "main" and state.to_act() == (1,)


def test_R3_cancelled_costs_stay_paid_strike_does_not_exhaust_shift_stays_used():
    """R3: a cancelled Strike leaves its striker ready; a cancelled Shift still counts as
    the once-per-Cycle Shift; Time stays paid."""
    state = position({"left vanguard": "Iron Vanguard", "right vanguard": "Militia Recruit"},
                     {"left vanguard": "Militia Recruit", "hand": ["Hold the Line", "Countermand"]}, focus=(3, 5),
                     time=(0, 5))
    act(state, 0, "strike", front="left", row="vanguard", target="vanguard")
    act(state, 1, "react", card="hold-the-line")
    assert state.players[0].time == 2 and unit_at(state, "1 left vanguard").damage == 0
    assert unit_at(state, "0 left vanguard").ready
    assert Action.of("strike", front="left", row="vanguard", target="vanguard") in state.legal_actions(0)
    act(state, 0, "shift", front="right", row="vanguard", to_front="center", to_row="vanguard")
    act(state, 1, "react", card="countermand")
    recruit = unit_at(state, "0 right vanguard")
    assert recruit is not None and recruit.shifted
    assert not [a for a in state.legal_actions(0) if a.kind == "shift" and a["front"] == "right"]
    assert state.players[0].time == 4


def test_R4_a_stunned_striker_does_nothing():
    """R4: a Strike is checked again at resolution: a striker Stunned in response does nothing."""
    state = position({"left vanguard": "Iron Vanguard"}, {"hand": ["Snap Trap"]})
    act(state, 0, "strike", front="left", row="vanguard", target="leader")
    events = act(state, 1, "react", card="snap-trap")
    assert state.players[1].integrity == 20
    assert any("Strike does nothing" in e.text for e in events)
    assert unit_at(state, "0 left vanguard").stun == 2


def test_R4_the_strike_hits_the_nearest_enemy_at_resolution():
    """R4: the nearest enemy is found at resolution: if the Vanguard fell in the chain,
    the Strike hits the Support."""
    state = position({"left vanguard": "Iron Vanguard", "hand": ["Ambush"]},
                     {"left vanguard": "Militia Recruit with 1 damage", "left support": "Border Sentinel",
                      "hand": ["Brace"]})
    act(state, 0, "strike", front="left", row="vanguard", target="vanguard")
    act(state, 1, "react", card="brace", target="1.left.vanguard")
    act(state, 0, "react", card="ambush", target="1.left.vanguard")
    assert unit_at(state, "1 left vanguard") is None
    assert unit_at(state, "1 left support").damage == 3
    assert unit_at(state, "0 left vanguard").damage == 0, "a Support defender does not retaliate"


def test_R4_deploy_into_a_filled_slot_is_discarded():
    """R4: a Deploy whose slot was filled before it resolved is discarded. (No card of the
    pool fills a slot during a window, so the test fills it by hand.)"""
    state = position({"hand": ["Militia Recruit"]}, {"hand": ["Cinder Imp"]})
    act(state, 0, "deploy", card="militia-recruit", front="left", row="vanguard")
    state.board[0][0] = Unit(99, BY_NAME["Border Sentinel"], 0, 0)
    settle(state)
    assert unit_at(state, "0 left vanguard").name == "Border Sentinel"
    assert state.players[0].discard == ["militia-recruit"]


def test_R5_a_departed_target_is_not_replaced():
    """R5: a chosen target is that Entity: gone at resolution, the effect does nothing."""
    state = position({"hand": ["Firebolt", "Ambush"]},
                     {"left vanguard": "Militia Recruit with 1 damage", "left support": "Border Sentinel",
                      "hand": ["Brace"]}, focus=(5, 3))
    act(state, 0, "play", card="firebolt", target="1.left.vanguard")
    act(state, 1, "react", card="brace", target="1.left.vanguard")
    act(state, 0, "react", card="ambush", target="1.left.vanguard")
    assert unit_at(state, "1 left vanguard") is None
    assert unit_at(state, "1 left support").damage == 0
    assert state.players[1].integrity == 20


def test_R6_stunned_and_exhausted_defenders_still_retaliate():
    """R6: retaliation is not a Strike: a Stunned, exhausted defender still retaliates."""
    state = position({"left vanguard": "Border Sentinel"},
                     {"left vanguard": "Iron Vanguard, stunned, exhausted", "passed": True})
    play(state, 0, "strike", front="left", row="vanguard", target="vanguard")
    assert unit_at(state, "0 left vanguard").damage == 3
    assert unit_at(state, "1 left vanguard").damage == 1


def test_R7_an_entity_with_zero_power_cannot_strike():
    """R7: an Entity with 0 Power cannot Strike."""
    state = position({"left vanguard": "Militia Recruit, attached by enemy Shackles",
                      "center vanguard": "Militia Recruit, power -1"}, {"passed": True})
    assert unit_at(state, "0 left vanguard").power == 0
    assert "strike" not in kinds(state.legal_actions(0))


def test_R8_silence_removes_barrier_for_good_other_keywords_return():
    """R8: Silence removes an unused Barrier for good; Mobile comes back when it ends; a
    Silenced Entity cannot gain Barrier."""
    state = position({"hand": ["Hushblade Assassin"], "deck": RECRUITS},
                     {"left vanguard": "Mistwalker", "deck": RECRUITS, "passed": True}, focus=4)
    play(state, 0, "deploy", card="hushblade-assassin", front="center", row="support", target="1.left.vanguard")
    walker = unit_at(state, "1 left vanguard")
    assert walker.silence == 2 and not walker.barrier and not walker.mobile
    end_cycle(state)
    end_cycle(state)
    walker = unit_at(state, "1 left vanguard")
    assert walker.silence == 0 and walker.mobile and not walker.barrier

    ward = position({"left vanguard": "Iron Vanguard"},
                    {"left vanguard": "Border Sentinel, silenced", "hand": ["Emergency Ward"]})
    act(ward, 0, "strike", front="left", row="vanguard", target="vanguard")
    events = act(ward, 1, "react", card="emergency-ward", target="1.left.vanguard")
    assert any("gains no Barrier" in e.text for e in events)
    assert unit_at(ward, "1 left vanguard").damage == 3


def test_R8_a_silenced_structure_is_no_structure():
    """R8: Structure is a keyword, so a Silenced Structure may Shift and, with Power, Strike."""
    state = position({"left vanguard": "Bastion Wall, silenced, power +1"},
                     {"left vanguard": "Militia Recruit", "passed": True})
    legal = state.legal_actions(0)
    assert Action.of("strike", front="left", row="vanguard", target="vanguard") in legal
    assert "shift" in kinds(legal)


def test_R9_expose_and_protect_add_up_and_last_until_used():
    """R9: Exposed and Protected add up and do not expire at Cycle end."""
    state = position({"hand": ["Mark for Death", "Rally"], "deck": RECRUITS, "left vanguard": "Militia Recruit,"
                      " protected 1"},
                     {"left vanguard": "Border Sentinel, exposed 1", "deck": RECRUITS, "passed": True})
    play(state, 0, "play", card="mark-for-death", target="1.left.vanguard")
    play(state, 0, "play", card="rally", target="left")
    assert unit_at(state, "1 left vanguard").exposed == 4
    assert unit_at(state, "0 left vanguard").protected == 3
    end_cycle(state)
    assert unit_at(state, "1 left vanguard").exposed == 4
    assert unit_at(state, "0 left vanguard").protected == 3


def test_R9_zero_damage_is_no_instance():
    """R9: a 0-Power retaliation is no instance of damage: it does not break a Barrier."""
    state = position({"left vanguard": "Mistwalker"}, {"left vanguard": "Bastion Wall", "passed": True})
    play(state, 0, "strike", front="left", row="vanguard", target="vanguard")
    assert unit_at(state, "0 left vanguard").barrier
    assert unit_at(state, "1 left vanguard").damage == 1, "2 against Armor 1"


def test_R10_focus_time_and_integrity_caps():
    """R10: Focus never above the maximum; Time within 0-12; Integrity never above its start."""
    state = position({"hand": ["Supply Run", "Forced March", "Delaying Action"]}, {"hand": ["Cinder Imp"]},
                     time=(0, 11), focus=(3, 3))
    play(state, 0, "play", card="supply-run")
    assert state.players[0].focus == 3
    play(state, 0, "play", card="forced-march")
    assert state.players[0].time == 0, "1 + 1 - 3, kept at 0"
    play(state, 0, "play", card="delaying-action")
    assert state.players[1].time == 12
    hurt = position({"integrity": 19}, {})
    effects.heal(hurt, Ctx(0, "test"), Effect("heal", amount=5, target="own_leader"), [])
    assert hurt.players[0].integrity == 20


def test_R11_a_prepared_copy_is_played_first():
    """R11: with a copy in the Reserve and one in hand, the Reserve copy is played (one action)."""
    state = position({"hand": ["Ironclad Sentry"], "reserve": ["Ironclad Sentry"]}, {"passed": True})
    deploys = [a for a in state.legal_actions(0) if a.kind == "deploy"]
    assert len(deploys) == 6
    play(state, 0, "deploy", card="ironclad-sentry", front="left", row="vanguard")
    assert state.players[0].reserve == [] and state.players[0].hand == ["ironclad-sentry"]
    assert state.players[0].focus == 1


def test_R12_scout_always_waits_for_a_choice_unless_one_card_is_left():
    """R12: Scout waits for the choice even among copies of one card; one card left is
    taken at once; an empty deck does nothing."""
    state = position({"hand": ["Watchtower"], "deck": ["Cinder Imp", "Cinder Imp", "Firebolt"]}, {"passed": True})
    play(state, 0, "deploy", card="watchtower", front="left", row="support")
    assert state.phase == "scout" and state.legal_actions(0) == [Action.of("take", card="cinder-imp")]
    act(state, 0, "take", card="cinder-imp")
    assert state.players[0].hand == ["cinder-imp"]
    assert state.players[0].deck == ["cinder-imp", "firebolt"]
    last = position({"hand": ["Recon"], "deck": ["Firebolt"]}, {"passed": True})
    play(last, 0, "play", card="recon")
    assert last.phase == "main" and last.players[0].hand == ["firebolt"]
    empty = position({"hand": ["Recon"]}, {"passed": True})
    events = play(empty, 0, "play", card="recon")
    assert empty.phase == "main" and any("empty deck" in e.text for e in events)


def test_R13_deploy_without_a_target_tactics_need_one():
    """R13: an on-deploy effect without a legal target lets the Entity deploy anyway; a
    Tactic that needs a target is not playable without one."""
    state = position({"hand": ["Warden of the Pass", "Hush"]}, {"left vanguard": "Militia Recruit"}, focus=6)
    deploys = [a for a in state.legal_actions(0) if a.kind == "deploy"]
    left = [a for a in deploys if a["front"] == "left"]
    center = [a for a in deploys if a["front"] == "center"]
    assert {a.get("target") for a in left} == {"1.left.vanguard"}
    assert {a.get("target") for a in center} == {None}
    empty = position({"hand": ["Hush"]}, {})
    assert "play" not in kinds(empty.legal_actions(0))


def test_R15_cycle_end_abilities_initiative_holder_first_and_integrity_checked_between():
    """R15: Cycle-end abilities resolve Initiative holder first, and Integrity is checked
    after each: the first Beacon wins the race."""
    for initiative in (0, 1):
        state = position({"site left": "Watchfire Beacon", "integrity": 1},
                         {"site right": "Watchfire Beacon", "integrity": 1}, initiative=initiative)
        end_cycle(state)
        assert state.outcome.winner == initiative and state.outcome.reason == "Integrity"


def test_R17_after_it_strikes_needs_the_striker_alive():
    """R17: "After it Strikes" resolves after damage and defeats, only if the striker is
    still on the board."""
    dies = position({"left vanguard": "Ashfall Berserker"}, {"left vanguard": "Stone Colossus", "passed": True})
    play(dies, 0, "strike", front="left", row="vanguard", target="vanguard")
    assert unit_at(dies, "0 left vanguard") is None and dies.players[1].integrity == 20
    lives = position({"left vanguard": "Ashfall Berserker"}, {"left vanguard": "Militia Recruit", "passed": True})
    events = play(lives, 0, "strike", front="left", row="vanguard", target="vanguard")
    assert lives.players[1].integrity == 19
    assert [e.kind for e in events].index("defeat") < [e.kind for e in events].index("integrity")


def test_R18_both_reaching_dominion_at_once():
    """R18: both players reaching the winning Dominion at one scoring: more wins, equal draws."""
    sides = ({"left vanguard": "Militia Recruit", "center vanguard": "Militia Recruit"},
             {"right vanguard": "Militia Recruit"})
    equal = position({**sides[0], "dominion": 5}, {**sides[1], "dominion": 5}, params={"fronts_for_dominion": 1})
    end_cycle(equal)
    assert equal.outcome.places == (1, 1) and equal.outcome.reason == "Dominion"
    more = position({**sides[0], "dominion": 4}, {**sides[1], "dominion": 5},
                    params={"fronts_for_dominion": 1, "dominion_per_cycle": 2})
    end_cycle(more)
    assert more.outcome.winner == 1


def test_R19_two_copies_give_one_action():
    """R19: two copies of a card in hand give one action per choice."""
    state = position({"hand": ["Cinder Imp", "Cinder Imp", "Firebolt", "Firebolt"]},
                     {"left vanguard": "Militia Recruit"})
    legal = state.legal_actions(0)
    assert len(legal) == len(set(legal))
    assert len([a for a in legal if a.kind == "deploy"]) == 6
    assert len([a for a in legal if a.kind == "play"]) == 2


def test_R20_move_swaps_row_only_into_an_empty_slot():
    """R20: move puts an Entity in the other row of its Front only if that slot is empty."""
    state = position({"hand": ["Tidecaller", "Tidecaller"]},
                     {"left vanguard": "Militia Recruit", "center vanguard": "Militia Recruit",
                      "center support": "Border Sentinel", "passed": True}, focus=6)
    play(state, 0, "deploy", card="tidecaller", front="left", row="vanguard", target="1.left.vanguard")
    assert unit_at(state, "1 left vanguard") is None and unit_at(state, "1 left support").name == "Militia Recruit"
    play(state, 0, "deploy", card="tidecaller", front="center", row="vanguard", target="1.center.vanguard")
    assert unit_at(state, "1 center vanguard").name == "Militia Recruit"


def test_R22_punish_needs_an_acting_entity():
    """R22: "the acting Entity" Reactions answer only Strikes, Shifts and abilities of an
    Entity on the board; a Reaction to "a Reaction" is only a Counter-Response."""
    state = position({"hand": ["Cinder Imp"], "left vanguard": "Militia Recruit"},
                     {"hand": ["Riposte", "Overwatch", "Backlash", "Override"]})
    act(state, 0, "deploy", card="cinder-imp", front="center", row="vanguard")
    assert {a["card"] for a in state.legal_actions(1) if a.kind == "react"} == {"backlash"}
    settle(state)
    shift = position({"left vanguard": "Militia Recruit"}, {"hand": ["Riposte", "Overwatch", "Backlash"]})
    act(shift, 0, "shift", front="left", row="vanguard", to_front="center", to_row="vanguard")
    assert {a["card"] for a in shift.legal_actions(1) if a.kind == "react"} == {"overwatch", "backlash"}
    act(shift, 1, "react", card="overwatch")
    assert unit_at(shift, "0 center vanguard") is None, "3 damage defeated the shifting Recruit first"


def test_R23_abilities_do_not_need_or_use_readiness():
    """R23: an activated ability costs its printed Time and Focus, once per Cycle, and
    neither needs nor uses the Entity's readiness."""
    state = position({"left vanguard": "Stormcaller", "center vanguard": "Chrono Adept, exhausted"},
                     {"left vanguard": "Militia Recruit", "passed": True}, time=(5, 0))
    assert Action.of("activate", front="center", row="vanguard") in state.legal_actions(0)
    play(state, 0, "activate", front="left", row="vanguard", target="1.left.vanguard")
    assert unit_at(state, "1 left vanguard").stun == 1
    assert unit_at(state, "0 left vanguard").ready
    legal = state.legal_actions(0)
    assert Action.of("strike", front="left", row="vanguard", target="vanguard") in legal
    assert Action.of("activate", front="left", row="vanguard", target="1.left.vanguard") not in legal
    play(state, 0, "activate", front="center", row="vanguard")
    assert state.players[0].time == 5 + 2 + 1 - 2
