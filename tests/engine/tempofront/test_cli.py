"""The generic command line (python -m engine) with TempoFront: play, replay, cards, decks, bench."""

from __future__ import annotations

import json

from engine.__main__ import main


def test_cards_and_decks_list_the_pool_and_the_starter_decks(capsys):
    assert main(["cards", "--game", "tempofront", "--json"]) == 0
    cards = json.loads(capsys.readouterr().out)
    assert len(cards) >= 66 and {"Ironclad Sentry", "Ashen Drake"} <= {c["name"] for c in cards}
    assert main(["decks", "--game", "tempofront", "--json"]) == 0
    decks = json.loads(capsys.readouterr().out)
    assert len(decks) >= 4
    assert all(d["decklist"].startswith("Leader: ") for d in decks)
    assert main(["cards", "--game", "tempofront"]) == 0
    assert "Ashen Drake" in capsys.readouterr().out


def test_play_prints_one_json_line_per_game_and_replays_verify(tmp_path, capsys):
    code = main(["play", "--game", "tempofront", "--decks", "Ember Assault,Stone Dominion", "--bots",
                 "random,random", "--seed", "7", "--games", "2", "--json", "--replay-dir", str(tmp_path)])
    assert code == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["seed"] for line in lines] == [7, 8]
    for line in lines:
        assert line["reason"] in ("Integrity", "Dominion", "Cycle limit")
        assert line["actions"] > 0 and sorted(line["ranking"]) == [0, 1]
    for path in sorted(tmp_path.glob("*.json")):
        assert main(["replay", str(path), "--verify"]) == 0
        assert capsys.readouterr().out.startswith("OK: ")


def test_a_bad_decklist_file_prints_its_problems_and_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("Leader: Vess, the Long Watch\n3 Ashen Drake\n1 Ashen Drak\n", encoding="utf-8")
    assert main(["play", "--game", "tempofront", "--decks", f"{bad},Gale Tempo"]) == 2
    err = capsys.readouterr().err
    assert "3 copies of Ashen Drake; at most 2 allowed" in err
    assert "unknown card 'Ashen Drak' (did you mean Ashen Drake?)" in err
    assert "4 cards; a deck has exactly 30" in err


def test_bench_reports_games_and_actions_per_second(capsys):
    assert main(["bench", "--game", "tempofront", "--games", "10", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 10 and result["actions"] > 0 and result["actions_per_second"] > 0
