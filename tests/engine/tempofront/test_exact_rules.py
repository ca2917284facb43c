"""One test per "Exact rule" of shared/seeds/tempofront-rules.txt, each on the smallest position.

Each test's name and docstring name the rule it pins. Positions are built from card
names with ``engine.tempofront.positions.position``.
"""

from __future__ import annotations

import pytest

from engine.core import Action, IllegalAction
from engine.tempofront import GAME

from .helpers import act, end_cycle, kinds, play, position, settle, unit_at

RECRUITS = ["Militia Recruit"] * 16


def _snapshot(state):
    return state.to_json()


def test_exact_rule_focus_starts_at_3_grows_by_1_up_to_8_and_refills():
    """Exact rule: Focus. Spent to play cards; 3 at the start, +1 maximum each Cycle up to
    8; refills every Cycle."""
    state = position({"hand": ["Border Sentinel"], "deck": RECRUITS}, {"deck": RECRUITS})
    assert [(p.focus, p.max_focus) for p in state.players] == [(3, 3), (3, 3)]
    play(state, 0, "deploy", card="border-sentinel", front="left", row="vanguard")
    assert state.players[0].focus == 1
    seen = []
    for _ in range(7):
        end_cycle(state)
        seen.append((state.cycle, state.players[0].max_focus, state.players[0].focus, state.players[1].focus))
    assert seen == [(2, 4, 4, 4), (3, 5, 5, 5), (4, 6, 6, 6), (5, 7, 7, 7), (6, 8, 8, 8), (7, 8, 8, 8),
                    (8, 8, 8, 8)]


def test_exact_rule_timeline_less_time_acts_next_ties_to_initiative_none_at_12():
    """Exact rule: Timeline. Every action adds its Time cost; less Time acts next; ties go
    to the Initiative holder; a player at 12 can no longer act this Cycle."""
    state = position({"hand": ["Border Sentinel"]}, {"hand": ["Cinder Imp"]}, time=(3, 4), initiative=1)
    assert state.to_act() == (0,)
    play(state, 0, "deploy", card="border-sentinel", front="left", row="vanguard")
    assert state.players[0].time == 5
    assert state.to_act() == (1,)
    play(state, 1, "deploy", card="cinder-imp", front="left", row="vanguard")
    assert [p.time for p in state.players] == [5, 5]
    assert state.to_act() == (1,), "a tie goes to the Initiative holder"

    at_twelve = position({"hand": ["Cinder Imp"]}, {"hand": ["Cinder Imp"]}, time=(12, 11))
    assert at_twelve.to_act() == (1,)
    assert at_twelve.legal_actions(0) == []
    play(at_twelve, 1, "deploy", card="cinder-imp", front="left", row="vanguard")
    assert at_twelve.cycle == 2, "both at 12: nobody can act and the Cycle ends"


def test_exact_rule_presence_sums_entities_attachments_site_and_ties_control_nothing():
    """Exact rule: Presence. Each player's Presence on a Front is the sum of their
    Entities', Attachments' and Site's Presence; higher controls; ties control nothing."""
    state = position(
        {"left vanguard": "Border Sentinel, attached Banner of the Front", "site left": "Ancient Keep",
         "center vanguard": "Militia Recruit"},
        {"left vanguard": "Grove Keeper", "center vanguard": "Militia Recruit", "right support": "Cinder Imp"},
    )
    events = end_cycle(state)
    score = next(e for e in events if e.kind == "score")
    # left: Sentinel 2 + Banner 2 + Keep 3 against Grove Keeper 3; center 1-1; right 0-1.
    assert score.data["presence"] == [[7, 1, 0], [3, 1, 1]]
    assert score.data["control"] == [1, 1]
    assert "center 1-1 (nobody)" in score.text


