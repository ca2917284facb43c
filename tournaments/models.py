"""Tournaments, their entries, rounds, pairings and the Match the Twos tiebreaks.

A :class:`Tournament` goes draft -> open -> running (<-> paused) -> finished, or to
cancelled from any state before finished (docs/tournaments.md, "States"). Its rounds are
paired by the pure functions of ``tournaments.formats``; each :class:`Pairing` is played
as a ``matches.Match`` of kind ``tournament`` (a bye has no match). Everything the
formats need to pair the next round is stored here, so any worker can advance the event.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse

from engine import Game
from tournaments.formats import all_formats
from web.games import GameField, get_game


def format_choices() -> list[tuple[str, str]]:
    """Every registered format (``tournaments.formats``) as ``(key, label)``, read when used."""

    return [(fmt.key, fmt.label) for fmt in all_formats()]


class FormatField(models.CharField):
    """The format of an event: a key of the format registry (20 characters at most).

    Like ``web.games.GameField``: its choices are the registry's, read when used, and are
    left out of the field's deconstruction, so registering a format never needs a migration."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("max_length", 20)
        kwargs["choices"] = format_choices
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, _path, args, kwargs = super().deconstruct()
        kwargs.pop("choices", None)
        return name, "django.db.models.CharField", args, kwargs


