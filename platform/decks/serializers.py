"""API shapes of decks and deck versions."""

from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from decks.models import Deck, DeckVersion
from web.serializers import GameChoiceField


class DeckVersionSerializer(serializers.ModelSerializer):
    """One immutable version of a deck."""

    decklist = serializers.CharField(help_text="Canonical plain-text decklist, commander line first")
    card_count = serializers.SerializerMethodField(help_text="Cards in the deck, the commander not counted")

    class Meta:
        model = DeckVersion
        fields = ["number", "decklist", "commander", "pilot", "card_count", "created"]
        read_only_fields = fields

    def get_card_count(self, version: DeckVersion) -> int:
        return version.card_count()


class DeckSerializer(serializers.ModelSerializer):
    """A deck with its latest version inlined (``version``, ``commander``, ``decklist``)."""

    owner = serializers.CharField(source="owner.username", read_only=True, help_text="The owner's username")
    version = serializers.SerializerMethodField(help_text="Number of the latest version")
    commander = serializers.SerializerMethodField(
        help_text="The deck's commander card (a Leader, a Celestial, ...: the game's commander_label)"
    )
    decklist = serializers.SerializerMethodField(help_text="The latest version's canonical decklist")
    card_count = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField(help_text="The deck's page on the website")
    versions_url = serializers.SerializerMethodField()

    class Meta:
        model = Deck
        fields = [
            "id", "game", "name", "owner", "pilot", "is_starter", "ladder", "version", "commander", "decklist",
            "card_count", "created", "updated", "url", "versions_url",
        ]
        read_only_fields = fields

    def get_version(self, deck: Deck) -> int | None:
        latest = deck.latest_version
        return latest.number if latest else None

    def get_commander(self, deck: Deck) -> str:
        latest = deck.latest_version
        return latest.commander if latest else ""

    def get_decklist(self, deck: Deck) -> str:
        latest = deck.latest_version
        return latest.decklist if latest else ""

    def get_card_count(self, deck: Deck) -> int:
        latest = deck.latest_version
        return latest.card_count() if latest else 0

    def get_url(self, deck: Deck) -> str:
        return deck.get_absolute_url()

    def get_versions_url(self, deck: Deck) -> str:
        return reverse("api:deck-versions", args=[deck.pk])


class DeckWriteSerializer(serializers.Serializer):
    """What a client sends to create (every field) or change (PATCH: any field) a deck.

    The deck rules are checked by ``decks.services``; this only checks that each field is
    text. ``game`` cannot change after creation.
    """

    game = GameChoiceField()
    name = serializers.CharField(allow_blank=True, max_length=200)
    decklist = serializers.CharField(
        allow_blank=True,
        trim_whitespace=False,
        help_text='Plain text: "Leader: Name" or "Celestial: Name", then one "N Card Name" line per card',
    )
    pilot = serializers.CharField(allow_blank=True, max_length=100, help_text="Bot spec, e.g. greedy or search:fast")
    ladder = serializers.BooleanField(
        required=False, help_text="Play on the bot ladder between tournaments (false when left out on creation)"
    )
