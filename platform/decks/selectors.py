"""Reads of the decks app. Views, the API and other apps (matches, tournaments) use these."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.apps import apps
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Prefetch, Q, QuerySet

from decks.models import Deck, DeckVersion


def deck_list(
    *,
    game: str | None = None,
    owner: AbstractBaseUser | str | None = None,
    q: str | None = None,
    include_archived: bool = False,
) -> QuerySet[Deck]:
    """Decks, newest first, with owner and versions loaded.

    ``owner`` is a user or a username; ``q`` matches the deck name, the owner's username
    or the commander of any version (case-insensitive). Archived decks are left out unless
    ``include_archived``.
    """
    decks = Deck.objects.select_related("owner").prefetch_related(
        Prefetch("versions", queryset=DeckVersion.objects.order_by("number"))
    )
    if not include_archived:
        decks = decks.filter(archived=False)
    if game:
        decks = decks.filter(game=game)
    if owner is not None:
        decks = decks.filter(owner__username=owner) if isinstance(owner, str) else decks.filter(owner=owner)
    if q:
        q = q.strip()
        decks = decks.filter(
            Q(name__icontains=q) | Q(owner__username__icontains=q) | Q(versions__commander__icontains=q)
        ).distinct()
    return decks.order_by("-updated", "-id")


def deck_get(*, deck_id: int, include_archived: bool = True) -> Deck:
    """One deck with owner and versions; ``Deck.DoesNotExist`` if there is none."""
    return deck_list(include_archived=include_archived).get(pk=deck_id)


def deck_versions(*, deck: Deck) -> QuerySet[DeckVersion]:
    """Every version of ``deck``, newest first."""
    return DeckVersion.objects.filter(deck=deck).select_related("deck").order_by("-number")


def deck_version_get(*, deck: Deck, number: int) -> DeckVersion:
    """Version ``number`` of ``deck``; ``DeckVersion.DoesNotExist`` if there is none."""
    return DeckVersion.objects.select_related("deck", "deck__owner").get(deck=deck, number=number)


def starter_decks(*, game: str | None = None) -> QuerySet[Deck]:
    """The site's starter decks (opponents for a first challenge)."""
    return deck_list(game=game).filter(is_starter=True)


def withheld_decks(*, now: datetime, deck_ids: Iterable[int] | None = None) -> list[dict[str, Any]]:
    """Every entry of an event whose decklists are not published yet, as ``deck``,
    ``owner``, ``organiser``, ``tournament`` and ``until`` (when the event publishes them).

    An event withholds its entries' decks while it is upcoming (draft or open: until it
    starts, or until ``publish_at`` if that is later) and, once started, until its
    ``publish_at`` (running, paused, finished, or cancelled after the start). An event
    cancelled before its start withholds nothing. One query; ``deck_ids`` narrows it.
    """
    if not apps.is_installed("tournaments"):
        return []
    Tournament = apps.get_model("tournaments", "Tournament")
    Entry = apps.get_model("tournaments", "Entry")
    S = Tournament.State
    upcoming = Q(tournament__state__in=(S.DRAFT, S.OPEN))
    unpublished = Q(tournament__publish_at__gt=now) & (~Q(tournament__state=S.CANCELLED)
                                                      | Q(tournament__started__isnull=False))
    entries = Entry.objects.filter(upcoming | unpublished)
    if deck_ids is not None:
        entries = entries.filter(deck_id__in=list(deck_ids))
    rows = []
    for deck, owner, organiser, tournament, state, starts_at, publish_at in entries.values_list(
            "deck_id", "deck__owner_id", "tournament__organiser_id", "tournament_id", "tournament__state",
            "tournament__starts_at", "tournament__publish_at"):
        if state in (S.DRAFT, S.OPEN):
            until = max(starts_at, publish_at) if publish_at else starts_at
        else:
            until = publish_at
        rows.append({"deck": deck, "owner": owner, "organiser": organiser, "tournament": tournament,
                     "until": until})
    return rows
