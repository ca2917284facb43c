"""One test (or a few) per ruling T1-T17 of shared/RULINGS.md, each on the smallest position."""

from __future__ import annotations

import pytest

from engine.core import Action, Decklist, IllegalAction
from engine.tempofront import GAME

from .helpers import act, end_cycle, kinds, play, position, settle, unit_at

RECRUITS = ["Militia Recruit"] * 16


def _starters():
    return list(GAME.starter_decks().values())


# --------------------------------------------------------------------------- T1 Setup


def test_T1_deck_is_a_leader_and_exactly_30_cards_at_most_2_copies_all_problems_at_once():
    """T1: one Leader plus exactly 30 cards, at most 2 copies; validation names every problem."""
    deck = Decklist(commander=None, cards=(("Ashen Drake", 3), ("Kael Embercrown", 1), ("Not A Card", 1),
                                           ("Cinder Imp", 2)))
    problems = GAME.validate_deck(deck)
    assert "no Leader: a deck needs one 'Leader: Name' line" in problems
    assert "3 copies of Ashen Drake; at most 2 allowed" in problems
    assert "unknown card 'Not A Card'" in problems
    assert any(p.startswith("Kael Embercrown is a Leader") for p in problems)
    assert "7 cards; a deck has exactly 30" in problems
    assert GAME.validate_deck(_starters()[0]) == []
    wrong_leader = Decklist(commander="Ashen Drake", cards=_starters()[0].cards)
    assert GAME.validate_deck(wrong_leader) == ["Ashen Drake is an Entity, not a Leader"]


def test_T1_seed_shuffles_decks_and_flips_initiative_opening_hand_of_5():
    """T1: the match seed shuffles the decks and flips the coin; opening hands are 5 cards."""
    decks = _starters()[:2]
    a = GAME.new_match(decks, seed=11)
    b = GAME.new_match(decks, seed=11)
    assert a == b, "the same seed gives the same match"
    assert [len(p.hand) for p in a.players] == [5, 5]
    assert [len(p.deck) for p in a.players] == [25, 25]
    flips = {GAME.new_match(decks, seed=s).initiative for s in range(20)}
    assert flips == {0, 1}
    hands = {tuple(GAME.new_match(decks, seed=s).players[0].hand) for s in range(20)}
    assert len(hands) > 15
    assert a.opening_events[0].text.startswith("The coin gives Seat")


def test_T1_one_mulligan_each_initiative_holder_decides_first():
    """T1: each player may mulligan once (hand back, shuffle, draw 5), Initiative first."""
    state = GAME.new_match(_starters()[:2], seed=3)
    first = state.initiative
    assert state.phase == "mulligan" and state.to_act() == (first,)
    assert set(state.legal_actions(first)) == {Action.of("keep"), Action.of("mulligan")}
    before = sorted(state.players[first].hand + state.players[first].deck)
    act(state, first, "mulligan")
    assert len(state.players[first].hand) == 5
    assert sorted(state.players[first].hand + state.players[first].deck) == before
    assert state.to_act() == (1 - first,), "one mulligan only: the other player decides next"
    act(state, 1 - first, "keep")
    assert state.phase == "main" and state.cycle == 1
    assert state.to_act() == (first,)


# --------------------------------------------------------------------------- T2 Refresh


def test_T2_refresh_focus_time_draw_two_reserve_returns_ready_and_limits_reset():
    """T2: at the start of every Cycle: Focus grows and refills, Time resets, from Cycle 2
    each player draws 2, Prepared cards return, Entities ready, per-Cycle limits reset."""
    state = position({"left vanguard": "Siege Ballista, used", "center vanguard": "Iron Vanguard, exhausted, shifted",
                      "reserve": ["Hush"], "hand": ["Cinder Imp"], "deck": RECRUITS},
                     {"deck": RECRUITS}, time=(7, 9), focus=(0, 1))
    fresh = GAME.new_match(_starters()[:2], seed=1)
    act(fresh, fresh.to_act()[0], "keep")
    act(fresh, fresh.to_act()[0], "keep")
    assert [len(p.hand) for p in fresh.players] == [5, 5], "no draw in Cycle 1"
    end_cycle(state)
    p = state.players[0]
    assert (p.max_focus, p.focus, p.time) == (4, 4, 0)
    assert sorted(p.hand) == sorted(["cinder-imp", "militia-recruit", "militia-recruit", "hush"])
    assert p.reserve == []
    iron = unit_at(state, "0 center vanguard")
    assert iron.ready and not iron.shifted
    assert not unit_at(state, "0 left vanguard").used


