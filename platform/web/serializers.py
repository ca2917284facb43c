"""Serializer fields every API shares."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from web.games import game_choices


class GameChoiceField(serializers.ChoiceField):
    """A game's key, one of ``engine.games`` at the time of the request (not of import),
    so that a game registered later is accepted without a change here."""

    def __init__(self, **kwargs: Any):
        super().__init__(choices=game_choices(), **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        self.choices = game_choices()
        return super().to_internal_value(data)
