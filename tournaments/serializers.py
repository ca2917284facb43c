"""JSON shapes of tournaments, for the API and the event page's live updates."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from decks.permissions import deck_visibility
from tournaments import live
from tournaments.models import Entry, Tournament, format_choices
from tournaments.selectors import entry_deck, tournament_progress, tournament_seed_visible
from web.inputs import MAX_ID
from web.serializers import GameChoiceField


class TournamentSerializer(serializers.ModelSerializer):
    """An event in lists."""

    organiser = serializers.CharField(source="organiser.username", read_only=True)
    entries = serializers.SerializerMethodField(help_text="Entries playing (not waitlisted, not dropped)")
    winner = serializers.SerializerMethodField(help_text="The winning entry once finished")
    url = serializers.SerializerMethodField()
    api_url = serializers.SerializerMethodField()

    class Meta:
        model = Tournament
        fields = ["id", "url", "api_url", "name", "game", "format", "entrants", "state", "starts_at", "best_of",
                  "entry_limit", "entries", "organiser", "current_round", "winner"]

    def get_entries(self, tournament: Tournament) -> int:
        count = getattr(tournament, "entry_count", None)
        if count is None:
            count = tournament.entries.filter(waitlisted=False, dropped=False).count()
        return count

    @extend_schema_field(serializers.DictField(allow_null=True))
    def get_winner(self, tournament: Tournament) -> dict[str, Any] | None:
        entry = tournament.winner
        if entry is None:
            return None
        shown = entry_deck(entry, viewer=self.context.get("viewer"))
        return {"entry": entry.pk, "player": entry.player.username, "deck": shown["deck"]}

    def get_url(self, tournament: Tournament) -> str:
        return reverse("tournaments:detail", args=[tournament.pk])

    def get_api_url(self, tournament: Tournament) -> str:
        return reverse("tournaments-api:detail", args=[tournament.pk])


class TournamentDetailSerializer(TournamentSerializer):
    """One event: every setting, its state, the current round and the progress line."""

    progress = serializers.SerializerMethodField()
    seed = serializers.SerializerMethodField(help_text="Revealed once the event is over; null before")
    score_label = serializers.SerializerMethodField(
        help_text="What the game calls the standings' `score`; null: the game has none")

    class Meta(TournamentSerializer.Meta):
        fields = [*TournamentSerializer.Meta.fields, "description", "registration_opens", "registration_closes",
                  "min_entries", "rounds", "total_rounds", "top_cut", "third_place", "players_per_game",
                  "late_entry_rounds", "params", "bot_cap", "external_bots", "check_in_minutes", "round_start",
                  "round_minutes",
                  "clock_initial", "clock_increment", "no_show_minutes", "round_limit_minutes", "spectator_delay",
                  "publish_at", "cancel_reason", "cut_entries", "started", "finished", "progress", "seed", "created",
                  "score_label"]

    @extend_schema_field(serializers.DictField())
    def get_progress(self, tournament: Tournament) -> dict[str, Any]:
        return tournament_progress(tournament=tournament)

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_score_label(self, tournament: Tournament) -> str | None:
        return tournament.engine_game.standings_score_label

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_seed(self, tournament: Tournament) -> int | None:
        return tournament_seed_visible(tournament)


class FormatChoiceField(serializers.ChoiceField):
    """A format's key, one of the format registry's at the time of the request (not of
    import), so that a format registered later is accepted without a change here."""

    def __init__(self, **kwargs: Any):
        super().__init__(choices=format_choices(), **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        self.choices = format_choices()
        return super().to_internal_value(data)


class TournamentCreateSerializer(serializers.Serializer):
    """The settings of a new event (or the ones to change, for an edit)."""

    game = GameChoiceField()
    name = serializers.CharField(max_length=100)
    description = serializers.CharField(required=False, allow_blank=True, default="")
    starts_at = serializers.DateTimeField()
    registration_opens = serializers.DateTimeField(required=False, allow_null=True, default=None)
    registration_closes = serializers.DateTimeField(required=False, allow_null=True, default=None)
    entry_limit = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=2,
                                           max_value=MAX_ID)
    min_entries = serializers.IntegerField(required=False, default=2, min_value=2, max_value=MAX_ID)
    format = FormatChoiceField(default=Tournament.Format.SWISS)
    rounds = serializers.IntegerField(required=False, allow_null=True, default=None,
                                      help_text="Swiss or pod rounds; null for the recommended number")
    best_of = serializers.IntegerField(default=1)
    top_cut = serializers.IntegerField(required=False, default=0)
    third_place = serializers.BooleanField(required=False, default=False)
    players_per_game = serializers.IntegerField(required=False, default=2)
    late_entry_rounds = serializers.IntegerField(required=False, default=0)
    params = serializers.DictField(required=False, default=dict)
    entrants = serializers.ChoiceField(choices=Tournament.Entrants.choices, default=Tournament.Entrants.BOTS,
                                       help_text="bots: bot pilots on workers; people or mixed: rounds played live")
    external_bots = serializers.BooleanField(
        required=False, default=False,
        help_text="Mixed events: bots run by their owners may enter and play their tables live (docs/bots-api.md)")
    bot_cap = serializers.CharField(required=False, allow_blank=True, default="",
                                    help_text="Mixed events: the strongest bot allowed (random, greedy, search:fast, "
                                              "search:strong); empty for any")
    check_in_minutes = serializers.IntegerField(required=False, default=10, min_value=live.CHECK_IN_MINUTES[0],
                                                max_value=live.CHECK_IN_MINUTES[1],
                                                help_text="Live events: check-in opens this long before the start")
    round_start = serializers.ChoiceField(choices=Tournament.RoundStart.choices, default=Tournament.RoundStart.AT_ONCE)
    round_minutes = serializers.IntegerField(required=False, allow_null=True, default=None,
                                             min_value=live.ROUND_MINUTES[0], max_value=live.ROUND_MINUTES[1],
                                             help_text="Scheduled rounds: minutes between round starts")
    clock_initial = serializers.IntegerField(required=False, default=300, help_text="Live: seconds per seat",
                                             min_value=live.CLOCK_INITIAL[0], max_value=live.CLOCK_INITIAL[1])
    clock_increment = serializers.IntegerField(required=False, default=5, help_text="Live: seconds added per action",
                                               min_value=live.CLOCK_INCREMENT[0], max_value=live.CLOCK_INCREMENT[1])
    no_show_minutes = serializers.IntegerField(required=False, default=3, min_value=live.NO_SHOW_MINUTES[0],
                                               max_value=live.NO_SHOW_MINUTES[1],
                                               help_text="Live: minutes to connect before forfeiting the match")
    round_limit_minutes = serializers.IntegerField(required=False, default=30, min_value=live.ROUND_LIMIT_MINUTES[0],
                                                   max_value=live.ROUND_LIMIT_MINUTES[1],
                                                   help_text="Live: a game still running then is decided")
    spectator_delay = serializers.IntegerField(required=False, default=15, help_text="Live: seconds spectators lag",
                                               min_value=live.SPECTATOR_DELAY[0], max_value=live.SPECTATOR_DELAY[1])
    publish_at = serializers.DateTimeField(required=False, allow_null=True, default=None,
                                           help_text="Decklists public from (null: the start); the seed once over")
    publish = serializers.BooleanField(required=False, default=True, help_text="false keeps it a draft")


class EntrySerializer(serializers.ModelSerializer):
    """An entry. Its deck (``deck_id``, ``deck``, ``version``, ``decklist``) as the
    context's ``viewer`` may see it (``tournaments.selectors.entry_deck``): a deck hidden
    from them has null id, version and list and ``deck`` "Deck hidden until <time> UTC"."""

    player = serializers.CharField(source="player.username", read_only=True)
    deck_id = serializers.SerializerMethodField(help_text="The deck's page; null until decklists are published "
                                                          "(your own entry's always)")
    deck = serializers.SerializerMethodField(help_text="The deck's name, or 'Deck hidden until <time> UTC'")
    version = serializers.SerializerMethodField(help_text="null while the deck is hidden")
    hidden_until = serializers.SerializerMethodField(help_text="When a hidden deck is published; null if shown")
    decklist = serializers.SerializerMethodField(help_text="Public once the event has started and published its "
                                                           "decklists; null before")

    class Meta:
        model = Entry
        fields = ["id", "player", "deck_id", "deck", "version", "hidden_until", "seed", "waitlisted", "late",
                  "dropped", "dropped_round", "drop_reason", "plays", "checked_in", "absences", "created", "decklist"]

    def _deck(self, entry: Entry) -> dict[str, Any]:
        if "visibility" not in self.context:
            self.context["visibility"] = deck_visibility(self.context.get("viewer"))
        return entry_deck(entry, viewer=self.context.get("viewer"), visibility=self.context["visibility"])

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_deck_id(self, entry: Entry) -> int | None:
        return self._deck(entry)["deck_id"]

    def get_deck(self, entry: Entry) -> str:
        return self._deck(entry)["deck"]

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_version(self, entry: Entry) -> int | None:
        return self._deck(entry)["version"]

    @extend_schema_field(serializers.DateTimeField(allow_null=True))
    def get_hidden_until(self, entry: Entry) -> str | None:
        until = self._deck(entry)["hidden_until"]
        return until.isoformat() if until else None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_decklist(self, entry: Entry) -> str | None:
        if not self.context.get("decklists") or self._deck(entry)["deck_id"] is None:
            return None
        return entry.deck_version.decklist


class EnterSerializer(serializers.Serializer):
    deck = serializers.IntegerField(min_value=0, max_value=MAX_ID,
                                    help_text="One of your decks; its current version is frozen into the entry")
    plays = serializers.ChoiceField(choices=Entry.Plays.choices, required=False, allow_null=True, default=None,
                                    help_text="Live events: person (you play, the default) or, in a mixed event, "
                                              "bot (the deck's pilot plays); bot events: bot")


class StandingSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    rank = serializers.IntegerField(required=False)
    place = serializers.IntegerField(allow_null=True, help_text="Final place in the elimination stage")
    entry = serializers.DictField()
    points = serializers.IntegerField(required=False)
    matches = serializers.IntegerField(required=False)
    wins = serializers.IntegerField(required=False)
    draws = serializers.IntegerField(required=False)
    losses = serializers.IntegerField(required=False)
    byes = serializers.IntegerField(required=False)
    game_wins = serializers.IntegerField(required=False)
    games = serializers.IntegerField(required=False)
    mwp = serializers.FloatField(required=False, help_text="Match-win %")
    omw = serializers.FloatField(required=False, help_text="Opponents' match-win % (each floored at 1/3)")
    gwp = serializers.FloatField(required=False, help_text="Game-win %")
    ogw = serializers.FloatField(required=False, help_text="Opponents' game-win %")
    score = serializers.IntegerField(required=False, help_text="The game's standings score over the event "
                                                           "(named by the event's score_label); 0 without one")
    h2h = serializers.IntegerField(required=False, help_text="Head-to-head score inside a tied group")
    tied_with = serializers.ListField(child=serializers.IntegerField(), required=False)


class PairingSerializer(serializers.Serializer):
    table = serializers.IntegerField()
    key = serializers.CharField()
    entries = serializers.ListField(child=serializers.DictField())
    bye = serializers.BooleanField()
    sit_out = serializers.BooleanField()
    status = serializers.CharField()
    match = serializers.IntegerField(allow_null=True)
    match_status = serializers.CharField(allow_null=True)
    match_url = serializers.CharField(allow_null=True)
    match_progress = serializers.IntegerField(allow_null=True)
    replaced = serializers.ListField(child=serializers.DictField())
    result = serializers.DictField(allow_null=True)
    winner = serializers.IntegerField(allow_null=True)
    live = serializers.DictField(allow_null=True, help_text="Live events: the current game's board, clocks by "
                                                            "entry, and whether it is being played")
    series = serializers.ListField(child=serializers.DictField(), help_text="Live best-of: the finished games")


class RoundSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    stage = serializers.CharField()
    finished = serializers.DateTimeField(allow_null=True)
    pairings = PairingSerializer(many=True)


class MyMatchSerializer(serializers.Serializer):
    """What the signed-in player plays now in one event."""

    entry = serializers.IntegerField()
    plays = serializers.CharField()
    checked_in = serializers.DateTimeField(allow_null=True)
    check_in = serializers.DictField(allow_null=True, help_text="The check-in window (opens, closes, open now)")
    dropped = serializers.BooleanField()
    drop_reason = serializers.CharField()
    waitlisted = serializers.BooleanField()
    absences = serializers.IntegerField(help_text="Rounds in a row without showing up (two drop the entry)")
    round = serializers.IntegerField()
    table = serializers.IntegerField(allow_null=True)
    status = serializers.CharField(help_text="waiting, playing, done, bye, dropped or over")
    text = serializers.CharField(help_text="The status in words")
    match = serializers.IntegerField(allow_null=True)
    game = serializers.IntegerField(allow_null=True, help_text="The game of a best-of match being played")
    board_url = serializers.CharField(allow_null=True, help_text="The live board of the current game")
    match_url = serializers.CharField(allow_null=True)
    opponents = serializers.ListField(child=serializers.DictField())
    result = serializers.DictField(allow_null=True)
