"""Who may do what with a deck: one function per permission, one condition a line.

Views, the API and any consumer ask these functions, never the rows directly.
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from decks.models import Deck, DeckVersion
from decks.selectors import withheld_decks

#: What a page or an answer says where a hidden deck's name would be.
HIDDEN_LABEL = "Deck hidden until {until} UTC"


class DeckVisibility:
    """Which decks one viewer may see: the one rule of deck privacy, read once.

    A deck is public, except while it is entered in an event whose decklists are not
    published yet (``decks.selectors.withheld_decks``: upcoming, or started with its
    ``publish_at`` still to come). Then its id, name, versions, link and list are hidden
    from everyone but its owner, staff and the organiser of that event; a deck entered in
    several such events is hidden from an organiser unless they run all of them. The deck
    is hidden everywhere it would be named (its own pages, lists, matches, the ladder, other
    events), not only in the event that withholds it.

    Built per request (or per message); the entries of the withholding events are read
    with one query on first use. ``now`` fixes the clock (tests, a consistent page).
    """

    def __init__(self, user=None, *, now: datetime | None = None, deck_ids=None):
        self.user = user
        self.now = now
        self._deck_ids = None if deck_ids is None else list(deck_ids)
        self._hidden: dict[int, datetime] | None = None

    @property
    def sees_all(self) -> bool:
        return bool(self.user is not None and self.user.is_authenticated and self.user.is_staff)

    def _load(self) -> dict[int, datetime]:
        if self._hidden is None:
            hidden: dict[int, datetime] = {}
            if not self.sees_all:
                viewer = self.user.pk if self.user is not None and self.user.is_authenticated else None
                for row in withheld_decks(now=self.now or timezone.now(), deck_ids=self._deck_ids):
                    if viewer is not None and viewer in (row["owner"], row["organiser"]):
                        continue
                    hidden[row["deck"]] = max(hidden.get(row["deck"], row["until"]), row["until"])
            self._hidden = hidden
        return self._hidden

    def hidden_until(self, deck) -> datetime | None:
        """When ``deck`` (a Deck, a DeckVersion or a deck id) is published for this viewer,
        or None if they may see it now."""
        deck_id = deck.deck_id if isinstance(deck, DeckVersion) else getattr(deck, "pk", deck)
        return self._load().get(deck_id)

    def can_view(self, deck) -> bool:
        return self.hidden_until(deck) is None

    def hidden_ids(self) -> set[int]:
        return set(self._load())

    def label(self, deck) -> str:
        """What to show instead of a hidden deck's name: "Deck hidden until <time> UTC"."""
        until = self.hidden_until(deck)
        return HIDDEN_LABEL.format(until=until.strftime("%Y-%m-%d %H:%M")) if until else ""

    def deck_json(self, deck_version: DeckVersion) -> dict:
        """``deck_id``, ``deck`` (name) and ``version`` of one seat or entry for this
        viewer, and ``hidden_until``: ids and names of a hidden deck are null and its label."""
        until = self.hidden_until(deck_version)
        if until is not None:
            return {"deck_id": None, "deck": self.label(deck_version), "version": None, "hidden_until": until}
        return {"deck_id": deck_version.deck_id, "deck": deck_version.deck.name, "version": deck_version.number,
                "hidden_until": None}


def deck_visibility(user=None, *, now: datetime | None = None, deck_ids=None) -> DeckVisibility:
    """The deck privacy of ``user`` (None: an anonymous visitor, e.g. a broadcast to a group)."""
    return DeckVisibility(user, now=now, deck_ids=deck_ids)


def request_deck_visibility(request) -> DeckVisibility:
    """The request's viewer's deck privacy, built once per request."""
    cached = getattr(request, "_deck_visibility", None)
    if cached is None:
        cached = request._deck_visibility = DeckVisibility(getattr(request, "user", None))
    return cached


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