def test_exact_rule_dominion_two_fronts_gain_one_and_six_wins():
    """Exact rule: Dominion. Controlling at least two Fronts at Cycle end gains 1
    Dominion; reaching 6 wins the match."""
    state = position({"left vanguard": "Militia Recruit", "dominion": 4},
                     {"right vanguard": "Militia Recruit", "center vanguard": "Militia Recruit", "dominion": 5})
    end_cycle(state)
    assert [p.dominion for p in state.players] == [4, 6]
    assert state.outcome is not None
    assert state.outcome.winner == 1 and state.outcome.reason == "Dominion"

    one_front = position({"left vanguard": "Militia Recruit"}, {}, params={"draw_per_cycle": 0})
    end_cycle(one_front)
    assert one_front.players[0].dominion == 0, "one Front is not enough"


def test_exact_rule_integrity_starts_at_20_and_zero_loses():
    """Exact rule: Integrity. Each Leader starts with 20; reducing the enemy Leader to 0
    wins; drawing from an empty deck costs increasing Integrity."""
    decks = list(GAME.starter_decks().values())[:2]
    fresh = GAME.new_match(decks, seed=5)
    assert [p.integrity for p in fresh.players] == [20, 20]

    state = position({"left vanguard": "Emberblade Raider"}, {"integrity": 3})
    play(state, 0, "strike", front="left", row="vanguard", target="leader")
    assert state.players[1].integrity == 0
    assert state.outcome.winner == 0 and state.outcome.reason == "Integrity"

    empty = position({}, {})
    end_cycle(empty)
    assert [p.integrity for p in empty.players] == [17, 17], "fatigue 1 + 2 for two draws from an empty deck"


def test_exact_rule_initiative_breaks_ties_and_alternates_each_cycle():
    """Exact rule: Initiative. Breaks Time ties; alternates between players each Cycle."""
    state = position({"deck": RECRUITS}, {"deck": RECRUITS}, time=(2, 2), initiative=1)
    assert state.to_act() == (1,)
    end_cycle(state)
    assert state.initiative == 0
    assert state.to_act() == (0,)
    end_cycle(state)
    assert state.initiative == 1


def test_exact_rule_cycle_ends_when_both_passed_or_at_12_then_scores_refills_resets_swaps():
    """Exact rule: Cycle. Ends when both players have passed or reached the end of the
    Timeline; Fronts are then scored, Focus refills, Time resets, Initiative swaps."""
    state = position({"left vanguard": "Militia Recruit", "center vanguard": "Militia Recruit", "deck": RECRUITS},
                     {"deck": RECRUITS}, time=(12, 5), focus=(0, 2), initiative=0)
    assert state.to_act() == (1,)
    events = act(state, 1, "pass")
    order = [e.kind for e in events if e.kind in ("cycle_end", "score", "dominion", "cycle")]
    assert order == ["cycle_end", "score", "dominion", "cycle"]
    assert state.cycle == 2
    assert [p.time for p in state.players] == [0, 0]
    assert [p.focus for p in state.players] == [4, 4]
    assert state.initiative == 1

    one_passed = position({"hand": ["Militia Recruit"]}, {"hand": ["Militia Recruit"]}, time=(3, 5))
    act(one_passed, 0, "pass")
    assert one_passed.cycle == 1 and one_passed.to_act() == (1,), "the other player still acts"


def test_exact_rule_response_other_player_may_react_and_responses_resolve_first():
    """Exact rule: Response. After a main action is declared, the other player may play one
    Reaction before it resolves; Responses resolve first."""
    state = position({"left vanguard": "Iron Vanguard"}, {"left vanguard": "Cinder Imp", "hand": ["Emergency Ward"]})
    act(state, 0, "strike", front="left", row="vanguard", target="vanguard")
    assert state.phase == "response" and state.to_act() == (1,)
    assert set(state.legal_actions(1)) == {Action.of("react", card="emergency-ward", target="1.left.vanguard"),
                                           Action.of("pass")}
    events = act(state, 1, "react", card="emergency-ward", target="1.left.vanguard")
    kinds_in_order = [e.kind for e in events]
    assert kinds_in_order.index("status") < kinds_in_order.index("damage")
    imp = unit_at(state, "1 left vanguard")
    assert imp is not None and imp.damage == 0 and not imp.barrier, "the Barrier from the Response took the hit"


