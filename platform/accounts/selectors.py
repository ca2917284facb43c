"""Reads for player pages: a player by name, their decks and, once the matches app is
installed, their recent matches."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.urls import NoReverseMatch
from django.utils import timezone

from accounts.models import BotAccount, BotToken
from accounts.services import ONLINE_SECONDS, token_digest
from decks.permissions import deck_visibility
from decks.selectors import deck_list


def player_get(*, username: str) -> AbstractBaseUser:
    """The active player named ``username``; ``DoesNotExist`` otherwise."""
    return get_user_model().objects.get(username=username, is_active=True)


def player_decks(*, user: AbstractBaseUser, visibility=None):
    """The player's decks (archived ones left out), newest first; with ``visibility``
    (``decks.permissions.DeckVisibility``) only those its viewer may see."""
    decks = deck_list(owner=user)
    return decks.exclude(pk__in=visibility.hidden_ids()) if visibility is not None else decks


def recent_matches(
    *, player: str | None = None, deck: int | None = None, status: str | None = None, limit: int = 10,
    visibility=None,
) -> list[dict[str, Any]] | None:
    """The latest matches of a player (by username), of a deck, or of everyone, as rows
    for a table; ``status`` keeps only matches in that state (``"done"``).

    A player's matches are those in which one of their decks played: queueing a challenge
    between other players' decks does not make it theirs.
    None when the matches app is not installed, so that pages leave the section out.
    Each row: ``id``, ``url``, ``game``, ``status``, ``status_label``, ``created``,
    ``entries`` (deck name, version, owner, pilot), ``winner`` (an entry or None) and
    ``forfeited`` (the match was decided by a no-show). A deck its viewer may not see
    (``visibility``; None: an anonymous visitor) is named by its hidden label only.
    """
    if not apps.is_installed("matches"):
        return None
    # Only with the matches app installed (its models cannot load without it).
    from matches.selectors import match_list, match_seat_labels

    if visibility is None:
        visibility = deck_visibility(None)
    rows = []
    matches = match_list(deck=deck, status=status)
    if player:
        matches = matches.filter(seats__deck_version__deck__owner__username=player).distinct()
    for match in matches[:limit]:
        try:
            url = match.get_absolute_url()
        except NoReverseMatch:
            url = ""
        entries = match_seat_labels(match, visibility=visibility)
        winner_seat = match.winner_seat if match.status == "done" else None
        rows.append(
            {
                "id": match.pk,
                "url": url,
                "game": match.get_game_display(),
                "status": match.status,
                "status_label": match.get_status_display(),
                "created": match.created,
                "entries": entries,
                "winner": next((e for e in entries if e["seat"] == winner_seat), None),
                "forfeited": match.status == "done" and bool((match.result or {}).get("forfeited")),
            }
        )
    return rows


# --------------------------------------------------------------------------- bots


def bot_token_find(*, secret: str):
    """The active token whose digest matches ``secret``, with its bot and the bot's user;
    None for an unknown or revoked token, or a bot whose account is inactive."""
    return (BotToken.objects.select_related("bot__user", "bot__owner")
            .filter(digest=token_digest(secret), revoked__isnull=True, bot__user__is_active=True).first())


def bots_of(*, owner) -> list:
    """``owner``'s bots with their tokens (newest first), by name."""
    return list(BotAccount.objects.filter(owner=owner).select_related("user").prefetch_related("tokens")
                .order_by("user__username"))


def bot_of(*, user):
    """``user``'s :class:`BotAccount` when ``user`` is a bot, with its owner; else None."""
    return BotAccount.objects.select_related("owner").filter(user=user).first()


def bot_is_online(bot, *, now=None) -> bool:
    """Whether ``bot``'s events socket is open: a sign of life within ``ONLINE_SECONDS``
    and not closed since."""
    now = now or timezone.now()
    return (bot.last_seen is not None and bot.offline_since is None
            and bot.last_seen >= now - timedelta(seconds=ONLINE_SECONDS))


def bots_online(*, game: str | None = None, now=None) -> list:
    """The bots online now (of ``game`` if given), by name."""
    now = now or timezone.now()
    found = BotAccount.objects.select_related("user").filter(
        offline_since__isnull=True, last_seen__gte=now - timedelta(seconds=ONLINE_SECONDS), user__is_active=True)
    bots = list(found.order_by("user__username"))
    return [b for b in bots if game is None or game in b.games]


def bot_errors(*, bot, limit: int = 100) -> list:
    """The newest errors answered to ``bot``'s frames."""
    return list(bot.errors.order_by("-created", "-id")[:limit])


def bot_get(*, bot_id: int):
    """Bot ``bot_id`` with its user and owner; ``BotAccount.DoesNotExist`` otherwise."""
    return BotAccount.objects.select_related("user", "owner").get(pk=bot_id)
