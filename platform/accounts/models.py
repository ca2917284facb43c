"""Bot accounts and their API tokens (docs/bots-api.md).

A bot is an account of its own: a ``User`` that cannot log in to the site (no usable
password), with a :class:`BotAccount` naming its owner, the games it plays and whom it
accepts challenges from. Its name is its username, so it is shown, linked and seated
wherever a player is, and marked as a bot wherever a name appears.

A :class:`BotToken` lets a program act as one bot and nothing else: it authenticates as
the bot's own user, never as the owner. Only a SHA-256 digest of the token is stored; the
token itself is shown once, when it is created. A revoked token is refused at once.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class BotAccount(models.Model):
    """What makes an account a bot: its owner, its games, its challenge settings."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bot_account")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bots")
    games = models.JSONField(default=list, help_text="Keys of the games the bot plays")
    description = models.TextField(blank=True, max_length=1000)
    accepts_people = models.BooleanField(default=True, help_text="Takes challenges from people")
    accepts_bots = models.BooleanField(default=True, help_text="Takes challenges from other bots")
    accepts_rated = models.BooleanField(default=True, help_text="Takes rated challenges")
    accepts_unrated = models.BooleanField(default=True, help_text="Takes unrated challenges")
    matchmaking = models.BooleanField(default=False, help_text="Waits in the live matchmaking queue when online")
    created = models.DateTimeField(auto_now_add=True)
    last_seen = models.DateTimeField(null=True, blank=True,
                                     help_text="Last sign of life of its events socket (connect or ping)")
    offline_since = models.DateTimeField(null=True, blank=True,
                                         help_text="When its events socket closed or the site took it offline")
    offline_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["owner_id", "user__username"]

    def __str__(self) -> str:
        return f"bot {self.user.get_username()} (of {self.owner.get_username()})"

    @property
    def name(self) -> str:
        return self.user.get_username()


class BotError(models.Model):
    """An error the site answered one of the bot's frames with, kept for its owner's log
    (the newest ``accounts.services.BOT_ERRORS_KEPT`` per bot)."""

    bot = models.ForeignKey(BotAccount, on_delete=models.CASCADE, related_name="errors")
    match_id = models.BigIntegerField(null=True, blank=True, help_text="The live match the frame was sent on")
    code = models.CharField(max_length=40)
    message = models.CharField(max_length=300)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [models.Index(fields=["bot", "-created"], name="boterror_bot_recent")]


class BotToken(models.Model):
    """One API token of a bot: named, shown once, stored as a digest, revocable."""

    bot = models.ForeignKey(BotAccount, on_delete=models.CASCADE, related_name="tokens")
    name = models.CharField(max_length=60)
    digest = models.CharField(max_length=64, unique=True, help_text="hex(sha256(token))")
    prefix = models.CharField(max_length=12, help_text="The token's first characters, to tell tokens apart")
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)
    revoked = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["bot_id", "-created", "-id"]

    def __str__(self) -> str:
        return f"token {self.prefix}… of {self.bot.name} ({'revoked' if self.revoked else 'active'})"

    @property
    def active(self) -> bool:
        return self.revoked is None
