"""API shapes of the ladder: leaderboard rows, ratings and rating history."""

from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from decks.permissions import deck_visibility
from ladder.models import Rating, RatingChange


class RatedDeckSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    owner = serializers.CharField(source="owner.username")
    url = serializers.CharField(source="get_absolute_url")


class RatingSerializer(serializers.ModelSerializer):
    """A rating: ``rating`` is the shown (conservative) ordinal ``mu - 3 sigma``."""

    rating = serializers.FloatField(source="ordinal", help_text="mu - 3 sigma, the number ranked by")
    win_rate = serializers.FloatField(allow_null=True, help_text="wins / games; null before the first game")
    trend = serializers.FloatField(help_text="Change of the rating over the last five rated matches")
    provisional = serializers.BooleanField(help_text="Fewer rated matches than LADDER_PROVISIONAL_GAMES")
    form = serializers.CharField(help_text="Last results, oldest first: W win, D shared first place, L loss")
    deck = serializers.SerializerMethodField()
    player = serializers.SerializerMethodField()

    class Meta:
        model = Rating
        fields = ["game", "pool", "rating", "mu", "sigma", "games", "wins", "draws", "losses", "win_rate", "form",
                  "trend", "provisional", "last_played", "deck", "player"]
        read_only_fields = fields

    def get_deck(self, rating: Rating) -> RatedDeckSerializer(allow_null=True):  # type: ignore[valid-type]
        # RatedDeckSerializer's shape, built directly: a nested serializer per row costs
        # more than the rest of a leaderboard page.
        if not rating.deck_id:
            return None
        deck = rating.deck
        hidden = deck_visibility(None, deck_ids=[deck.pk]).label(deck)  # the same answer for everyone
        if hidden:
            return {"id": None, "name": hidden, "owner": deck.owner.username, "url": None}
        return {"id": deck.pk, "name": deck.name, "owner": deck.owner.username, "url": deck.get_absolute_url()}

    def get_player(self, rating: Rating) -> str | None:
        return rating.player.get_username() if rating.player_id else None


class RankedRatingSerializer(RatingSerializer):
    rank = serializers.IntegerField(
        allow_null=True, help_text="1 + the number of higher ratings of the leaderboard; null for a deleted deck"
    )

    class Meta(RatingSerializer.Meta):
        fields = ["rank", *RatingSerializer.Meta.fields]
        read_only_fields = fields


class RatingChangeSerializer(serializers.ModelSerializer):
    """One rated match of a rating: the version that played, the place, before and after."""

    match = serializers.IntegerField(source="match_id")
    match_url = serializers.SerializerMethodField()
    version = serializers.SerializerMethodField(help_text="The deck version that played (null if unknown)")
    rating = serializers.FloatField(source="ordinal", help_text="mu - 3 sigma after the match")
    rating_before = serializers.FloatField(source="ordinal_before")

    class Meta:
        model = RatingChange
        fields = ["match", "match_url", "played", "version", "entry", "place", "entries", "outcome", "rating_before",
                  "rating", "mu_before", "sigma_before", "mu", "sigma"]
        read_only_fields = fields

    def get_match_url(self, change: RatingChange) -> str:
        return reverse("matches:detail", args=[change.match_id])

    def get_version(self, change: RatingChange) -> int | None:
        return change.deck_version.number if change.deck_version_id else None
