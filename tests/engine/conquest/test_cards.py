"""The Conquest card pool, its data files, the starter decks and the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.__main__ import main
from engine.conquest import GAME
from engine.conquest.cards import load_pool
from engine.conquest.pool import POOL
from engine.core import CardDataError


def _uses(predicate) -> list[str]:
    return [c.name for c in POOL if predicate(c)]


def _effects(card):
    return [e for key in ("on_reveal", "ongoing", "end_of_battle", "when_destroyed", "effects")
            for e in getattr(card, key)]


def test_the_pool_has_60_cards_and_8_celestials_of_every_type():
    types = [c.type for c in POOL]
    assert types.count("celestial") >= 8
    assert len(POOL) - types.count("celestial") >= 60
    assert {"unit", "lightspeed", "fragment", "celestial"} <= set(types)
    assert len(GAME.cards()) == len(POOL) and len(GAME.card_names()) == len(POOL)


@pytest.mark.parametrize("mechanic,predicate", [
    ("Lightspeed mute of the revealed unit", lambda c: c.type == "lightspeed" and any(
        e.name == "mute" and e.target == "revealed" for e in c.effects)),
    ("Lightspeed destroy of the revealed unit", lambda c: c.type == "lightspeed" and any(
        e.name == "destroy" and e.target == "revealed" for e in c.effects)),
    ("Plague", lambda c: any(e.name == "plague" for e in _effects(c))),
    ("Extra Locations", lambda c: any(e.name == "create_location" for e in _effects(c))),
    ("Fragments", lambda c: c.type == "fragment"),
    ("counting uploaded Fragments", lambda c: any(e.per in ("uploaded_fragments", "all_uploaded_fragments")
                                                  for e in _effects(c))),
    ("At the End of Battle", lambda c: bool(c.end_of_battle)),
    ("When Destroyed", lambda c: bool(c.when_destroyed)),
    ("changing the number of Battles", lambda c: any(e.name == "change_param" and e.param == "battles"
                                                     for e in _effects(c))),
    ("changing the cards drawn", lambda c: any(e.name == "change_param" and e.param == "draw_per_battle"
                                               for e in _effects(c))),
    ("units affecting the other Skirmish", lambda c: c.type == "unit" and any(
        e.target and ("forward" in e.target or "rear" in e.target) for e in _effects(c))),
    ("moving units", lambda c: any(e.name == "move" for e in _effects(c))),
])
def test_every_mechanic_appears_on_several_cards(mechanic, predicate):
    assert len(_uses(predicate)) >= 2, mechanic


def test_every_parameter_cards_may_change_has_words():
    from engine.conquest.effects import PARAM_WORDS
    from engine.conquest.params import CARD_CHANGEABLE

    assert set(PARAM_WORDS) == set(CARD_CHANGEABLE)


def test_cards_are_described_for_the_website():
    cards = {c["id"]: c for c in GAME.cards()}
    lancer = cards["ambush-lancer"]
    assert lancer == {"id": "ambush-lancer", "name": "Ambush Lancer", "type": "unit", "type_name": "Unit",
                      "cq": 2, "keywords": ["On Reveal"], "text": "On Reveal: Destroy the weakest enemy unit here.",
                      "on_reveal": [{"effect": "destroy", "target": "weakest_enemy_here"}]}
    assert cards["severance"]["text"] == "Lightspeed: Destroy the revealed unit if its CQ is 3 or less."
    assert cards["crown-of-the-long-night"]["text"] == ("When played: The match lasts 1 more Battle "
                                                        "(once per match per player).")
    json.dumps(list(cards.values()))


def _write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "units.toml").write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("text,message", [
    ('[[card]]\nname = "Ashen Drake"\ntype = "unit"\ncq = -1\n',
     "cards/units.toml: card 'Ashen Drake': field 'cq' must be an integer >= 0"),
    ('[[card]]\nname = "Ashen Drake"\ntype = "dragon"\n',
     "cards/units.toml: card 'Ashen Drake': field 'type' must be one of"),
    ('[[card]]\nname = "Ashen Drake"\ntype = "unit"\ncq = 2\npower = 3\n',
     "cards/units.toml: card 'Ashen Drake': field 'power' is not allowed on a unit card"),
    ('[[card]]\nname = "Ashen Drake"\ntype = "unit"\ncq = 2\non_reveal = [{ effect = "explode" }]\n',
     "cards/units.toml: card 'Ashen Drake': field 'on_reveal[0]': unknown effect 'explode'"),
    ('[[card]]\nname = "Ashen Drake"\ntype = "unit"\ncq = 2\non_reveal = [{ effect = "destroy" }]\n',
     "field 'on_reveal[0]': effect 'destroy' needs parameter 'target'"),
    ('[[card]]\nname = "Ashen Drake"\ntype = "unit"\ncq = 2\n'
     'on_reveal = [{ effect = "destroy", target = "revealed" }]\n',
     "target 'revealed' is for Lightspeed responses only"),
    ('[[card]]\nname = "Ashen Drake"\ntype = "unit"\ncq = 2\n'
     'ongoing = [{ effect = "draw", amount = 1 }]\n',
     "an Ongoing ability can only be 'add_cq'"),
    ('[[card]]\nname = "Ashen Drake"\ntype = "unit"\ncq = 2\n'
     'on_reveal = [{ effect = "change_param", param = "deck_size", amount = 1 }]\n',
     "parameter 'param' must be a rules parameter cards may change"),
    ('[[card]]\nname = "Ashen Drake"\ntype = "lightspeed"\n',
     "card 'Ashen Drake': field 'effects' is required on a Lightspeed card"),
    ('[[card]]\nname = "Ashen Drake"\ntype = "unit"\ncq = 1\n[[card]]\nname = "Ashen  Drake"\ntype = "unit"\ncq = 1\n',
     "field 'name' repeats a card"),
    ('[[card]\nname = "broken"', "cards/units.toml: not valid TOML"),
])
def test_card_data_errors_name_the_file_the_card_and_the_field(tmp_path, text, message):
    with pytest.raises(CardDataError) as info:
        load_pool(_write(tmp_path, text))
    assert message in str(info.value)


def test_starter_decks_come_from_the_deck_files_and_pass_validation():
    decks = GAME.starter_decks()
    files = sorted(p.stem for p in (Path(__file__).parents[3] / "engine/conquest/decks").glob("*.txt"))
    assert len(decks) >= 4 and len(files) == len(decks)
    for name, deck in decks.items():
        assert deck.name == name
        assert GAME.validate_deck(deck) == []
        assert deck.size == 40 and max(n for _, n in deck.cards) <= 3
        assert GAME.commander_label == "Celestial" and deck.commander in GAME.celestial_names()


def test_cli_play_replay_cards_decks_and_bench_work_for_conquest(tmp_path, capsys):
    assert main(["play", "--game", "conquest", "--players", "3", "--games", "2", "--replay-dir",
                 str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.count("by Conquest") == 2
    replays = sorted(tmp_path.glob("conquest-*.json"))
    assert len(replays) == 2
    assert main(["replay", str(replays[0]), "--verify"]) == 0
    assert "every state and the outcome reproduced exactly" in capsys.readouterr().out
    assert main(["cards", "--game", "conquest"]) == 0
    assert f"{len(POOL)} cards" in capsys.readouterr().out
    assert main(["decks", "--game", "conquest"]) == 0
    assert "Celestial: The Silent Nebula" in capsys.readouterr().out
    assert main(["bench", "--game", "conquest", "--players", "4", "--games", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["players"] == 4


def test_cli_refuses_a_bad_decklist_with_every_problem_and_status_2(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("Celestial: The Quiet Sun\n4 Hush\n2 Ambush Lancr\n", encoding="utf-8")
    assert main(["play", "--game", "conquest", "--decks", f"{bad},Void Choir"]) == 2
    err = capsys.readouterr().err
    assert "4 copies of Hush; at most 3 allowed" in err
    assert "unknown card 'Ambush Lancr' (did you mean Ambush Lancer?)" in err
    assert "6 cards; a deck has exactly 40" in err
