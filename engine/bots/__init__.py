"""Bots: named, versioned players a deck can choose as its pilot.

A bot is any object with a ``name`` and ``act(observation, seat, rng) -> Action``, where
``observation`` is an :class:`engine.runner.Observation` (legal actions, the seat's view,
determinized samples, who acts, the number of seats) and ``rng`` a seeded
:class:`engine.core.Rng`: a bot sees nothing else. The registry below names every bot,
its version, its strength levels and their settings:

- ``make_bot("search:strong")`` builds a bot from a spec ``name[:level]``; without a level
  a bot plays at its default level. Keyword arguments override a level's settings.
- ``bot_info()`` describes every bot for the platform's pilot picker.
- ``clean_platform_spec(spec)`` is the one check of a bot spec entering the platform (a
  deck's pilot, a live bot seat): a registered bot or level, never settings.

A bot's version changes whenever its play changes for the same (observation, rng), so that
results and ratings recorded for ``search:strong`` v1 are never mixed with v2's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.bots.greedy import GreedyBot
from engine.bots.search import SearchBot
from engine.runner import RandomBot


@dataclass(frozen=True)
class BotSpec:
    """A registered bot: how to build it and what it may be asked for."""

    name: str
    version: str
    description: str
    factory: Callable[..., Any]
    #: Level name -> settings passed to the factory.
    levels: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    default_level: str | None = None
    #: Setting name -> what it means.
    settings: Mapping[str, str] = field(default_factory=dict)

    def info(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "description": self.description,
            "levels": {level: dict(values) for level, values in self.levels.items()},
            "default_level": self.default_level,
            "settings": dict(self.settings),
            "specs": [self.name] + [f"{self.name}:{level}" for level in self.levels],
        }


def _random(*, name: str, version: str) -> RandomBot:
    bot = RandomBot()
    bot.name = name
    bot.version = version
    return bot


REGISTRY: dict[str, BotSpec] = {
    spec.name: spec
    for spec in (
        BotSpec(
            name="random",
            version="1",
            description="Uniform over the legal actions, from its seeded stream.",
            factory=_random,
        ),
        BotSpec(
            name="greedy",
            version="1",
            description="One step of look-ahead with a hand-written evaluation per game, "
                        "averaged over a few determinized samples of what it cannot see.",
            factory=GreedyBot,
            settings={"samples": "determinized samples each action is evaluated on"},
        ),
        BotSpec(
            name="search",
            version="2",
            description="Information-set Monte Carlo tree search over determinized samples, "
                        "with the greedy evaluation at the leaves.",
            factory=SearchBot,
            levels={
                "fast": {"iterations": 200, "exploration": 0.3},
                "strong": {"iterations": 2500, "exploration": 0.3},
            },
            default_level="strong",
            settings={
                "iterations": "search iterations per decision (the budget)",
                "seconds": "optional wall-clock limit per decision; makes play depend on machine speed",
                "exploration": "UCB exploration constant",
                "batch": "iterations per determinized sample",
                "playout": "random actions played before evaluating a leaf",
                "prior": "virtual visits given to each root action at its greedy value (0: none)",
                "prior_samples": "determinized samples for those greedy values",
                "opponents": "how other seats choose in the tree: auto, search (their own statistics) "
                             "or policy (the evaluation's fast policy)",
            },
        ),
    )
}


#: Bot levels from the weakest to the strongest, as an event's bot cap names them.
STRENGTH_ORDER = ("random", "greedy", "search:fast", "search:strong")


def bot_strength(spec: str) -> int:
    """The rank of ``spec`` in :data:`STRENGTH_ORDER` (0: the weakest); a bare name ranks
    as its default level. A spec with settings written into it (``search:fast/iterations=9000``)
    ranks above every level, since its settings may make it as strong as they like.
    ``ValueError`` for a spec ``make_bot`` refuses."""
    base, written = split_settings(spec)
    entry, level = parse_spec(base)
    if written:
        return len(STRENGTH_ORDER)
    name = entry.name if level is None else f"{entry.name}:{level}"
    return STRENGTH_ORDER.index(name) if name in STRENGTH_ORDER else len(STRENGTH_ORDER)


def clean_platform_spec(spec: object) -> str:
    """The canonical form (lower case, no spaces) of a bot spec the platform accepts, for a
    deck's pilot, a live match's bot seat and every other place a bot enters a match
    there: a registered bot or level (``random``, ``greedy``, ``search``, ``search:fast``,
    ``search:strong``), never a spec with settings written into it, since a setting such
    as ``iterations`` has no bound but the level's. ``ValueError`` naming the problem and
    the bound otherwise.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"choose a bot: one of {', '.join(bot_specs())}")
    text = spec.strip().lower()
    base, written = split_settings(text)
    parse_spec(base)
    if written:
        shown = "/".join(f"{name}={value}" for name, value in written.items())
        strongest = STRENGTH_ORDER[-1]
        budget = _strongest_budget()
        raise ValueError(
            f"bot '{spec.strip()}' has settings written into it ({shown}): a bot here is one of "
            f"{', '.join(bot_specs())}, with its level's settings; the strongest, {strongest}, "
            f"searches {budget} iterations per decision")
    return text


