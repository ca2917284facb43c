"""Issue 12: "Every number here is a default. A card's text can change it - even the number of
Battles." Card text changes every rules number through the same effect (``change_param``),
once per match for each player (R-Param), with no clamp a card can reach (R-Safety)."""

from __future__ import annotations

import pytest

from engine.conquest import GAME
from engine.conquest.cards import load_pool
from engine.conquest.params import CARD_CHANGEABLE, SAFETY, SPECS
from engine.conquest.pool import POOL, REACH, check_safety
from engine.conquest.positions import position
from engine.core import CardDataError

from .helpers import STOPPER, kinds, pass_, place, public, respond


def test_every_number_of_the_rules_text_is_a_card_changeable_parameter():
    """Rules text: "Every number here is a default"; deck rules and the tiebreak mode are match-only."""
    assert set(CARD_CHANGEABLE) == {"battles", "draw_per_battle", "forward_locations", "rear_locations",
                                    "max_extra_locations", "mulligans", "mulligan_battles",
                                    "responses_per_window", "plague_value"}
    assert not SPECS["deck_size"].card_changeable and not SPECS["max_copies"].card_changeable
    assert SPECS["tiebreak"].organiser is False


def test_R_safety_no_card_of_the_pool_can_reach_a_safety_bound():
    """R-Safety: the most card text can make of each number stays inside the engine's safety bound."""
    for name, (low, high) in SAFETY.items():
        lowest, highest = REACH[name]
        assert SPECS[name].maximum <= highest < high, name
        assert low <= lowest <= SPECS[name].minimum, name
    assert REACH["plague_value"][0] > SAFETY["plague_value"][0]  # no natural floor: never reached either


def test_R_safety_a_pool_that_could_reach_the_bound_is_refused(tmp_path):
    """R-Safety: card data whose changes could reach a safety bound does not load."""
    (tmp_path / "units.toml").write_text(
        '[[card]]\nname = "Endless Herald"\ntype = "unit"\ncq = 1\n'
        'on_reveal = [{ effect = "change_param", param = "battles", amount = 20 }]\n', encoding="utf-8")
    with pytest.raises(CardDataError, match="'battles' reach 1..90, which touches the safety bound 1..50"):
        check_safety(load_pool(tmp_path))


def test_C2_a_card_adds_a_battle_even_at_the_organisers_maximum():
    """Issue 12, no clamp a card can reach: a Battle added at Battle 10 of 10 (the organisers'
    maximum) is played."""
    state = position(phase="deployment", battle=10, params={"battles": 10},
                     face_down={0: {1: "Chronicler of Battles"}}, hands={1: [STOPPER]})
    events = pass_(state, 1)
    assert "The number of Battles is now 11 (was 10)" in public(events)
    assert state.battle == 10 and state.outcome is None
    view = state.view(None)
    assert view["battle_of"] == 11 and view["params"]["battles"] == 11
    assert view["params_changed"] == [{"name": "battles", "value": 11, "was": 10,
                                       "text": "The number of Battles is 11 this match (was 10)"}]
    place(state, 1, {})
    assert state.battle == 11 and state.outcome is None, "Battle 11 is played"


def test_C7_a_card_changes_the_plagued_value():
    """C7 (Plagued counts -1) is a default: Blight Herald makes a Plagued unit count -2."""
    state = position(phase="deployment", face_down={0: {1: "Blight Herald"}},
                     face_up={1: {2: {"name": "Vanguard Drone", "plagued": True}}}, hands={1: [STOPPER]})
    events = pass_(state, 1)
    assert "What a Plagued unit counts is now -2 (was -1)" in public(events)
    assert state.view(1)["locations"][1]["units"][1]["counts"] == -2
    change = state.view(None)["params_changed"]
    assert change[0]["name"] == "plague_value" and change[0]["value"] == -2 and change[0]["was"] == -1
    place(state, 1, {})  # the Rear Skirmish: nothing more; the Battle ends and scores
    scores = [e.data for e in kinds(state.opening_events + events, "score")]
    assert state.players[1].conquest == -2, scores


