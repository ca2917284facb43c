"""Helpers of the accounts, cards and decks tests: decklists built from the starter decks,
and API clients."""

from __future__ import annotations

from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from engine import games


def starter_decklist(game: str, index: int = 0):
    """The engine's starter deck ``index`` of ``game`` (an engine Decklist)."""
    return list(games[game].starter_decks().values())[index]


def starter_text(game: str, index: int = 0) -> str:
    """Starter deck ``index`` of ``game`` as plain decklist text (a valid deck)."""
    return starter_decklist(game, index).to_text(games[game].commander_label)


def replace_line(text: str, old_card: str, new_line: str) -> str:
    """``text`` with the line of ``old_card`` replaced by ``new_line``."""
    lines = [new_line if line.split(" ", 1)[-1] == old_card else line for line in text.splitlines()]
    assert lines != text.splitlines(), f"{old_card} is not in the decklist"
    return "\n".join(lines) + "\n"


def first_card(game: str, index: int = 0) -> tuple[str, int]:
    """The first (card, count) of starter deck ``index`` of ``game``."""
    return starter_decklist(game, index).cards[0]


def token_client(user: User) -> APIClient:
    """An API client sending ``Authorization: Token <user's token>``."""
    token, _ = Token.objects.get_or_create(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client
