"""The names of the bot accounts, kept a few seconds per process: pages mark a bot's name
wherever it appears (``{{ name|player }}``, accounts/templatetags/players.py), and a list
of names must not cost a query per name."""

from __future__ import annotations

import time

from accounts.models import BotAccount

#: How long a process keeps the set of bot names before reading it again (seconds).
BOT_NAMES_SECONDS = 5.0
_bot_names: dict[str, object] = {"at": float("-inf"), "names": frozenset()}


def bot_usernames() -> frozenset[str]:
    """The names of every bot account, read at most every :data:`BOT_NAMES_SECONDS` per
    process (pages mark bots by name; there are few bots, and a new one is marked at once
    in the process that created it: :func:`forget_bot_usernames`)."""
    now = time.monotonic()
    if now - _bot_names["at"] > BOT_NAMES_SECONDS:
        _bot_names["names"] = frozenset(BotAccount.objects.values_list("user__username", flat=True))
        _bot_names["at"] = now
    return _bot_names["names"]


def forget_bot_usernames() -> None:
    _bot_names["at"] = float("-inf")
