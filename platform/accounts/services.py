"""Writes of the accounts app: creating players and their API tokens."""

from __future__ import annotations

from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

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
    username = (username or "").strip() if isinstance(username, str) else ""
    if not username:
        errors["username"] = ["choose a username"]
    elif len(username) > USERNAME_MAX_LENGTH:
        errors["username"] = [f"a username has at most {USERNAME_MAX_LENGTH} characters"]
    else:
        try:
            user_model.username_validator(username)
        except ValidationError as exc:
            errors["username"] = list(exc.messages)
        if "username" not in errors and user_model.objects.filter(username__iexact=username).exists():
            errors["username"] = [f"the username '{username}' is taken"]
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


def token_for(*, user: AbstractBaseUser) -> str:
    """The user's API token, created on first use (one token per user)."""
    token, _ = Token.objects.get_or_create(user=user)
    return token.key
