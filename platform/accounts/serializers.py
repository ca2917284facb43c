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
