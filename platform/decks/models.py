"""Decks and their versions.

A :class:`Deck` is what a player names and edits; every change to its cards or its pilot
creates a new :class:`DeckVersion`. Versions are never changed after they are written:
matches and tournaments point at the exact version they were played with, so a replay
always reconstructs the deck that was really played.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse

from engine import games
from engine.core import Decklist, parse_decklist
from web.games import GameField


class Deck(models.Model):
    """A player's deck for one game: its name, its bot pilot and its history of versions.

    ``archived`` decks were deleted by their owner: they leave every list and cannot be
    edited or challenged any more, but their versions stay for the matches that used them.
    """

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="decks")
    game = GameField()
    name = models.CharField(max_length=80)
    pilot = models.CharField(max_length=40, help_text="Bot spec that plays the deck, e.g. 'greedy' or 'search:fast'")
    is_starter = models.BooleanField(default=False, help_text="One of the games' starter decks, owned by the site")
    archived = models.BooleanField(default=False, help_text="Deleted by its owner; kept for the matches it played")
    ladder = models.BooleanField(default=False, help_text="Plays on the bot ladder between tournaments")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated", "-id"]
        indexes = [
            models.Index(fields=["game", "archived", "-updated"], name="deck_game_recent"),
            models.Index(fields=["owner", "archived", "-updated"], name="deck_owner_recent"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_game_display()}, {self.owner})"

    @property
    def max_seats(self) -> int:
        """The most players a match of the deck's game seats (``Game.max_seats``)."""

        return games[self.game].max_seats if self.game in games else 2

    def get_absolute_url(self) -> str:
        return reverse("decks:detail", args=[self.pk])

    @property
    def latest_version(self) -> DeckVersion | None:
        """The newest version (highest number); uses prefetched ``versions`` when present."""
        cache = getattr(self, "_prefetched_objects_cache", {})
        if "versions" in cache:
            versions = list(cache["versions"])
            return max(versions, key=lambda v: v.number) if versions else None
        return self.versions.order_by("-number").first()


class DeckVersion(models.Model):
    """One immutable snapshot of a deck: canonical decklist text, commander and pilot.

    ``decklist`` is the engine's canonical plain text (``Decklist.to_text``): card names as
    the pool spells them, one ``N Card Name`` line per card, the commander line first.
    """

    deck = models.ForeignKey(Deck, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField(help_text="1 for the first version, then 2, 3, ...")
    decklist = models.TextField()
    commander = models.CharField(max_length=100, blank=True)
    pilot = models.CharField(max_length=40)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["deck_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["deck", "number"], name="deckversion_unique_number"),
        ]

    def __str__(self) -> str:
        return f"{self.deck.name} v{self.number}"

    def get_absolute_url(self) -> str:
        return reverse("decks:detail", args=[self.deck_id]) + f"?version={self.number}"

    @property
    def commander_label(self) -> str:
        """'Leader', 'Celestial', ...: the game's ``commander_label``, as the engine names it."""

        return games[self.deck.game].commander_label

    def to_engine(self) -> Decklist:
        """The engine's :class:`Decklist` of this version, named after the deck.

        The stored text was validated and canonicalised when the version was written, so it
        is parsed as it stands (not re-validated): a version stays playable as recorded.
        """
        return parse_decklist(self.decklist, self.commander_label, name=self.deck.name)

    def card_count(self) -> int:
        """Number of cards in the deck, the commander not counted."""
        return self.to_engine().size