def test_exact_rule_counter_response_acting_player_answers_and_chain_resolves_lifo():
    """Exact rule: Counter-Response. The acting player may answer a Response with one
    Reaction; at most two Reactions; the chain resolves last-in, first-out."""
    state = position({"left vanguard": "Iron Vanguard", "hand": ["Override"]},
                     {"left vanguard": "Militia Recruit", "hand": ["Hold the Line"]})
    act(state, 0, "strike", front="left", row="vanguard", target="vanguard")
    act(state, 1, "react", card="hold-the-line")
    assert state.phase == "counter" and state.to_act() == (0,)
    assert Action.of("react", card="override") in state.legal_actions(0)
    events = act(state, 0, "react", card="override")
    assert state.phase == "main", "after the Counter-Response the chain resolves: no third Reaction"
    order = [e.text for e in events]
    cancel = next(i for i, t in enumerate(order) if "Override cancelled" in t)
    hit = next(i for i, t in enumerate(order) if "struck Militia Recruit" in t)
    assert cancel < hit
    assert unit_at(state, "1 left vanguard") is None, "Hold the Line was cancelled, so the Strike landed"

    lifo = position({"left vanguard": "Iron Vanguard", "hand": ["Ambush"]},
                    {"left vanguard": "Bastion Wall", "hand": ["Brace"]})
    act(lifo, 0, "strike", front="left", row="vanguard", target="vanguard")
    act(lifo, 1, "react", card="brace", target="1.left.vanguard")
    events = act(lifo, 0, "react", card="ambush", target="1.left.vanguard")
    words = [e.text for e in events]
    ambush = next(i for i, t in enumerate(words) if t.startswith("Ambush dealt"))
    brace = next(i for i, t in enumerate(words) if t.startswith("Brace:"))
    strike = next(i for i, t in enumerate(words) if "struck Bastion Wall" in t)
    assert ambush < brace < strike


def test_exact_rule_reaction_time_is_added_when_declared():
    """Exact rule: Reaction Time. A Reaction adds its Reaction Time to its player's
    Timeline when declared (not when it resolves), instead of a play Time."""
    state = position({"left vanguard": "Iron Vanguard", "hand": ["Militia Recruit"]},
                     {"left vanguard": "Militia Recruit", "hand": ["Riposte"]}, time=(0, 3))
    act(state, 0, "strike", front="left", row="vanguard", target="vanguard")
    act(state, 1, "react", card="riposte")
    assert state.phase == "counter", "the chain has not resolved yet"
    assert state.players[1].time == 4
    assert state.players[1].focus == 2
    settle(state)
    assert state.players[1].time == 4


def test_exact_rule_deploy_into_empty_friendly_slot_paying_focus_and_time():
    """Exact rule: Deploy. An Entity from hand into an empty friendly Vanguard or Support
    slot, paying its Focus and Time."""
    state = position({"hand": ["Border Sentinel"], "left vanguard": "Militia Recruit"},
                     {"center vanguard": "Militia Recruit"})
    deploys = [a for a in state.legal_actions(0) if a.kind == "deploy"]
    slots = {(a["front"], a["row"]) for a in deploys}
    assert len(slots) == 5 and ("left", "vanguard") not in slots
    before = _snapshot(state)
    with pytest.raises(IllegalAction) as info:
        state.apply(0, Action.of("deploy", card="border-sentinel", front="left", row="vanguard"))
    assert info.value.rule == "Exact rule: Deploy"
    assert _snapshot(state) == before
    play(state, 0, "deploy", card="border-sentinel", front="left", row="support")
    assert unit_at(state, "0 left support").name == "Border Sentinel"
    assert (state.players[0].focus, state.players[0].time) == (1, 2)
    assert state.players[0].hand == []


