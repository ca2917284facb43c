"""Tournament formats as pure functions and one object per format: Swiss, round robin,
pods, elimination brackets and standings. No Django, no I/O: the ``tournaments``
app stores entries and results and asks an event's :class:`Format` what to play next.
See docs/tournaments.md ("Formats") and docs/architecture.md ("The Format contract").
"""

from .bracket import Bracket, DoubleElimination, SingleElimination, SwissWithTopCut, swiss_top_cut
from .pods import Pods, pod_pairings, pod_rounds, pod_sizes
from .registry import (
    GROUP_STAGES,
    KNOCKOUT_STAGES,
    SETTING_NAMES,
    EventState,
    Format,
    GroupFormat,
    PairSpec,
    Step,
    all_formats,
    find_format,
    get_format,
    register,
    unregister,
)
from .roundrobin import RoundRobin, round_robin_schedule
from .standings import standings, unresolved_ties
from .swiss import Swiss, swiss_pairings, swiss_recommended_rounds
from .types import DEFAULT_POINTS, Pairing, Player, PointsTable, Result, Standing, bye_result, place_points

# The formats of today, under the keys stored in Tournament.format (registration order is
# the order they are listed in).
for _format in (Swiss(), SingleElimination(), DoubleElimination(), RoundRobin(), SwissWithTopCut(),
                Pods()):
    register(_format)
del _format

__all__ = [
    "DEFAULT_POINTS",
    "GROUP_STAGES",
    "KNOCKOUT_STAGES",
    "SETTING_NAMES",
    "Bracket",
    "DoubleElimination",
    "EventState",
    "Format",
    "GroupFormat",
    "PairSpec",
    "Pairing",
    "Player",
    "Pods",
    "PointsTable",
    "Result",
    "RoundRobin",
    "SingleElimination",
    "Standing",
    "Step",
    "Swiss",
    "SwissWithTopCut",
    "all_formats",
    "bye_result",
    "find_format",
    "get_format",
    "place_points",
    "pod_pairings",
    "pod_rounds",
    "pod_sizes",
    "register",
    "round_robin_schedule",
    "standings",
    "swiss_pairings",
    "swiss_recommended_rounds",
    "swiss_top_cut",
    "unregister",
    "unresolved_ties",
]
