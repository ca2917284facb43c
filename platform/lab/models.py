"""A lab run and what it played: the run (:class:`LabRun`), its chunks of matches handed
to the workers (:class:`LabChunk`) and every match played (:class:`LabMatch`).

A run of N matches is cut into chunks; a worker claims a chunk under a lease, plays its
matches and writes them all in one transaction that also marks the chunk done, so a
match is recorded once or not at all. A worker that dies holds its chunk only until its
lease expires; the sweeper then hands the chunk to another worker (``lab/services.py``).
``LabMatch`` rows are also read by the metagame pages: their field names are a contract.
"""

from __future__ import annotations

import zlib

from django.conf import settings
from django.db import models
from django.urls import reverse

from engine.core import Replay
from web.games import GameField


class LabRun(models.Model):
    """One lab run: a deck version against a field, N matches, one pilot each side."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        CANCELLED = "cancelled", "Cancelled"
        FAILED = "failed", "Failed"

    class FieldKind(models.TextChoices):
        LADDER = "ladder", "Top decks of the bot ladder"
        STARTERS = "starters", "Starter decks"
        DECKS = "decks", "Decks I name"

    OPEN = (Status.QUEUED, Status.RUNNING)

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="lab_runs")
    game = GameField()
    deck = models.ForeignKey("decks.Deck", on_delete=models.CASCADE, related_name="lab_runs")
    deck_version = models.ForeignKey("decks.DeckVersion", on_delete=models.PROTECT, related_name="lab_runs")
    field_kind = models.CharField(max_length=10, choices=FieldKind.choices, default=FieldKind.LADDER)
    field_versions = models.JSONField(default=list, help_text="Deck version ids of the field, in the order played")
    pilot = models.CharField(max_length=40, help_text="Bot spec that pilots the lab deck")
    opponent_pilot = models.CharField(max_length=40, help_text="Bot spec that pilots every field deck")
    matches_wanted = models.PositiveIntegerField()
    seed = models.BigIntegerField(help_text="The run's seed; each match's seed is derived from it and its number")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    progress = models.PositiveIntegerField(default=0, help_text="Matches recorded")
    error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [models.Index(fields=["owner", "-created"], name="labrun_owner_recent")]
        constraints = [
            # One open lab per user, even when two requests race past the service's check.
            models.UniqueConstraint(fields=["owner"], condition=models.Q(status__in=("queued", "running")),
                                    name="labrun_one_open_per_owner"),
        ]

    def __str__(self) -> str:
        return f"Lab {self.pk} ({self.deck_version}, {self.matches_wanted} matches, {self.status})"

    def get_absolute_url(self) -> str:
        return reverse("lab:detail", args=[self.pk])

    @property
    def is_open(self) -> bool:
        return self.status in self.OPEN


class LabChunk(models.Model):
    """Matches ``first`` .. ``first + count - 1`` of a run, played by one task. The lease
    fields say which worker holds the chunk and until when, as a match's do."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        CANCELLED = "cancelled", "Cancelled"
        FAILED = "failed", "Failed"

    run = models.ForeignKey(LabRun, on_delete=models.CASCADE, related_name="chunks")
    first = models.PositiveIntegerField(help_text="Number of the chunk's first match (1 for the run's first)")
    count = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    lease_owner = models.CharField(max_length=200, blank=True)
    lease_expires = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["run_id", "first"]
        indexes = [models.Index(fields=["status", "lease_expires"], name="labchunk_status_lease")]
        constraints = [models.UniqueConstraint(fields=["run", "first"], name="labchunk_unique_first")]

    def __str__(self) -> str:
        return f"Lab {self.run_id} matches {self.first}-{self.first + self.count - 1} ({self.status})"

    @property
    def numbers(self) -> range:
        return range(self.first, self.first + self.count)


class LabMatch(models.Model):
    """One finished lab match (best of 1), from the lab deck's side.

    ``deck_seat`` is the engine seat of the lab deck (0: on the play). ``outcome`` is the
    lab deck's: ``win``, ``loss`` or ``draw``. ``usage`` names, per side (``deck`` and
    ``opponent``), the cards drawn and played in the game, each card once per game.
    ``replay`` is the zlib-compressed JSON of the engine's Replay, as ``MatchGame``'s.
    """

    class Outcome(models.TextChoices):
        WIN = "win", "Win"
        LOSS = "loss", "Loss"
        DRAW = "draw", "Draw"

    run = models.ForeignKey(LabRun, on_delete=models.CASCADE, related_name="matches")
    number = models.PositiveIntegerField(help_text="1 for the run's first match")
    deck_version = models.ForeignKey("decks.DeckVersion", on_delete=models.PROTECT, related_name="+")
    opponent_version = models.ForeignKey("decks.DeckVersion", on_delete=models.PROTECT, related_name="+")
    deck_seat = models.PositiveSmallIntegerField()
    pilot = models.CharField(max_length=40)
    opponent_pilot = models.CharField(max_length=40)
    outcome = models.CharField(max_length=4, choices=Outcome.choices)
    actions = models.PositiveIntegerField(default=0)
    ending = models.CharField(max_length=200, blank=True, help_text="How the game ended (the engine's reason)")
    usage = models.JSONField(default=dict)
    replay = models.BinaryField(help_text="zlib-compressed JSON of the engine's Replay")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run_id", "number"]
        constraints = [models.UniqueConstraint(fields=["run", "number"], name="labmatch_unique_number")]

    def __str__(self) -> str:
        return f"Lab {self.run_id} match {self.number} ({self.outcome})"

    def get_absolute_url(self) -> str:
        return reverse("lab:replay", args=[self.run_id, self.number])

    @staticmethod
    def compress(replay: Replay) -> bytes:
        return zlib.compress(replay.dumps().encode("utf-8"), 6)

    def load_replay(self) -> Replay:
        return Replay.loads(zlib.decompress(bytes(self.replay)).decode("utf-8"))
