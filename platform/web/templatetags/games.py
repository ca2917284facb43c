"""``{{ key|game_title }}``: a game's title as the game spells it (capitals inside it kept), from
the engine's registry (``web.games``); never Django's ``|title``, which lower-cases the F.
``{% game_board_script key %}``: the ``<script>`` of the game's board renderer, from its
package (``web.game_files``), for a page that draws its board; nothing for a game without
one (the board then shows the view's JSON)."""

from __future__ import annotations

from django import template
from django.templatetags.static import static
from django.utils.html import format_html

from web.game_files import board_script
from web.games import game_title as _game_title

register = template.Library()


@register.filter
def game_title(name: str) -> str:
    return _game_title(str(name))


@register.simple_tag
def game_board_script(name: str) -> str:
    path = board_script(str(name))
    # Before the page's own module: module scripts run in document order, so the game's
    # board is registered with boards.js by the time the page draws it.
    return format_html('<script type="module" src="{}"></script>', static(path)) if path else ""