def _strongest_budget() -> str:
    entry, level = parse_spec(STRENGTH_ORDER[-1])
    return str((entry.levels.get(level or "", {}) or {}).get("iterations", "?"))


def bot_names() -> list[str]:
    return sorted(REGISTRY)


def bot_specs() -> list[str]:
    """Every spec ``make_bot`` accepts: bare names and ``name:level``."""
    out = []
    for name in bot_names():
        out.extend(REGISTRY[name].info()["specs"])
    return out


def bot_info() -> list[dict[str, Any]]:
    """Name, version, description, levels, default level and settings of every bot."""
    return [REGISTRY[name].info() for name in bot_names()]


def parse_spec(spec: str) -> tuple[BotSpec, str | None]:
    """The registered bot and level a spec names; ``ValueError`` naming what is known."""
    text = spec.strip().lower()
    name, _, level = text.partition(":")
    entry = REGISTRY.get(name)
    if entry is None:
        raise ValueError(f"unknown bot '{spec}' (known: {', '.join(bot_specs())})")
    if level:
        if level not in entry.levels:
            known = ", ".join(entry.levels) or "none"
            raise ValueError(f"bot '{name}' has no level '{level}' (levels: {known})")
        return entry, level
    return entry, entry.default_level


def _setting(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def split_settings(spec: str) -> tuple[str, dict[str, Any]]:
    """``"search:strong/iterations=1000/exploration=0.1"`` -> (``"search:strong"``, settings).

    Settings after the spec, each ``/name=value``, are numbers where they read as numbers.
    """
    base, *parts = spec.split("/")
    settings: dict[str, Any] = {}
    for part in parts:
        name, sep, value = part.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise ValueError(f"bad setting '{part}' in bot '{spec}' (write /name=value)")
        settings[name.strip()] = _setting(value.strip())
    return base, settings


def make_bot(spec: str, **overrides: Any):
    """Build a bot from a spec such as ``random``, ``greedy`` or ``search:strong``.

    ``overrides`` replace settings of the level (``make_bot("search:fast", iterations=20)``);
    so do settings written into the spec (``search:fast/iterations=20``, for the command
    line); unknown settings raise ``ValueError``. The bot's ``name`` is the spec with its
    level (``search:strong``) and any settings written into it, as results and error
    messages show it.
    """
    base, written = split_settings(spec)
    overrides = {**written, **overrides}
    entry, level = parse_spec(base)
    unknown = sorted(set(overrides) - set(entry.settings))
    if unknown:
        raise ValueError(f"bot '{entry.name}' has no setting {', '.join(unknown)} "
                         f"(settings: {', '.join(entry.settings) or 'none'})")
    settings = {**(entry.levels.get(level, {}) if level else {}), **overrides}
    shown = entry.name if level is None else f"{entry.name}:{level}"
    shown += "".join(f"/{name}={value}" for name, value in written.items())
    try:
        return entry.factory(name=shown, version=entry.version, **settings)
    except TypeError as exc:  # a setting of the wrong kind, such as a word for a number
        raise ValueError(f"bot '{spec}' has a setting of the wrong kind: {exc}") from None


__all__ = ["REGISTRY", "STRENGTH_ORDER", "BotSpec", "bot_info", "bot_names", "bot_specs", "bot_strength",
           "clean_platform_spec", "make_bot", "parse_spec", "split_settings"]
