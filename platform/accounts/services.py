"""Writes of the accounts app: creating players and their API tokens; bots, their settings
and their tokens (docs/bots-api.md)."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from rest_framework.authtoken.models import Token

from accounts.models import BotAccount, BotError, BotToken
from accounts.names import forget_bot_usernames
from engine import games
from web import effects

#: Longest accepted username (Django's own limit is 150; names show in brackets and tables).
USERNAME_MAX_LENGTH = 40


def user_register(*, username: str, password: str) -> AbstractBaseUser:
    """Create a player with ``username`` and ``password``.

    The username follows Django's rules (letters, digits and @/./+/-/_) and must be free,
    compared without regard to case; the password must pass every configured password
    validator. Raises ``ValidationError`` with every problem per field; writes nothing then.
    """
    user_model = get_user_model()
    errors: dict[str, list[str]] = {}
    username = _clean_account_name(username, "username", errors, empty="choose a username",
                                   what="a username", taken="the username")
    if not isinstance(password, str) or not password:
        errors["password"] = ["choose a password"]
    else:
        try:
            password_validation.validate_password(password, user_model(username=username))
        except ValidationError as exc:
            errors["password"] = list(exc.messages)
    if errors:
        raise ValidationError(errors)
    try:
        with transaction.atomic():
            return user_model.objects.create_user(username=username, password=password)
    except IntegrityError:
        # Someone took the name between the check and the insert.
        raise ValidationError({"username": [f"the username '{username}' is taken"]}) from None


def _clean_account_name(value: Any, field: str, errors: dict[str, list[str]], *, empty: str, what: str,
                        taken: str) -> str:
    """An account's name (a player's or a bot's) stripped; its problem, if any, under
    ``field`` in ``errors``: empty, too long, characters Django refuses, or taken by any
    account without regard to case."""
    user_model = get_user_model()
    name = value.strip() if isinstance(value, str) else ""
    if not name:
        errors[field] = [empty]
    elif len(name) > USERNAME_MAX_LENGTH:
        errors[field] = [f"{what} has at most {USERNAME_MAX_LENGTH} characters"]
    else:
        try:
            user_model.username_validator(name)
        except ValidationError as exc:
            errors[field] = list(exc.messages)
        if field not in errors and user_model.objects.filter(username__iexact=name).exists():
            errors[field] = [f"{taken} '{name}' is taken"]
    return name


def token_for(*, user: AbstractBaseUser) -> str:
    """The user's API token, created on first use (one token per user)."""
    token, _ = Token.objects.get_or_create(user=user)
    return token.key


# --------------------------------------------------------------------------- bots

#: How many bots one owner may have, and active tokens one bot may have.
BOTS_PER_OWNER = 10
TOKENS_PER_BOT = 10
#: Longest bot description and token name.
BOT_DESCRIPTION_MAX = 1000
TOKEN_NAME_MAX = 60
#: A token starts with this, so that it is told from a player's API token at a glance
#: (and by secret scanners).
BOT_TOKEN_PREFIX = "bot_"
#: A token's ``last_used`` is written at most this often (seconds): not a write per request.
LAST_USED_EVERY = 60

#: Errors kept per bot for its owner's log; a bot is online while its events socket gave a
#: sign of life within ONLINE_SECONDS (the reference client pings every 20 s); after
#: FAILURES_OFFLINE refused frames in a row on a game's socket it is taken offline.
BOT_ERRORS_KEPT = 500
ONLINE_SECONDS = 60
SEEN_EVERY = 15
FAILURES_OFFLINE = 25

BOT_FLAGS = ("accepts_people", "accepts_bots", "accepts_rated", "accepts_unrated", "matchmaking")


def token_group(token_id: int) -> str:
    """The channel-layer group of a token's open connections: revoking the token tells them
    to close."""
    return f"bot-token.{token_id}"


