"""Standings with tiebreakers, and the ties that are left for Match the Twos."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .types import DEFAULT_POINTS, Player, PointsTable, Result, Standing


def standings(players: Sequence[Player], results: Sequence[Result], *, game: str,
              points: PointsTable = DEFAULT_POINTS, decided: Sequence[Sequence[int]] = ()) -> list[Standing]:
    """Every player's standing, best first, in this tiebreak order:

    1. match points (``points`` by place; a bye scores first place, 3);
    2. opponents' match-win % (OMW): the mean, over every opponent met (byes are not
       opponents), of that opponent's match-win %, each floored at 1/3;
    3. game-win % (GW): (3 x games won + games drawn) / (3 x games played), byes as 2-0;
    4. opponents' game-win % (OGW): as OMW, with each opponent's GW floored at 1/3;
    5. Conquest only (``game="conquest"``): total Conquest scored over the event;
    6. head-to-head: inside a group still tied, if every two of them have met, the one with
       more wins than losses against the others of the group ranks higher;
    7. ``decided``: orders fixed by Match the Twos, each a list of player ids best first;
    then still tied: shared ``rank``, ``tied_with`` filled, displayed by seed.

    Dropped players keep their standing (marked ``dropped``).
    """
    raise NotImplementedError


def unresolved_ties(table: Sequence[Standing], lines: Iterable[int]) -> list[list[int]]:
    """Groups of player ids still tied across one of ``lines``, in display order.

    A line ``k`` lies between positions k and k+1: for a top cut of 8 pass ``[8]``; for
    prizes for 1st, 2nd and 3rd pass ``[1, 2, 3]``. A tied group matters when it holds
    both position k and position k+1 for some line k. The caller breaks each group with
    Match the Twos and passes the order back through ``standings(..., decided=...)``.
    """
    raise NotImplementedError
