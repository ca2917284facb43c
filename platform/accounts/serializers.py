"""API shapes of the accounts app."""

from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers


class CredentialsSerializer(serializers.Serializer):
    """``{"username", "password"}`` of register and token requests."""

    username = serializers.CharField(max_length=150, trim_whitespace=True)
    password = serializers.CharField(max_length=128, trim_whitespace=False, write_only=True)


class UserSerializer(serializers.Serializer):
    """A player as other players see them."""

    id = serializers.IntegerField(read_only=True)
    username = serializers.CharField(read_only=True)
    date_joined = serializers.DateTimeField(read_only=True)
    url = serializers.SerializerMethodField(help_text="The player's profile page")

    def get_url(self, user) -> str:
        return reverse("accounts:profile", args=[user.get_username()])


class RegisteredSerializer(serializers.Serializer):
    """The answer to a registration: the new player and their API token."""

    user = UserSerializer()
    token = serializers.CharField()


class TokenSerializer(serializers.Serializer):
    """``{"token": "..."}``: send it as ``Authorization: Token <token>``."""

    token = serializers.CharField()


class BotTokenSerializer(serializers.Serializer):
    """A bot's token as its owner sees it later: never the token itself."""

    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(read_only=True)
    prefix = serializers.CharField(read_only=True, help_text="The token's first characters")
    created = serializers.DateTimeField(read_only=True)
    last_used = serializers.DateTimeField(read_only=True, allow_null=True)
    revoked = serializers.DateTimeField(read_only=True, allow_null=True)


class NewBotTokenSerializer(BotTokenSerializer):
    """A token just created: the only answer that carries ``token``."""

    token = serializers.CharField(read_only=True, help_text="Send as 'Authorization: Bearer <token>'; shown once")


class BotTokenRequestSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, help_text="Where the token is used, e.g. 'laptop'")


class BotSerializer(serializers.Serializer):
    """A bot: its name, owner, games and whom it accepts challenges from."""

    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(read_only=True)
    owner = serializers.CharField(source="owner.username", read_only=True)
    games = serializers.ListField(child=serializers.CharField(), read_only=True)
    description = serializers.CharField(read_only=True)
    accepts_people = serializers.BooleanField(read_only=True)
    accepts_bots = serializers.BooleanField(read_only=True)
    accepts_rated = serializers.BooleanField(read_only=True)
    accepts_unrated = serializers.BooleanField(read_only=True)
    matchmaking = serializers.BooleanField(read_only=True)
    created = serializers.DateTimeField(read_only=True)
    url = serializers.SerializerMethodField(help_text="The bot's profile page")

    def get_url(self, bot) -> str:
        return reverse("accounts:profile", args=[bot.name])


class BotRequestSerializer(serializers.Serializer):
    """The body of ``POST /api/bots/`` (every field) and ``PATCH`` (any but ``name``)."""

    name = serializers.CharField(max_length=200, required=False, allow_blank=True)
    games = serializers.ListField(child=serializers.CharField(max_length=40), max_length=20, required=False)
    description = serializers.CharField(max_length=5000, required=False, allow_blank=True)
    accepts_people = serializers.BooleanField(required=False)
    accepts_bots = serializers.BooleanField(required=False)
    accepts_rated = serializers.BooleanField(required=False)
    accepts_unrated = serializers.BooleanField(required=False)
    matchmaking = serializers.BooleanField(required=False)
