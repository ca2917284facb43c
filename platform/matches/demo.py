"""Demo data of the matches app, loaded by ``manage.py load_demo`` after the decks app's.

Two kinds of matches, created by the demo player unless they exist already:

- one best-of-3 showcase challenge per game between its first two starter decks;
- for each game, the demo player's own deck against two starter decks, best of 1, so that
  its profile and its decks have finished matches to show and to replay.

Once the data is committed they are played at once in this process (each game takes a
second or two with the greedy pilot), so a fresh ``make run`` opens on finished matches;
a match that cannot be played here stays queued for the worker.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.contrib.auth import get_user_model
from django.db import transaction

from decks.demo import demo_deck
from decks.selectors import starter_decks
from engine import games as engine_games
from matches.models import Match
from matches.services import match_challenge
from matches.tasks import run_match
from web.demo import DEMO_USERNAME

logger = logging.getLogger(__name__)

#: Fixed seeds, so the demo matches are the same on every machine: one per game, in the
#: order the registry lists the games.
DEMO_SEEDS = {name: 2026 + index for index, name in enumerate(engine_games)}
#: Seeds of the demo player's own matches, one per opponent.
DEMO_PLAYER_SEEDS = {name: (3101 + 100 * index, 3102 + 100 * index) for index, name in enumerate(engine_games)}


def load_demo_data(*, log: Callable[[str], None]) -> None:
    """Queue the showcase challenges and the demo player's matches (once), and play them
    after commit."""
    user = get_user_model().objects.filter(username=DEMO_USERNAME).first()
    if user is None:
        log(f"no '{DEMO_USERNAME}' user: no demo matches")
        return
    queued: list[int] = []
    if Match.objects.filter(created_by=user, seats__deck_version__deck__is_starter=True).exclude(
        seats__deck_version__deck__owner=user
    ).exists():
        log("demo matches already queued")
    else:
        for game, seed in DEMO_SEEDS.items():
            decks = list(starter_decks(game=game).order_by("name")[:2])
            if len(decks) < 2:
                log(f"fewer than two {game} starter decks: no demo {game} match")
                continue
            match = match_challenge(created_by=user, deck_versions=[d.latest_version for d in decks], best_of=3,
                                    seed=seed)
            queued.append(match.pk)
            log(f"queued match {match.pk}: {decks[0].name} vs {decks[1].name} ({game}, best of 3)")
    for game, seeds in DEMO_PLAYER_SEEDS.items():
        own = demo_deck(game=game)
        if own is None:
            log(f"{DEMO_USERNAME} has no {game} deck: no {game} matches of its own")
            continue
        if Match.objects.filter(seats__deck_version__deck=own).exists():
            log(f"{DEMO_USERNAME}'s {game} matches already queued")
            continue
        opponents = list(starter_decks(game=game).order_by("name")[1: 1 + len(seeds)])
        for opponent, seed in zip(opponents, seeds, strict=False):
            match = match_challenge(created_by=user, best_of=1, seed=seed,
                                    deck_versions=[own.latest_version, opponent.latest_version])
            queued.append(match.pk)
            log(f"queued match {match.pk}: {own.name} vs {opponent.name} ({game}, best of 1)")
    if queued:
        # Not an effect sent anywhere (their run_match tasks went through web.effects): this
        # process plays them itself once they are committed.
        transaction.on_commit(lambda: _play_now(queued, log))


def _play_now(match_ids: list[int], log: Callable[[str], None]) -> None:
    """Play the demo matches in this process; any that fails here is left to the worker."""

    for match_id in match_ids:
        try:
            outcome = run_match.apply(args=[match_id]).get(propagate=True)
        except Exception as exc:  # the worker will play it
            logger.warning("demo match %s not played here: %s", match_id, exc)
            log(f"match {match_id} left queued for the worker ({type(exc).__name__})")
        else:
            log(f"played match {match_id}: {outcome}")