# --------------------------------------------------------------------------- T3 Time costs


def test_T3_time_costs_of_every_action():
    """T3: Deploy/Attach/Site/Tactic their printed Time; Strike 2; Shift 2; Prepare 1;
    activated abilities their printed Time; pass 0."""
    state = position({"hand": ["Ironclad Sentry", "Ember Brand", "Ember Forge", "Mark for Death", "Hush"],
                      "left vanguard": "Iron Vanguard", "center support": "Siege Ballista",
                      "right vanguard": "Militia Recruit"},
                     {"center vanguard": "Militia Recruit", "passed": True}, focus=8)
    steps = [
        (("deploy", {"card": "ironclad-sentry", "front": "left", "row": "support"}), 2),
        (("attach", {"card": "ember-brand", "target": "0.left.vanguard"}), 1),
        (("site", {"card": "ember-forge", "front": "right"}), 1),
        (("play", {"card": "mark-for-death", "target": "1.center.vanguard"}), 1),
        (("prepare", {"card": "hush"}), 1),
        (("strike", {"front": "left", "row": "vanguard", "target": "leader"}), 2),
        (("shift", {"front": "right", "row": "vanguard", "to_front": "center", "to_row": "vanguard"}), 2),
        (("activate", {"front": "center", "row": "support", "target": "1.center.vanguard"}), 2),
    ]
    for (kind, params), cost in steps[:-1]:
        before = state.players[0].time
        play(state, 0, kind, **params)
        assert state.players[0].time - before == cost, kind
    events = play(state, 0, steps[-1][0][0], **steps[-1][0][1])
    assert "(0 Focus, 2 Time)" in events[0].text, "the ability's printed Time (it fills the Timeline to 12)"
    passing = position({}, {"hand": ["Cinder Imp"]}, time=(3, 5))
    act(passing, 0, "pass")
    assert passing.players[0].time == 3, "pass costs 0"


def test_T3_a_main_action_must_fit_the_timeline_and_a_passed_player_acts_no_more():
    """T3: legal only if Time + cost <= 12; a player at 12 or who has passed takes no
    more main actions this Cycle."""
    state = position({"left vanguard": "Iron Vanguard", "hand": ["Cinder Imp"]},
                     {"passed": True}, time=(11, 0))
    legal = state.legal_actions(0)
    assert "strike" not in kinds(legal) and "deploy" in kinds(legal)
    with pytest.raises(IllegalAction) as info:
        state.apply(0, Action.of("strike", front="left", row="vanguard", target="leader"))
    assert info.value.rule == "T3 Time costs"
    passed = position({"hand": ["Cinder Imp"]}, {"hand": ["Cinder Imp"]}, time=(0, 5))
    act(passed, 0, "pass")
    assert passed.to_act() == (1,) and passed.legal_actions(0) == []
    with pytest.raises(IllegalAction) as info:
        passed.apply(0, Action.of("deploy", card="cinder-imp", front="left", row="vanguard"))
    assert info.value.rule == "T4 Who acts"


# --------------------------------------------------------------------------- T4 Who acts


def test_T4_less_time_acts_ties_to_initiative_a_player_who_cannot_act_is_skipped():
    """T4: less Time acts next; ties go to Initiative; a player who cannot act is skipped;
    the Cycle ends when neither can act."""
    assert position({}, {}, time=(4, 6)).to_act() == (0,)
    assert position({}, {}, time=(6, 4)).to_act() == (1,)
    assert position({}, {}, time=(5, 5), initiative=1).to_act() == (1,)
    skipped = position({"passed": True}, {}, time=(0, 9))
    assert skipped.to_act() == (1,)
    with pytest.raises(IllegalAction) as info:
        skipped.apply(0, Action.of("pass"))
    assert info.value.rule == "T4 Who acts"
    act(skipped, 1, "pass")
    assert skipped.cycle == 2


# --------------------------------------------------------------------------- T5 Reactions


