"""The metagame's stored figures: small aggregate tables a page sums, and the bookkeeping
that makes the aggregation incremental.

Every figure row is keyed by (game, day, source, ...) and holds counts that add up: a
page for a period sums at most (days x rows) of one table; nothing reads a replay. The
rows are written only by ``meta.services.meta_tick``, under its per-source lock.

- :class:`MetaEntry`: one deck version under one pilot: matches, wins, draws, losses (the
  most played decks, "deck or pilot?").
- :class:`MetaMatchup`: one ordered pair of decks (row deck against column deck): the
  row deck's wins, draws and losses (the matchup matrix; both orders are stored).
- :class:`MetaCard`: one card: entry-games of decks that include it, and those in which
  it was drawn and played, each with the wins and draws behind them (the card table).
- :class:`MetaVersion`: the card ids of a deck version seen in a recorded match ("decks
  that include it").
- :class:`MetaWatermark` and :class:`MetaSeen`: per source, how far the tick has read,
  and which results it has counted or deferred.
"""

from __future__ import annotations

from django.db import models

from web.games import GameField


class Source(models.TextChoices):
    """Where a recorded result comes from."""

    LADDER = "ladder", "Rated ladder matches"
    TOURNAMENT = "tournament", "Tournament matches"
    LAB = "lab", "Deck lab runs"


class _Counts(models.Model):
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)

    class Meta:
        abstract = True


class MetaEntry(_Counts):
    """One deck version piloted by one pilot on one day, from one source."""

    game = GameField()
    day = models.DateField()
    source = models.CharField(max_length=12, choices=Source.choices)
    deck_id = models.BigIntegerField()
    deck_version_id = models.BigIntegerField()
    pilot = models.CharField(max_length=40)
    matches = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "day", "source", "deck_id", "deck_version_id", "pilot"],
                                               name="metaentry_unique_key")]
        indexes = [models.Index(fields=["game", "day", "source"], name="metaentry_game_day")]


class MetaMatchup(_Counts):
    """The row deck's results against the column deck on one day, from one source."""

    game = GameField()
    day = models.DateField()
    source = models.CharField(max_length=12, choices=Source.choices)
    deck_id = models.BigIntegerField()
    opponent_id = models.BigIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "day", "source", "deck_id", "opponent_id"],
                                               name="metamatchup_unique_key")]
        # A page reads the cells of twelve decks: by deck, then by day.
        indexes = [models.Index(fields=["game", "deck_id", "day"], name="metamatchup_game_deck_day")]


class MetaCard(models.Model):
    """One card on one day, from one source: entry-games of decks that include it, and of
    those, the ones in which it was drawn and played; each with its wins and draws."""

    game = GameField()
    day = models.DateField()
    source = models.CharField(max_length=12, choices=Source.choices)
    card = models.CharField(max_length=100)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    drawn = models.PositiveIntegerField(default=0)
    drawn_wins = models.PositiveIntegerField(default=0)
    drawn_draws = models.PositiveIntegerField(default=0)
    played = models.PositiveIntegerField(default=0)
    played_wins = models.PositiveIntegerField(default=0)
    played_draws = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "day", "source", "card"], name="metacard_unique_key")]


class MetaVersion(models.Model):
    """The card ids of one deck version (its commander included), read once from its list."""

    deck_version_id = models.BigIntegerField(primary_key=True)
    deck_id = models.BigIntegerField()
    game = GameField()
    cards = models.JSONField(default=list)


class MetaWatermark(models.Model):
    """How far the tick has read one source: results finished at or after ``finished``
    minus the tick's overlap are read again (and skipped if seen). Its row is the lock
    that serializes two ticks of the same source; ``version`` changes with every batch
    that changes a figure, so a figure kept in the cache under it is never stale."""

    source = models.CharField(max_length=12, choices=Source.choices, primary_key=True)
    finished = models.DateTimeField(null=True, blank=True)
    version = models.PositiveBigIntegerField(
        default=0, help_text="Batches written so far: pages keep figures under it (meta.selectors)")


class MetaSeen(models.Model):
    """One result the tick has read: counted, or deferred while one of its decks is hidden
    (an event's decklists not yet published)."""

    class State(models.TextChoices):
        COUNTED = "counted", "Counted"
        DEFERRED = "deferred", "Deferred"

    source = models.CharField(max_length=12, choices=Source.choices)
    ref = models.BigIntegerField(help_text="The match's (or lab match's) id")
    state = models.CharField(max_length=10, choices=State.choices)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["source", "ref"], name="metaseen_unique_ref")]
        indexes = [models.Index(fields=["source", "state"], name="metaseen_source_state")]