def test_exact_rule_strike_hits_nearest_enemy_vanguard_then_support_then_leader():
    """Exact rule: Strike. A ready Entity attacks the nearest enemy on its Front:
    Vanguard first, then Support, then the enemy Leader."""
    state = position(
        {"left vanguard": "Iron Vanguard", "center vanguard": "Iron Vanguard", "right vanguard": "Iron Vanguard"},
        {"left vanguard": "Militia Recruit", "left support": "Border Sentinel", "center support": "Border Sentinel",
         "passed": True},
    )
    strikes = {(a["front"], a["target"]) for a in state.legal_actions(0) if a.kind == "strike"}
    assert strikes == {("left", "vanguard"), ("center", "support"), ("right", "leader")}
    play(state, 0, "strike", front="right", row="vanguard", target="leader")
    assert state.players[1].integrity == 17
    play(state, 0, "strike", front="center", row="vanguard", target="support")
    assert unit_at(state, "1 center support").damage == 3
    assert unit_at(state, "0 center vanguard").damage == 0, "a Support defender that is not Ranged does not retaliate"
    play(state, 0, "strike", front="left", row="vanguard", target="vanguard")
    assert unit_at(state, "1 left vanguard") is None
    assert unit_at(state, "1 left support").damage == 0


def test_exact_rule_strike_vanguard_versus_vanguard_retaliates_simultaneously():
    """Exact rule: Strike. Vanguard-versus-Vanguard defenders retaliate simultaneously:
    both Entities deal their damage, even the one that is defeated."""
    state = position({"left vanguard": "Emberblade Raider"}, {"left vanguard": "Emberblade Raider", "passed": True})
    events = play(state, 0, "strike", front="left", row="vanguard", target="vanguard")
    order = [e.kind for e in events]
    assert order.count("damage") == 2
    assert max(i for i, k in enumerate(order) if k == "damage") < order.index("defeat")
    assert unit_at(state, "0 left vanguard") is None and unit_at(state, "1 left vanguard") is None


def test_exact_rule_strike_ranged_defender_retaliates():
    """Exact rule: Strike. Ranged defenders retaliate, even from Support (and even when
    the Strike defeats them: the hits are simultaneous)."""
    state = position({"left vanguard": "Iron Vanguard"}, {"left support": "Skyfire Archer", "passed": True})
    play(state, 0, "strike", front="left", row="vanguard", target="support")
    assert unit_at(state, "0 left vanguard").damage == 1, "Archer's 2 against Armor 1"
    assert unit_at(state, "1 left support") is None


def test_exact_rule_shift_to_adjacent_front_for_2_time_once_per_cycle():
    """Exact rule: Shift. A friendly Entity to an empty slot on an adjacent Front for
    2 Time (1 if Mobile), once per Cycle."""
    state = position({"left vanguard": "Iron Vanguard", "center vanguard": "Militia Recruit"}, {"passed": True})
    shifts = [a for a in state.legal_actions(0) if a.kind == "shift" and a["front"] == "left"]
    assert {(a["to_front"], a["to_row"]) for a in shifts} == {("center", "support")}
    play(state, 0, "shift", front="left", row="vanguard", to_front="center", to_row="support")
    assert state.players[0].time == 2
    moved = unit_at(state, "0 center support")
    assert moved.name == "Iron Vanguard" and unit_at(state, "0 left vanguard") is None
    assert not [a for a in state.legal_actions(0)
                if a.kind == "shift" and (a["front"], a["row"]) == ("center", "support")]
    recruit = {(a["to_front"], a["to_row"]) for a in state.legal_actions(0)
               if a.kind == "shift" and (a["front"], a["row"]) == ("center", "vanguard")}
    assert recruit == {("left", "vanguard"), ("left", "support"), ("right", "vanguard"), ("right", "support")}


def test_exact_rule_defeat_to_discard_with_attachments_then_defeat_triggers():
    """Exact rule: Defeat. Damage reaching Vitality defeats an Entity: it goes to its
    owner's discard pile with its Attachments; then its defeat triggers resolve."""
    state = position({"left vanguard": "Iron Vanguard, power +2, vitality +5"},
                     {"left vanguard": "Pyre Zealot with 1 damage, attached Ember Brand", "passed": True})
    events = play(state, 0, "strike", front="left", row="vanguard", target="vanguard")
    assert unit_at(state, "1 left vanguard") is None
    assert state.players[1].discard == ["pyre-zealot", "ember-brand"]
    order = [e.kind for e in events]
    assert order.index("defeat") < order.index("integrity")
    assert state.players[0].integrity == 18, "Pyre Zealot's defeat trigger"


