"""Who may do what with a deck: one function per permission, one condition a line.

Views, the API and any consumer ask these functions, never the rows directly.
"""

from __future__ import annotations

from decks.models import Deck


def can_view_deck(user, deck: Deck) -> bool:
    """Every deck is public: decklists are what players challenge and study."""
    return True


def can_edit_deck(user, deck: Deck) -> bool:
    """Only the owner edits a deck, and only while it is not archived."""
    if not user.is_authenticated:
        return False
    if deck.archived:
        return False
    return deck.owner_id == user.pk


def can_delete_deck(user, deck: Deck) -> bool:
    """Deleting (archiving) a deck is an edit: the owner's alone."""
    return can_edit_deck(user, deck)


def can_register_deck(user) -> bool:
    """Any signed-in player may register decks."""
    return user.is_authenticated
