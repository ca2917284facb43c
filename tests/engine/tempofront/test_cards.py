"""The TempoFront card pool: validation of the card files, what the pool must contain,
card texts for the website, starter decks and deck validation."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from engine.core import CardDataError, DeckError
from engine.tempofront import GAME
from engine.tempofront.cards import (
    ACTOR_KINDS,
    ATTACHMENT,
    CARDS,
    ENTITY,
    LEADER,
    REACTION,
    SITE,
    TACTIC,
    load_cards,
)
from engine.tempofront.game import DECK_DIR


def _effects(card):
    lists = [card.play, card.on_deploy, card.on_defeat, card.on_strike, card.cycle_end]
    if card.activated:
        lists.append(card.activated.effects)
    return [e for effects in lists for e in effects]


def test_pool_has_60_cards_6_leaders_and_every_card_type():
    counts = Counter(c.type for c in CARDS.values())
    assert sum(n for t, n in counts.items() if t != LEADER) >= 60
    assert counts[LEADER] >= 6
    for kind in (ENTITY, ATTACHMENT, SITE, TACTIC, REACTION):
        assert counts[kind] >= 5, kind
    assert "Ironclad Sentry" in GAME.card_names() and "Ashen Drake" in GAME.card_names()


def test_every_keyword_status_reaction_use_and_prepare_discount_appears_on_several_cards():
    cards = list(CARDS.values())
    keyword = Counter(k for c in cards for k in c.keywords)
    keyword["armor"] = sum(1 for c in cards if c.armor)
    for word in ("ranged", "armor", "barrier", "rapid", "mobile", "structure"):
        assert keyword[word] >= 3, word
    status = Counter(e.name for c in cards for e in _effects(c))
    for name in ("stun", "root", "silence", "expose", "protect"):
        assert status[name] >= 3, name
    cancels = [c for c in cards if c.type == REACTION and any(e.name == "cancel_pending" for e in c.play)]
    punishes = [c for c in cards if c.type == REACTION
                and any(e.target in ("actor", "acting_leader") for e in c.play)]
    assert len(cancels) >= 3 and len(punishes) >= 3
    assert sum(1 for c in cards if c.preparable) >= 10
    assert {c.type for c in cards if c.preparable} >= {ENTITY, TACTIC, REACTION, ATTACHMENT, SITE}


def test_cards_json_describes_every_card_for_the_website():
    cards = GAME.cards()
    assert len(cards) == len(CARDS)
    by_name = {c["name"]: c for c in cards}
    drake = by_name["Ashen Drake"]
    assert drake["id"] == "ashen-drake" and drake["type"] == "entity"
    assert (drake["focus"], drake["time"], drake["power"], drake["vitality"], drake["armor"]) == (5, 3, 4, 5, 2)
    assert drake["keywords"] == ["Armor 2", "Mobile"]
    assert drake["prepare"] == {"focus": 1, "time": 0}
    assert drake["text"].startswith("Armor 2. Mobile. On deploy: Deal 1 damage to each enemy Entity on this Front.")
    assert by_name["Riposte"]["react_to"] == ["strike"]
    assert by_name["Riposte"]["text"] == "Respond to a Strike. Deal 2 damage to the acting Entity."
    assert by_name["Kael Embercrown"]["text"].startswith("Activate (2 Time, 1 Focus, once per Cycle)")
    for card in cards:
        if card["type"] != "entity" or card["keywords"]:
            assert card["text"], card["name"]
    assert set(GAME.card_names()) == {c.name for c in CARDS.values()}


def _write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "units.toml").write_text(text, encoding="utf-8")
    return tmp_path


ENTITY_OK = 'name = "Ashen Drake"\ntype = "entity"\nfocus = 5\ntime = 3\nvitality = 5\npresence = 2\n'


@pytest.mark.parametrize("body,message", [
    (ENTITY_OK + "power = -1\n", "cards/units.toml: card 'Ashen Drake': field 'power' must be an integer >= 0"),
    (ENTITY_OK + "power = \"4\"\n", "field 'power' must be an integer >= 0"),
    (ENTITY_OK, "field 'power' is required for an Entity"),
    (ENTITY_OK + "power = 4\nkeywords = [\"flying\"]\n", "field 'keywords' must be one of"),
    (ENTITY_OK + "power = 4\nspeed = 3\n", "field 'speed' is not a field of an Entity card"),
    (ENTITY_OK + "power = 4\non_deploy = [{ effect = \"explode\" }]\n", "field 'on_deploy[0].effect' must be one of"),
    (ENTITY_OK + "power = 4\non_deploy = [{ effect = \"stun\", target = \"chosen\", duration = \"next_cycle\" }]\n",
     "'chosen' needs a 'choose' on the card or ability"),
    (ENTITY_OK + "power = 4\non_defeat = [{ effect = \"scout\", amount = 2 }]\n",
     "scout needs a player's choice and cannot be in on_defeat"),
    (ENTITY_OK + "power = 4\non_deploy = [{ effect = \"stun\", target = \"enemy_leader\", "
                 "duration = \"this_cycle\" }]\n",
     "is a Leader, which stun cannot affect"),
    (ENTITY_OK + "power = 4\non_deploy = [{ effect = \"stun\", target = \"self\" }]\n",
     "field 'on_deploy[0].duration' is required"),
    (ENTITY_OK + "power = 4\nprepare = { focus = 0 }\n", "field 'prepare' must give a discount of at least 1"),
])
def test_card_data_errors_name_file_card_and_field(tmp_path, body, message):
    directory = _write(tmp_path, "[[card]]\n" + body)
    with pytest.raises(CardDataError) as info:
        load_cards(directory)
    assert message in str(info.value)
    assert str(info.value).startswith("cards/units.toml: card 'Ashen Drake'")


def test_card_data_errors_for_files_and_duplicates(tmp_path):
    good = "[[card]]\n" + ENTITY_OK + "power = 4\n"
    _write(tmp_path, good + "\n" + good)
    with pytest.raises(CardDataError, match="field 'name' repeats 'Ashen Drake'"):
        load_cards(tmp_path)
    _write(tmp_path, "[[card]\nname=")
    with pytest.raises(CardDataError, match="cards/units.toml: not valid TOML"):
        load_cards(tmp_path)
    _write(tmp_path, '[[card]]\nname = "Quick Trick"\ntype = "reaction"\nfocus = 1\ntime = 0\n'
                     'play = [{ effect = "cancel_pending" }]\n')
    with pytest.raises(CardDataError, match="field 'time' must be an integer >= 1 for a Reaction"):
        load_cards(tmp_path)
    _write(tmp_path, '[[card]]\nname = "Jab"\ntype = "reaction"\nfocus = 1\ntime = 1\n'
                     'play = [{ effect = "deal_damage", amount = 1, target = "actor" }]\n')
    with pytest.raises(CardDataError, match="field 'react_to' must list only"):
        load_cards(tmp_path)


def test_punishing_reactions_only_answer_entity_actions():
    punishing = [card for card in CARDS.values() if card.needs_actor]
    assert punishing, "the pool has reactions that punish an actor: the rule below is checked on them"
    for card in punishing:
        assert card.react_to is not None and card.react_to <= ACTOR_KINDS, card.name


def test_starter_decks_come_from_the_deck_files_and_pass_validation():
    decks = GAME.starter_decks()
    assert len(decks) >= 4
    assert len(decks) == len(list(DECK_DIR.glob("*.txt")))
    assert {"Ember Assault", "Stone Dominion", "Gale Tempo", "Veil Tricks"} <= set(decks)
    for name, deck in decks.items():
        assert deck.name == name
        assert GAME.validate_deck(deck) == []
        assert deck.size == 30 and max(n for _, n in deck.cards) <= 2
        assert GAME.parse_deck(deck.to_text("Leader")).counts() == deck.counts()


def test_parse_deck_reports_every_problem_in_words():
    text = "Leader: Vess, the Long Watch\n3 Ashen Drake\n2 Ashen Drak\n20 Militia Recruit\n"
    with pytest.raises(DeckError) as info:
        GAME.parse_deck(text)
    problems = info.value.problems
    assert "unknown card 'Ashen Drak' (did you mean Ashen Drake?)" in problems
    assert "3 copies of Ashen Drake; at most 2 allowed" in problems
    assert "20 copies of Militia Recruit; at most 2 allowed" in problems
    assert "25 cards; a deck has exactly 30" in problems


def test_new_match_refuses_bad_decks_and_bad_params():
    decks = list(GAME.starter_decks().values())[:2]
    with pytest.raises(DeckError) as info:
        GAME.new_match([decks[0], decks[1].__class__(commander=None, cards=decks[1].cards, name="x")], seed=1)
    assert info.value.problems == ["Seat 1 (x): no Leader: a deck needs one 'Leader: Name' line"]
    with pytest.raises(ValueError, match="'timeline' must be an integer"):
        GAME.new_match(decks, 1, {"timeline": "12"})
    with pytest.raises(ValueError, match="unknown TempoFront parameter 'speed'"):
        GAME.new_match(decks, 1, {"speed": 2})
    state = GAME.new_match(decks, 1, {"integrity": 10, "mulligans": 0})
    assert state.players[0].integrity == 10 and state.phase == "main"
    assert GAME.default_params()["timeline"] == 12
