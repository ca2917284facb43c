"""The rating model of the ladder, with no Django: openskill's Plackett-Luce (Weng-Lin).

One function, :func:`rate`, turns the ratings of a match's participants and their
places into their new ratings. The worker that records a result and the rebuild command
both call it, in the same order, so a rebuild reproduces the stored numbers bit for bit.

Every match is one ranking: a two-player result is places ``[1, 2]`` (or ``[1, 1]`` for
a draw), a match of three or four players its places by entry, equal places being
ties. The shown rating is the conservative ordinal ``mu - 3 sigma``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from openskill.models import PlackettLuce

#: The model's parameters: openskill's defaults, written out so that docs/ladder.md and
#: the rebuild can rely on them. ``tau`` (openskill's default additive dynamics) keeps
#: sigma from collapsing, so a deck that changes keeps moving.
MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
KAPPA = 0.0001
TAU = 25.0 / 300.0
#: The ordinal is ``mu - Z * sigma``: about 99.7 % sure the skill is at least this.
Z = 3.0


@dataclass(frozen=True)
class Skill:
    """A rating: mean and uncertainty of the skill."""

    mu: float = MU
    sigma: float = SIGMA

    @property
    def ordinal(self) -> float:
        return ordinal(self.mu, self.sigma)


def ordinal(mu: float, sigma: float) -> float:
    """The conservative rating shown everywhere: ``mu - 3 sigma``."""
    return mu - Z * sigma


@cache
def model() -> PlackettLuce:
    """The one model instance (its parameters are constants above)."""
    return PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, kappa=KAPPA, tau=TAU)


def rate(skills: Sequence[Skill], places: Sequence[int]) -> list[Skill]:
    """New skills of the participants of one match, ``places[i]`` being participant
    ``i``'s place (1 is first; equal places are a tie). Each participant is a one-player
    team. Raises ``ValueError`` for fewer than two participants or mismatched lengths."""
    if len(skills) < 2 or len(skills) != len(places):
        raise ValueError(f"a rated match needs two or more participants with a place each, not {len(skills)} "
                         f"participants and {len(places)} places")
    m = model()
    teams = [[m.create_rating([s.mu, s.sigma])] for s in skills]
    rated = m.rate(teams, ranks=[float(p) for p in places])
    return [Skill(team[0].mu, team[0].sigma) for team in rated]


def outcome_letter(*, place: int, places: Sequence[int]) -> str:
    """``W`` alone in first place, ``D`` first place shared, ``L`` otherwise."""
    if place != 1:
        return "L"
    return "W" if sum(1 for p in places if p == 1) == 1 else "D"
