"""Challenges and bot games: a person invites a named player, or plays the site's bots.

:func:`live_challenge` invites a player to a two-seat match; :func:`live_challenge_answer`
accepts (creating the match, ``live.creation``), declines or cancels it, and
:func:`live_expire_challenges` (``live.tick``) expires those nobody answered.
:func:`live_play_bot` starts a match of a person against bots playing the starter decks.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.selectors import bot_of
from decks.models import Deck, DeckVersion
from engine import games as engine_games
from engine.bots import clean_platform_spec
from live import conf
from live.creation import SeatSpec, clean_queue_seats, live_create, require_deck_fits, require_own_deck
from live.errors import LiveError
from live.models import LiveChallenge, LiveMatch
from live.notify import live_notify_challenge, live_notify_seats


def live_challenge(*, challenger, challenged_username: str, deck_version: DeckVersion,
                   now: datetime | None = None) -> LiveChallenge:
    """Invite a named player to a two-seat live match with the challenger's deck; the
    invitation expires after ``LIVE_CHALLENGE_SECONDS`` and replaces the challenger's
    earlier one of the same player that still waits (it is cancelled)."""
    require_own_deck(challenger, deck_version)
    require_deck_fits(deck_version)
    User = get_user_model()
    target = User.objects.filter(username__iexact=str(challenged_username or "").strip()).first()
    if target is None:
        raise ValidationError({"username": [f"there is no player named '{challenged_username}'"]})
    if target.pk == challenger.pk:
        raise ValidationError({"username": ["you cannot challenge yourself"]})
    _require_bot_accepts(target, challenger, deck_version.deck.game)
    now = now or timezone.now()
    with transaction.atomic():
        # A new challenge of the same player replaces the one still waiting, so that the
        # challenged player's list holds one line per challenger.
        LiveChallenge.objects.filter(challenger=challenger, challenged=target,
                                     status=LiveChallenge.Status.PENDING).update(
            status=LiveChallenge.Status.CANCELLED)
        challenge = LiveChallenge.objects.create(challenger=challenger, challenged=target,
                                                 game=deck_version.deck.game, deck_version=deck_version,
                                                 expires=now + timedelta(seconds=conf.challenge_seconds()))
        # The challenged player's program (a bot) hears of it at once.
        live_notify_challenge(challenge=challenge)
        return challenge


def _require_bot_accepts(target, challenger, game: str) -> None:
    """A bot is challenged only as its owner allows (docs/bots-api.md): in its games, by
    people or bots as its settings say. A live challenge is rated (the ladder's humans pool
    rates every live match played out)."""
    bot = bot_of(user=target)
    if bot is None:
        return
    name = target.get_username()
    if game not in bot.games:
        raise ValidationError({"username": [f"the bot {name} does not play {engine_games[game].title}"]})
    if bot_of(user=challenger) is not None:
        if not bot.accepts_bots:
            raise ValidationError({"username": [f"the bot {name} does not take challenges from bots"]})
    elif not bot.accepts_people:
        raise ValidationError({"username": [f"the bot {name} does not take challenges from people"]})
    if not bot.accepts_rated:
        raise ValidationError({"username": [f"the bot {name} takes only unrated games; a live challenge is rated"]})


def live_challenge_answer(*, challenge_id: int, user, accept: bool, deck_version: DeckVersion | None = None,
                          now: datetime | None = None) -> LiveChallenge:
    """Accept (with one of the user's decks of the same game) or decline a challenge made
    to ``user``; the challenger may cancel it. Accepting a challenge ``user`` already
    accepted returns it with its match (no second match). Locks the challenge row."""
    now = now or timezone.now()
    LiveChallenge.objects.filter(pk=challenge_id, status=LiveChallenge.Status.PENDING, expires__lte=now).update(
        status=LiveChallenge.Status.EXPIRED)
    with transaction.atomic():
        challenge = LiveChallenge.objects.select_for_update().filter(pk=challenge_id).first()
        if challenge is None:
            raise LiveError("not_found", f"there is no challenge {challenge_id}", status=404)
        if user.pk not in (challenge.challenged_id, challenge.challenger_id):
            raise LiveError("permission_denied", "this challenge is not yours to answer", status=403)
        if (accept and user.pk == challenge.challenged_id and challenge.status == LiveChallenge.Status.ACCEPTED
                and challenge.match_id is not None):
            # Accepting twice (a double click, a retry) answers with the match the first made.
            return challenge
        if challenge.status != LiveChallenge.Status.PENDING:
            raise LiveError("not_pending", f"the challenge is {challenge.get_status_display().lower()}")
        if user.pk == challenge.challenger_id:
            if accept:
                raise LiveError("permission_denied", "only the challenged player can accept", status=403)
            challenge.status = LiveChallenge.Status.CANCELLED
        elif not accept:
            challenge.status = LiveChallenge.Status.DECLINED
        else:
            if deck_version is None:
                raise ValidationError({"deck": ["choose one of your decks to accept with"]})
            require_own_deck(user, deck_version)
            if deck_version.deck.game != challenge.game:
                raise ValidationError({"deck": [f"the challenge is for {engine_games[challenge.game].title}"]})
            require_deck_fits(deck_version)
            live = live_create(seats=[SeatSpec(deck_version=challenge.deck_version, user=challenge.challenger),
                                      SeatSpec(deck_version=deck_version, user=user)],
                               created_by=challenge.challenger)
            challenge.match = live.match
            challenge.status = LiveChallenge.Status.ACCEPTED
            # The challenger hears of it on any page (the banner; once this commits).
            live_notify_seats(match_id=live.match_id, title=f"{user.username} accepted your challenge")
        challenge.save(update_fields=["status", "match"])
    return challenge


def live_expire_challenges(*, now: datetime | None = None) -> int:
    now = now or timezone.now()
    return LiveChallenge.objects.filter(status=LiveChallenge.Status.PENDING, expires__lte=now).update(
        status=LiveChallenge.Status.EXPIRED)


def live_play_bot(*, user, deck_version: DeckVersion, bot: str, seats: int = 2,
                  initial_ms: int | None = None, increment_ms: int | None = None) -> LiveMatch:
    """Start a live match of ``user`` (seat 0) against ``seats - 1`` bots ``bot`` (a spec
    such as ``greedy`` or ``search:fast``) playing the game's starter decks."""
    require_own_deck(user, deck_version)
    require_deck_fits(deck_version)
    game = deck_version.deck.game
    seats = clean_queue_seats(game, seats)
    try:
        bot = clean_platform_spec(bot)
    except ValueError as exc:
        raise ValidationError({"bot": [str(exc)]}) from None
    starters = list(Deck.objects.filter(game=game, is_starter=True, archived=False).order_by("pk"))
    versions = [v for v in (d.latest_version for d in starters) if v is not None]
    if not versions:
        raise ValidationError({"bot": [f"there are no starter decks of {engine_games[game].title} for a bot to play"]})
    specs = [SeatSpec(deck_version=deck_version, user=user)]
    specs += [SeatSpec(deck_version=versions[i % len(versions)], bot=bot) for i in range(seats - 1)]
    return live_create(seats=specs, created_by=user, initial_ms=initial_ms, increment_ms=increment_ms)