def test_T5_reaction_paid_when_declared_must_fit_and_a_passed_player_may_react():
    """T5: Focus and Reaction Time are paid when declared and must fit the 12-Time
    Timeline; a player who has passed may still react."""
    state = position({"left vanguard": "Iron Vanguard"},
                     {"left vanguard": "Militia Recruit", "hand": ["Countermand", "Riposte"], "passed": True},
                     time=(0, 11))
    act(state, 0, "strike", front="left", row="vanguard", target="vanguard")
    assert state.phase == "response" and state.to_act() == (1,)
    legal = state.legal_actions(1)
    assert Action.of("react", card="riposte") in legal
    assert Action.of("react", card="countermand") not in legal, "2 Reaction Time does not fit at 11"
    act(state, 1, "react", card="riposte")
    assert (state.players[1].time, state.players[1].focus) == (12, 2)


def test_T5_a_cancelled_action_does_nothing_and_its_costs_stay_paid():
    """T5: a cancelled action does nothing; its costs stay paid."""
    state = position({"hand": ["Firebolt"]}, {"left vanguard": "Militia Recruit", "hand": ["Countermand"]})
    act(state, 0, "play", card="firebolt", target="1.left.vanguard")
    act(state, 1, "react", card="countermand")
    assert unit_at(state, "1 left vanguard").damage == 0
    assert (state.players[0].focus, state.players[0].time) == (1, 1)
    assert state.players[0].discard == ["firebolt"]
    assert state.players[1].discard == ["countermand"]


def test_T5_reactions_only_in_a_response_window():
    """T5: Reactions are played only in a response window."""
    state = position({"hand": ["Riposte"]}, {})
    assert "react" not in kinds(state.legal_actions(0))
    before = state.to_json()
    with pytest.raises(IllegalAction) as info:
        state.apply(0, Action.of("react", card="riposte"))
    assert info.value.rule == "T5 Reactions"
    assert state.to_json() == before


# --------------------------------------------------------------------------- T6 Readiness


def test_T6_deployed_not_ready_strike_exhausts_until_next_cycle():
    """T6: a deployed Entity is not ready until the next Cycle unless Rapid; a Strike
    exhausts the striker until the next Cycle."""
    state = position({"hand": ["Militia Recruit"], "center vanguard": "Iron Vanguard", "deck": RECRUITS},
                     {"passed": True, "deck": RECRUITS})
    play(state, 0, "deploy", card="militia-recruit", front="left", row="vanguard")
    assert {a["front"] for a in state.legal_actions(0) if a.kind == "strike"} == {"center"}
    play(state, 0, "strike", front="center", row="vanguard", target="leader")
    assert not unit_at(state, "0 center vanguard").ready
    assert "strike" not in kinds(state.legal_actions(0))
    with pytest.raises(IllegalAction) as info:
        state.apply(0, Action.of("strike", front="center", row="vanguard", target="leader"))
    assert info.value.rule == "T6 Readiness"
    end_cycle(state)
    if state.to_act() == (1,):
        act(state, 1, "pass")
    assert {a["front"] for a in state.legal_actions(0) if a.kind == "strike"} == {"left", "center"}


def test_T6_stunned_cannot_strike_or_activate():
    """T6: a Stunned Entity cannot Strike and its activated abilities cannot be used."""
    state = position({"left vanguard": "Stormcaller, stunned"}, {"left vanguard": "Militia Recruit", "passed": True})
    assert not {"strike", "activate"} & kinds(state.legal_actions(0))
    with pytest.raises(IllegalAction) as info:
        state.apply(0, Action.of("activate", front="left", row="vanguard", target="1.left.vanguard"))
    assert info.value.rule == "Exact rule: Stun"


# --------------------------------------------------------------------------- T7 Strike


def test_T7_damage_is_power_and_the_leader_never_retaliates():
    """T7: damage equals the attacker's Power; the Leader never retaliates."""
    state = position({"left vanguard": "Ashfall Berserker, power +1"}, {"passed": True})
    play(state, 0, "strike", front="left", row="vanguard", target="leader")
    assert state.players[1].integrity == 20 - 6 - 1, "6 Power, then the Berserker's own trigger"
    assert unit_at(state, "0 left vanguard").damage == 0


def test_T7_retaliation_is_simultaneous_and_defeats_are_checked_together():
    """T7: both hits go through the damage pipeline, then defeats are checked together
    (and defeat triggers follow)."""
    state = position({"left vanguard": "Grave Warden with 2 damage"},
                     {"left vanguard": "Emberblade Raider", "left support": "Militia Recruit with 2 damage",
                      "passed": True})
    events = play(state, 0, "strike", front="left", row="vanguard", target="vanguard")
    order = [e.kind for e in events if e.kind in ("damage", "defeat")]
    assert order == ["damage", "damage", "defeat", "defeat", "damage", "defeat"]
    assert all(unit_at(state, w) is None for w in ("0 left vanguard", "1 left vanguard", "1 left support"))


