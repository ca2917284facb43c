"""Matchmaking: queues of players waiting for a live match of similar rating.

A player waits in one queue (a game and a seat count) at a time; :func:`live_queue_join`
pairs at once when players of similar rating wait, and :func:`live_pair_queues` (``live.tick``)
pairs again as the rating windows widen with waiting. A pairing creates the live match
(``live.creation``) and tells its players on any page (``live.notify``).
"""

from __future__ import annotations

from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.selectors import bots_online
from decks.models import Deck, DeckVersion
from ladder import selectors as ladder_selectors
from live import conf
from live.creation import SeatSpec, clean_queue_seats, live_create, require_deck_fits, require_own_deck
from live.models import LiveMatch, LiveQueue, LiveSeat, QueueEntry
from live.notify import live_notify_seats


def rating_of(*, user, game: str) -> float:
    """The player's rating in the human pool of the ladder (``ladder.selectors.human_rating``)."""
    return float(ladder_selectors.human_rating(user_id=user.pk, game=game))


def live_queue_join(*, user, deck_version: DeckVersion, seats: int = 2, now: datetime | None = None) -> QueueEntry:
    """Put ``user`` in the queue of the deck's game (and seat count) and pair at once if
    players of similar rating wait. A player waits in one queue at a time: joining again
    replaces the earlier entry. Locks the queue's row."""
    require_own_deck(user, deck_version)
    require_deck_fits(deck_version)
    game = deck_version.deck.game
    seats = clean_queue_seats(game, seats)
    now = now or timezone.now()
    with transaction.atomic():
        QueueEntry.objects.filter(user=user, match__isnull=True).delete()
        QueueEntry.objects.filter(user=user).delete()
        queue, _ = LiveQueue.objects.get_or_create(game=game, seats=seats)
        queue = LiveQueue.objects.select_for_update().get(pk=queue.pk)
        entry = QueueEntry.objects.create(queue=queue, user=user, deck_version=deck_version,
                                          rating=rating_of(user=user, game=game), joined=now)
        _pair(queue, now)
        entry.refresh_from_db()
    return entry


def live_queue_leave(*, user) -> bool:
    """Take ``user`` out of any queue; True if they were waiting."""
    deleted, _ = QueueEntry.objects.filter(user=user, match__isnull=True).delete()
    return bool(deleted)


def live_queue_release() -> int:
    """Delete the queue entries of matches no longer being played; returns how many.

    A paired entry only says "your match is ready"; once that match is over it would
    keep the player in a match that has ended (readers already ignore it,
    ``selectors.queue_status``). Run by ``live.tick`` through :func:`live_pair_queues`."""
    deleted, _ = (QueueEntry.objects.filter(match__isnull=False)
                  .exclude(match__live__status=LiveMatch.Status.ACTIVE).delete())
    return deleted


def live_queue_bots(*, now: datetime | None = None) -> int:
    """Keep the bots whose owners opted in (``BotAccount.matchmaking``) waiting in the queue
    while they are online and not playing: each in the two-seat queue of the first of its
    games it has a deck for, with its newest deck of that game. A bot that went offline
    leaves the queue. Returns how many bots joined. (Bots are paired with people here,
    never with each other: :func:`_pair`.)"""
    now = now or timezone.now()
    online = {b.user_id: b for b in bots_online(now=now)}
    QueueEntry.objects.filter(match__isnull=True, user__bot_account__isnull=False).exclude(
        user_id__in=[uid for uid, b in online.items() if b.matchmaking]).delete()
    busy = set(QueueEntry.objects.filter(user_id__in=list(online)).filter(
        Q(match__isnull=True) | Q(match__live__status=LiveMatch.Status.ACTIVE)).values_list("user_id", flat=True))
    busy |= set(LiveSeat.objects.filter(user_id__in=list(online), live__status=LiveMatch.Status.ACTIVE)
                .values_list("user_id", flat=True))
    joined = 0
    for user_id, bot in online.items():
        if not bot.matchmaking or user_id in busy:
            continue
        decks = {d.game: d for d in Deck.objects.filter(owner_id=user_id, archived=False).order_by("-updated")
                 if d.game in bot.games}
        game = next((g for g in bot.games if g in decks), None)
        version = decks[game].latest_version if game else None
        if version is None:
            continue
        try:
            live_queue_join(user=bot.user, deck_version=version, seats=2, now=now)
        except ValidationError:  # a deck the default rules refuse: it waits for a better one
            continue
        joined += 1
    return joined


def live_pair_queues(*, now: datetime | None = None) -> list[int]:
    """Release the entries of finished matches, queue the bots that opted in, then pair
    every queue again (windows widen as players wait); returns new match ids."""
    now = now or timezone.now()
    live_queue_release()
    live_queue_bots(now=now)
    created: list[int] = []
    for queue_id in LiveQueue.objects.filter(entries__match__isnull=True).values_list("pk", flat=True).distinct():
        with transaction.atomic():
            queue = LiveQueue.objects.select_for_update().get(pk=queue_id)
            created.extend(_pair(queue, now))
    return created


def _pair(queue: LiveQueue, now: datetime) -> list[int]:
    """Match waiting entries of the locked ``queue``, oldest first, in groups of
    ``queue.seats`` whose ratings are all within each other's window."""
    waiting = list(queue.entries.filter(match__isnull=True)
                   .select_related("user", "user__bot_account", "deck_version__deck"))
    created: list[int] = []

    def window(entry: QueueEntry) -> float:
        return conf.rating_window((now - entry.joined).total_seconds())

    while len(waiting) >= queue.seats:
        group: list[QueueEntry] | None = None
        for anchor in waiting:
            chosen = [anchor]
            for other in waiting:
                if other is anchor or any(other.user_id == c.user_id for c in chosen):
                    continue
                if all(abs(other.rating - c.rating) <= min(window(other), window(c)) for c in chosen):
                    chosen.append(other)
                    if len(chosen) == queue.seats:
                        break
            # Bots wait in the queue for people: a table of bots alone is not made here.
            if len(chosen) == queue.seats and not all(hasattr(c.user, "bot_account") for c in chosen):
                group = chosen
                break
        if group is None:
            break
        group.sort(key=lambda e: (e.joined, e.pk))
        live = live_create(seats=[SeatSpec(deck_version=e.deck_version, user=e.user) for e in group],
                           created_by=None)
        QueueEntry.objects.filter(pk__in=[e.pk for e in group]).update(match=live.match)
        created.append(live.match_id)
        # Its players hear of it on any page, not only on /live/ (once this commits).
        live_notify_seats(match_id=live.match_id, title="Matchmaking: your live match is ready")
        waiting = [e for e in waiting if e not in group]
    return created