def token_digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _clean_games(value: Any, errors: dict[str, list[str]]) -> list[str]:
    known = list(games)
    if not isinstance(value, list | tuple) or not value or not all(isinstance(g, str) for g in value):
        errors["games"] = [f"name at least one game the bot plays: {', '.join(known)}"]
        return []
    unknown = [g for g in value if g not in known]
    if unknown:
        errors["games"] = [f"unknown game {unknown[0][:40]!r}: the games are {', '.join(known)}"]
        return []
    return sorted(set(value), key=known.index)


def _clean_bot_fields(fields: Mapping[str, Any], errors: dict[str, list[str]]) -> dict[str, Any]:
    cleaned: dict[str, Any] = {}
    if "games" in fields:
        cleaned["games"] = _clean_games(fields["games"], errors)
    if "description" in fields:
        description = fields["description"]
        if description is None:
            description = ""
        if not isinstance(description, str):
            errors["description"] = ["a description is text"]
        elif len(description) > BOT_DESCRIPTION_MAX:
            errors["description"] = [f"a description has at most {BOT_DESCRIPTION_MAX} characters"]
        else:
            cleaned["description"] = description.strip()
    for flag in BOT_FLAGS:
        if flag in fields:
            if not isinstance(fields[flag], bool):
                errors[flag] = [f"{flag} is true or false"]
            else:
                cleaned[flag] = fields[flag]
    return cleaned


def bot_create(*, owner: AbstractBaseUser, name: str, games: Any, **fields: Any) -> BotAccount:
    """Create bot ``name`` for ``owner``: an account of its own (no password: it cannot log
    in to the site) with its :class:`BotAccount`. ``fields``: ``description`` and the flags
    of :data:`BOT_FLAGS`. A bot cannot own bots. Raises ``ValidationError`` per field;
    writes nothing then."""
    errors: dict[str, list[str]] = {}
    if is_bot(owner):
        raise ValidationError({"owner": ["a bot cannot create bots; its owner can"]})
    unknown = set(fields) - {"description", *BOT_FLAGS}
    if unknown:
        raise ValidationError({sorted(unknown)[0]: ["not a field of a bot"]})
    cleaned = _clean_bot_fields({"games": games, **fields}, errors)
    user_model = get_user_model()
    name = _clean_account_name(name, "name", errors, empty="choose a name for the bot", what="a bot's name",
                               taken="the name")
    if errors:
        raise ValidationError(errors)
    try:
        with transaction.atomic():
            # Counted under a lock on the owner's row: two requests at once cannot both
            # take the last place.
            user_model.objects.select_for_update().get(pk=owner.pk)
            if BotAccount.objects.filter(owner=owner).count() >= BOTS_PER_OWNER:
                raise ValidationError({"name": [f"you have {BOTS_PER_OWNER} bots, the most one player may have"]})
            user = user_model(username=name)
            user.set_unusable_password()
            user.save()
            bot = BotAccount.objects.create(user=user, owner=owner, **cleaned)
            # This process marks the new bot's name at once (accounts.names.bot_usernames).
            forget_bot_usernames()
            transaction.on_commit(forget_bot_usernames)
            return bot
    except IntegrityError:
        raise ValidationError({"name": [f"the name '{name}' is taken"]}) from None


def bot_update(*, bot: BotAccount, owner: AbstractBaseUser, **fields: Any) -> BotAccount:
    """Change ``bot``'s games, description or flags (its owner only). The name stays: it is
    the account's name in every result. Raises ``PermissionDenied`` for another player,
    ``ValidationError`` per field; writes nothing then."""
    if bot.owner_id != owner.pk:
        raise PermissionDenied("only the bot's owner can change it")
    unknown = set(fields) - {"games", "description", *BOT_FLAGS}
    if unknown:
        raise ValidationError({sorted(unknown)[0]: ["not a field that can be changed"]})
    errors: dict[str, list[str]] = {}
    cleaned = _clean_bot_fields(fields, errors)
    if errors:
        raise ValidationError(errors)
    for key, value in cleaned.items():
        setattr(bot, key, value)
    if cleaned:
        bot.save(update_fields=list(cleaned))
    return bot


