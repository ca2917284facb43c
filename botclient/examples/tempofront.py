"""An example TempoFront bot: keeps its hand, strikes when it can, then develops the board,
and passes last. ``python -m botclient --bot botclient.examples.tempofront:choose``.

``view`` is the seat's view frame (``view["view"]`` the board as the seat sees it, with
its own hand); ``legal`` the actions it may take now. Return one of ``legal``.
"""

from __future__ import annotations

import random

#: Kinds of action, most wanted first; anything else comes before passing.
PREFERENCE = ("keep", "strike", "deploy", "leader", "attach", "site", "play", "prepare", "shift", "react")


def choose(view: dict, legal: list[dict]) -> dict:
    for kind in PREFERENCE:
        options = [action for action in legal if action.get("kind") == kind]
        if options:
            return random.choice(options)
    others = [action for action in legal if action.get("kind") != "pass"]
    return random.choice(others) if others else legal[0]
