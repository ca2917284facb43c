"""The bot ladder for bots that run on their owners' machines (docs/bots-api.md).

The worker ladder (``ladder.services.ladder_tick``) pairs decks its own bots pilot. A deck
of a bot account on the ladder is played by the bot's program instead, so its matches are
live: :func:`live_ladder_bots` (``live.tick``) pairs each such deck whose bot is online and
idle with the idle ladder deck of its game whose rating is closest (never the one it met
last), in a live match (``Match.ladder``) where the program plays its seat over its socket
and the other deck's own pilot plays the other seat. It is rated as any ladder match, in
the bots pool. A bot that is offline is skipped, never forfeited; one that disconnects
during a match keeps its seat, and its clock runs, as a person's does.

The worker ladder's cap (``LADDER_MAX_IN_FLIGHT``) counts these matches too, and both run
under the ladder's tick lock, so the cap holds.
"""

from __future__ import annotations

import random
import secrets

from django.core.exceptions import ValidationError
from django.db import transaction

from accounts.selectors import bots_online
from ladder import conf as ladder_conf
from ladder.models import TickLock
from ladder.services import ladder_busy_decks, ladder_candidates, ladder_in_flight
from live.creation import SeatSpec, live_create
from live.notify import live_notify_seats

#: What the board and the banner call a ladder match.
TITLE = "Ladder match"


def live_ladder_bots(*, rng: random.Random | None = None) -> list[int]:
    """Pair the online external bots' idle ladder decks with ladder decks of the site's
    pilots, in live matches; returns their match ids."""
    online = {bot.user_id for bot in bots_online()}
    if not online:
        return []
    rng = rng or random.Random(secrets.randbits(64))
    created: list[int] = []
    with transaction.atomic():
        TickLock.objects.get_or_create(name="ladder")
        TickLock.objects.select_for_update().get(name="ladder")
        slots = ladder_conf.max_in_flight() - ladder_in_flight()
        busy = ladder_busy_decks()
        mine = [c for c in ladder_candidates(busy, external=True) if c.deck.owner_id in online]
        # The deck that waited longest first, as the worker ladder does.
        mine.sort(key=lambda c: (c.last_match, c.deck.pk))
        others = {c.deck.pk: c for c in ladder_candidates(busy)}
        for candidate in mine:
            if len(created) >= slots:
                break
            options = [o for o in others.values() if o.deck.game == candidate.deck.game
                       and o.deck.pk != candidate.last_opponent and o.last_opponent != candidate.deck.pk]
            if not options:
                continue
            opponent = min(options, key=lambda o: (abs(o.mu - candidate.mu), o.last_match, o.deck.pk))
            seats = [SeatSpec(deck_version=candidate.deck.latest_version, user=candidate.deck.owner),
                     SeatSpec(deck_version=opponent.deck.latest_version, bot=opponent.deck.pilot)]
            rng.shuffle(seats)
            try:
                with transaction.atomic():
                    live = live_create(seats=seats, title=TITLE, ladder=True)
            except ValidationError:  # a deck its latest version no longer lets play: left out
                continue
            del others[opponent.deck.pk]
            created.append(live.match_id)
            live_notify_seats(match_id=live.match_id, title=TITLE)
    return created