# --------------------------------------------------------------------------- T8 Damage pipeline


def test_T8_damage_pipeline_order_exposed_barrier_protected_armor():
    """T8: Exposed N (added, removed) -> Barrier (prevents, removed) -> Protected N
    (reduces, removed) -> Armor N -> marked, never below 0."""
    state = position({"hand": ["Firebolt", "Firebolt", "Firebolt"]},
                     {"left vanguard": "Ironclad Sentry, exposed 1, protected 2, barrier", "passed": True}, focus=8)
    sentry = unit_at(state, "1 left vanguard")
    play(state, 0, "play", card="firebolt", target="1.left.vanguard")
    assert (sentry.damage, sentry.exposed, sentry.barrier, sentry.protected) == (0, 0, False, 2)
    events = play(state, 0, "play", card="firebolt", target="1.left.vanguard")
    assert sentry.damage == 0 and sentry.protected == 0, "3 - Protected 2 - Armor 1"
    assert "(Protected 2 absorbed 2, Armor 1 absorbed 1)" in events[-1].text
    play(state, 0, "play", card="firebolt", target="1.left.vanguard")
    assert sentry.damage == 2


def test_T8_barrier_is_a_keyword_so_silence_removes_it():
    """T8: Barrier is a keyword, so Silence removes it."""
    state = position({"hand": ["Hush", "Firebolt"]}, {"left vanguard": "Mistwalker", "passed": True}, focus=6)
    play(state, 0, "play", card="hush", target="1.left.vanguard")
    assert not unit_at(state, "1 left vanguard").barrier
    play(state, 0, "play", card="firebolt", target="1.left.vanguard")
    assert unit_at(state, "1 left vanguard") is None


# --------------------------------------------------------------------------- T9 Scoring


def test_T9_presence_counted_at_cycle_end_silenced_keeps_printed_presence_site_for_its_player():
    """T9: Presence is counted at the end of the Cycle; a Silenced Entity keeps its printed
    Presence; a Site's Presence counts for the player who played it."""
    state = position({"hand": ["Grove Keeper"], "center vanguard": "Border Sentinel, silenced",
                      "site right": "Ancient Keep"},
                     {"center vanguard": "Militia Recruit", "right vanguard": "Border Sentinel"}, focus=6)
    play(state, 0, "deploy", card="grove-keeper", front="left", row="support")
    events = end_cycle(state)
    score = next(e for e in events if e.kind == "score")
    assert score.data["presence"] == [[3, 2, 3], [0, 1, 2]]
    assert score.data["control"] == [3, 0]


# --------------------------------------------------------------------------- T10 End


def test_T10_integrity_at_zero_loses_at_once():
    """T10: Integrity at 0 or below loses at once, checked after every resolution."""
    state = position({"hand": ["Firebolt"]}, {"integrity": 2, "hand": ["Militia Recruit"]})
    play(state, 0, "play", card="firebolt", target="1.leader")
    assert state.outcome is not None and state.outcome.places == (1, 2)
    assert state.outcome.reason == "Integrity" and state.to_act() == () and state.phase == "over"


def test_T10_both_leaders_at_zero_at_once_is_a_draw():
    """T10: both Leaders reaching 0 at once is a draw (here: fatigue at the same refresh)."""
    state = position({"integrity": 3}, {"integrity": 3})
    end_cycle(state)
    assert state.outcome.places == (1, 1) and state.outcome.winner is None
    assert state.outcome.reason == "Integrity"


def test_T10_cycle_cap_more_dominion_then_more_integrity_else_draw():
    """T10: after Cycle 30 the match ends: more Dominion wins, then more Integrity, else a draw."""
    kw = {"cycle": 30}
    by_dominion = position({"dominion": 2, "integrity": 5, "deck": RECRUITS}, {"dominion": 1, "deck": RECRUITS}, **kw)
    end_cycle(by_dominion)
    assert by_dominion.outcome.winner == 0 and by_dominion.outcome.reason == "Cycle limit"
    by_integrity = position({"dominion": 1, "integrity": 5}, {"dominion": 1, "integrity": 7}, **kw)
    end_cycle(by_integrity)
    assert by_integrity.outcome.winner == 1
    even = position({"dominion": 1}, {"dominion": 1}, **kw)
    end_cycle(even)
    assert even.outcome.places == (1, 1)
    not_yet = position({"deck": RECRUITS}, {"deck": RECRUITS}, cycle=29)
    end_cycle(not_yet)
    assert not_yet.outcome is None and not_yet.cycle == 30


