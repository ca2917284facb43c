"""JSON shapes of matches, for the API, the live socket and the match page's polling.

One shape everywhere: the socket's ``match.update`` event carries exactly what
``GET /api/matches/<id>/`` answers, so the page renders both the same way.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from matches.models import Match, MatchGame, MatchSeat


class MatchSeatSerializer(serializers.ModelSerializer):
    deck_id = serializers.IntegerField(source="deck_version.deck_id", read_only=True)
    deck = serializers.CharField(source="deck_version.deck.name", read_only=True)
    version = serializers.IntegerField(source="deck_version.number", read_only=True)
    owner = serializers.CharField(source="deck_version.deck.owner.username", read_only=True)

    class Meta:
        model = MatchSeat
        fields = ["seat", "deck_id", "deck", "version", "owner", "pilot"]


class MatchGameSerializer(serializers.ModelSerializer):
    winner = serializers.SerializerMethodField(help_text="The entry that won the game; null for a draw")
    places = serializers.SerializerMethodField(help_text="Place of each entry (1 is first)")
    reason = serializers.SerializerMethodField()
    scores = serializers.SerializerMethodField(help_text="Engine scores, by engine seat")
    replay_url = serializers.SerializerMethodField()
    api_replay_url = serializers.SerializerMethodField()

    class Meta:
        model = MatchGame
        fields = ["number", "seat_order", "winner", "places", "reason", "scores", "actions", "bot_errors",
                  "tiebreak", "replay_url", "api_replay_url"]

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_winner(self, game: MatchGame) -> int | None:
        return game.winner_entry

    def get_places(self, game: MatchGame) -> list[int]:
        return list(game.outcome.get("entry_places") or [])

    def get_reason(self, game: MatchGame) -> str:
        return str(game.outcome.get("reason") or "")

    def get_scores(self, game: MatchGame) -> list[Any]:
        return list(game.outcome.get("scores") or [])

    def get_replay_url(self, game: MatchGame) -> str:
        return reverse("matches:replay", args=[game.match_id]) + f"?game={game.number}"

    def get_api_replay_url(self, game: MatchGame) -> str:
        return reverse("matches-api:replay", args=[game.match_id]) + f"?game={game.number}"


class MatchSerializer(serializers.ModelSerializer):
    """A match in lists: who plays, how it stands."""

    created_by = serializers.CharField(source="created_by.username", read_only=True, default=None)
    seats = MatchSeatSerializer(many=True, read_only=True)
    winner = serializers.IntegerField(source="winner_seat", read_only=True, allow_null=True,
                                      help_text="The entry (seat number) that won; null until done, or a draw")
    url = serializers.SerializerMethodField()
    api_url = serializers.SerializerMethodField()

    class Meta:
        model = Match
        fields = ["id", "url", "api_url", "game", "status", "best_of", "progress", "seats", "winner", "created_by",
                  "created", "started", "finished"]

    def get_url(self, match: Match) -> str:
        return reverse("matches:detail", args=[match.pk])

    def get_api_url(self, match: Match) -> str:
        return reverse("matches-api:detail", args=[match.pk])


class MatchDetailSerializer(MatchSerializer):
    """A match with its games, result and error, as the match page and the socket show it."""

    games = MatchGameSerializer(many=True, read_only=True)
    waiting_for_tiebreak = serializers.SerializerMethodField()

    class Meta(MatchSerializer.Meta):
        fields = MatchSerializer.Meta.fields + ["seed", "params", "attempts", "result", "error", "games",
                                                "waiting_for_tiebreak"]

    def get_waiting_for_tiebreak(self, match: Match) -> bool:
        return match.status == Match.Status.RUNNING and match.lease_owner.startswith("tiebreak:")


class ChallengeSerializer(serializers.Serializer):
    """``POST /api/matches/``: the decks (ids; each plays its latest version) and best-of."""

    decks = serializers.ListField(
        child=serializers.IntegerField(min_value=1), min_length=1, max_length=8,
        help_text="Deck ids, the challenger's deck first: two for TempoFront, two to four for Conquest",
    )
    best_of = serializers.IntegerField(default=1, help_text="1, 3 or 5")
    params = serializers.DictField(required=False, help_text="Rules parameters of the game (optional)")