def test_exact_rule_damage_persists_between_cycles():
    """Exact rule: Defeat (damage stays on Entities between Cycles until it reaches Vitality)."""
    state = position({"left vanguard": "Border Sentinel with 3 damage", "deck": RECRUITS}, {"deck": RECRUITS})
    end_cycle(state)
    assert state.cycle == 2 and unit_at(state, "0 left vanguard").damage == 3


def test_exact_rule_scout_look_at_top_n_take_one_rest_to_bottom():
    """Exact rule: Scout N. Look at the top N cards, choose one for your hand, put the
    rest on the bottom."""
    state = position({"hand": ["Recon"], "deck": ["Cinder Imp", "Militia Recruit", "Border Sentinel", "Firebolt"]},
                     {"passed": True})
    play(state, 0, "play", card="recon")
    assert state.phase == "scout" and state.to_act() == (0,)
    assert state.legal_actions(0) == [Action.of("take", card=c)
                                      for c in ("cinder-imp", "militia-recruit", "border-sentinel")]
    assert [c["name"] for c in state.view(0)["scouting"]] == ["Cinder Imp", "Militia Recruit", "Border Sentinel"]
    assert state.view(1)["scouting"] == [] and state.view(1)["players"][0]["scouting_count"] == 3
    act(state, 0, "take", card="militia-recruit")
    assert state.players[0].hand == ["militia-recruit"]
    assert state.players[0].deck == ["border-sentinel", "cinder-imp", "firebolt"], "Firebolt on top, the rest below"
    assert state.phase == "main"


def test_exact_rule_prepare_one_time_to_reserve_discount_this_cycle_unused_return():
    """Exact rule: Prepare. For 1 Time an eligible card goes to the Reserve; played this
    Cycle it gets its printed discount; unused Prepared cards return to hand at refresh."""
    state = position({"hand": ["Ironclad Sentry", "Hush", "Militia Recruit"], "deck": RECRUITS},
                     {"passed": True, "deck": RECRUITS})
    prepares = {a["card"] for a in state.legal_actions(0) if a.kind == "prepare"}
    assert prepares == {"ironclad-sentry", "hush"}
    play(state, 0, "prepare", card="ironclad-sentry")
    assert state.players[0].time == 1 and state.players[0].reserve == ["ironclad-sentry"]
    play(state, 0, "deploy", card="ironclad-sentry", front="left", row="vanguard")
    assert (state.players[0].focus, state.players[0].time) == (1, 3), "Focus 3 - (3 - 1); Time 1 + 2"
    play(state, 0, "prepare", card="hush")
    end_cycle(state)
    assert state.players[0].reserve == [] and "hush" in state.players[0].hand


def test_exact_rule_ranged_strikes_from_support_picks_target_or_leader():
    """Exact rule: Ranged. May Strike from Support; may target either enemy Entity on its
    Front (or the enemy Leader if none); always retaliates when struck."""
    state = position({"left support": "Skyfire Archer", "center support": "Skyfire Archer"},
                     {"left vanguard": "Militia Recruit", "left support": "Border Sentinel", "passed": True})
    strikes = {(a["front"], a["target"]) for a in state.legal_actions(0) if a.kind == "strike"}
    assert strikes == {("left", "vanguard"), ("left", "support"), ("center", "leader")}
    play(state, 0, "strike", front="left", row="support", target="support")
    assert unit_at(state, "1 left support").damage == 2
    assert unit_at(state, "1 left vanguard").damage == 0
    assert unit_at(state, "0 left support").damage == 0


def test_exact_rule_armor_reduces_each_instance_silenced_loses_it():
    """Exact rule: Armor N reduces each instance of damage by N, after Barrier and
    Protected; Silenced Entities lose Armor."""
    state = position({"hand": ["Firebolt", "Firebolt"]},
                     {"left vanguard": "Ironclad Sentry", "center vanguard": "Ironclad Sentry, silenced",
                      "passed": True}, focus=6)
    play(state, 0, "play", card="firebolt", target="1.left.vanguard")
    play(state, 0, "play", card="firebolt", target="1.center.vanguard")
    assert unit_at(state, "1 left vanguard").damage == 2
    assert unit_at(state, "1 center vanguard").damage == 3