# --------------------------------------------------------------------------- T11 Fatigue


def test_T11_the_kth_draw_from_an_empty_deck_costs_k_integrity():
    """T11: the k-th draw from an empty deck costs k Integrity."""
    state = position({}, {"deck": RECRUITS})
    end_cycle(state)
    assert state.players[0].integrity == 20 - 1 - 2
    end_cycle(state)
    assert state.players[0].integrity == 20 - 1 - 2 - 3 - 4
    assert state.players[0].fatigue == 4
    assert state.players[1].integrity == 20


# --------------------------------------------------------------------------- T12 Durations


def test_T12_statuses_last_as_the_card_says_and_expire_after_scoring():
    """T12: Stun, Root and Silence last as the card says; expiring statuses end at Cycle
    end, after scoring."""
    state = position({"hand": ["Seismic Slam"], "deck": RECRUITS, "left vanguard": "Signal Pylon, silenced",
                      "left support": "Militia Recruit"},
                     {"left vanguard": "Iron Vanguard", "deck": RECRUITS, "passed": True})
    play(state, 0, "play", card="seismic-slam", target="1.left.vanguard")
    iron = unit_at(state, "1 left vanguard")
    assert iron.stun == 2, "until the end of the next Cycle"
    events = end_cycle(state)
    score = next(e for e in events if e.kind == "score")
    assert score.data["presence"][0][0] == 3, "the Pylon was still Silenced when scored: no +1 aura"
    assert [e.kind for e in events].index("score") < [e.kind for e in events].index("expire")
    assert unit_at(state, "0 left support").presence == 2, "Silence ended after scoring"
    assert iron.stun == 2
    end_cycle(state)
    assert iron.stun == 0


# --------------------------------------------------------------------------- T13 Sites


def test_T13_a_site_replaces_the_old_one_which_goes_to_its_owners_discard():
    """T13: one shared Site slot per Front; a new Site replaces the old, which goes to its
    owner's discard pile."""
    state = position({"site center": "Ancient Keep"}, {"hand": ["Ember Forge"]}, time=(1, 0))
    play(state, 1, "site", card="ember-forge", front="center")
    assert state.sites[1] == ("ember-forge", 1)
    assert state.players[0].discard == ["ancient-keep"]


# --------------------------------------------------------------------------- T14 Attachments


def test_T14_attachments_go_on_friendly_entities_add_stats_and_presence_leave_with_them():
    """T14: Attachments go on a friendly Entity unless the card says otherwise, add their
    Presence and stats, and are discarded with it."""
    state = position({"hand": ["Runed Plate", "Shackles", "Banner of the Front", "Firebolt"],
                      "left vanguard": "Militia Recruit"},
                     {"left vanguard": "Border Sentinel with 1 damage", "passed": True}, focus=8)
    plate = {a["target"] for a in state.legal_actions(0) if a.kind == "attach" and a["card"] == "runed-plate"}
    shackles = {a["target"] for a in state.legal_actions(0) if a.kind == "attach" and a["card"] == "shackles"}
    assert plate == {"0.left.vanguard"} and shackles == {"1.left.vanguard"}
    play(state, 0, "attach", card="runed-plate", target="0.left.vanguard")
    play(state, 0, "attach", card="banner-of-the-front", target="0.left.vanguard")
    recruit = unit_at(state, "0 left vanguard")
    assert (recruit.vitality, recruit.armor, recruit.presence) == (5, 1, 3)
    play(state, 0, "attach", card="shackles", target="1.left.vanguard")
    sentinel = unit_at(state, "1 left vanguard")
    assert sentinel.power == 0 and sentinel.root
    play(state, 0, "play", card="firebolt", target="1.left.vanguard")
    assert unit_at(state, "1 left vanguard") is None
    assert state.players[1].discard == ["border-sentinel"]
    assert state.players[0].discard == ["firebolt", "shackles"], "an Attachment goes to its own owner's pile"


# --------------------------------------------------------------------------- T15 Prepare


