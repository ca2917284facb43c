"""The one declaration of every rules parameter (issue 11, "Bounded inputs"): ``param_specs()``
and ``check_params()`` of both games."""

from __future__ import annotations

import pytest

from engine import games
from engine.core import ParamSpec

GAMES = ["tempofront", "conquest"]


@pytest.mark.parametrize("name", GAMES)
def test_every_parameter_has_a_default_within_a_declared_minimum_and_maximum(name):
    game = games[name]
    specs = game.param_specs()
    assert set(specs) == set(game.default_params())
    for spec in specs.values():
        assert isinstance(spec, ParamSpec)
        if spec.choices is not None:
            assert spec.default in spec.choices, spec
        else:
            assert spec.minimum is not None and spec.maximum is not None, spec
            assert spec.minimum <= spec.default <= spec.maximum, spec
        assert spec.help, spec


@pytest.mark.parametrize("name", GAMES)
def test_check_params_fills_in_every_default(name):
    game = games[name]
    assert game.check_params(None) == game.default_params()
    assert game.check_params({}) == game.default_params()


@pytest.mark.parametrize("name", GAMES)
def test_values_outside_the_range_are_refused_naming_the_parameter_and_the_bound(name):
    game = games[name]
    for spec in game.param_specs().values():
        if spec.choices is not None:
            with pytest.raises(ValueError, match=f"parameter '{spec.name}' must be one of"):
                game.check_params({spec.name: "nonsense"})
            continue
        for bad in (spec.maximum + 1, spec.minimum - 1, 10**6):
            with pytest.raises(ValueError) as caught:
                game.check_params({spec.name: bad})
            assert str(caught.value) == (f"parameter '{spec.name}' must be between {spec.minimum} and "
                                         f"{spec.maximum}, not {bad}")
        extra = {"focus_max": spec.maximum} if spec.name == "focus_start" else {}
        assert game.check_params({spec.name: spec.maximum, **extra})[spec.name] == spec.maximum
        low = {"focus_start": 0} if spec.name == "focus_max" else {}
        assert game.check_params({spec.name: spec.minimum, **low})[spec.name] == spec.minimum


def test_the_exact_messages_of_the_brief():
    tempofront = games["tempofront"]
    with pytest.raises(ValueError, match=r"^parameter 'opening_hand' must be between 0 and 10, not 1000000$"):
        tempofront.check_params({"opening_hand": 1000000})
    with pytest.raises(ValueError, match=r"^parameter 'integrity' must be an integer, not 'x'$"):
        tempofront.check_params({"integrity": "x"})
    with pytest.raises(ValueError, match=r"^parameter 'integrity' must be an integer, not 1000000000.0$"):
        tempofront.check_params({"integrity": 1e9})
    with pytest.raises(ValueError, match=r"^parameter 'integrity' must be an integer, not True$"):
        tempofront.check_params({"integrity": True})
    with pytest.raises(ValueError, match=r"^unknown TempoFront parameter 'foo' \(known: cycle_cap, deck_size"):
        tempofront.check_params({"foo": 1})
    with pytest.raises(ValueError, match=r"^unknown Conquest parameter 'foo' \(known: battles"):
        games["conquest"].check_params({"foo": 1})
    with pytest.raises(ValueError, match="mapping"):
        tempofront.check_params([("integrity", 3)])


def test_focus_max_must_be_at_least_focus_start():
    tempofront = games["tempofront"]
    with pytest.raises(ValueError, match=r"^parameter 'focus_max' must be at least focus_start \(5\), not 4$"):
        tempofront.check_params({"focus_start": 5, "focus_max": 4})
    assert tempofront.check_params({"focus_start": 5, "focus_max": 5})["focus_max"] == 5


@pytest.mark.parametrize("name", GAMES)
def test_new_match_refuses_what_check_params_refuses(name):
    game = games[name]
    decks = list(game.starter_decks().values())[:2]
    with pytest.raises(ValueError, match="must be between"):
        game.new_match(decks, 1, {"deck_size": 10**6})


def test_specs_serialize_for_the_api_and_forms():
    spec = games["conquest"].param_specs()["battles"]
    assert spec.to_json() == {"name": "battles", "type": "integer", "default": 3, "minimum": 1, "maximum": 10,
                              "help": spec.help, "card_changeable": True, "organiser": True}
    tiebreak = games["conquest"].param_specs()["tiebreak"].to_json()
    assert tiebreak["type"] == "choice" and tiebreak["choices"] == ["inline", "deferred"]
    assert tiebreak["organiser"] is False
