"""Demo data of the matches app, loaded by ``manage.py load_demo`` after the decks app's.

Queues two challenges between starter decks (one per game), created by the demo player,
unless the demo player already has matches. With a worker running they are played at
once; the match list then shows them live.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth import get_user_model

from decks.selectors import starter_decks
from matches.models import Match
from matches.services import match_challenge
from web.demo import DEMO_USERNAME

#: Fixed seeds, so the demo matches are the same on every machine.
DEMO_SEEDS = {"tempofront": 2026, "conquest": 2027}


def load_demo_data(*, log: Callable[[str], None]) -> None:
    """Queue one best-of-3 challenge per game between its first two starter decks."""
    user = get_user_model().objects.filter(username=DEMO_USERNAME).first()
    if user is None:
        log(f"no '{DEMO_USERNAME}' user: no demo matches")
        return
    if Match.objects.filter(created_by=user).exists():
        log("demo matches already queued")
        return
    for game, seed in DEMO_SEEDS.items():
        decks = list(starter_decks(game=game).order_by("name")[:2])
        if len(decks) < 2:
            log(f"fewer than two {game} starter decks: no demo {game} match")
            continue
        match = match_challenge(created_by=user, deck_versions=[d.latest_version for d in decks], best_of=3,
                                seed=seed)
        log(f"queued match {match.pk}: {decks[0].name} vs {decks[1].name} ({game}, best of 3)")
