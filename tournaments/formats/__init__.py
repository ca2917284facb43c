"""Tournament formats as pure functions: Swiss, round robin, Conquest pods, elimination
brackets and standings. No Django, no I/O: the ``tournaments`` app stores entries and
results and calls these to know what to play next. See docs/tournaments.md ("Formats").
"""

from .bracket import Bracket, swiss_top_cut
from .pods import pod_pairings, pod_sizes
from .roundrobin import round_robin_schedule
from .standings import standings, unresolved_ties
from .swiss import swiss_pairings, swiss_recommended_rounds
from .types import DEFAULT_POINTS, Pairing, Player, PointsTable, Result, Standing, bye_result, place_points

__all__ = [
    "DEFAULT_POINTS",
    "Bracket",
    "Pairing",
    "Player",
    "PointsTable",
    "Result",
    "Standing",
    "bye_result",
    "place_points",
    "pod_pairings",
    "pod_sizes",
    "round_robin_schedule",
    "standings",
    "swiss_pairings",
    "swiss_recommended_rounds",
    "swiss_top_cut",
    "unresolved_ties",
]
