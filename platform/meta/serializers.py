"""Serializers of the metagame API (``meta.api``): the selectors' figures as JSON. Rates
are fractions from 0 to 1 (null without a match behind them)."""

from __future__ import annotations

from rest_framework import serializers


class MetaDeckSerializer(serializers.Serializer):
    deck_id = serializers.IntegerField()
    name = serializers.CharField()
    owner = serializers.CharField()
    matches = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    win_rate = serializers.FloatField(allow_null=True, help_text="Wins plus half the draws, over the matches")


class MetaDeckRefSerializer(serializers.Serializer):
    deck_id = serializers.IntegerField()
    name = serializers.CharField()


class MetaCellSerializer(serializers.Serializer):
    deck = MetaDeckRefSerializer(help_text="The row deck")
    opponent = MetaDeckRefSerializer(help_text="The column deck")
    matches = serializers.IntegerField(source="cell.matches")
    wins = serializers.IntegerField(source="cell.wins")
    draws = serializers.IntegerField(source="cell.draws")
    losses = serializers.IntegerField(source="cell.losses")
    win_rate = serializers.FloatField(source="cell.win_rate", allow_null=True,
                                      help_text="The row deck's wins plus half its draws, over the matches")
    thin = serializers.BooleanField(source="cell.thin", help_text="Fewer than 10 matches: too few to read")


class MetaCardSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    type = serializers.CharField()
    decks = serializers.IntegerField(help_text="Decks of the period that include the card")
    games = serializers.IntegerField(help_text="Games of those decks (one per deck and game)")
    played = serializers.IntegerField(help_text="Of those games, the ones in which the card was played")
    drawn = serializers.IntegerField(help_text="Of those games, the ones in which the card was drawn")
    play_rate = serializers.FloatField(allow_null=True, help_text="played / games")
    played_win_rate = serializers.FloatField(allow_null=True, help_text="Win rate of the games in which it was played")
    drawn_win_rate = serializers.FloatField(allow_null=True)
    improvement = serializers.FloatField(
        allow_null=True, help_text="Win rate when drawn minus win rate when included but not drawn")


class MetaPilotSerializer(serializers.Serializer):
    deck = MetaDeckRefSerializer()
    pilot = serializers.CharField(source="pilot.pilot")
    matches = serializers.IntegerField(source="pilot.matches")
    wins = serializers.IntegerField(source="pilot.wins")
    draws = serializers.IntegerField(source="pilot.draws")
    losses = serializers.IntegerField(source="pilot.losses")
    win_rate = serializers.FloatField(source="pilot.win_rate", allow_null=True)
