"""An example Conquest bot: keeps its hand, plays its Celestial, then places units where the
fewest of its own stand, and passes last. ``python -m botclient --bot botclient.examples.conquest:choose``.
"""

from __future__ import annotations

import random
from collections import Counter

PREFERENCE = ("keep", "play_celestial", "respond")


def choose(view: dict, legal: list[dict]) -> dict:
    for kind in PREFERENCE:
        options = [action for action in legal if action.get("kind") == kind]
        if options:
            return random.choice(options)
    places = [action for action in legal if action.get("kind") == "place"]
    if places:
        # Spread out: the Location offered the fewest times is where the hand is thinnest.
        offered = Counter(action.get("location") for action in places)
        fewest = min(offered.values())
        return random.choice([a for a in places if offered[a.get("location")] == fewest])
    others = [action for action in legal if action.get("kind") != "pass"]
    return random.choice(others) if others else legal[0]
