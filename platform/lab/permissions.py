"""Who may see and change a lab run: a run reveals a deck's figures, so its owner and
staff only. Views, the API and the socket ask these functions."""

from __future__ import annotations

from lab.models import LabRun


def can_view_lab(user, run: LabRun) -> bool:
    if user is None or not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    return run.owner_id == user.pk


def can_start_lab(user, deck) -> bool:
    """Only a deck's owner runs a lab of it, and only while it is not deleted."""
    return bool(user is not None and user.is_authenticated and deck.owner_id == user.pk and not deck.archived)