def test_T15_only_cards_with_a_printed_discount_and_focus_or_time_discount_applies():
    """T15: only cards with a printed Prepare discount are eligible; the Focus or Time
    discount applies when played from the Reserve in the same Cycle."""
    state = position({"hand": ["Cinderstorm Mage", "Direct Assault", "Firebolt"]}, {"passed": True}, focus=8)
    assert {a["card"] for a in state.legal_actions(0) if a.kind == "prepare"} == {"cinderstorm-mage",
                                                                                  "direct-assault"}
    with pytest.raises(IllegalAction) as info:
        state.apply(0, Action.of("prepare", card="firebolt"))
    assert info.value.rule == "T15 Prepare"
    play(state, 0, "prepare", card="cinderstorm-mage")
    play(state, 0, "prepare", card="direct-assault")
    play(state, 0, "deploy", card="cinderstorm-mage", front="left", row="support")
    assert (state.players[0].focus, state.players[0].time) == (3, 4), "Focus 5, Time 3 - 1"
    play(state, 0, "play", card="direct-assault")
    assert (state.players[0].focus, state.players[0].time) == (1, 6), "Focus 3 - 1, Time 2"


# --------------------------------------------------------------------------- T16 Leaders


def test_T16_leaders_start_at_20_and_carry_one_ability():
    """T16: Leaders start at 20 Integrity and carry one ability (passive or activated)."""
    from engine.tempofront.cards import CARDS, LEADER

    leaders = [c for c in CARDS.values() if c.type == LEADER]
    assert len(leaders) >= 6
    for leader in leaders:
        abilities = [bool(leader.activated), bool(leader.auras or leader.strike_leader_bonus), bool(leader.cycle_end)]
        assert sum(abilities) == 1, leader.name
    kael = position({"leader": "Kael Embercrown"}, {"passed": True})
    assert kael.players[0].integrity == 20
    play(kael, 0, "leader")
    assert kael.players[1].integrity == 18
    assert (kael.players[0].focus, kael.players[0].time) == (2, 2)
    assert "leader" not in kinds(kael.legal_actions(0)), "once per Cycle"
    drav = position({"leader": "Drav Ironhand", "left vanguard": "Militia Recruit"}, {"passed": True})
    play(drav, 0, "strike", front="left", row="vanguard", target="leader")
    assert drav.players[1].integrity == 18, "1 Power + Drav's 1"


def test_T16_passive_leader_auras_apply_to_their_entities():
    """T16: Vess gives Structures +1 Presence; Sera gives Mobile Entities +1 Power."""
    vess = position({"leader": "Vess, the Long Watch", "left vanguard": "Bastion Wall"}, {})
    assert unit_at(vess, "0 left vanguard").presence == 3
    sera = position({"leader": "Sera Quickstep", "left vanguard": "Gale Courier", "center vanguard": "Cinder Imp"}, {})
    assert unit_at(sera, "0 left vanguard").power == 2 and unit_at(sera, "0 center vanguard").power == 2


# --------------------------------------------------------------------------- T17 Shift


def test_T17_shift_once_per_cycle_to_an_empty_slot_either_row_on_an_adjacent_front():
    """T17: at most once per Cycle, to an empty slot (either row) on an adjacent Front:
    left-center, center-right (never left-right)."""
    state = position({"left vanguard": "Militia Recruit", "center vanguard": "Iron Vanguard",
                      "center support": "Border Sentinel"}, {"passed": True})
    left = {(a["to_front"], a["to_row"]) for a in state.legal_actions(0)
            if a.kind == "shift" and a["front"] == "left"}
    assert left == set(), "center is full and right is not adjacent to left"
    with pytest.raises(IllegalAction) as info:
        state.apply(0, Action.of("shift", front="left", row="vanguard", to_front="right", to_row="vanguard"))
    assert info.value.rule == "T17 Shift"
    center = {(a["to_front"], a["to_row"]) for a in state.legal_actions(0)
              if a.kind == "shift" and (a["front"], a["row"]) == ("center", "vanguard")}
    assert center == {("left", "support"), ("right", "vanguard"), ("right", "support")}
    play(state, 0, "shift", front="center", row="vanguard", to_front="right", to_row="support")
    with pytest.raises(IllegalAction) as info:
        state.apply(0, Action.of("shift", front="right", row="support", to_front="center", to_row="vanguard"))
    assert info.value.rule == "T17 Shift"
    settle(state)