def test_exact_rule_barrier_prevents_whole_next_instance_then_is_removed():
    """Exact rule: Barrier. Prevents the entire next instance of damage, then is removed;
    it applies before Protected and Armor."""
    state = position({"hand": ["Firebolt", "Firebolt"]},
                     {"left vanguard": "Mistwalker, protected 2", "passed": True}, focus=6)
    play(state, 0, "play", card="firebolt", target="1.left.vanguard")
    walker = unit_at(state, "1 left vanguard")
    assert walker.damage == 0 and not walker.barrier
    assert walker.protected == 2, "the Barrier came first and took the whole instance"
    play(state, 0, "play", card="firebolt", target="1.left.vanguard")
    assert walker.damage == 1, "3 less Protected 2"


def test_exact_rule_rapid_enters_ready_and_may_strike_at_once():
    """Exact rule: Rapid. Enters play ready, so it may Strike in the Cycle it is deployed."""
    state = position({"hand": ["Cinder Imp", "Militia Recruit"]}, {"passed": True})
    play(state, 0, "deploy", card="cinder-imp", front="left", row="vanguard")
    play(state, 0, "deploy", card="militia-recruit", front="center", row="vanguard")
    strikers = {a["front"] for a in state.legal_actions(0) if a.kind == "strike"}
    assert strikers == {"left"}


def test_exact_rule_mobile_shift_costs_one_time():
    """Exact rule: Mobile. Shifting this Entity costs 1 Time instead of 2."""
    state = position({"left vanguard": "Windrunner Scout", "right vanguard": "Militia Recruit"}, {"passed": True})
    play(state, 0, "shift", front="left", row="vanguard", to_front="center", to_row="vanguard")
    assert state.players[0].time == 1
    play(state, 0, "shift", front="right", row="vanguard", to_front="center", to_row="support")
    assert state.players[0].time == 3


def test_exact_rule_structure_cannot_strike_or_shift():
    """Exact rule: Structure. Cannot Strike and cannot Shift."""
    state = position({"left vanguard": "Bastion Wall, power +3"}, {"left vanguard": "Militia Recruit", "passed": True})
    assert not {"strike", "shift"} & kinds(state.legal_actions(0))
    before = _snapshot(state)
    with pytest.raises(IllegalAction) as info:
        state.apply(0, Action.of("strike", front="left", row="vanguard", target="vanguard"))
    assert info.value.rule == "Exact rule: Structure"
    with pytest.raises(IllegalAction):
        state.apply(0, Action.of("shift", front="left", row="vanguard", to_front="center", to_row="vanguard"))
    assert _snapshot(state) == before


def test_exact_rule_stun_stops_strike_and_abilities_until_it_expires():
    """Exact rule: Stun. A Stunned Entity cannot Strike and its activated abilities cannot
    be used; it expires as its duration states."""
    state = position({"left vanguard": "Iron Vanguard, stunned", "left support": "Siege Ballista, stunned",
                      "center vanguard": "Iron Vanguard, stunned until next cycle", "deck": RECRUITS},
                     {"left vanguard": "Militia Recruit", "center vanguard": "Militia Recruit", "deck": RECRUITS})
    assert not {"strike", "activate"} & kinds(state.legal_actions(0))
    with pytest.raises(IllegalAction) as info:
        state.apply(0, Action.of("strike", front="left", row="vanguard", target="vanguard"))
    assert info.value.rule == "Exact rule: Stun"
    end_cycle(state)
    if state.to_act() == (1,):
        act(state, 1, "pass")
    legal = state.legal_actions(0)
    fronts = {a["front"] for a in legal if a.kind == "strike"}
    assert fronts == {"left"}, "the left Stun ended with Cycle 1; the center one lasts through Cycle 2"
    assert any(a.kind == "activate" for a in legal)


