"""The registry: named, versioned bots with levels and settings, as the pilot picker sees them."""

from __future__ import annotations

import pytest

from engine.bots import REGISTRY, bot_info, bot_specs, make_bot, parse_spec
from engine.bots.greedy import GreedyBot
from engine.bots.search import SearchBot


def test_every_spec_builds_a_bot_named_after_it():
    for spec in bot_specs():
        bot = make_bot(spec)
        assert callable(bot.act)
        entry, level = parse_spec(spec)
        assert bot.name == (f"{entry.name}:{level}" if level else entry.name)
        assert bot.version == REGISTRY[spec.split(":")[0]].version


def test_search_levels_fast_and_strong_exist_and_strong_is_the_default():
    fast, strong, default = make_bot("search:fast"), make_bot("search:strong"), make_bot("search")
    assert isinstance(fast, SearchBot) and isinstance(strong, SearchBot)
    assert fast.iterations < strong.iterations
    assert default.iterations == strong.iterations and default.name == "search:strong"


def test_specs_are_case_and_space_insensitive():
    assert make_bot("  Search:FAST ").name == "search:fast"
    assert isinstance(make_bot("Greedy"), GreedyBot)


def test_overrides_replace_level_settings_and_unknown_ones_are_refused():
    assert make_bot("search:fast", iterations=7).iterations == 7
    with pytest.raises(ValueError, match="no setting depth"):
        make_bot("search", depth=3)


@pytest.mark.parametrize("spec,message", [
    ("minimax", "unknown bot 'minimax'"),
    ("search:godlike", "no level 'godlike'"),
    ("random:strong", "no level 'strong'"),
])
def test_unknown_bots_and_levels_name_what_exists(spec, message):
    with pytest.raises(ValueError, match=message) as info:
        make_bot(spec)
    assert "search" in str(info.value) or "none" in str(info.value)


def test_bad_settings_are_refused():
    with pytest.raises(ValueError):
        make_bot("search", iterations=0)
    with pytest.raises(ValueError):
        make_bot("greedy", samples=0)
    with pytest.raises(ValueError):
        make_bot("search", seconds=-1.0)


def test_bot_info_lists_name_version_levels_and_settings_for_the_pilot_picker():
    info = {entry["name"]: entry for entry in bot_info()}
    assert set(info) == {"random", "greedy", "search"}
    search = info["search"]
    assert search["version"] and search["description"]
    assert {"fast", "strong"} <= set(search["levels"])
    assert search["default_level"] == "strong"
    assert "iterations" in search["settings"] and "seconds" in search["settings"]
    assert "search:strong" in search["specs"]
    assert parse_spec("search")[1] == "strong"


def test_settings_written_into_a_spec_override_the_level_and_name_the_bot():
    from engine.bots import make_bot

    bot = make_bot("search:strong/iterations=1000/exploration=0.1/opponents=search")
    assert (bot.iterations, bot.exploration, bot.opponents) == (1000, 0.1, "search")
    assert bot.name == "search:strong/iterations=1000/exploration=0.1/opponents=search"
    assert make_bot("greedy/samples=4").samples == 4


@pytest.mark.parametrize("spec, words", [
    ("search:strong/iterations", "write /name=value"),
    ("search/depth=3", "no setting depth"),
    ("greedy/samples=many", "wrong kind"),
    ("search:huge/iterations=5", "no level 'huge'"),
])
def test_bad_settings_in_a_spec_are_named(spec, words):
    from engine.bots import make_bot

    with pytest.raises(ValueError, match=words):
        make_bot(spec)


def test_a_deck_pilot_cannot_carry_settings():
    """Pilots on the platform are checked with parse_spec: only registered bots and levels."""
    from engine.bots import parse_spec

    with pytest.raises(ValueError):
        parse_spec("search:strong/iterations=1000000")