def test_R_param_each_card_changes_a_number_once_per_match_for_each_player():
    """R-Param: the same card changes a number once per match for each player; a second copy fizzles."""
    state = position(phase="deployment", face_down={0: {1: "Blight Herald", 2: "Blight Herald"},
                                                    1: {3: "Blight Herald"}})
    texts = public(state.opening_events)
    assert "What a Plagued unit counts is now -2 (was -1)" in texts
    assert "What a Plagued unit counts is now -3 (was -2)" in texts  # Seat 1's own change
    assert any("has already changed it for Seat 0 this match" in t for t in texts)
    assert state.params.plague_value == -3


def test_a_card_adds_a_location_to_the_rear_skirmish_from_the_next_battle():
    """Issue 12: Locations per Skirmish are parameters; Siege Engineer adds a Rear Location
    (R-Layout: the battle zone is laid out at the start of each Battle)."""
    state = position(phase="deployment", face_down={0: {1: "Siege Engineer"}},
                     decks={0: ["Vanguard Drone"] * 8, 1: ["Vanguard Drone"] * 8})
    texts = public(state.opening_events)
    assert "The number of Rear Locations is now 4 (was 3)" in texts
    assert state.battle == 2 and state.phase == "placement"
    assert [(loc.number, loc.kind) for loc in state.locations] == [
        (1, "forward"), (2, "forward"), (3, "forward"), (4, "forward"),
        (5, "rear"), (6, "rear"), (7, "rear"), (8, "rear")]


def test_C3_a_card_changes_the_draw():
    """C3 ("Everyone draws 7") is a default: Supply Convoy makes every player draw 9 from the next Battle."""
    state = position(phase="deployment", face_down={0: {1: "Supply Convoy"}},
                     decks={0: ["Vanguard Drone"] * 12, 1: ["Vanguard Drone"] * 12})
    assert "The number of cards drawn each Battle is now 9 (was 7)" in public(state.opening_events)
    assert state.battle == 2
    assert [len(p.hand) for p in state.players] == [9, 9]


def test_C6_a_card_grants_an_extra_response():
    """C6 (at most one Lightspeed card per opponent per window) is a default: after Quickened
    Reflexes resolves, an opponent may respond twice in one window."""
    state = position(phase="deployment", face_down={0: {1: "Vanguard Drone", 2: "Vanguard Drone"}},
                     hands={1: ["Quickened Reflexes", "Hush", "Surge of Insight"]})
    assert state.to_act() == (1,)
    events = respond(state, 1, "Quickened Reflexes")
    assert "The number of responses each opponent may make in a window is now 2 (was 1)" in public(events)
    assert state.phase == "response" and state.to_act() == (1,)  # the next reveal's window
    respond(state, 1, "Surge of Insight")
    assert state.phase == "response" and state.to_act() == (1,), "a second response in the same window"
    assert state.view(None)["window"]["responses"][0]["id"] == "surge-of-insight"


def test_mulligans_and_the_battles_that_allow_them_are_parameters():
    """Exact rule "On the first Battle only, you may mulligan once": both numbers are defaults."""
    decks = list(GAME.starter_decks().values())[:2]
    state = GAME.new_match(decks, 3, {"mulligan_battles": 2, "mulligans": 2})
    seat = state.to_act()[0]
    state.apply(seat, state.legal_actions(seat)[1])  # mulligan
    assert state.to_act() == (seat,), "a second mulligan is allowed"
    assert all(card.id for card in POOL)


def test_the_view_shows_the_battle_number_of_the_total():
    """Views: "Battle 2 of 4" comes from view["battle"] and view["battle_of"] (engine/conquest/site/rules.md)."""
    state = GAME.new_match(list(GAME.starter_decks().values())[:2], 1, {"battles": 4})
    view = state.view(None)
    assert (view["battle"], view["battle_of"]) == (1, 4) and view["params_changed"] == []
    assert "Battle 1 of 4 begins" in public(state.opening_events)[0]
