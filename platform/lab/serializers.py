"""API shapes of the deck lab: the start request, a run in a list, a match in a list.
The full figures of a run (``GET /api/lab/<id>/``) are ``lab.selectors.lab_summary``."""

from __future__ import annotations

from rest_framework import serializers

from lab import conf
from lab.models import LabMatch, LabRun


class LabStartSerializer(serializers.Serializer):
    """``POST /api/decks/<id>/lab/``; every field optional. Bounds are checked by the service."""

    n = serializers.IntegerField(required=False, help_text="Matches to play, 1 to LAB_MAX_MATCHES (2,000); "
                                                             "default LAB_DEFAULT_MATCHES (200)")
    field_kind = serializers.ChoiceField(choices=LabRun.FieldKind.choices, required=False,
                                         default=LabRun.FieldKind.LADDER)
    top = serializers.IntegerField(required=False, help_text="ladder: how many of the top decks (default 8)")
    field_decks = serializers.ListField(child=serializers.IntegerField(), required=False, default=list,
                                        help_text="decks: the ids of the decks to play against (at most 16)")
    pilot = serializers.ChoiceField(choices=conf.PILOTS, required=False, default="random")
    opponent_pilot = serializers.ChoiceField(choices=conf.PILOTS, required=False, allow_blank=True,
                                             help_text="Default: the same pilot as the deck's")


class LabRunSerializer(serializers.ModelSerializer):
    deck_name = serializers.CharField(source="deck.name", read_only=True)
    version = serializers.IntegerField(source="deck_version.number", read_only=True)
    url = serializers.CharField(source="get_absolute_url", read_only=True)

    class Meta:
        model = LabRun
        fields = ["id", "game", "deck", "deck_name", "version", "field_kind", "pilot", "opponent_pilot",
                  "matches_wanted", "progress", "status", "created", "started", "finished", "url"]


class LabMatchSerializer(serializers.ModelSerializer):
    """A lab match; the opponent's cards (``usage.opponent``) are left out, as its replay is,
    while its deck is hidden from the viewer (``context["visibility"]``)."""

    replay_url = serializers.CharField(source="get_absolute_url", read_only=True)

    class Meta:
        model = LabMatch
        fields = ["number", "opponent_version", "deck_seat", "pilot", "opponent_pilot", "outcome", "actions",
                  "ending", "usage", "replay_url"]

    def to_representation(self, instance):
        data = super().to_representation(instance)
        visibility = self.context.get("visibility")
        if visibility is not None and not visibility.can_view(instance.opponent_version):
            data["usage"] = {**data["usage"], "opponent": None}
            data["opponent_version"] = None
        return data
