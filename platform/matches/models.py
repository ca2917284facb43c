"""Matches between decks, the games they consist of, and their replays.

A :class:`Match` is a challenge of as many deck versions as the game seats (``Game.min_seats``
to ``max_seats``), played best-of-1, 3 or 5 by the decks' bot pilots on a Celery worker. Its
*entries* (:class:`MatchSeat`, numbered 0, 1, ...) are fixed when it is created; in each
game the entries take the engine's seats in a rotated order (``MatchGame.seat_order``),
so that every entry plays every seat in turn.

The lease fields record which worker is playing the match and until when that claim
holds; see ``matches/services.py`` and docs/matches.md for the lifecycle.
"""

from __future__ import annotations

import zlib

from django.conf import settings
from django.db import models
from django.urls import reverse

from engine.core import Replay
from web.games import GameField


class Match(models.Model):
    """One challenge: its entries, how it is played, and where it stands."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    class Kind(models.TextChoices):
        """Why the match is played; it decides the queue its games wait in
        (``matches.conf.QUEUE_BY_KIND``): tournaments before challenges, challenges
        before ladder matches."""

        CHALLENGE = "challenge", "Challenge"
        TOURNAMENT = "tournament", "Tournament"
        LADDER = "ladder", "Ladder"
        LIVE = "live", "Live"

    BEST_OF_CHOICES = ((1, "Best of 1"), (3, "Best of 3"), (5, "Best of 5"))

    game = GameField()
    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.CHALLENGE)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    best_of = models.PositiveSmallIntegerField(choices=BEST_OF_CHOICES, default=1)
    seed = models.BigIntegerField(
        help_text="The match seed; each game's seed is derived from it and the game number. Secret until the match "
                  "is over")
    seed_salt = models.CharField(
        max_length=64, blank=True,
        help_text="32 random bytes in hex; secret until the match is over (matches/fairness.py)")
    seed_commitment = models.CharField(
        max_length=64, blank=True,
        help_text="hex(sha256(salt bytes + seed in decimal ASCII)); public from creation")
    params = models.JSONField(default=dict, blank=True, help_text="Rules parameters passed to every game")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="matches_created"
    )
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    lease_owner = models.CharField(
        max_length=200, blank=True, help_text="Who holds the match: a worker's task, or the pending tiebreak"
    )
    lease_expires = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0, help_text="How many times a worker started the match")
    progress = models.PositiveSmallIntegerField(default=0, help_text="Games finished")
    winner_seat = models.SmallIntegerField(null=True, blank=True, help_text="The winning entry; null for a draw")
    ladder = models.BooleanField(
        default=False, help_text="A ladder match played live: an external bot's deck against a ladder deck (rated in "
                                 "the bots pool like a ladder match)")
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-created", "-id"]
        verbose_name_plural = "matches"
        indexes = [
            models.Index(fields=["status", "lease_expires"], name="match_status_lease"),
            models.Index(fields=["game", "status", "-created"], name="match_game_status_recent"),
        ]
        constraints = [
            models.CheckConstraint(condition=models.Q(best_of__in=(1, 3, 5)), name="match_best_of_1_3_5"),
        ]

    def __str__(self) -> str:
        return f"Match {self.pk} ({self.get_game_display()}, best of {self.best_of}, {self.status})"

    def get_absolute_url(self) -> str:
        return reverse("matches:detail", args=[self.pk])

    @property
    def is_finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)

    @property
    def seed_revealed(self) -> bool:
        """Whether the seed and salt may be shown: only once the match is over."""
        return self.is_finished

    @property
    def wins_needed(self) -> int:
        """Game wins that decide the match: a majority of ``best_of``."""
        return self.best_of // 2 + 1


class MatchSeat(models.Model):
    """One entry of a match: the exact deck version and the bot that pilots it."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField(help_text="Entry number, 0 for the challenger")
    deck_version = models.ForeignKey("decks.DeckVersion", on_delete=models.PROTECT, related_name="match_seats")
    pilot = models.CharField(max_length=40, help_text="Bot spec that played this entry")

    class Meta:
        ordering = ["match_id", "seat"]
        constraints = [models.UniqueConstraint(fields=["match", "seat"], name="matchseat_unique_seat")]

    def __str__(self) -> str:
        return f"{self.match_id}/{self.seat}: {self.deck_version} ({self.pilot})"


class MatchGame(models.Model):
    """One finished game of a match, with its compressed replay.

    ``seat_order[s]`` is the entry that played engine seat ``s``. ``outcome`` is the
    engine's outcome (by engine seat) once every tiebreak is applied, plus ``entry_places``
    (by entry). ``replay`` is the zlib-compressed JSON of the engine's :class:`Replay`:
    seed, decks, params and actions, nothing else; its ``meta`` holds the Match the Twos
    reveals of a tie broken afterwards.
    """

    class Tiebreak(models.TextChoices):
        NONE = "", "None"
        PENDING = "pending", "Pending"
        DONE = "done", "Done"

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="games")
    number = models.PositiveSmallIntegerField(help_text="1 for the first game")
    seat_order = models.JSONField(help_text="Engine seat -> entry number")
    outcome = models.JSONField()
    replay = models.BinaryField(help_text="zlib-compressed JSON of the engine's Replay")
    actions = models.PositiveIntegerField(default=0)
    bot_errors = models.JSONField(default=list, blank=True)
    tiebreak = models.CharField(max_length=10, choices=Tiebreak.choices, default=Tiebreak.NONE, blank=True)
    verified_at = models.DateTimeField(null=True, blank=True)
    verify_error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["match_id", "number"]
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="matchgame_unique_number")]

    def __str__(self) -> str:
        return f"Match {self.match_id} game {self.number}"

    def get_absolute_url(self) -> str:
        return reverse("matches:replay", args=[self.match_id]) + f"?game={self.number}"

    @staticmethod
    def compress(replay: Replay) -> bytes:
        return zlib.compress(replay.dumps().encode("utf-8"), 9)

    def load_replay(self) -> Replay:
        """The stored replay, decompressed and parsed."""
        return Replay.loads(zlib.decompress(bytes(self.replay)).decode("utf-8"))

    @property
    def winner_entry(self) -> int | None:
        """The entry alone in first place, or None for a draw."""
        places = self.outcome.get("entry_places") or []
        firsts = [entry for entry, place in enumerate(places) if place == 1]
        return firsts[0] if len(firsts) == 1 else None

    @property
    def forfeited_entries(self) -> list[int]:
        """The entries that forfeited the game (a live game's no-shows, ``detail.forfeited``
        by engine seat), in entry order; empty for a game played out."""
        order = list(self.seat_order)
        seats = (self.outcome.get("detail") or {}).get("forfeited") or ()
        return sorted({order[s] for s in seats if isinstance(s, int) and 0 <= s < len(order)})