class Tournament(models.Model):
    """One scheduled event."""

    # The keys of the built-in formats, for code and tests that name one; the field's
    # choices are the registry's (FormatField), so a new format needs no entry here.
    class Format(models.TextChoices):
        SWISS = "swiss", "Swiss"
        SINGLE_ELIM = "single_elim", "Single elimination"
        DOUBLE_ELIM = "double_elim", "Double elimination"
        ROUND_ROBIN = "round_robin", "Round robin"
        SWISS_CUT = "swiss_cut", "Swiss with a top cut"
        PODS = "conquest_pods", "Pods"

    class State(models.TextChoices):
        DRAFT = "draft", "Draft"
        OPEN = "open", "Open for entries"
        RUNNING = "running", "Running"
        PAUSED = "paused", "Paused"
        FINISHED = "finished", "Finished"
        CANCELLED = "cancelled", "Cancelled"

    class Entrants(models.TextChoices):
        """Who plays the event's matches (docs/tournaments.md, "Live events")."""

        BOTS = "bots", "Bot pilots only"
        PEOPLE = "people", "People only, playing live"
        MIXED = "mixed", "People and bots, playing live"

    class RoundStart(models.TextChoices):
        AT_ONCE = "at_once", "As soon as the last round ends"
        SCHEDULED = "scheduled", "At scheduled times"

    BEST_OF_CHOICES = ((1, "Best of 1"), (3, "Best of 3"), (5, "Best of 5"))
    TOP_CUT_CHOICES = ((0, "No top cut"), (4, "Top 4"), (8, "Top 8"), (16, "Top 16"))

    game = GameField()
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    organiser = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                  related_name="tournaments_organised")
    starts_at = models.DateTimeField(help_text="When the workers start the event (beat checks every minute)")
    registration_opens = models.DateTimeField(null=True, blank=True, help_text="Entries accepted from (empty: at once)")
    registration_closes = models.DateTimeField(null=True, blank=True,
                                               help_text="Entries accepted until (empty: the start time)")
    entry_limit = models.PositiveIntegerField(null=True, blank=True, help_text="Entries beyond it join the waitlist")
    min_entries = models.PositiveIntegerField(default=2, help_text="Fewer at the start time cancels the event")
    format = FormatField(default=Format.SWISS)
    rounds = models.PositiveSmallIntegerField(null=True, blank=True,
                                              help_text="Swiss or pod rounds; empty for the recommended number")
    best_of = models.PositiveSmallIntegerField(choices=BEST_OF_CHOICES, default=1)
    top_cut = models.PositiveSmallIntegerField(choices=TOP_CUT_CHOICES, default=0)
    third_place = models.BooleanField(default=False, help_text="Play a third-place match in single elimination")
    players_per_game = models.PositiveSmallIntegerField(default=2,
                                                        help_text="2; 3 or 4 in pods, for a game that seats them")
    late_entry_rounds = models.PositiveSmallIntegerField(
        default=0, help_text="Late entries accepted while rounds 1 to this one are played (0: none after the start)")
    params = models.JSONField(default=dict, blank=True, help_text="Rules parameters passed to every game")
    entrants = models.CharField(max_length=8, choices=Entrants.choices, default=Entrants.BOTS,
                                help_text="Bots only (played on workers), or people playing live (and bots)")
    bot_cap = models.CharField(max_length=40, blank=True,
                               help_text="Mixed events: the strongest bot pilot allowed, e.g. 'greedy' (empty: any)")
    external_bots = models.BooleanField(
        default=False, help_text="Mixed events: bots run by their owners (docs/bots-api.md) may enter; their programs "
                                 "play their tables live")
    check_in_minutes = models.PositiveSmallIntegerField(
        default=10, help_text="Live events: check-in opens this long before the start; 0: no check-in")
    round_start = models.CharField(max_length=10, choices=RoundStart.choices, default=RoundStart.AT_ONCE)
    round_minutes = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Scheduled rounds: round n starts (n - 1) x this many minutes after the start")
    clock_initial = models.PositiveIntegerField(default=300, help_text="Live events: each seat's time, in seconds")
    clock_increment = models.PositiveIntegerField(default=5, help_text="Live events: seconds added after each action")
    no_show_minutes = models.PositiveSmallIntegerField(
        default=3, help_text="Live events: a player not connected this long after their game starts forfeits the match")
    round_limit_minutes = models.PositiveSmallIntegerField(
        default=30, help_text="Live events: a game still running this long after its round started is decided then")
    spectator_delay = models.PositiveSmallIntegerField(default=15, help_text="Live events: seconds spectators lag")
    publish_at = models.DateTimeField(
        null=True, blank=True, help_text="Decklists (and, once over, the seed) are public from (empty: the start)")
    seed = models.BigIntegerField(help_text="Decides round-1 seeding, tiebreaks and match seeds; secret while running")
    state = models.CharField(max_length=12, choices=State.choices, default=State.DRAFT)
    cancel_reason = models.TextField(blank=True)
    current_round = models.PositiveSmallIntegerField(default=0)
    total_rounds = models.PositiveSmallIntegerField(
        default=0, help_text="Swiss, pod or round-robin rounds, fixed at the start (elimination rounds come after)")
    cut_entries = models.JSONField(default=list, blank=True,
                                   help_text="Entry ids of the top cut, in seed order, once the Swiss part ended")
    winner = models.ForeignKey("Entry", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-starts_at", "-id"]
        indexes = [
            models.Index(fields=["state", "starts_at"], name="tournament_state_start"),
            models.Index(fields=["game", "format", "state"], name="tournament_game_format"),
        ]
        constraints = [
            models.CheckConstraint(condition=models.Q(best_of__in=(1, 3, 5)), name="tournament_best_of_1_3_5"),
            models.CheckConstraint(condition=models.Q(top_cut__in=(0, 4, 8, 16)), name="tournament_top_cut"),
            models.CheckConstraint(condition=models.Q(players_per_game__gte=2, players_per_game__lte=4),
                                   name="tournament_players_per_game"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_format_display()}, {self.get_game_display()})"

    def get_absolute_url(self) -> str:
        return reverse("tournaments:detail", args=[self.pk])

    @property
    def engine_game(self) -> Game:
        """The event's game as the engine declares it (title, seats, standings score)."""
        return get_game(self.game)

    @property
    def is_over(self) -> bool:
        return self.state in (self.State.FINISHED, self.State.CANCELLED)

    @property
    def is_live(self) -> bool:
        """Whether people play the event's matches live (a people-only or mixed event)."""
        return self.entrants != self.Entrants.BOTS

    @property
    def has_started(self) -> bool:
        return self.state in (self.State.RUNNING, self.State.PAUSED, self.State.FINISHED)


class Entry(models.Model):
    """A player's entry: one deck, its version frozen when it entered, played by the
    player in person (live events) or by the deck's bot pilot."""

    class Plays(models.TextChoices):
        PERSON = "person", "The player, live"
        BOT = "bot", "The deck's bot pilot"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournament_entries")
    deck = models.ForeignKey("decks.Deck", on_delete=models.PROTECT, related_name="tournament_entries")
    deck_version = models.ForeignKey("decks.DeckVersion", on_delete=models.PROTECT, related_name="tournament_entries")
    seed = models.PositiveIntegerField(null=True, blank=True, help_text="1 is the top seed; set at the start")
    waitlisted = models.BooleanField(default=False)
    late = models.BooleanField(default=False, help_text="Entered after the start")
    dropped = models.BooleanField(default=False)
    dropped_round = models.PositiveSmallIntegerField(null=True, blank=True, help_text="The round it dropped after")
    drop_reason = models.CharField(max_length=100, blank=True, help_text="Why it dropped, as the standings say it")
    plays = models.CharField(max_length=6, choices=Plays.choices, default=Plays.BOT,
                             help_text="Who plays the entry's matches: its player, live, or the deck's bot pilot")
    checked_in = models.DateTimeField(null=True, blank=True, help_text="Live events: when the player checked in")
    absences = models.PositiveSmallIntegerField(default=0, help_text="Live events: rounds in a row it did not show up")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament_id", "waitlisted", "created", "id"]
        verbose_name_plural = "entries"
        constraints = [
            models.UniqueConstraint(fields=["tournament", "player"], name="entry_one_per_player"),
        ]

    def __str__(self) -> str:
        return f"{self.player} with {self.deck_version}"

    @property
    def active(self) -> bool:
        return not self.dropped and not self.waitlisted


class Round(models.Model):
    """One round of pairings; a round number exists once per tournament (a database
    constraint), so two workers advancing at once cannot pair it twice."""

    class Stage(models.TextChoices):
        SWISS = "swiss", "Swiss"
        PODS = "pods", "Pods"
        ROUND_ROBIN = "round_robin", "Round robin"
        ELIMINATION = "elimination", "Elimination"
        TOP_CUT = "top_cut", "Top cut"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField()
    stage = models.CharField(max_length=20, choices=Stage.choices)
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)
    starts_at = models.DateTimeField(null=True, blank=True, help_text="Live events: when its games started")
    deadline = models.DateTimeField(null=True, blank=True,
                                    help_text="Live events: games still running then are decided (the round's limit)")

    class Meta:
        ordering = ["tournament_id", "number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="round_unique_number")]

    def __str__(self) -> str:
        return f"{self.tournament} round {self.number}"

    @property
    def is_done(self) -> bool:
        return self.finished is not None


class Pairing(models.Model):
    """One table of a round: two entries (or a pod of three or four, or one entry with the bye)
    and the match that decides it."""

    class Status(models.TextChoices):
        PLAYING = "playing", "Playing"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="pairings")
    table = models.PositiveSmallIntegerField()
    key = models.CharField(max_length=20, blank=True, help_text="The bracket match it plays (W1-1, L2-3, GF, ...)")
    entries = models.JSONField(help_text="Entry ids in match order (match entry 0 first); one id is a bye")
    match = models.ForeignKey("matches.Match", null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="tournament_pairings")
    seat_entries = models.JSONField(default=list, blank=True,
                                    help_text="Entry ids in the current match's entry order (swapped on a replay)")
    replaced = models.JSONField(default=list, blank=True,
                                help_text="Earlier matches of this table: drawn and replayed, or failed and re-run")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    result = models.JSONField(null=True, blank=True,
                              help_text="places, game_wins, games, score by entry (in the order of entries)")
    series = models.JSONField(default=list, blank=True,
                              help_text="Live best-of matches: each finished game (match id, places by entry)")

    class Meta:
        ordering = ["round_id", "table"]
        constraints = [models.UniqueConstraint(fields=["round", "table"], name="pairing_unique_table")]

    def __str__(self) -> str:
        return f"{self.round} table {self.table}"

    @property
    def is_bye(self) -> bool:
        return len(self.entries) == 1


class Tiebreak(models.Model):
    """Match the Twos between the registered decklists of entries still tied where it
    matters (a top-cut line, first place), with every reveal."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DONE = "done", "Done"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="tiebreaks")
    key = models.CharField(max_length=40, help_text="What it decides, e.g. 'cut' or 'final'")
    purpose = models.CharField(max_length=200)
    entries = models.JSONField(help_text="The tied entry ids, in standing order before the tiebreak")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    record = models.JSONField(null=True, blank=True, help_text="Match the Twos: seats (entry ids), order, rounds")
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament_id", "created", "id"]
        constraints = [models.UniqueConstraint(fields=["tournament", "key"], name="tiebreak_unique_key")]

    def __str__(self) -> str:
        return f"{self.tournament}: tiebreak {self.key}"

    @property
    def order(self) -> list[int]:
        """The tied entries, best first, once decided (shared ones last, in standing order)."""
        if not self.record:
            return list(self.entries)
        return [*self.record.get("order", []), *self.record.get("shared", [])]
