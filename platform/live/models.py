"""Live matches: people (and bots) playing one game over WebSockets, with clocks.

A live match is a ``matches.Match`` of kind ``live`` (its seats are the deck versions,
their pilot ``human`` or a bot spec) plus a :class:`LiveMatch` row holding what the
match needs while it is played: the action log, which *is* the game state (any process
rebuilds the state from the match's game, seed, decks and parameters and this log), the
clock of every seat (:class:`LiveSeat`) and the spectators' delay.

Matchmaking keeps its queue in the database (:class:`QueueEntry`, one lock row per queue
in :class:`LiveQueue`), so every web process sees the same queue; a direct challenge of a
named player is a :class:`LiveChallenge`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse

from engine import games as engine_games
from web.games import GameField

#: Longest title of a live match, in characters.
TITLE_MAX = 120


class LiveMatch(models.Model):
    """The playing state of one live match."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Being played"
        DONE = "done", "Finished"

    match = models.OneToOneField("matches.Match", on_delete=models.CASCADE, related_name="live")
    game = GameField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    log = models.JSONField(default=list, blank=True,
                           help_text="[seat, action JSON, milliseconds since the epoch] per applied action")
    initial_ms = models.PositiveIntegerField(help_text="Each seat's time bank at the start, in ms")
    increment_ms = models.PositiveIntegerField(help_text="Time added to a seat's bank after each of its actions")
    spectator_delay = models.PositiveIntegerField(default=0, help_text="Seconds spectators lag behind the players")
    title = models.CharField(max_length=TITLE_MAX, blank=True, default="",
                             help_text="What the board and the players' banner call the match (a live event's "
                                       "'Spring Swiss, round 2'); empty: 'Live match'")
    next_deadline = models.DateTimeField(null=True, blank=True, db_index=True,
                                         help_text="When the first running clock runs out")
    outcome = models.JSONField(null=True, blank=True, help_text="Final outcome by engine seat (after time-outs)")
    replay = models.JSONField(null=True, blank=True, help_text="The engine's Replay once the match is over")
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)
    # SET_NULL: the next game of a series going away must not take this one with it; the
    # board simply offers no next game then.
    next_match = models.ForeignKey("matches.Match", null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+",
                                   help_text="The next game of the series (a best-of-three round), once it exists")

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [models.Index(fields=["status", "-created"], name="live_status_recent")]

    def __str__(self) -> str:
        return f"Live match {self.match_id} ({self.game}, {self.status})"

    def get_absolute_url(self) -> str:
        return reverse("live:match", args=[self.match_id])

    @property
    def is_over(self) -> bool:
        return self.status == self.Status.DONE


class LiveSeat(models.Model):
    """One engine seat of a live match: who plays it and their clock.

    A seat is played by a user (``user``) or a bot (``bot``, a spec such as
    ``greedy``). ``running_since`` is set while the seat is to act; its time left is
    ``remaining_ms`` minus the time since then. A seat that ran out of time in a match its
    game plays on without it (``Game.plays_on_without``) keeps playing through the random
    bot (``timed_out_at`` set).
    ``connected_at`` is when the seat's player first showed up (opened the match's socket
    or moved); a seat still without it when a round starts may be forfeited as a no-show.
    """

    live = models.ForeignKey(LiveMatch, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="live_seats")
    bot = models.CharField(max_length=60, blank=True)
    deck_version = models.ForeignKey("decks.DeckVersion", on_delete=models.PROTECT, related_name="live_seats")
    remaining_ms = models.BigIntegerField()
    running_since = models.DateTimeField(null=True, blank=True)
    timed_out_at = models.DateTimeField(null=True, blank=True)
    resigned = models.BooleanField(default=False)
    connected_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["live_id", "seat"]
        constraints = [models.UniqueConstraint(fields=["live", "seat"], name="liveseat_unique_seat")]

    def __str__(self) -> str:
        return f"{self.live_id}/{self.seat}: {self.user or self.bot}"

    @property
    def pilot(self) -> str:
        """``human`` or the bot spec that chooses for this seat now."""
        if self.timed_out_at is not None:
            return "random"
        return self.bot or "human"

    @property
    def is_bot(self) -> bool:
        return bool(self.bot) or self.timed_out_at is not None

    @property
    def is_present(self) -> bool:
        """A bot is always there; a person once they have connected or moved."""
        return bool(self.bot) or self.connected_at is not None


class LiveQueue(models.Model):
    """One matchmaking queue (a game and a seat count); its row is the queue's lock."""

    game = GameField()
    seats = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "seats"], name="livequeue_unique")]

    def __str__(self) -> str:
        return f"{self.game} ({self.seats} seats)"


class QueueEntry(models.Model):
    """A player waiting in a queue with one deck; ``match`` is set once paired.

    A paired entry stands for "your match is ready" only while that match is being
    played: readers ignore the entry of a finished match (``selectors.queue_status``) and
    ``services.live_queue_release`` deletes it, so a finished match never keeps its
    players from queueing, challenging or playing a bot again.
    """

    queue = models.ForeignKey(LiveQueue, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="live_queue_entries")
    deck_version = models.ForeignKey("decks.DeckVersion", on_delete=models.CASCADE, related_name="+")
    rating = models.FloatField(default=0.0)
    joined = models.DateTimeField()
    # CASCADE, not SET_NULL: an entry whose match was deleted must not fall back into
    # the waiting queue and be paired again without its player knowing.
    match = models.ForeignKey("matches.Match", null=True, blank=True, on_delete=models.CASCADE, related_name="+")

    class Meta:
        ordering = ["joined", "id"]
        constraints = [models.UniqueConstraint(fields=["user"], name="queueentry_one_per_user")]

    def __str__(self) -> str:
        return f"{self.user} in {self.queue}"


class LiveChallenge(models.Model):
    """A player invites a named player to a live two-player match."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        ACCEPTED = "accepted", "Accepted"
        DECLINED = "declined", "Declined"
        EXPIRED = "expired", "Expired"
        CANCELLED = "cancelled", "Cancelled"

    challenger = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    challenged = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = GameField()
    deck_version = models.ForeignKey("decks.DeckVersion", on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created = models.DateTimeField(auto_now_add=True)
    expires = models.DateTimeField()
    match = models.ForeignKey("matches.Match", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["-created", "-id"]
        # Every page a signed-in player opens asks for the challenges waiting for them.
        indexes = [models.Index(fields=["challenged", "status", "expires"], name="livechallenge_waiting")]

    def __str__(self) -> str:
        return f"{self.challenger} challenges {self.challenged} ({self.game}, {self.status})"

    @property
    def game_title(self) -> str:
        """The game's name for people, as the game spells it (``Game.title``)."""
        return engine_games[self.game].title if self.game in engine_games else self.game
