"""``{{ key|game_title }}``: a game's title as the game spells it (``TempoFront``), from
the engine's registry (``web.games``); never Django's ``|title``, which lower-cases the F."""

from __future__ import annotations

from django import template

from web.games import game_title as _game_title

register = template.Library()


@register.filter
def game_title(name: str) -> str:
    return _game_title(str(name))
