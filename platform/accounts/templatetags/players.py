"""``{% load players %}``: a player's name as pages show it, a bot's marked as a bot.

``{{ name|player }}`` (a username, or a user) renders the name, followed by a **BOT** mark
when the account is a bot's (docs/bots-api.md), wherever a name appears. The names of the
bots are read once every few seconds per process (``accounts.names.bot_usernames``),
not once per name.
"""

from __future__ import annotations

from django import template
from django.utils.html import format_html

from accounts.names import bot_usernames

register = template.Library()


@register.filter
def player(value) -> str:
    name = value.get_username() if hasattr(value, "get_username") else ("" if value is None else str(value))
    if name and name in bot_usernames():
        return format_html('{} <span class="bot-badge" title="A program run by its owner">BOT</span>', name)
    return name


@register.filter
def is_bot_name(value) -> bool:
    name = value.get_username() if hasattr(value, "get_username") else ("" if value is None else str(value))
    return bool(name) and name in bot_usernames()