def test_exact_rule_root_stops_shift_only():
    """Exact rule: Root. A Rooted Entity cannot Shift (it may still Strike)."""
    state = position({"left vanguard": "Iron Vanguard, rooted"}, {"left vanguard": "Militia Recruit", "passed": True})
    legal = state.legal_actions(0)
    assert "shift" not in kinds(legal) and "strike" in kinds(legal)
    with pytest.raises(IllegalAction) as info:
        state.apply(0, Action.of("shift", front="left", row="vanguard", to_front="center", to_row="vanguard"))
    assert info.value.rule == "Exact rule: Root"


def test_exact_rule_silence_removes_keywords_and_abilities():
    """Exact rule: Silence. A Silenced Entity loses its keywords (Armor, Ranged, ...) and
    its abilities do not trigger or activate."""
    state = position({"left support": "Skyfire Archer, silenced", "center support": "Siege Ballista, silenced",
                      "right vanguard": "Banner Knight, silenced", "right support": "Militia Recruit",
                      "hand": ["Firebolt"]},
                     {"left vanguard": "Militia Recruit", "center vanguard": "Pyre Zealot, silenced",
                      "passed": True})
    legal = state.legal_actions(0)
    assert not [a for a in legal if a.kind == "strike" and a["front"] == "left"], "no Ranged: no Strike from Support"
    assert "activate" not in kinds(legal)
    assert unit_at(state, "0 right support").power == 1, "Banner Knight's aura is off"
    play(state, 0, "play", card="firebolt", target="1.center.vanguard")
    assert unit_at(state, "1 center vanguard") is None
    assert state.players[0].integrity == 20, "a Silenced Pyre Zealot's defeat trigger does not fire"


def test_exact_rule_expose_adds_to_next_instance_before_barrier():
    """Exact rule: Expose. Exposed N adds N to the next instance of damage, then is
    removed; it applies before Barrier."""
    state = position({"hand": ["Tangling Roots", "Firebolt"]},
                     {"left vanguard": "Border Sentinel, exposed 2", "center vanguard": "Mistwalker, exposed 2",
                      "passed": True}, focus=6)
    play(state, 0, "play", card="tangling-roots", target="1.left.vanguard")
    sentinel = unit_at(state, "1 left vanguard")
    assert sentinel.damage == 3 and sentinel.exposed == 0
    play(state, 0, "play", card="firebolt", target="1.center.vanguard")
    walker = unit_at(state, "1 center vanguard")
    assert walker.damage == 0 and walker.exposed == 0 and not walker.barrier


def test_exact_rule_protected_reduces_next_instance_then_is_removed():
    """Exact rule: Protected. Protected N reduces the next instance of damage by N after
    Barrier, then is removed."""
    state = position({"hand": ["Firebolt", "Firebolt"]},
                     {"left vanguard": "Stone Colossus, protected 2", "passed": True}, focus=6)
    play(state, 0, "play", card="firebolt", target="1.left.vanguard")
    colossus = unit_at(state, "1 left vanguard")
    assert colossus.damage == 0 and colossus.protected == 0, "3 - Protected 2 - Armor 2"
    play(state, 0, "play", card="firebolt", target="1.left.vanguard")
    assert colossus.damage == 1


def test_exact_rule_fronts_three_lanes_two_slots_a_side_one_shared_site():
    """Exact rule: Front. Three lanes (left, center, right); each side has a Vanguard and
    a Support slot per Front, plus one shared Site slot."""
    state = position({"hand": ["Militia Recruit", "Ancient Keep"]}, {"hand": ["Ember Forge"]}, focus=5)
    deploys = {(a["front"], a["row"]) for a in state.legal_actions(0) if a.kind == "deploy"}
    assert deploys == {(f, r) for f in ("left", "center", "right") for r in ("vanguard", "support")}
    sites = {a["front"] for a in state.legal_actions(0) if a.kind == "site"}
    assert sites == {"left", "center", "right"}
    view = state.view(None)
    assert set(view["board"][0]) == {"left", "center", "right"}
    assert set(view["board"][0]["left"]) == {"vanguard", "support"}
    assert set(view["sites"]) == {"left", "center", "right"}
    play(state, 0, "site", card="ancient-keep", front="left")
    play(state, 1, "site", card="ember-forge", front="left")
    assert state.sites[0] == ("ember-forge", 1), "one shared slot: the second Site replaces the first"
