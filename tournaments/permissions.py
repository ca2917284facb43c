"""Who may do what with tournaments: one function per permission, one condition a line.

Views, the API and the admin ask these functions, never the rows directly.
"""

from __future__ import annotations

from tournaments.models import Entry, Tournament


def can_view_tournament(user, tournament: Tournament) -> bool:
    """Published events are public; a draft only to its organiser and staff."""
    if tournament.state != Tournament.State.DRAFT:
        return True
    return can_manage_tournament(user, tournament)


def can_create_tournament(user) -> bool:
    """Any signed-in player may organise an event."""
    return bool(user and user.is_authenticated)


def can_manage_tournament(user, tournament: Tournament) -> bool:
    """The organiser and staff run the event (edit, start, pause, cancel, drop, re-run)."""
    if not (user and user.is_authenticated):
        return False
    return user.is_staff or tournament.organiser_id == user.pk


def can_drop_entry(user, entry: Entry) -> bool:
    """A player drops their own entry; the organiser and staff may drop anyone's."""
    if not (user and user.is_authenticated):
        return False
    return entry.player_id == user.pk or can_manage_tournament(user, entry.tournament)


def can_see_decklists(user, tournament: Tournament, now=None) -> bool:
    """Decklists are public once the event starts and the organiser's publication time
    (``publish_at``, if set) has come; before, only to the organiser and staff."""
    from tournaments.selectors import published  # cycle: tournaments.selectors imports tournaments.permissions

    if can_manage_tournament(user, tournament):
        return True
    return tournament.has_started and published(tournament, now)
