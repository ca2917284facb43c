"""Ratings of decks and players, and the history of every change.

A :class:`Rating` belongs to a *pool* and a game: in the ``bots`` pool it is a deck's
(across all its versions, the deck's bot pilot playing), in the ``humans`` pool a
player's (from live matches they played in person). Every rated match adds one
:class:`RatingChange` per participant: the version that played, the place, the rating
before and after. Ratings change only in ``ladder.services`` (under row locks, in the
transaction that records the match's result); ``manage.py ladder_rebuild`` recomputes
them all from the recorded results.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from ladder import conf
from ladder import rating as model
from web.games import GameField


class Pool(models.TextChoices):
    BOTS = "bots", "Bot-piloted decks"
    HUMANS = "humans", "Human players"


class Rating(models.Model):
    """One deck's (``bots``) or one player's (``humans``) rating in one game.

    ``ordinal`` (``mu - 3 sigma``) is stored for the leaderboard's index. ``form`` is the
    last results, oldest first (``W``, ``D``, ``L``); ``recent`` the ordinals after the
    last few rated matches, oldest first, for the trend arrow.
    """

    pool = models.CharField(max_length=10, choices=Pool.choices)
    game = GameField()
    deck = models.ForeignKey("decks.Deck", null=True, blank=True, on_delete=models.CASCADE, related_name="ratings")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="ratings"
    )
    mu = models.FloatField(default=model.MU)
    sigma = models.FloatField(default=model.SIGMA)
    ordinal = models.FloatField(default=model.ordinal(model.MU, model.SIGMA))
    games = models.PositiveIntegerField(default=0, help_text="Rated matches played")
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    form = models.CharField(max_length=10, blank=True, help_text="Last results, oldest first: W, D or L")
    recent = models.JSONField(default=list, blank=True, help_text="Ordinals after the last rated matches")
    last_played = models.DateTimeField(null=True, blank=True)
    listed = models.BooleanField(
        default=True,
        help_text="On the leaderboard: false for an archived deck's rating. Kept by database triggers on the "
                  "decks table (migration 0003), whichever way a deck is archived.",
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-ordinal", "id"]
        # The leaderboard's order: a page (even a deep one) is a walk of this index, and its
        # ids come from an index-only scan; a rank is a count over a range of it.
        indexes = [models.Index(fields=["game", "pool", "listed", "-ordinal", "id"], name="rating_leaderboard")]
        constraints = [
            models.UniqueConstraint(fields=["pool", "game", "deck"], condition=models.Q(deck__isnull=False),
                                    name="rating_unique_deck"),
            models.UniqueConstraint(fields=["pool", "game", "player"], condition=models.Q(player__isnull=False),
                                    name="rating_unique_player"),
            models.CheckConstraint(
                condition=(models.Q(pool="bots", deck__isnull=False, player__isnull=True)
                           | models.Q(pool="humans", deck__isnull=True, player__isnull=False)),
                name="rating_deck_or_player",
            ),
        ]

    def __str__(self) -> str:
        who = self.deck.name if self.deck_id else self.player.get_username()
        return f"{who} ({self.game}, {self.pool}): {self.ordinal:.2f}"

    @property
    def skill(self) -> model.Skill:
        return model.Skill(self.mu, self.sigma)

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.games if self.games else None

    @property
    def trend(self) -> float:
        """Change of the ordinal over the last rated matches kept in ``recent``."""
        return self.recent[-1] - self.recent[0] if len(self.recent) >= 2 else 0.0

    @property
    def provisional(self) -> bool:
        return self.games < conf.provisional_games()


class RatingChange(models.Model):
    """One participant of one rated match: where it finished and how its rating moved."""

    rating = models.ForeignKey(Rating, on_delete=models.CASCADE, related_name="changes")
    match = models.ForeignKey("matches.Match", on_delete=models.CASCADE, related_name="rating_changes")
    entry = models.PositiveSmallIntegerField(help_text="The participant's entry in the match")
    deck_version = models.ForeignKey(
        "decks.DeckVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="rating_changes"
    )
    place = models.PositiveSmallIntegerField()
    entries = models.PositiveSmallIntegerField(help_text="Rated participants of the match")
    outcome = models.CharField(max_length=1, help_text="W (alone in first place), D (first place shared) or L")
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField()
    played = models.DateTimeField(help_text="When the match finished")

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["rating", "-id"], name="ratingchange_history")]
        constraints = [models.UniqueConstraint(fields=["match", "rating"], name="ratingchange_once_per_match")]

    def __str__(self) -> str:
        return f"match {self.match_id} entry {self.entry}: {self.ordinal:.2f}"

    @property
    def ordinal_before(self) -> float:
        return model.ordinal(self.mu_before, self.sigma_before)


class TickLock(models.Model):
    """A single row that ``ladder.tick`` locks, so that two ticks at once cannot both fill
    the in-flight cap."""

    name = models.CharField(max_length=20, primary_key=True)
    last_run = models.DateTimeField(null=True, blank=True)
