"""API shape of a card."""

from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from decks.cards.selectors import CardFace


class CardSerializer(serializers.Serializer):
    """A card as the face shows it, plus the engine's own JSON of it under ``data``."""

    game = serializers.CharField()
    id = serializers.CharField(help_text="Stable id: the name in lower case, hyphenated")
    name = serializers.CharField(help_text="The name as decklists spell it")
    type = serializers.CharField(help_text="The game's card type: unit, tactic, its commander's type, ...")
    type_line = serializers.CharField()
    costs = serializers.DictField(
        child=serializers.IntegerField(), help_text="The costs the game prints (its card_costs), by key"
    )
    stats = serializers.DictField(
        child=serializers.IntegerField(), help_text="The stats the game prints (its card_stats), by key"
    )
    keywords = serializers.ListField(child=serializers.CharField())
    text = serializers.CharField(help_text="Rules text")
    flavor = serializers.CharField()
    is_commander = serializers.BooleanField(
        help_text="The deck's commander card (the game's commander_label: Leader, Celestial, ...)"
    )
    data = serializers.DictField(help_text="The card as the engine describes it (GAME.cards())")
    url = serializers.CharField(help_text="The card's page on the website")

    def to_representation(self, instance: CardFace) -> dict:
        return {**instance.to_json(), "url": reverse("cards:detail", args=[instance.game, instance.id])}