def bot_token_create(*, bot: BotAccount, owner: AbstractBaseUser, name: str) -> tuple[BotToken, str]:
    """A new token for ``bot`` named ``name``: the row and the token itself, which is not
    stored and cannot be shown again. Owner only; at most :data:`TOKENS_PER_BOT` active."""
    if bot.owner_id != owner.pk:
        raise PermissionDenied("only the bot's owner can create its tokens")
    name = name.strip() if isinstance(name, str) else ""
    if not name:
        raise ValidationError({"name": ["name the token (where it is used, e.g. 'laptop')"]})
    if len(name) > TOKEN_NAME_MAX:
        raise ValidationError({"name": [f"a token's name has at most {TOKEN_NAME_MAX} characters"]})
    with transaction.atomic():
        BotAccount.objects.select_for_update().get(pk=bot.pk)
        if BotToken.objects.filter(bot=bot, revoked__isnull=True).count() >= TOKENS_PER_BOT:
            raise ValidationError({"name": [f"the bot has {TOKENS_PER_BOT} active tokens: revoke one first"]})
        secret = BOT_TOKEN_PREFIX + secrets.token_urlsafe(32)
        row = BotToken.objects.create(bot=bot, name=name, digest=token_digest(secret), prefix=secret[:12])
    return row, secret


def bot_token_revoke(*, token: BotToken, owner: AbstractBaseUser) -> BotToken:
    """Revoke ``token`` (owner only): refused from now on, and its open connections are told
    to close once this commits. Revoking a revoked token changes nothing."""
    if token.bot.owner_id != owner.pk:
        raise PermissionDenied("only the bot's owner can revoke its tokens")
    with transaction.atomic():
        changed = BotToken.objects.filter(pk=token.pk, revoked__isnull=True).update(revoked=timezone.now())
        if changed:
            effects.broadcast_on_commit(token_group(token.pk), {"type": "token.revoked", "token": token.pk})
    token.refresh_from_db()
    return token


def bot_token_touch(*, token: BotToken) -> None:
    """Record that ``token`` was used now, at most once every :data:`LAST_USED_EVERY` seconds."""
    now = timezone.now()
    stale = now - timedelta(seconds=LAST_USED_EVERY)
    BotToken.objects.filter(pk=token.pk).filter(
        Q(last_used__isnull=True) | Q(last_used__lt=stale)).update(last_used=now)


def bot_record_error(*, user_id: int, match_id: int | None, code: str, message: str) -> None:
    """Keep an error answered to bot ``user_id``'s frame for its owner's log; the oldest
    beyond :data:`BOT_ERRORS_KEPT` are deleted now and then (one insert in 50)."""
    bot = BotAccount.objects.filter(user_id=user_id).only("pk").first()
    if bot is None:
        return
    row = BotError.objects.create(bot=bot, match_id=match_id, code=code[:40], message=message[:300])
    if row.pk % 50 == 0:
        keep = list(BotError.objects.filter(bot=bot).order_by("-created", "-id")
                    .values_list("pk", flat=True)[BOT_ERRORS_KEPT - 1:BOT_ERRORS_KEPT])
        if keep:
            BotError.objects.filter(bot=bot, pk__lt=keep[0]).delete()


def bot_seen(*, user_id: int, online: bool, reason: str = "", now=None) -> None:
    """A sign of life of bot ``user_id``'s events socket (``online``), or its end: the
    socket closed, or the site took the bot offline (``reason`` says why). A sign of life
    is written at most every :data:`SEEN_EVERY` seconds."""
    now = now or timezone.now()
    bots = BotAccount.objects.filter(user_id=user_id)
    if online:
        bots.filter(Q(last_seen__isnull=True) | Q(last_seen__lt=now - timedelta(seconds=SEEN_EVERY))
                    | Q(offline_since__isnull=False)).update(last_seen=now, offline_since=None, offline_reason="")
    else:
        # The first reason stands: a socket closed after the bot was taken offline does not
        # hide why.
        bots.filter(offline_since__isnull=True).update(offline_since=now, offline_reason=reason[:200])


def is_bot(user: Any) -> bool:
    """Whether ``user`` is a bot's account."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    try:
        return user.bot_account is not None
    except BotAccount.DoesNotExist:
        return False
